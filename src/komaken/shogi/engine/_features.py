"""The evaluation as a linear function: the feature vector of a position (numba).

:func:`eval_features` writes, for one position, how often each parameter of
:mod:`komaken.shogi.engine._evaluate` counts, from black's view (black's pieces +1, white's -1):
slots ``O_RANK .. W_SIZE - 1`` line up with the tables of ``w``, slot ``W_SIZE + code`` counts the
board pieces of each kind and ``W_SIZE + 16 + kind`` the pieces in hand.  So with all term weights
1 the evaluation in black's view is ``int(x[O_RANK:W_SIZE] · tables) + x[W_SIZE:] · material`` —
the Texel tuner (:mod:`komaken.shogi.engine.tune`) fits exactly that, and the tests check it
against :func:`~komaken.shogi.engine._evaluate.evaluate` on random positions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import BLACK_BIT, DIRS, KIND_MASK, WALL, WHITE_BIT
from komaken.shogi._kernels import R_HEIGHT, R_NSQ, R_SQUARES, R_WIDTH, ST_KING, ST_SIDE, push
from komaken.shogi.engine._context import SearchContext
from komaken.shogi.engine._evaluate import (
    N_FILES,
    N_HAND,
    N_RANKS,
    O_ATTACKED,
    O_ATTACKER,
    O_FILE,
    O_MOB,
    O_RANK,
    O_SHIELD,
    O_TEMPO,
    O_UNDEFENDED,
    W_SIZE,
    king_ring,
    piece_moves,
)
from komaken.shogi.engine._selfplay import FLAG_CHECK, FLAG_QS_CAP, FLAG_QS_GAIN, quiet_flags
from komaken.shogi.kernel import KernelState

O_BOARD = W_SIZE
O_HAND = W_SIZE + 16
N_FEATURES = W_SIZE + 24


@njit(cache=True)
def eval_features(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, x: np.ndarray) -> None:
    """Write the feature vector of the position into ``x`` (``float64[N_FEATURES]``)."""
    x[:] = 0.0
    h = rules[R_HEIGHT]
    width = rules[R_WIDTH]
    for i in range(rules[R_NSQ]):
        s = rules[R_SQUARES + i]
        p = bd[s]
        if p == 0:
            continue
        k = p & KIND_MASK
        r = s & 15
        d = abs(2 * (s >> 4) - (width + 1)) // 2
        n = piece_moves(bd, rules, s, p)
        if p & BLACK_BIT:
            x[O_RANK + k * N_RANKS + h - r] += 1.0
            x[O_FILE + k * N_FILES + d] += 1.0
            x[O_MOB + k] += n
            x[O_BOARD + k] += 1.0
        else:
            x[O_RANK + k * N_RANKS + r - 1] -= 1.0
            x[O_FILE + k * N_FILES + d] -= 1.0
            x[O_MOB + k] -= n
            x[O_BOARD + k] -= 1.0
    for k in range(1, 8):
        x[O_HAND + k] = hd[0, k] - hd[1, k]
    x[O_TEMPO] = 1.0 if st[ST_SIDE] == 0 else -1.0
    for c in range(2):
        kq = st[ST_KING + c]
        if kq == 0:
            continue
        sign = 1.0 - 2.0 * c
        bit = BLACK_BIT << c
        enemy = WHITE_BIT >> c
        for j in range(8):
            p = bd[kq + DIRS[j]]
            if p != WALL and p & bit:
                x[O_SHIELD + (p & KIND_MASK)] += sign
        n, undefended, hand = king_ring(bd, hd, rules, kq, c, True)
        x[O_ATTACKED + n] += sign
        x[O_UNDEFENDED + undefended * N_HAND + hand] += sign
        kf = kq >> 4
        kr = kq & 15
        for f in range(max(1, kf - 2), min(width, kf + 2) + 1):
            for r in range(max(1, kr - 2), min(h, kr + 2) + 1):
                p = bd[f * 16 + r]
                if p & enemy:
                    x[O_ATTACKER + (p & KIND_MASK)] += sign


@njit(cache=True)
def game_features(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray,
                  rules: np.ndarray, moves: np.ndarray, opening: int, keep: np.ndarray, out: np.ndarray) -> int:
    """Replay ``moves`` from the start position (modified) and write the features of the position
    after ``opening + i`` moves into the next row of ``out`` wherever ``keep[i]``; returns the rows
    written.  ``keep`` has one entry per position from the end of the opening on."""
    rows = 0
    for ply in range(len(moves) + 1):
        i = ply - opening
        if 0 <= i < len(keep) and keep[i]:
            eval_features(bd, hd, st, rules, out[rows])
            rows += 1
        if ply < len(moves):
            push(bd, hd, st, hh, hist, rules, moves[ply])
    return rows


@njit(cache=True)
def record_features(pos: KernelState, q: SearchContext, scratch: np.ndarray, moves: np.ndarray, skip: int,
                    out: np.ndarray) -> int:
    """Replay ``moves`` from ``pos`` (modified) and write the features of each quiet position from
    ply ``skip`` on — not in check, and no capture sequence that gains by the values of ``q`` (a
    :func:`~komaken.shogi.engine._context.capture_context`;
    :func:`~komaken.shogi.engine._selfplay.quiet_flags`, the study's own test) — into the next rows
    of ``out``; returns the rows written."""
    bd, hd, st, hh, hist, geo, rules = pos
    rows = 0
    for ply in range(len(moves) + 1):
        if ply >= skip:
            flags = quiet_flags(pos, q, scratch)
            if (flags & (FLAG_CHECK | FLAG_QS_GAIN | FLAG_QS_CAP)) == 0:
                eval_features(bd, hd, st, rules, out[rows])
                rows += 1
        if ply < len(moves):
            push(bd, hd, st, hh, hist, rules, moves[ply])
    return rows
