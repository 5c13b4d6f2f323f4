"""The random player: a uniformly random legal move, for any game.

>>> from komaken.tictactoe import TicTacToe
>>> a, b = RandomPlayer(seed=3), RandomPlayer(seed=3)
>>> a.choose(TicTacToe.start()) == b.choose(TicTacToe.start())
True
"""

from __future__ import annotations

import random
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game


class RandomPlayer:
    """Plays a uniformly random legal move.  The same ``seed`` replays the same games;
    ``new_game(seed=...)`` (the lab gives every game its own) restarts the stream there."""

    def __init__(self, seed: int | None = None, *, name: str | None = None) -> None:
        self.seed = seed
        self.name = name or ("random" if seed is None else f"random(seed={seed})")
        self._rng = random.Random(seed)

    def new_game(self, seed: int | None = None) -> None:
        self._rng = random.Random(self.seed if seed is None else seed)

    def choose(self, position: Game[Any]) -> Any:
        moves = list(position.legal_moves())
        if not moves:
            raise KomakenError("no legal move: the game is over")
        return self._rng.choice(moves)

    def close(self) -> None:
        pass


__all__ = ["RandomPlayer"]
