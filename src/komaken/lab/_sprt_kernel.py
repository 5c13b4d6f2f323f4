"""The kernels of the lab's sequential tests.

``tilt_lambda`` and ``tilt_loglik`` are the GSPRT's fit, the one home of that arithmetic
(:mod:`komaken.lab.pentanomial` calls them for the runner's test, :func:`simulate_stops` for the
simulated one): for observed outcome frequencies ``p`` over ``values`` and a hypothesised mean
score ``s``, the most likely distribution with that mean is ``p_i / (1 + λ(x_i − s))``, ``λ``
the root of ``Σ p_i (x_i − s) / (1 + λ(x_i − s))``, and its log-likelihood relative to ``p`` is
``−Σ p_i log(1 + λ(x_i − s))``.

``simulate_stops`` plays many runs of one SPRT (for :mod:`komaken.lab.sprt_elo`), each drawn
from a known outcome distribution until the test stops, and returns the mean score each run
stopped with.  A run draws one outcome at a time (a game, or a game pair), keeps the counts per
outcome and applies the test after every draw, as the lab's runner does:

* ``exact`` (the pentanomial model): the GSPRT above, empty cells given ``pseudo`` counts, ``λ``
  found from the previous draw's root;
* otherwise the normal approximation of :func:`komaken.lab.stats.gsprt_llr`,
  ``N·(s1 − s0)·(2m − s0 − s1)/(2v)``, 0 while the outcomes have no variance.

With ``normalized`` the hypotheses' scores move with the observed deviation: ``s = ½ + elo·k·σ``.

Run ``r`` seeds the generator with ``seed + r``, so the same runs see the same uniform numbers
whatever the distribution: drawing by the inverse of the cumulative distribution, a distribution
that is larger in the likelihood-ratio order gives every run an outcome at least as large.  That
makes the estimated stopping distribution move monotonically with the Elo it is drawn at.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def tilt_lambda(p: np.ndarray, values: np.ndarray, s: float, guess: float) -> float:
    """The root ``λ`` of ``g(λ) = Σ p_i (x_i − s) / (1 + λ(x_i − s))`` (decreasing in λ) between
    the poles, by Newton steps from ``guess`` that fall back to bisection when they leave the
    bracket; ``s`` strictly inside the range of ``values``."""
    lo = -1.0 / (values.max() - s)
    hi = 1.0 / (s - values.min())
    lam = guess if lo < guess < hi else 0.0
    for _ in range(100):
        g = 0.0
        dg = 0.0
        for j in range(len(values)):
            d = values[j] - s
            q = 1.0 + lam * d
            g += p[j] * d / q
            dg -= p[j] * d * d / (q * q)
        if abs(g) < 1e-13:
            break
        if g > 0.0:
            lo = lam
        else:
            hi = lam
        step = lam - g / dg
        lam = step if lo < step < hi else 0.5 * (lo + hi)
    return lam


@njit(cache=True)
def tilt_loglik(p: np.ndarray, values: np.ndarray, s: float, lam: float) -> float:
    """``−Σ p_i log(1 + λ(x_i − s))``: the log-likelihood, per outcome, of the distribution with
    mean ``s`` fitted by ``tilt_lambda`` (its ``lam``), relative to ``p``."""
    total = 0.0
    for j in range(len(values)):
        total -= p[j] * np.log(1.0 + lam * (values[j] - s))
    return total


@njit(cache=True, parallel=True)
def simulate_stops(values: np.ndarray, probs: np.ndarray, elo_scores: np.ndarray, normalized: bool, k: float,
                   lower: float, upper: float, cap: int, runs: int, seed: int, exact: bool,
                   pseudo: float) -> np.ndarray:
    """The mean outcome each of ``runs`` runs stopped with (at a bound or at ``cap`` draws).

    ``elo_scores`` is ``(s0, s1)`` for logistic units, ``(elo0, elo1)`` with ``normalized``."""
    m_out = len(values)
    vmin = values.min()
    vmax = values.max()
    cumulative = np.cumsum(probs)
    cumulative[m_out - 1] = 1.0
    out = np.empty(runs)
    for r in prange(runs):
        np.random.seed(seed + r)
        counts = np.zeros(m_out)
        p = np.empty(m_out)
        n = 0
        total = 0.0
        lam0 = 0.0
        lam1 = 0.0
        while n < cap:
            u = np.random.random()
            i = 0
            while u > cumulative[i]:
                i += 1
            counts[i] += 1.0
            n += 1
            total += values[i]
            w = 0.0
            for j in range(m_out):
                c = counts[j]
                if exact and c == 0.0:
                    c = pseudo
                p[j] = c
                w += c
            m = 0.0
            for j in range(m_out):
                p[j] /= w
                m += p[j] * values[j]
            v = 0.0
            for j in range(m_out):
                v += p[j] * (values[j] - m) * (values[j] - m)
            if normalized:
                s0 = 0.5 + elo_scores[0] * k * np.sqrt(v)
                s1 = 0.5 + elo_scores[1] * k * np.sqrt(v)
            else:
                s0 = elo_scores[0]
                s1 = elo_scores[1]
            if exact:
                if not (vmin < s0 < vmax and vmin < s1 < vmax):
                    continue
                lam0 = tilt_lambda(p, values, s0, lam0)
                lam1 = tilt_lambda(p, values, s1, lam1)
                llr = n * (tilt_loglik(p, values, s1, lam1) - tilt_loglik(p, values, s0, lam0))
            else:
                if v <= 1e-15:
                    continue
                llr = n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * v)
            if llr >= upper or llr <= lower:
                break
        out[r] = total / n
    return out
