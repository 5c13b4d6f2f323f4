"""Evaluation kernels: material plus positional terms with tunable tables, in the side to move's view.

``bval[piece code]`` holds signed values (black +, white -) and ``hval[color, kind]`` the signed
value of a piece in hand, so material is one table look-up per square.  ``w`` carries the rest:
the weight of each positional term (slots :data:`W_MOBILITY` .. :data:`W_NOISE`, all zero:
material only, so experiments can isolate piece values) and, from :data:`O_RANK` on, the tables
the terms read (:mod:`komaken.shogi.engine.params` loads them from a variant's parameter file;
without one :func:`weights` fills in :func:`legacy_tables`).  Every table entry is a bonus in
units of the piece values (a pawn is 100) for the owner of the piece or king:

``mobility``     ``MOB[kind]`` per pseudo-legal board move of a piece of that kind
``king_safety``  ``SHIELD[kind]`` per own piece next to the king, ``ATTACKED[n]`` for ``n`` squares
                 next to the king that the enemy attacks, ``ATTACKER[kind]`` per enemy piece within
                 two squares (Chebyshev distance) of the king, and ``UNDEFENDED[u, h]`` for ``u`` of
                 those attacked squares that no other own piece defends while the enemy holds ``h``
                 pieces in hand (3 for three or more): where a dropped piece lands next to the king
``psq``          ``RANK[kind, r]`` with ``r`` the piece's rank counted from its owner's back rank
                 (0 .. height-1), ``FILE[kind, d]`` with ``d`` the distance from the centre file
                 (``|2·file − (width+1)| // 2``), and ``TEMPO`` for the side to move
``noise``        ± that many units of deterministic noise from the position hash and a seed
                 (the same position always gets the same noise, so the search stays
                 consistent and reproducible)

Each term is the sum of its table entries times the term's weight; the sum of the weighted terms
is truncated to an integer and added to the material.  The built-in tables (:func:`legacy_tables`:
4 a move; 30 a gold or silver-like defender, -20 an attacked square; 6/3/4/4/1 a rank for
P/L/N/S/G) are what a variant without a parameter file plays, and the piece-value study's fixed
evaluation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from komaken.errors import KomakenError
from komaken.shogi._board import (
    BASE,
    BLACK_BIT,
    DIRS,
    KIND_MASK,
    PROMOTED,
    WALL,
    WHITE_BIT,
)
from komaken.shogi._kernels import (
    MAX_SLIDES,
    MAX_STEPS,
    R_HEIGHT,
    R_NSQ,
    R_SLIDE_N,
    R_SLIDES,
    R_SQUARES,
    R_STEP_N,
    R_STEPS,
    R_WIDTH,
    ST_KING,
    ST_SIDE,
    attacked,
    move_drop_kind,
    move_from,
    move_promotes,
    move_to,
)

W_MOBILITY, W_KING_SAFETY, W_PSQ, W_NOISE = 0, 1, 2, 3
TERMS = ("mobility", "king_safety", "psq", "noise")
#: table layout inside ``w``: kinds are piece-code kinds 0..15 (1..8 P L N S G B R K, 9..15 promoted)
N_KINDS, N_RANKS, N_FILES, N_ATTACKED, N_HAND = 16, 9, 5, 9, 4
O_RANK = 4
O_FILE = O_RANK + N_KINDS * N_RANKS
O_MOB = O_FILE + N_KINDS * N_FILES
O_SHIELD = O_MOB + N_KINDS
O_ATTACKER = O_SHIELD + N_KINDS
O_ATTACKED = O_ATTACKER + N_KINDS
O_TEMPO = O_ATTACKED + N_ATTACKED
#: ``UNDEFENDED[u, h]`` at ``O_UNDEFENDED + u * N_HAND + h``; last, so a table list written before
#: it existed is this layout's prefix (:func:`pad_tables`)
O_UNDEFENDED = O_TEMPO + 1
W_SIZE = O_UNDEFENDED + N_ATTACKED * N_HAND
#: allowed range of each weight: with piece values within ±100 000 the evaluation stays far from
#: the search's mate scores (and from int64 overflow)
WEIGHT_RANGES = {"mobility": (-1000.0, 1000.0), "king_safety": (-1000.0, 1000.0), "psq": (-1000.0, 1000.0),
                 "noise": (0.0, 100_000.0)}

# the built-in constants: advance bonus per rank (P L N S G) and the gold-like defenders
_ADV = {1: 6, 2: 3, 3: 4, 4: 4, 5: 1}
_DEFENDERS = (4, 5, 9, 10, 11, 12)  # S G +P +L +N +S


def legacy_tables() -> np.ndarray:
    """``w[O_RANK:]``: the built-in tables (4 a move, 30 a defender, -20 an attacked square next
    to the king, 6/3/4/4/1 per rank advanced for P/L/N/S/G)."""
    t = np.zeros(W_SIZE, dtype=np.float64)
    for kind, a in _ADV.items():
        for r in range(N_RANKS):
            t[O_RANK + kind * N_RANKS + r] = a * r
    t[O_MOB + 1:O_MOB + N_KINDS] = 4.0
    for kind in _DEFENDERS:
        t[O_SHIELD + kind] = 30.0
    for n in range(N_ATTACKED):
        t[O_ATTACKED + n] = -20.0 * n
    return t[O_RANK:]


def pad_tables(tables: np.ndarray) -> np.ndarray:
    """``w[O_RANK:]`` from a shorter table list, without the slots at its end (the undefended-square
    table, which parameter files and stored studies may leave out): those read 0."""
    tables = np.asarray(tables, dtype=np.float64)
    full = W_SIZE - O_RANK
    if len(tables) >= full:
        return tables
    return np.concatenate([tables, np.zeros(full - len(tables))])


@njit(cache=True)
def piece_moves(bd: np.ndarray, rules: np.ndarray, s: int, p: int) -> int:
    """Pseudo-legal board moves of the piece ``p`` on ``s`` (captures of own pieces excluded)."""
    n = 0
    own = (p & (BLACK_BIT | WHITE_BIT)) | WALL
    for k in range(rules[R_STEP_N + p]):
        if not (bd[s + rules[R_STEPS + p * MAX_STEPS + k]] & own):
            n += 1
    for k in range(rules[R_SLIDE_N + p]):
        d = rules[R_SLIDES + p * MAX_SLIDES + k]
        t = s + d
        while True:
            q = bd[t]
            if q & own:
                break
            n += 1
            if q != 0:
                break
            t += d
    return n


@njit(cache=True)
def capture_gain(bd: np.ndarray, mv: int, us: int, bval: np.ndarray, hval: np.ndarray) -> int:
    """What the board move ``mv`` of ``us`` wins in material at once: the captured piece off the
    board and into the hand, and the promotion."""
    frm = move_from(mv)
    cap = bd[move_to(mv)]
    gain = 0
    if cap != 0:
        gain = abs(bval[cap]) + abs(hval[us, BASE[cap & KIND_MASK]])
    if frm != 0 and move_promotes(mv):
        p = bd[frm]
        gain += abs(bval[p | PROMOTED]) - abs(bval[p])
    return gain


@njit(cache=True)
def _mobility(bd: np.ndarray, rules: np.ndarray, w: np.ndarray) -> float:
    v = 0.0
    for i in range(rules[R_NSQ]):
        s = rules[R_SQUARES + i]
        p = bd[s]
        if p == 0:
            continue
        n = piece_moves(bd, rules, s, p)
        if p & BLACK_BIT:
            v += n * w[O_MOB + (p & KIND_MASK)]
        else:
            v -= n * w[O_MOB + (p & KIND_MASK)]
    return v


@njit(cache=True)
def king_ring(bd: np.ndarray, hd: np.ndarray, rules: np.ndarray, k: int, c: int,
              defended: bool) -> tuple[int, int, int]:
    """Around the king of color ``c`` on ``k``: the squares next to it that the enemy attacks, how
    many of those no other piece of ``c`` defends (asked with the king lifted off the board, and
    only when ``defended``; 0 otherwise), and the enemy's pieces in hand, capped at ``N_HAND - 1``."""
    n = 0
    ring = 0  # bit j: the square in direction j is attacked
    for j in range(8):
        s = k + DIRS[j]
        if bd[s] != WALL and attacked(bd, s, 1 - c, rules):
            n += 1
            ring |= 1 << j
    undefended = 0
    if defended and ring:
        king = bd[k]
        bd[k] = 0
        for j in range(8):
            if ring >> j & 1 and not attacked(bd, k + DIRS[j], c, rules):
                undefended += 1
        bd[k] = king
    h = 0
    for kind in range(1, 8):
        h += hd[1 - c, kind]
    return n, undefended, min(h, N_HAND - 1)


@njit(cache=True)
def _any_nonzero(w: np.ndarray, lo: int, hi: int) -> bool:
    for i in range(lo, hi):
        if w[i] != 0.0:
            return True
    return False


@njit(cache=True)
def _king_safety(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, w: np.ndarray) -> float:
    width = rules[R_WIDTH]
    height = rules[R_HEIGHT]
    v = 0.0
    defended = _any_nonzero(w, O_UNDEFENDED, W_SIZE)  # 9x9 and judkins leave the table at zero
    for c in range(2):
        k = st[ST_KING + c]
        if k == 0:
            continue
        sign = 1.0 - 2.0 * c
        bit = BLACK_BIT << c
        enemy = WHITE_BIT >> c
        for j in range(8):
            p = bd[k + DIRS[j]]
            if p != WALL and p & bit:
                v += sign * w[O_SHIELD + (p & KIND_MASK)]
        n, undefended, h = king_ring(bd, hd, rules, k, c, defended)
        v += sign * (w[O_ATTACKED + n] + w[O_UNDEFENDED + undefended * N_HAND + h])
        kf = k >> 4
        kr = k & 15
        for f in range(max(1, kf - 2), min(width, kf + 2) + 1):
            for r in range(max(1, kr - 2), min(height, kr + 2) + 1):
                p = bd[f * 16 + r]
                if p & enemy:
                    v += sign * w[O_ATTACKER + (p & KIND_MASK)]
    return v


@njit(cache=True)
def _psq_entry(p: int, s: int, height: int, width: int, w: np.ndarray) -> float:
    """The ``psq`` table entry (unweighted, black's view) of piece ``p`` on square ``s``."""
    k = p & KIND_MASK
    r = s & 15
    d = abs(2 * (s >> 4) - (width + 1)) // 2
    if p & BLACK_BIT:
        return w[O_RANK + k * N_RANKS + height - r] + w[O_FILE + k * N_FILES + d]
    return -(w[O_RANK + k * N_RANKS + r - 1] + w[O_FILE + k * N_FILES + d])


@njit(cache=True)
def material_psq(bd: np.ndarray, hd: np.ndarray, rules: np.ndarray, bval: np.ndarray, hval: np.ndarray,
                 w: np.ndarray) -> tuple[int, float]:
    """Material (board plus hands) and the board part of the ``psq`` term (unweighted, no tempo) in one pass
    over the board, black's view: the sums the search then keeps up to date move by move
    (:func:`move_delta`)."""
    height = rules[R_HEIGHT]
    width = rules[R_WIDTH]
    m = 0
    v = 0.0
    for i in range(rules[R_NSQ]):
        s = rules[R_SQUARES + i]
        p = bd[s]
        if p != 0:
            m += bval[p]
            v += _psq_entry(p, s, height, width, w)
    for k in range(1, 8):
        m += hval[0, k] * hd[0, k] + hval[1, k] * hd[1, k]
    return m, v


@njit(cache=True)
def move_delta(bd: np.ndarray, mv: int, us: int, rules: np.ndarray, bval: np.ndarray, hval: np.ndarray,
               w: np.ndarray) -> tuple[int, float]:
    """How :func:`material_psq`'s two sums change when ``us`` plays ``mv`` (before it is played).

    With whole-number tables and values (every shipped file) the sums kept this way equal a fresh
    count exactly; with fractional tables they may differ in the last bits of the ``psq`` sum."""
    height = rules[R_HEIGHT]
    width = rules[R_WIDTH]
    to = move_to(mv)
    frm = move_from(mv)
    if frm == 0:
        kind = move_drop_kind(mv)
        p = kind | (BLACK_BIT << us)
        return bval[p] - hval[us, kind], _psq_entry(p, to, height, width, w)
    p = bd[frm]
    q = p | PROMOTED if move_promotes(mv) else p
    dm = bval[q] - bval[p]
    dp = _psq_entry(q, to, height, width, w) - _psq_entry(p, frm, height, width, w)
    cap = bd[to]
    if cap != 0:
        dm += hval[us, BASE[cap & KIND_MASK]] - bval[cap]
        dp -= _psq_entry(cap, to, height, width, w)
    return dm, dp


@njit(cache=True)
def noise(key: np.uint64, seed: int, amplitude: int) -> int:
    """Deterministic noise in ``[-amplitude, amplitude]`` from a position hash (splitmix64)."""
    if amplitude <= 0:
        return 0
    z = splitmix_mix(key ^ np.uint64(seed * 0x9E3779B97F4A7C15 & 0x7FFFFFFFFFFFFFFF))
    return int(z % np.uint64(2 * amplitude + 1)) - amplitude


@njit(cache=True)
def splitmix_mix(z: np.uint64) -> np.uint64:
    """splitmix64's output function: a well-mixed 64-bit number from ``z`` (the evaluation's
    noise hashes a position with it; the self-play's random stream steps through it)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def evaluate(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, bval: np.ndarray,
             hval: np.ndarray, w: np.ndarray, key: np.uint64, seed: int) -> int:
    """The static evaluation from the side to move's view."""
    m, psq = material_psq(bd, hd, rules, bval, hval, w)
    return evaluate_sums(bd, hd, st, rules, w, key, seed, m, psq)


@njit(cache=True)
def evaluate_sums(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, w: np.ndarray,
                  key: np.uint64, seed: int, m: int, psq: float) -> int:
    """:func:`evaluate` given :func:`material_psq`'s sums ``m`` and ``psq`` for this position."""
    v = m
    extra = 0.0
    if w[W_MOBILITY] != 0.0:
        extra += w[W_MOBILITY] * _mobility(bd, rules, w)
    if w[W_KING_SAFETY] != 0.0:
        extra += w[W_KING_SAFETY] * _king_safety(bd, hd, st, rules, w)
    if w[W_PSQ] != 0.0:
        if st[ST_SIDE] == 0:
            psq += w[O_TEMPO]
        else:
            psq -= w[O_TEMPO]
        extra += w[W_PSQ] * psq
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


def weights(terms: Mapping[str, Any] | None = None, tables: np.ndarray | None = None) -> np.ndarray:
    """The ``w`` array from ``{"mobility": 1, ...}`` and the term tables (``w[O_RANK:]``; default
    :func:`legacy_tables`); an unknown name or a value out of range raises :class:`KomakenError`
    (see :func:`check_weight`)."""
    w = np.zeros(W_SIZE, dtype=np.float64)
    w[O_RANK:] = legacy_tables() if tables is None else tables
    for name, value in (terms or {}).items():
        w[TERMS.index(name)] = check_weight(name, value)
    return w
