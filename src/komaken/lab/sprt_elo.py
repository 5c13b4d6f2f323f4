"""The Elo of a stopped SPRT, corrected for the stopping.

A sequential test stops when its evidence crosses a bound, so it stops early on runs that
happened to go well for H1 or for H0: the plain Elo of the games played (the maximum-likelihood
estimate, MLE) is biased away from the middle of the test.  A test of ``[0, 10]`` that accepts
H1 after 3 000 games overstates the Elo on average, and one that accepts H0 understates it.

**The correction** here is the *median-unbiased* estimate with the MLE ordering of sequential
analysis (Emerson & Fleming 1990; Whitehead, *The Design and Analysis of Sequential Clinical
Trials*, ch. 5): the Elo ``θ̃`` at which a run of the **same test** (same bounds, same model,
same cap on games) would stop with a score above the one observed exactly half the time,

    ``P_θ̃(m ≥ m_obs) = ½``,

and the 95 % interval the Elos at which that probability is 2.5 % and 97.5 %.  ``P_θ`` is not
known in closed form for a truncated test with a discrete outcome, so it is estimated by
simulation (:mod:`komaken.lab._sprt_kernel`): runs drawn from the outcome distribution closest
to the observed one that has the score of ``θ``
(:func:`komaken.lab.pentanomial.closest_distribution`, the same tilt the GSPRT fits), with the
same random numbers at every ``θ`` so that the estimate is monotone, and the roots are found
by regula falsi on the probit scale (about a dozen simulated tests for the three).  The
simulated test is the runner's: after every pair the pentanomial GSPRT, with the same arithmetic
(:func:`komaken.lab._sprt_kernel.tilt_lambda`), after every game the trinomial one's normal
approximation.

A test that ran to its cap without crossing a bound is corrected too: its stopping rule is
"a bound or the cap", and the simulation applies the same.

>>> from komaken.lab.stats import SPRT
>>> e = sprt_elo(SPRT(0, 40), [40, 20, 60], cap=400, runs=400)
>>> round(e.mle, 1), e.elo < e.mle, e.lo < e.elo < e.hi
(58.5, True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from komaken.lab._sprt_kernel import simulate_stops
from komaken.lab.pentanomial import _C_ET, PAIR_SCORES, PSEUDO_COUNT, closest_distribution
from komaken.lab.stats import SPRT, elo_from_score, score_from_elo

#: the standard normal's quantile function (scipy.stats's norm.ppf, without importing scipy for it)
_quantile = NormalDist().inv_cdf

#: per-game scores of a loss, a draw and a win (the trinomial model's outcomes)
GAME_SCORES = (0.0, 0.5, 1.0)
#: the Elo range searched for the estimate and its interval
ELO_LIMIT = 800.0
#: a root is taken once the share is this close on the probit scale: below the simulation's own
#: noise (about 0.03 at the median with 2 000 runs)
PROBIT_TOLERANCE = 0.01


class SPRTEloError(ValueError):
    """Counts that cannot give a corrected Elo (wrong length, negative, none at all)."""


@dataclass(frozen=True, slots=True)
class SPRTElo:
    """The plain and the corrected Elo of one stopped test (logistic Elo, as the lab reports)."""

    mle: float  # the Elo of the games counted when the test stopped
    elo: float  # median-unbiased
    lo: float  # 95 % interval of the corrected estimate
    hi: float
    runs: int  # simulated runs per evaluated Elo

    def to_json(self) -> dict[str, float | int]:
        return {"mle": round(self.mle, 2), "elo": round(self.elo, 2), "lo": round(self.lo, 2),
                "hi": round(self.hi, 2), "runs": self.runs}


def sprt_elo(test: SPRT, counts: Sequence[int], cap: int, *, runs: int = 2000, seed: int = 1,
             confidence: float = 0.95) -> SPRTElo:
    """The corrected Elo of ``test`` stopped with ``counts``.

    ``counts`` are the five pair counts (0 … 2 points) for a pentanomial test, or
    ``[losses, draws, wins]`` for a trinomial one; ``cap`` is the most pairs (pentanomial) or
    games (trinomial) the test could have used.  Deterministic for a given ``seed``."""
    values = PAIR_SCORES if test.model == "pentanomial" else GAME_SCORES
    if len(counts) != len(values) or any(c < 0 for c in counts):
        raise SPRTEloError(f"a {test.model} test needs {len(values)} non-negative counts, not {list(counts)!r}")
    n = sum(counts)
    if n == 0:
        raise SPRTEloError("no games counted: a stopped test needs at least one")
    if cap < n:
        raise SPRTEloError(f"the cap ({cap}) is below the {n} counted")
    m_obs = sum(c * x for c, x in zip(counts, values, strict=True)) / n
    filled = [c if c > 0 else PSEUDO_COUNT for c in counts]
    probs = [c / sum(filled) for c in filled]
    pentanomial = test.model == "pentanomial"
    normalized = test.units == "normalized"
    k = (math.sqrt(2.0) if pentanomial else 1.0) / _C_ET
    bounds = np.array([test.elo0, test.elo1] if normalized  # float64 always: Elo given as ints is
                      else [score_from_elo(test.elo0), score_from_elo(test.elo1)],  # another compile
                      dtype=np.float64)
    vals = np.array(values, dtype=np.float64)

    def tail(theta: float) -> float:
        """``P_θ(m > m_obs) + ½·P_θ(m = m_obs)`` on the probit scale: increasing in θ, and close
        to a straight line, so that a few secant steps find its roots."""
        dist = closest_distribution(probs, score_from_elo(theta), values)
        stops = simulate_stops(vals, np.array(dist), bounds, normalized, k, test.lower, test.upper, int(cap),
                               int(runs), int(seed), pentanomial, PSEUDO_COUNT)
        above = np.count_nonzero(stops > m_obs + 1e-12)
        equal = np.count_nonzero(np.abs(stops - m_obs) <= 1e-12)
        share = (above + 0.5 * equal) / runs
        return float(_quantile(min(max(share, 0.5 / runs), 1.0 - 0.5 / runs)))

    mle = _elo(m_obs)
    # the fixed-sample standard error of the Elo: the bracket's first width
    var = sum(p * (x - m_obs) ** 2 for p, x in zip(probs, values, strict=True))
    spread = max(_elo(min(m_obs + 2.0 * math.sqrt(var / n), 1 - 1e-6)) - mle, 1.0)
    cache: dict[float, float] = {}

    def f(theta: float) -> float:
        theta = min(max(theta, -ELO_LIMIT), ELO_LIMIT)
        if theta not in cache:
            cache[theta] = tail(theta)
        return cache[theta]

    alpha = (1.0 - confidence) / 2.0
    elo, lo, hi = (round(_root(f, float(_quantile(q)), mle, spread), 2) for q in (0.5, alpha, 1.0 - alpha))
    return SPRTElo(mle=mle, elo=elo, lo=lo, hi=hi, runs=runs)


def _root(f: Callable[[float], float], z: float, start: float, spread: float) -> float:
    """The Elo where the increasing ``f`` crosses ``z``: regula falsi (Illinois) from a bracket of
    ``start ± 2·spread``, widened until it holds the root or reaches ``±ELO_LIMIT``."""
    a, b = start - 2.0 * spread, start + 2.0 * spread
    while f(a) > z and a > -ELO_LIMIT:
        a -= 4.0 * spread
    while f(b) < z and b < ELO_LIMIT:
        b += 4.0 * spread
    a, b = max(a, -ELO_LIMIT), min(b, ELO_LIMIT)
    fa, fb = f(a) - z, f(b) - z
    if fa >= 0:
        return a
    if fb <= 0:
        return b
    side = 0
    for _ in range(30):
        c = b - fb * (b - a) / (fb - fa)
        fc = f(c) - z
        if abs(fc) < PROBIT_TOLERANCE or b - a < 0.1:
            return c
        if fc < 0:
            a, fa = c, fc
            if side == -1:
                fb /= 2.0
            side = -1
        else:
            b, fb = c, fc
            if side == 1:
                fa /= 2.0
            side = 1
    return 0.5 * (a + b)


def _elo(score: float) -> float:
    elo = elo_from_score(min(max(score, 1e-6), 1 - 1e-6))
    assert elo is not None
    return elo


__all__ = ["GAME_SCORES", "SPRTElo", "SPRTEloError", "sprt_elo"]
