"""The transposition table: two words an entry, always replaced.

``tt_key``: the position's Zobrist key in the high 32 bits (the low bits chose the slot) and its
static evaluation in the low 32, stored as eval + 2**31 with 0 meaning none (a slot cleared to
zero never holds an evaluation); ``tt_data``: score (mate scores made relative to the node),
bound, depth and best move.  A false match of the 32 key bits costs at most a poor choice: the
move is only ever used when it is among the node's generated legal moves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

F_EXACT, F_LOWER, F_UPPER = 1, 2, 3
INF = 1_000_000_000
MATE = 100_000_000
MATE_BOUND = MATE - 10_000  # |score| above this: a mate in MATE - |score| plies
KEY_HIGH = np.uint64(0xFFFFFFFF00000000)
EVAL_BIAS = 1 << 31


@njit(cache=True)
def to_tt(score: int, ply: int) -> int:
    """A score as stored: a mate counted from this node instead of from the root."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@njit(cache=True)
def from_tt(score: int, ply: int) -> int:
    """A stored score back at ``ply``: a mate counted from the root again."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@njit(cache=True)
def tt_index(tt_key: np.ndarray, h: np.uint64) -> int:
    """The slot of the position with key ``h`` (the key's low bits)."""
    return int(h & np.uint64(len(tt_key) - 1))


@njit(cache=True)
def tt_unpack(data: int, ply: int) -> tuple[int, int, int, int]:
    """An entry's data word as (best move, depth, bound, score at ``ply``)."""
    return data & 0x1FFFFF, (data >> 21) & 0xFF, (data >> 29) & 3, from_tt(data >> 32, ply)


@njit(cache=True)
def bound_decides(flag: int, score: int, alpha: int, beta: int) -> bool:
    """Whether a stored ``score`` with bound ``flag`` answers a search of the window (alpha, beta)."""
    return flag == F_EXACT or (flag == F_LOWER and score >= beta) or (flag == F_UPPER and score <= alpha)


@njit(cache=True)
def bound_of(best: int, alpha: int, beta: int) -> int:
    """The bound a node's ``best`` score is, searched with the window (``alpha``, ``beta``)."""
    return F_LOWER if best >= beta else (F_EXACT if best > alpha else F_UPPER)


@njit(cache=True)
def tt_hit(tt_key: np.ndarray, idx: int, h: np.uint64) -> bool:
    """Whether slot ``idx`` holds the position with key ``h``."""
    return (tt_key[idx] ^ h) & KEY_HIGH == np.uint64(0)


@njit(cache=True)
def tt_static(tt_key: np.ndarray, idx: int) -> int:
    """The static evaluation kept in slot ``idx`` (whose key matched), or ``-INF`` if none."""
    low = int(tt_key[idx] & np.uint64(0xFFFFFFFF))
    return low - EVAL_BIAS if low != 0 else -INF


@njit(cache=True)
def tt_key_word(h: np.uint64, static: int) -> np.uint64:
    """The key word of an entry for ``h`` keeping ``static`` (``-INF``, or out of range: none)."""
    low = static + EVAL_BIAS if -EVAL_BIAS < static < EVAL_BIAS else 0
    return (h & KEY_HIGH) | np.uint64(low)


@njit(cache=True)
def tt_store(tt_key: np.ndarray, tt_data: np.ndarray, h: np.uint64, mv: int, score: int, depth: int,
             flag: int, ply: int, static: int) -> None:
    """Write the node's entry (replacing whatever the slot held), with its static evaluation
    (``-INF``: none computed)."""
    i = tt_index(tt_key, h)
    tt_key[i] = tt_key_word(h, static)
    d = depth if depth > 0 else 0
    tt_data[i] = (to_tt(score, ply) << 32) | (flag << 29) | (min(d, 255) << 21) | (mv & 0x1FFFFF)
