"""The :class:`Player` protocol shared by the terminal, the USI front end and the lab."""

from __future__ import annotations

import enum
from typing import Any, Protocol, runtime_checkable

from komaken.game import Game


class PlayerAction(enum.Enum):
    """What a player may answer instead of a move."""

    RESIGN = "resign"  # 投了
    DECLARE = "declare"  # 入玉宣言 (win by the 27-point declaration rule)


RESIGN = PlayerAction.RESIGN
DECLARE = PlayerAction.DECLARE


@runtime_checkable
class Player(Protocol):
    """Something that chooses moves.

    ``choose`` receives the current position (a :class:`komaken.game.Game`; never modify it,
    take ``position.copy()`` if you need to) and returns one of its legal moves,
    :data:`RESIGN` or :data:`DECLARE`.  An answer that is not legal loses the game (反則).
    """

    name: str

    def new_game(self, seed: int | None = None) -> None:
        """Called before each game (reset clocks, hash tables, random streams...).

        The lab passes every game its own ``seed`` so a game's moves do not depend on which
        worker played it; a player that draws random numbers restarts its stream there.
        """

    def choose(self, position: Game[Any]) -> Any:
        """Return a legal move of ``position``, :data:`RESIGN` or :data:`DECLARE`."""

    def close(self) -> None:
        """Release resources (subprocesses, ...)."""
