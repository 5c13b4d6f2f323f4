"""Negamax with α-β for any :class:`komaken.game.Game` — the plain-Python teaching path.

Negamax scores every position from the side to move: a position is worth the best of
``-value(child)`` over its moves.  α-β keeps a window ``(alpha, beta)`` of scores that still
matter and stops searching a node's moves as soon as one reaches ``beta`` (the opponent
would never allow it).  A transposition table keyed by ``position.key`` remembers finished
nodes with whether their value is exact or only a bound.

Scores: a won game is worth ``WIN``, a lost one ``-WIN`` and a draw 0.  Each ply between
the root and the end of the game shrinks a win or loss by one, so the search prefers quick
wins and slow losses.  With ``depth=None`` the search is exact; with a depth, positions at
the horizon are scored by ``evaluate(position)`` from the side to move's view (it must stay
well inside ``±WIN / 2``; without a callback they score 0).

This is meant for small games (tic-tac-toe is solved in a few milliseconds) and for
checking the fast engines: it only uses the :class:`~komaken.game.Game` protocol.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from komaken.game import Game
from komaken.search.result import SearchResult

M = TypeVar("M")

WIN = 1_000_000.0
_MATE_ZONE = WIN / 2

_EXACT, _LOWER, _UPPER = 0, 1, 2

Evaluator = Callable[[Any], float]


def is_win(score: float) -> bool:
    """Whether a score means a forced win for the side to move."""
    return score > _MATE_ZONE


def is_loss(score: float) -> bool:
    """Whether a score means a forced loss for the side to move."""
    return score < -_MATE_ZONE


def _back(v: float) -> float:
    """A child's score seen from the parent, one ply further from the end."""
    v = -v or 0.0  # no "-0.0" for draws
    if v > _MATE_ZONE:
        return v - 1
    if v < -_MATE_ZONE:
        return v + 1
    return v


def _forward(bound: float) -> float:
    """Inverse of :func:`_back` for window bounds: the child's bound that maps to ``bound``."""
    if bound > _MATE_ZONE:
        bound += 1
    elif bound < -_MATE_ZONE:
        bound -= 1
    return -bound


class SearchTimeout(Exception):
    """A search given a ``deadline`` ran past it; its result is lost (use the last depth's)."""


class _Searcher:
    def __init__(self, evaluate: Evaluator | None, use_table: bool, deadline: float | None = None) -> None:
        self.evaluate = evaluate
        self.table: dict[Hashable, tuple[float, float, int, Any]] | None = {} if use_table else None
        self.nodes = 0
        self.deadline = deadline  # on the time.perf_counter() scale

    def terminal_score(self, position: Game[Any]) -> float | None:
        outcome = position.outcome()
        if outcome is None:
            return None
        if outcome.winner is None:
            return 0.0
        return WIN if outcome.winner == position.turn else -WIN

    def search(self, position: Game[Any], depth: float, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.deadline is not None and not self.nodes & 255 and time.perf_counter() > self.deadline:
            raise SearchTimeout
        done = self.terminal_score(position)
        if done is not None:
            return done
        if depth <= 0:
            return float(self.evaluate(position)) if self.evaluate else 0.0
        moves = list(position.legal_moves())
        if not moves:  # no move yet no outcome: treat as a draw
            return 0.0
        key = position.key if self.table is not None else None
        first = None
        if self.table is not None:
            entry = self.table.get(key)
            if entry is not None:
                e_depth, e_value, e_flag, first = entry
                if e_depth >= depth:
                    if e_flag == _EXACT:
                        return e_value
                    if e_flag == _LOWER:
                        alpha = max(alpha, e_value)
                    else:
                        beta = min(beta, e_value)
                    if alpha >= beta:
                        return e_value
            if first is not None and first in moves:
                moves.remove(first)
                moves.insert(0, first)
        alpha0 = alpha
        best, best_move = -math.inf, moves[0]
        for move in moves:
            position.push(move)
            try:
                v = _back(self.search(position, depth - 1, _forward(beta), _forward(alpha)))
            finally:
                position.pop()
            if v > best:
                best, best_move = v, move
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        if self.table is not None:
            flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
            self.table[key] = (depth, best, flag, best_move)
        return best


def negamax(
    position: Game[Any],
    depth: int | None = None,
    *,
    evaluate: Evaluator | None = None,
    alpha: float = -math.inf,
    beta: float = math.inf,
    use_table: bool = True,
) -> float:
    """The negamax value of ``position`` for the side to move (see the module docstring).

    ``position`` is left as it was.  With ``depth=None`` the game is searched to the end.
    """
    searcher = _Searcher(evaluate, use_table)
    return searcher.search(position, math.inf if depth is None else depth, alpha, beta)


def best_move(
    position: Game[M],
    depth: int | None = None,
    *,
    evaluate: Evaluator | None = None,
    use_table: bool = True,
    seed: int | None = None,
    deadline: float | None = None,
) -> SearchResult[M]:
    """The best move of ``position`` and its score.

    ``seed`` shuffles the moves first, so among equally good moves a random (but
    reproducible) one is chosen; ``None`` takes the first in ``legal_moves()`` order.
    ``deadline`` (a :func:`time.perf_counter` reading): past it the search raises
    :class:`SearchTimeout`, leaving ``position`` as it was.
    """
    searcher = _Searcher(evaluate, use_table, deadline)
    moves = list(position.legal_moves())
    if not moves or position.outcome() is not None:
        done = searcher.terminal_score(position)
        return SearchResult(None, 0.0 if done is None else done, 0)
    if seed is not None:
        random.Random(seed).shuffle(moves)
    d = math.inf if depth is None else depth
    alpha, chosen = -math.inf, moves[0]
    for move in moves:
        position.push(move)
        try:
            v = _back(searcher.search(position, d - 1, -math.inf, _forward(alpha)))
        finally:
            position.pop()
        if v > alpha:
            alpha, chosen = v, move
    return SearchResult(chosen, alpha, searcher.nodes)


def best_lines(
    position: Game[M],
    depth: int,
    lines: int = 1,
    *,
    evaluate: Evaluator | None = None,
    first: list[M] | None = None,
    pv_plies: int = 8,
) -> list[SearchResult[M]]:
    """The ``lines`` best root moves of ``position`` at ``depth`` plies (MultiPV), best first,
    each with its exact score and its principal variation (the move, then the best move the
    transposition table keeps for each following position).

    Each root move is searched with a window whose lower edge is the ``lines``-th best score so
    far, so only moves that cannot enter the lines are cut short (their scores are then upper
    bounds and they come last).  ``first``: root moves to search first (a shallower search's
    lines).  ``position`` is left as it was; an empty list when the game is over.
    """
    searcher = _Searcher(evaluate, True)
    moves = list(position.legal_moves())
    if not moves or position.outcome() is not None:
        return []
    head = [m for m in (first or []) if m in moves]
    moves = head + [m for m in moves if m not in head]
    scored: list[tuple[float, M]] = []
    for move in moves:
        floor = sorted((v for v, _ in scored), reverse=True)[lines - 1] if len(scored) >= lines else -math.inf
        position.push(move)
        try:
            v = _back(searcher.search(position, depth - 1, -math.inf, _forward(floor)))
        finally:
            position.pop()
        scored.append((v, move))
    scored.sort(key=lambda vm: -vm[0])  # stable: ties keep the search order
    out = []
    for rank, (v, move) in enumerate(scored[:lines], 1):
        pv = [move]
        position.push(move)
        assert searcher.table is not None
        while len(pv) < pv_plies and position.outcome() is None:
            entry = searcher.table.get(position.key)
            if entry is None or entry[3] not in position.legal_moves():
                break
            pv.append(entry[3])
            position.push(entry[3])
        for _ in pv:
            position.pop()
        out.append(SearchResult(move, v, searcher.nodes, depth, pv=pv, rank=rank if lines > 1 else 0))
    return out
