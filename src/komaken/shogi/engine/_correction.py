"""Correction history (numba): how far the search's results have strayed from the static
evaluation in positions of one family, added back to the static evaluation the pruning rules read.

An evaluation misjudges whole families of positions the same way, and inside one search those
families recur at thousands of nodes.  Stockfish groups positions by their pawn structure; in
shogi the evaluation's blind spot is the king attacked by drops, so here a family is both kings'
squares and both hands (:func:`corr_key`), with the side to move.  Whenever a node's search ends
with a score its bound makes exact enough, the difference from the corrected static evaluation
nudges its family's entry (:func:`corr_update`, with the "gravity" of the history tables, so an
entry stays within ±:data:`CORR_LIMIT` and recent evidence counts most), and the next static
evaluation of the family is moved by ``entry·|entry| / CORR_SCALE`` units (:func:`corrected`): at
most 64, so a correction shifts the pruning, never turns a lost position into a won one.

Only the pruning reads the corrected score (reverse futility, null move, futility, the
quiescence's stand-pat); the hash table keeps the evaluation itself, so switching the setting
(``corr_history``) off gives the search that was.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import ZB, ZH
from komaken.shogi._kernels import ST_KING

CORR_SIZE = 16384  # entries per side to move (a power of two)
CORR_SHAPE = (2, CORR_SIZE)
CORR_LIMIT = 1024
CORR_SCALE = 16384  # the largest entry moves the evaluation by CORR_LIMIT² / CORR_SCALE = 64 units
_KING_ROWS = (8, 24)  # rows of the board's Zobrist table keyed here by each colour's king square


@njit(cache=True)
def corr_key(hd: np.ndarray, st: np.ndarray) -> int:
    """The family of the position: both kings' squares and both hands, hashed to a slot."""
    k = ZB[_KING_ROWS[0], st[ST_KING]] ^ ZB[_KING_ROWS[1], st[ST_KING + 1]]
    for color in range(2):
        for kind in range(1, 8):
            k ^= ZH[color, kind, hd[color, kind]]
    return int(k >> np.uint64(40)) & (CORR_SIZE - 1)


@njit(cache=True)
def corrected(corr: np.ndarray, us: int, key: int, static: int) -> int:
    """``static`` (the side to move's view) moved by its family's entry."""
    e = corr[us, key]
    return static + e * abs(e) // CORR_SCALE


@njit(cache=True)
def corr_update(corr: np.ndarray, us: int, key: int, diff: int, depth: int) -> None:
    """A search ``depth`` plies deep found the position worth ``diff`` more than its corrected static
    evaluation: move the family's entry towards it (Stockfish's bonus, depth·diff/8, bounded)."""
    bonus = diff * depth // 8
    if bonus > CORR_LIMIT // 4:
        bonus = CORR_LIMIT // 4
    elif bonus < -CORR_LIMIT // 4:
        bonus = -CORR_LIMIT // 4
    e = corr[us, key]
    corr[us, key] = e + bonus - e * abs(bonus) // CORR_LIMIT
