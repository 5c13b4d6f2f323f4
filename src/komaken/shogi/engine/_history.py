"""Quiet-move history (numba): how often a piece moving to a square has refuted a position.

``history[piece, square]`` orders the quiet moves that are neither the hash move nor a killer
(higher first) and, with ``lmr_history`` set, reduces moves with a good record less.  With the
search setting ``history = 0`` the move that cut off gains ``depth²`` and nothing else changes
(the search as it was); with ``history = 1`` the quiet moves tried before it lose as much, and
every update is scaled by how far the entry still is from :data:`HISTORY_MAX` (the "gravity" of
Stockfish's statistics), so the values stay within ±HISTORY_MAX and recent evidence counts most.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._kernels import move_drop_kind, move_from, move_promotes, move_to
from komaken.shogi.engine._searchparams import HISTORY_MAX


@njit(cache=True)
def is_quiet(bd: np.ndarray, mv: int) -> bool:
    """Whether ``mv`` neither captures nor promotes (drops included): the moves history orders."""
    return bd[move_to(mv)] == 0 and not move_promotes(mv)


@njit(cache=True)
def history_piece(bd: np.ndarray, mv: int) -> int:
    """The history row of ``mv``: the moving piece, or for a drop the kind dropped."""
    frm = move_from(mv)
    return bd[frm] if frm != 0 else move_drop_kind(mv)


@njit(cache=True)
def _nudge(history: np.ndarray, piece: int, to: int, bonus: int) -> None:
    h = history[piece, to]
    history[piece, to] = h + bonus - h * abs(bonus) // HISTORY_MAX


@njit(cache=True)
def reward_cutoff(history: np.ndarray, bd: np.ndarray, moves: np.ndarray, i: int, depth: int, mode: int) -> None:
    """The quiet move ``moves[i]`` refuted the position on ``bd`` (as before it was played):
    raise its history; with ``mode`` 1 lower the quiet moves ``moves[:i]`` tried before it."""
    bonus = depth * depth
    mv = moves[i]
    if mode == 0:
        history[history_piece(bd, mv), move_to(mv)] += bonus
        return
    bonus = min(bonus, HISTORY_MAX // 8)
    _nudge(history, history_piece(bd, mv), move_to(mv), bonus)
    for j in range(i):
        m = moves[j]
        if is_quiet(bd, m):
            _nudge(history, history_piece(bd, m), move_to(m), -bonus)
