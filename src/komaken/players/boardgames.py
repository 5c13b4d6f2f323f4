"""Players for the board games: the reversi engine and exact (or depth-limited) negamax.

Every player here implements :class:`komaken.players.base.Player`; the registry
(:mod:`komaken.players.registry`) builds them from specs such as ``engine:depth=6,empties=14``
or ``engine:movetime=1`` (reversi) and ``perfect`` (tic-tac-toe) with
:func:`komaken.players.registry.make_player`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game
from komaken.players.random import RandomPlayer
from komaken.reversi import Reversi
from komaken.reversi import engine as reversi_engine
from komaken.search.generic import best_move


class _Seeded:
    """A reproducible random stream: the same ``seed`` replays the same games."""

    def __init__(self, seed: int | None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def new_game(self, seed: int | None = None) -> None:
        self._rng = random.Random(self.seed if seed is None else seed)

    def _next_seed(self) -> int | None:
        return None if self.seed is None else self._rng.randrange(1 << 32)

    def close(self) -> None:
        pass


class ReversiEnginePlayer(_Seeded):
    """The numba α-β engine: ``depth`` plies with the evaluation, exact below ``endgame_empties``.

    With ``movetime`` (seconds) it deepens one ply at a time while the next iteration is
    expected to fit in the time (up to ``depth``, default 60 then).  With a ``seed`` equally
    good moves are chosen at random (reproducibly).
    """

    def __init__(self, depth: int | None = None, endgame_empties: int = reversi_engine.DEFAULT_ENDGAME_EMPTIES,
                 seed: int | None = None, movetime: float | None = None) -> None:
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

    def choose(self, position: Game[Any]) -> Any:
        if not isinstance(position, Reversi):
            raise KomakenError("the reversi engine only plays reversi")
        seed = self._next_seed()
        if self.movetime is None:
            self.last = reversi_engine.search(position, self.depth, self.endgame_empties, seed)
            if self.on_progress is not None:
                self.on_progress(self.last)
            return self.last.move
        t0 = time.perf_counter()
        for depth in range(1, self.depth + 1):
            self.last = reversi_engine.search(position, depth, self.endgame_empties, seed)
            if self.on_progress is not None:
                self.on_progress(self.last)
            spent = time.perf_counter() - t0
            if self.last.exact or spent * 6 > self.movetime:  # the next ply costs ~5x this one
                break
        assert self.last is not None
        return self.last.move


class PerfectPlayer(_Seeded):
    """Exact negamax (generic search with a transposition table): never loses a solvable game.

    Meant for tic-tac-toe and other tiny games; ``depth`` limits the search (then it is no
    longer perfect); ``seed`` varies the choice among equal moves.
    """

    def __init__(self, seed: int | None = None, depth: int | None = None) -> None:
        super().__init__(seed)
        self.depth = depth
        base = "perfect" if depth is None else f"search(depth={depth})"
        self.name = base if seed is None else f"{base}(seed={seed})"

    def choose(self, position: Game[Any]) -> Any:
        result = best_move(position.copy(), self.depth, seed=self._next_seed())
        if result.move is None:
            raise KomakenError("no legal move: the game is over")
        return result.move


def new_game(game: str) -> Game[Any]:
    """The start position of ``game`` (any registered game without variants)."""
    from komaken.games import find_game

    return find_game(game).start(None)


__all__ = ["PerfectPlayer", "RandomPlayer", "ReversiEnginePlayer", "new_game"]
