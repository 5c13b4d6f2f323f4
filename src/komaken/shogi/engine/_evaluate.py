"""Evaluation kernels: material plus optional positional terms, in the side to move's view.

``bval[piece code]`` holds signed values (black +, white -) and ``hval[color, kind]`` the signed
value of a piece in hand, so material is one table look-up per square.  The positional terms are
weighted by ``w`` (all zero: material only, so experiments can isolate piece values):

``w[W_MOBILITY]``     4 per pseudo-legal board move more than the opponent
``w[W_KING_SAFETY]``  +30 per gold/silver-like defender next to the king, -20 per square next
                      to the king that the enemy attacks
``w[W_PSQ]``          small bonus for advancing pawns, lances, knights and silvers
``w[W_NOISE]``        ± that many units of deterministic noise from the position hash and a seed
                      (the same position always gets the same noise, so the search stays
                      consistent and reproducible)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from komaken.errors import KomakenError
from komaken.shogi._board import BLACK_BIT, DIRS, KIND_MASK, SLIDE_N, SLIDES, STEP_N, STEPS, WALL
from komaken.shogi._kernels import R_HEIGHT, R_NSQ, R_SQUARES, ST_KING, ST_SIDE, attacked

W_MOBILITY, W_KING_SAFETY, W_PSQ, W_NOISE = 0, 1, 2, 3
W_SIZE = 4
TERMS = ("mobility", "king_safety", "psq", "noise")
#: allowed range of each weight: with piece values within ±100 000 the evaluation stays far from
#: the search's mate scores (and from int64 overflow)
WEIGHT_RANGES = {"mobility": (-1000.0, 1000.0), "king_safety": (-1000.0, 1000.0), "psq": (-1000.0, 1000.0),
                 "noise": (0.0, 100_000.0)}

# advance bonus per rank, by kind (pawn, lance, knight, silver)
_ADV = np.array([0, 6, 3, 4, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], dtype=np.int64)
# defenders next to the king: gold, silver and the gold-like promoted minors
_DEFENDER = np.array([0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0], dtype=np.int64)


@njit(cache=True)
def material(bd: np.ndarray, hd: np.ndarray, rules: np.ndarray, bval: np.ndarray, hval: np.ndarray) -> int:
    """Board plus hands, black's view."""
    v = 0
    for i in range(rules[R_NSQ]):
        v += bval[bd[rules[R_SQUARES + i]]]
    for k in range(1, 8):
        v += hval[0, k] * hd[0, k] + hval[1, k] * hd[1, k]
    return v


@njit(cache=True)
def _mobility(bd: np.ndarray, rules: np.ndarray) -> int:
    n = 0
    for i in range(rules[R_NSQ]):
        s = rules[R_SQUARES + i]
        p = bd[s]
        if p == 0:
            continue
        sign = 1 if p & BLACK_BIT else -1
        own = (p & (BLACK_BIT | 0x20)) | WALL
        for k in range(STEP_N[p]):
            if not (bd[s + STEPS[p, k]] & own):
                n += sign
        for k in range(SLIDE_N[p]):
            d = SLIDES[p, k]
            t = s + d
            while True:
                q = bd[t]
                if q & own:
                    break
                n += sign
                if q != 0:
                    break
                t += d
    return n


@njit(cache=True)
def _king_safety(bd: np.ndarray, st: np.ndarray) -> int:
    v = 0
    for c in range(2):
        k = st[ST_KING + c]
        if k == 0:
            continue
        sign = 1 - 2 * c
        bit = BLACK_BIT << c
        for j in range(8):
            s = k + DIRS[j]
            p = bd[s]
            if p == WALL:
                continue
            if (p & bit) and _DEFENDER[p & KIND_MASK]:
                v += 30 * sign
            if attacked(bd, s, 1 - c):
                v -= 20 * sign
    return v


@njit(cache=True)
def _psq(bd: np.ndarray, rules: np.ndarray) -> int:
    h = rules[R_HEIGHT]
    v = 0
    for i in range(rules[R_NSQ]):
        s = rules[R_SQUARES + i]
        p = bd[s]
        if p == 0:
            continue
        a = _ADV[p & KIND_MASK]
        if a == 0:
            continue
        r = s & 15
        if p & BLACK_BIT:
            v += a * (h - r)
        else:
            v -= a * (r - 1)
    return v


@njit(cache=True)
def noise(key: np.uint64, seed: int, amplitude: int) -> int:
    """Deterministic noise in ``[-amplitude, amplitude]`` from a position hash (splitmix64)."""
    if amplitude <= 0:
        return 0
    z = key ^ np.uint64(seed * 0x9E3779B97F4A7C15 & 0x7FFFFFFFFFFFFFFF)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return int(z % np.uint64(2 * amplitude + 1)) - amplitude


@njit(cache=True)
def evaluate(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, bval: np.ndarray,
             hval: np.ndarray, w: np.ndarray, key: np.uint64, seed: int) -> int:
    """The static evaluation from the side to move's view."""
    v = material(bd, hd, rules, bval, hval)
    extra = 0.0
    if w[W_MOBILITY] != 0.0:
        extra += 4.0 * w[W_MOBILITY] * _mobility(bd, rules)
    if w[W_KING_SAFETY] != 0.0:
        extra += w[W_KING_SAFETY] * _king_safety(bd, st)
    if w[W_PSQ] != 0.0:
        extra += w[W_PSQ] * _psq(bd, rules)
    v += int(extra)
    if st[ST_SIDE] == 1:
        v = -v
    if w[W_NOISE] > 0.0:
        v += noise(key, seed, int(w[W_NOISE]))
    return v


def check_weight(name: str, value: Any) -> float:
    """``value`` as the weight of term ``name``, or :class:`KomakenError` naming the term: a finite
    number (or number text) within :data:`WEIGHT_RANGES`, so no NaN or infinity reaches the kernels."""
    if name not in WEIGHT_RANGES:
        raise KomakenError(f"unknown evaluation term {name!r} (known: {', '.join(TERMS)})")
    number = None
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if numeric or (isinstance(value, str) and len(value) <= 40):
        try:
            number = float(value)
        except (ValueError, OverflowError):  # not a number; an integer beyond any float
            number = None
    low, high = WEIGHT_RANGES[name]
    if number is None or not math.isfinite(number) or not low <= number <= high:
        raise KomakenError(f"evaluation weight {name} must be a number within {low:g}..{high:g}, not {value!r}")
    return number


def weights(terms: Mapping[str, Any] | None = None) -> np.ndarray:
    """The ``w`` array from ``{"mobility": 1, ...}``; an unknown name or a value out of range
    raises :class:`KomakenError` (see :func:`check_weight`)."""
    w = np.zeros(W_SIZE, dtype=np.float64)
    for name, value in (terms or {}).items():
        w[TERMS.index(name)] = check_weight(name, value)
    return w
