"""The thesis replica (:class:`komaken.shogi.engine.thesis.ThesisSearch`) as a player.

>>> from komaken.shogi import Position
>>> player = ThesisPlayer("minishogi", {"B": 1800, "R": 2000}, seed=1)
>>> player.choose(Position.start("minishogi")) in Position.start("minishogi").legal_moves()
True
"""

from __future__ import annotations

from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game
from komaken.players.base import RESIGN, PlayerAction
from komaken.shogi.engine.thesis import ThesisSearch, hand_lists
from komaken.shogi.position import Move, Position


class ThesisPlayer(ThesisSearch):
    """The published program's move choice, seeded: same seed, same game → same moves."""

    def choose(self, position: Game[Any], movetime: float | None = None) -> Move | PlayerAction:
        """The program's move; ``movetime`` (seconds) overrides the player's own for this call."""
        if not isinstance(position, Position):
            raise KomakenError("the thesis player plays shogi variants only")
        move = self.best(position, movetime)
        return RESIGN if move is None else move


__all__ = ["ThesisPlayer", "hand_lists"]
