"""Move ordering for the α-β search: scoring the moves of a node, picking them best first, and
dropping the quiet moves that the node's pruning would skip anyway.

Order: the hash move, captures by MVV-LVA (most valuable victim, least valuable attacker) that do
not lose material by static exchange evaluation, promotions of major pieces, the two killers,
captures that lose material, then quiet moves and drops by history.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import KIND_MASK
from komaken.shogi._kernels import gives_check, move_from, move_promotes, move_to
from komaken.shogi.engine._history import history_piece, is_quiet
from komaken.shogi.engine._see import see


@njit(cache=True)
def score_moves(bd: np.ndarray, rules: np.ndarray, moves: np.ndarray, scores: np.ndarray, n: int, ttm: int,
                bval: np.ndarray, killers: np.ndarray, history: np.ndarray, ply: int, us: int,
                scratch: np.ndarray) -> None:
    """Write the ordering score of each of ``moves[:n]`` into ``scores`` (higher first)."""
    for i in range(n):
        mv = moves[i]
        to = move_to(mv)
        frm = move_from(mv)
        if mv == ttm:
            scores[i] = 1 << 60
            continue
        victim = bd[to]
        if victim != 0:
            attacker = bd[frm]
            # captures by MVV-LVA; one that loses material in the exchange after the killers
            band = (1 << 50) if see(bd, rules, bval, frm, to, us, scratch) >= 0 else (1 << 46)
            scores[i] = band + abs(bval[victim]) * 64 - (abs(bval[attacker]) >> 6)
            if move_promotes(mv):
                scores[i] += 1 << 20
        elif move_promotes(mv) and (bd[frm] & KIND_MASK) >= 6:
            scores[i] = 1 << 49
        elif mv == killers[ply, 0]:
            scores[i] = 1 << 48
        elif mv == killers[ply, 1]:
            scores[i] = 1 << 47
        else:
            scores[i] = history[history_piece(bd, mv), to]


@njit(cache=True)
def pick(moves: np.ndarray, scores: np.ndarray, i: int, n: int) -> int:
    """Swap the best-scored of ``moves[i:n]`` (the first of equals) to ``i`` and return it."""
    best = i
    for j in range(i + 1, n):
        if scores[j] > scores[best]:
            best = j
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        scores[i], scores[best] = scores[best], scores[i]
    return moves[i]


@njit(cache=True)
def keep_unprunable(bd: np.ndarray, st: np.ndarray, rules: np.ndarray, moves: np.ndarray, scores: np.ndarray,
                    i: int, n: int, ttm: int) -> int:
    """Once a node prunes every quiet move that does not give check (move-count or futility
    pruning has set in), keep in ``moves[i:n]`` only the others — the hash move, captures,
    promotions and quiet checks — in their order, with their scores; return the new end.

    The search then neither picks nor plays the moves it would only take back unsearched: the
    same tree, without a :func:`~komaken.shogi._kernels.push` and undo and a selection pass over
    the whole list for each of them."""
    m = i
    for j in range(i, n):
        mv = moves[j]
        if mv == ttm or not is_quiet(bd, mv) or gives_check(bd, st, rules, mv):
            moves[m] = mv
            scores[m] = scores[j]
            m += 1
    return m
