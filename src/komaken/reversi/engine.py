"""Reversi move search: iterative-deepening α-β in numba, exact solving near the end.

:func:`search` looks ``depth`` plies ahead with the evaluation of
:func:`komaken.reversi._search.evaluate` (mobility, corners, edge stability, parity).  Once
the position has ``endgame_empties`` empty squares or fewer it switches to the exact solver,
which reads to the end of the game and returns the final disc difference.
"""

from __future__ import annotations

import random

import numpy as np

from komaken.reversi import _bitboard as bb
from komaken.reversi import _search
from komaken.reversi._position import PASS, Reversi, ReversiMove
from komaken.search.result import SearchResult

DEFAULT_DEPTH = 6
DEFAULT_ENDGAME_EMPTIES = 14


def solve(position: Reversi) -> int:
    """The exact final disc difference (side to move's view) with perfect play by both sides."""
    own, opp = position._own_opp()
    nodes = np.zeros(1, dtype=np.int64)
    return int(_search.solve(np.uint64(own), np.uint64(opp), -_search.INF, _search.INF, nodes))


def evaluate(position: Reversi) -> int:
    """The static evaluation of ``position`` from the side to move's view."""
    own, opp = position._own_opp()
    return int(_search.evaluate(np.uint64(own), np.uint64(opp)))


def search(
    position: Reversi,
    depth: int = DEFAULT_DEPTH,
    endgame_empties: int = DEFAULT_ENDGAME_EMPTIES,
    seed: int | None = None,
) -> SearchResult[ReversiMove]:
    """Choose a move for the side to move.

    ``seed`` shuffles the root moves before searching, so equally good moves are picked at
    random but reproducibly; ``None`` keeps square order.  Raises :class:`ValueError` when the
    game is over.
    """
    if depth < 1:
        raise ValueError("search depth must be >= 1")
    moves = position.legal_moves()
    if not moves:
        raise ValueError("the game is over: no move to search")
    own, opp = (np.uint64(x) for x in position._own_opp())
    squares = [m.square for m in moves if not m.is_pass]
    if seed is not None:
        random.Random(seed).shuffle(squares)
    nodes = np.zeros(1, dtype=np.int64)
    if position.empties <= endgame_empties:
        order = np.array(squares, dtype=np.int64)
        score, best = _search.search_root(own, opp, order, 0, True, nodes)
        return SearchResult(_move(int(best)), int(score), int(nodes[0]), position.empties, exact=True)
    score, best = 0, squares[0] if squares else bb.PASS
    for d in range(1, depth + 1):
        order = np.array(squares, dtype=np.int64)
        score, best = _search.search_root(own, opp, order, d, False, nodes)
        best = int(best)
        if best != bb.PASS:  # search the best move first at the next depth
            squares.remove(best)
            squares.insert(0, best)
    return SearchResult(_move(int(best)), int(score), int(nodes[0]), depth)


def _move(square: int) -> ReversiMove:
    return PASS if square == bb.PASS else ReversiMove(square)
