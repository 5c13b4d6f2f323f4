"""The reversi engine as a player (``engine:depth=6,empties=14``, ``engine:movetime=1``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from komaken.clock import TimeLeft
from komaken.errors import KomakenError
from komaken.game import Game
from komaken.players.boardgames import Seeded
from komaken.reversi import engine as reversi_engine
from komaken.reversi._position import Reversi


class ReversiEnginePlayer(Seeded):
    """The numba α-β engine: ``depth`` plies with the evaluation, exact below ``endgame_empties``.

    With ``movetime`` (seconds) it deepens one ply at a time while the next iteration is
    expected to fit in the time (up to ``depth``, default 60 then).  Under a game clock (the game
    loop sets :attr:`time_left` before each move) it plans the move from the clock instead
    (:meth:`komaken.clock.TimeLeft.budget`) and deepens the same way, up to a ``depth`` given or
    60.  With a ``seed`` equally good moves are chosen at random (reproducibly).
    """

    def __init__(self, depth: int | None = None, endgame_empties: int = reversi_engine.DEFAULT_ENDGAME_EMPTIES,
                 seed: int | None = None, movetime: float | None = None) -> None:
        self.max_depth = depth if depth is not None else 60  # the cap of a timed search
        if depth is None:
            depth = 60 if movetime is not None else reversi_engine.DEFAULT_DEPTH
        if depth < 1:
            raise KomakenError(f"engine depth must be >= 1, got {depth}")
        if not 0 <= endgame_empties <= 64:
            raise KomakenError(f"endgame empties must be in 0..64, got {endgame_empties}")
        if movetime is not None and not movetime > 0:
            raise KomakenError(f"engine movetime must be positive (seconds), got {movetime}")
        super().__init__(seed)
        self.depth = depth
        self.endgame_empties = endgame_empties
        self.movetime = movetime
        timing = "" if movetime is None else f",movetime={movetime:g}"
        self.name = f"reversi-engine(depth={depth},empties={endgame_empties}{timing})"
        self.last: reversi_engine.SearchResult | None = None
        #: called with each finished depth's result (set by the game loop)
        self.on_progress: Callable[[Any], None] | None = None
        #: the game clock before this move (set by the game loop under a clock)
        self.time_left: TimeLeft | None = None

    def choose(self, position: Game[Any]) -> Any:
        if not isinstance(position, Reversi):
            raise KomakenError("the reversi engine only plays reversi")
        seed = self._next_seed()
        if self.time_left is not None:
            soft, hard = self.time_left.budget(position.turn)
            return self._deepen(position, seed, self.max_depth, soft, hard)
        if self.movetime is None:
            self.last = reversi_engine.search(position, self.depth, self.endgame_empties, seed)
            if self.on_progress is not None:
                self.on_progress(self.last)
            return self.last.move
        return self._deepen(position, seed, self.depth, self.movetime, self.movetime)

    def _deepen(self, position: Reversi, seed: int | None, cap: int, soft: float, hard: float) -> Any:
        """Deepen one ply at a time up to ``cap``: none starts past ``soft`` or when it would end
        past ``hard`` (the next ply costs about five times the one before)."""
        t0 = time.perf_counter()
        for depth in range(1, cap + 1):
            self.last = reversi_engine.search(position, depth, self.endgame_empties, seed)
            if self.on_progress is not None:
                self.on_progress(self.last)
            spent = time.perf_counter() - t0
            if self.last.exact or spent >= soft or spent * 6 > hard:
                break
        assert self.last is not None
        return self.last.move


__all__ = ["ReversiEnginePlayer"]
