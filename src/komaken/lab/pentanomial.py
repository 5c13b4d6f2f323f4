"""The pentanomial GSPRT: a sequential test over **game pairs** (one opening, both colours).

In a pairing with ``colors = "alternate"`` the lab plays games ``2k`` and ``2k+1`` from the
same opening ``k``, player a taking sente in the even game and gote in the odd one (see
:meth:`komaken.lab.config.Pairing.opening_index`).  Such a pair scores 0, ½, 1, 1½ or 2 points
for player a.  Counting pairs instead of games — the *pentanomial* model that fishtest and
fastchess use — removes the noise an unbalanced opening adds: a lopsided opening tends to give
one win to each side, which the pair counts as an even result.  The two games of a pair are
correlated, so treating them as independent games (the trinomial model) mis-states the variance.

**The test.**  Write a pair's result per game, ``x ∈ {0, ¼, ½, ¾, 1}``, with observed frequencies
``p̂``, over ``N`` complete pairs.  A hypothesis "the expected score is ``s``" is a set of
distributions with mean ``s``; its best fit to the data (maximum likelihood under the
constraint) is ``p_i = p̂_i / (1 + λ·(x_i − s))``, where ``λ`` is the root of
``Σ p̂_i (x_i − s) / (1 + λ·(x_i − s)) = 0`` — a decreasing function of ``λ`` on the interval
that keeps every ``p_i`` positive, found by safeguarded Newton steps
(:mod:`komaken.lab._sprt_kernel`).  The generalized log-likelihood ratio of H1 (``s1``) against
H0 (``s0``) is

    ``LLR = N · Σ p̂_i · log(p_i(s1) / p_i(s0))``.

Empty cells get a tiny pseudo-count (10⁻³), so the fit exists even when, say, every pair was
won.  ``s0``/``s1`` come from Elo in one of two units:

* ``logistic`` (the default): ``s = 1 / (1 + 10^(−elo/400))``, the Elo of the rest of the lab;
* ``normalized``: ``s = ½ + elo · √2 · σ / (800 / ln 10)``, where ``σ`` is the standard deviation
  of the per-game pair score ``x`` (so ``√2·σ`` estimates a single game's).  Normalized Elo
  measures a difference against the noise of the match, which makes ``[0, 2]`` mean the same
  test at any draw rate.

>>> round(pentanomial_llr([0, 5, 10, 5, 0], 0.0, 20.0), 4)  # even pairs; normal approx.: -0.2647
-0.2644
>>> pentanomial_llr([0, 0, 0, 0, 0], 0.0, 5.0)
0.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from komaken.lab._sprt_kernel import tilt_lambda, tilt_loglik

#: per-game score of a pair scoring 0, ½, 1, 1½, 2 points
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
_PAIR_VALUES = np.array(PAIR_SCORES)
PSEUDO_COUNT = 1e-3
ELO_UNITS = ("logistic", "normalized")
_C_ET = 800.0 / math.log(10.0)


def pentanomial_counts(indexed: Iterable[tuple[int, str]]) -> list[int]:
    """The five pair counts from ``(game_index, result)`` (result ``"a"``, ``"b"`` or ``"draw"``).

    Games ``2k`` and ``2k+1`` form pair ``k``; a pair with only one stored game is not counted yet.

    >>> pentanomial_counts([(0, "a"), (1, "draw"), (2, "b"), (3, "a"), (4, "a")])
    [0, 0, 1, 1, 0]
    """
    points = {"a": 2, "draw": 1, "b": 0}  # half-points
    halves: dict[int, list[int]] = {}
    for index, result in indexed:
        halves.setdefault(index // 2, []).append(points[result])
    counts = [0] * 5
    for pair in halves.values():
        if len(pair) == 2:
            counts[sum(pair)] += 1
    return counts


def _mean_var(probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(p * x for p, x in zip(probs, PAIR_SCORES, strict=True))
    var = sum(p * (x - mu) ** 2 for p, x in zip(probs, PAIR_SCORES, strict=True))
    return mu, var


def _regularized(counts: Sequence[int]) -> tuple[float, list[float]]:
    n = float(sum(counts))
    filled = [c if c > 0 else PSEUDO_COUNT for c in counts]
    total = sum(filled)
    return n, [c / total for c in filled]


def _lambda(probs: Sequence[float], s: float, values: Sequence[float] = PAIR_SCORES) -> float:
    """The root ``λ`` of ``Σ p_i (x_i − s) / (1 + λ(x_i − s))`` (:func:`tilt_lambda`)."""
    return float(tilt_lambda(np.asarray(probs, dtype=np.float64), np.asarray(values, dtype=np.float64), s, 0.0))


def closest_distribution(probs: Sequence[float], s: float, values: Sequence[float] = PAIR_SCORES) -> list[float]:
    """The distribution over ``values`` with mean ``s`` that the data ``probs`` make most likely:
    ``p_i / (1 + λ(x_i − s))``, the hypothesis' best fit the test compares (``s`` strictly inside
    the range of ``values``)."""
    lam = _lambda(probs, s, values)
    q = [p / (1.0 + lam * (x - s)) for p, x in zip(probs, values, strict=True)]
    total = sum(q)
    return [x / total for x in q]


def mle_log_likelihood(counts: Sequence[int], s: float) -> float:
    """Per-pair log-likelihood of the best distribution with mean ``s``, relative to ``p̂``:
    ``−Σ p̂_i log(1 + λ(x_i − s))`` (0 when ``s`` is the observed mean, negative otherwise)."""
    _, probs = _regularized(counts)
    p = np.asarray(probs, dtype=np.float64)
    return float(tilt_loglik(p, _PAIR_VALUES, s, tilt_lambda(p, _PAIR_VALUES, s, 0.0)))


def score_bounds(counts: Sequence[int], elo0: float, elo1: float, units: str = "logistic") -> tuple[float, float]:
    """The expected per-game scores ``(s0, s1)`` that H0 and H1 stand for."""
    if units == "logistic":
        return tuple(1.0 / (1.0 + 10.0 ** (-e / 400.0)) for e in (elo0, elo1))  # type: ignore[return-value]
    if units != "normalized":
        raise ValueError(f"unknown Elo units {units!r} (known: {', '.join(ELO_UNITS)})")
    _, probs = _regularized(counts)
    sigma = math.sqrt(_mean_var(probs)[1])
    return tuple(0.5 + e * math.sqrt(2.0) * sigma / _C_ET for e in (elo0, elo1))  # type: ignore[return-value]


def pentanomial_llr(counts: Sequence[int], elo0: float, elo1: float, units: str = "logistic") -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) from the five pair
    counts ``[LL, LD, DD+WL, WD, WW]`` (0, ½, 1, 1½, 2 points); ``0.0`` with no pairs."""
    if len(counts) != 5 or any(c < 0 for c in counts):
        raise ValueError(f"pentanomial counts must be five non-negative numbers, not {list(counts)!r}")
    n = sum(counts)
    if n == 0:
        return 0.0
    s0, s1 = score_bounds(counts, elo0, elo1, units)
    if not (0.0 < s0 < 1.0 and 0.0 < s1 < 1.0):
        return 0.0
    return n * (mle_log_likelihood(counts, s1) - mle_log_likelihood(counts, s0))


__all__ = ["ELO_UNITS", "PAIR_SCORES", "PSEUDO_COUNT", "closest_distribution", "mle_log_likelihood",
           "pentanomial_counts", "pentanomial_llr", "score_bounds"]
