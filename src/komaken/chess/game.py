"""Chess in the game registry: ``komaken perft --game chess``, ``komaken play --game chess``,
``game = "chess"`` in an experiment.

Side names follow :class:`~komaken.game.Color`'s order (``side_names[int(color)]``), so
``("black", "white")``; ``first=Color.WHITE`` says white moves first, so a white win reads
``white wins`` and ``1-0``.

>>> board = GAME.start(None)
>>> move = GAME.parse_move(board, "Nf3")
>>> GAME.move_text(move), GAME.describe(board, move)
('g1f3', 'Nf3')
>>> from komaken.game import Outcome, Termination
>>> GAME.winner_text(board.turn), GAME.result(Outcome(Termination.CHECKMATE, Color.WHITE))
('white wins', '1-0')
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from typing import Any

from komaken.chess._board import Board
from komaken.chess._evaluate import best_lines, best_move
from komaken.chess._move import Move
from komaken.chess._presentation import PRESENTATION
from komaken.chess._records import FORMATS, read_record, write_comments, write_record
from komaken.clock import TimeLeft
from komaken.errors import KomakenError
from komaken.game import Color
from komaken.games import GameSpec, RecordIO
from komaken.players.base import Player
from komaken.players.registry import SEED, BuildContext, Option, PlayerType
from komaken.search.generic import WIN, SearchTimeout
from komaken.search.result import SearchResult


class ChessEnginePlayer:
    """The generic α-β negamax (:mod:`komaken.search.generic`) with :func:`komaken.chess.evaluate`,
    ``depth`` plies deep (default 2); a ``seed`` picks reproducibly among equally good moves.
    Under a game clock (the game loop sets :attr:`time_left` before each move) it plans the move
    from the clock (:meth:`komaken.clock.TimeLeft.budget`) and deepens one ply at a time while the
    next is expected to fit (a ply costs about eight times the one before), up to a ``depth``
    given or 8."""

    GROWTH = 8.0

    def __init__(self, depth: int | None = None, seed: int | None = None) -> None:
        self.max_depth = depth if depth is not None else ChessAnalyser.MAX_DEPTH  # the cap of a timed search
        depth = depth if depth is not None else 2
        self.depth = depth
        self.seed = seed
        self._rng = random.Random(seed)
        self.name = f"chess-engine(depth={depth})" + ("" if seed is None else f"(seed={seed})")
        self.last: SearchResult[Move] | None = None
        #: when set (by the game loop), the search deepens one ply at a time and reports each
        self.on_progress: Callable[[SearchResult[Move]], None] | None = None
        #: the game clock before this move (set by the game loop under a clock)
        self.time_left: TimeLeft | None = None

    def new_game(self, seed: int | None = None) -> None:
        self._rng = random.Random(self.seed if seed is None else seed)

    def choose(self, position: Any) -> Move:
        if not isinstance(position, Board):
            raise KomakenError("the chess engine only plays chess")
        seed = None if self.seed is None else self._rng.randrange(1 << 32)
        report = self.on_progress
        if self.time_left is not None:
            return self._timed(position, seed, *self.time_left.budget(position.turn))
        if report is not None:
            for depth in range(1, self.depth):
                report(best_move(position, depth, seed=seed))
        self.last = dataclasses.replace(best_move(position, self.depth, seed=seed), depth=self.depth)
        if report is not None:
            report(self.last)
        if self.last.move is None:
            raise KomakenError("no legal move: the game is over")
        return self.last.move

    def _timed(self, position: Board, seed: int | None, soft: float, hard: float) -> Move:
        """Deepen until ``soft`` has passed or the next ply would not fit; a ply still running at
        ``hard`` is abandoned for the last finished one (a ply's cost varies too much to guess)."""
        t0 = time.perf_counter()
        self.last = None
        for depth in range(1, self.max_depth + 1):
            try:
                found = best_move(position, depth, seed=seed, deadline=t0 + hard if depth > 1 else None)
            except SearchTimeout:
                break
            self.last = dataclasses.replace(found, depth=depth, seconds=time.perf_counter() - t0)
            if self.on_progress is not None:
                self.on_progress(self.last)
            spent = time.perf_counter() - t0
            # with byoyomi alone (soft == hard) nothing is saved by stopping: think until the alarm
            if spent >= soft or (soft < hard and spent * self.GROWTH > hard):
                break
        assert self.last is not None
        if self.last.move is None:
            raise KomakenError("no legal move: the game is over")
        return self.last.move

    def close(self) -> None:
        pass


class ChessAnalyser:
    """The generic α-β engine as an analysis asks it (:class:`komaken.games.Analyser`): deepened one
    ply at a time while the next depth is expected to fit in the time (a ply costs about eight
    times the one before), each depth searching the last one's lines first.  MultiPV: every one
    of the ``multipv`` best root moves gets an exact score (:func:`komaken.search.generic.best_lines`)
    and its line from the transposition table.  ``stop`` takes effect between depths.  Depth 2 is
    searched whatever the time: a move that allows mate in one is then always seen (at depth 1 a
    busy machine left a 0.2 s analysis blind to it)."""

    GROWTH = 8.0
    MIN_DEPTH = 2
    MAX_DEPTH = 8

    def __init__(self) -> None:
        self._stop = False

    def analyse(self, position: Any, seconds: float, multipv: int = 1) -> SearchResult[Move]:
        if not isinstance(position, Board):
            raise KomakenError("the chess engine analyses chess only")
        self._stop = False
        t0 = time.perf_counter()
        lines, depth = best_lines(position, 1, multipv), 1
        while depth < self.MAX_DEPTH and not self._stop and (
                depth < self.MIN_DEPTH or (time.perf_counter() - t0) * self.GROWTH < seconds):
            depth += 1
            lines = best_lines(position, depth, multipv, [line.move for line in lines if line.move is not None])
        if not lines:
            raise KomakenError("the game is over: no move to analyse")
        spent = time.perf_counter() - t0
        out = [dataclasses.replace(line, depth=depth, seconds=spent, mate=_mate(line.score)) for line in lines]
        return dataclasses.replace(out[0], lines=out)

    def stop(self) -> None:
        self._stop = True

    def close(self) -> None:
        pass


def _mate(score: float) -> int | None:
    """Plies to a forced mate (negative: being mated) from a generic search score (WIN less the plies)."""
    if abs(score) <= WIN / 2:
        return None
    plies = round(WIN - abs(score))
    return plies if score > 0 else -plies


def _build_engine(ctx: BuildContext, o: dict[str, Any]) -> Player:
    return ChessEnginePlayer(o.get("depth"), o.get("seed"))


def _svg(position: Board) -> str:
    return position.svg()


PLAYERS = {
    "engine": PlayerType("engine", "generic α-β negamax with material and piece-square tables (depth 2)",
                         _build_engine, (Option("depth", "int", "plies", 1, 8), SEED)),
}

GAME = GameSpec(
    name="chess",
    title="chess",
    start=lambda variant: Board.start(),
    from_text=lambda text, variant: Board.from_fen(text),
    to_text=Board.fen,
    parse_move=Board.parse_move,  # UCI or SAN → a legal Move, else IllegalMoveError
    move_text=Move.uci,
    describe_move=Board.san,
    players=PLAYERS,
    default_opponent="engine:depth=2",
    side_names=("black", "white"),  # indexed by Color
    first=Color.WHITE,  # white moves first: its win is "1-0", komaken play seats the human there
    svg=_svg,
    record_io=RecordIO(FORMATS, write_record, read_record, write_comments, ("pgn",)),
    presentation=PRESENTATION,
    analyser=lambda position: ChessAnalyser(),
)

__all__ = ["GAME", "PLAYERS", "ChessAnalyser", "ChessEnginePlayer"]
