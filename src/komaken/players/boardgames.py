"""Players for any game: exact (or depth-limited) negamax, and the seeded base of the game engines.

Every player here implements :class:`komaken.players.base.Player`; the registry
(:mod:`komaken.players.registry`) builds them from specs such as ``perfect`` (tic-tac-toe) with
:func:`komaken.players.registry.make_player`.  A game's own engine player lives in its package
(:class:`komaken.reversi.player.ReversiEnginePlayer`).
"""

from __future__ import annotations

import random
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game
from komaken.players.random import RandomPlayer
from komaken.search.generic import best_move


class Seeded:
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


class PerfectPlayer(Seeded):
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


__all__ = ["PerfectPlayer", "RandomPlayer", "Seeded"]
