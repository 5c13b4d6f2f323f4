"""Reversi move search: iterative-deepening α-β in numba, exact solving near the end.

:func:`search` looks ``depth`` plies ahead with the evaluation of
:func:`komaken.reversi._search.evaluate` (mobility, corners, edge stability, parity).  Once
the position has ``endgame_empties`` empty squares or fewer it switches to the exact solver,
which reads to the end of the game and returns the final disc difference.
"""

from __future__ import annotations

import dataclasses
import random
import time

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


def _line_score(score: int, exact: bool) -> int:
    """A search score in hundredths of a disc: the exact solver's disc difference ×100, a won or
    lost game inside the depth-limited search its final disc difference ×100 as well."""
    if exact:
        return 100 * score
    if score > _search.WIN // 2:
        return 100 * (score - _search.WIN)
    if score < -_search.WIN // 2:
        return 100 * (score + _search.WIN)
    return score


class ReversiAnalyser:
    """The numba engine as an analysis asks it (:class:`komaken.games.Analyser`).

    Deepened one ply at a time while the next is expected to fit in the time (a ply costs about
    five times the one before); from ``endgame_empties`` empty squares on, solved exactly.  Every
    one of the ``multipv`` best root moves gets an exact score: each root move is searched with a
    window whose lower edge is the ``multipv``-th best score so far, so only moves that cannot
    enter the lines are cut.  Scores are in hundredths of a disc (the evaluation's unit; a
    solved or finished game its disc difference ×100), from the side to move.  A line's
    continuation is the engine's reply at each following ply, searched two plies shallower.
    ``stop`` takes effect between depths."""

    GROWTH = 6.0
    PV_PLIES = 6

    def __init__(self, endgame_empties: int = DEFAULT_ENDGAME_EMPTIES) -> None:
        self.endgame_empties = endgame_empties
        self._stop = False

    def analyse(self, position: Reversi, seconds: float, multipv: int = 1) -> SearchResult[ReversiMove]:
        if not isinstance(position, Reversi):
            raise ValueError("the reversi engine analyses reversi only")
        self._stop = False
        t0 = time.perf_counter()
        moves = position.legal_moves()
        if not moves:
            raise ValueError("the game is over: no move to analyse")
        exact = position.empties <= self.endgame_empties
        nodes = np.zeros(1, dtype=np.int64)
        scored: list[tuple[int, ReversiMove]] = []
        depth = 0
        while True:
            depth += 1
            scored = self._root(position, list(moves), depth, exact, max(1, multipv), nodes, scored)
            spent = time.perf_counter() - t0
            if exact or self._stop or depth >= position.empties or spent * self.GROWTH > seconds:
                break
        lines = []
        for rank, (score, move) in enumerate(scored[:multipv], 1):
            pv = self._continuation(position, move, depth - 2)
            lines.append(SearchResult(move, _line_score(score, exact), int(nodes[0]), depth if not exact else
                                      position.empties, seconds=time.perf_counter() - t0, pv=pv, exact=exact,
                                      rank=rank if multipv > 1 else 0))
        return dataclasses.replace(lines[0], lines=lines)

    def _root(self, position: Reversi, moves: list[ReversiMove], depth: int, exact: bool, k: int,
              nodes: np.ndarray, previous: list[tuple[int, ReversiMove]]) -> list[tuple[int, ReversiMove]]:
        order = [m for _, m in previous] + [m for m in moves if m not in [p for _, p in previous]]
        found: list[tuple[int, ReversiMove]] = []
        for move in order:
            floor = sorted((s for s, _ in found), reverse=True)[k - 1] if len(found) >= k else -_search.INF
            child = position.copy()
            child.push(move)
            own, opp = (np.uint64(x) for x in child._own_opp())
            if exact:
                v = -_search.solve(own, opp, -_search.INF, -floor, nodes)
            else:
                v = -_search.negamax(own, opp, depth - 1, -_search.INF, -floor, nodes)
            found.append((int(v), move))
        found.sort(key=lambda sm: -sm[0])  # stable: the earlier (better ordered) move wins ties
        return found

    def _continuation(self, position: Reversi, move: ReversiMove, depth: int) -> list[ReversiMove]:
        walker, pv = position.copy(), [move]
        walker.push(move)
        while len(pv) < self.PV_PLIES and walker.legal_moves() and walker.outcome() is None:
            reply = search(walker, max(1, depth), self.endgame_empties).move
            if reply is None:
                break
            pv.append(reply)
            walker.push(reply)
            depth -= 1
        return pv

    def stop(self) -> None:
        self._stop = True

    def close(self) -> None:
        pass
