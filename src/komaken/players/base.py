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


class PlayerTimeout(Exception):  # noqa: N818 - named for what happened, like TimeoutError
    """Raised by a player that did not answer in time and was stopped (an external engine that
    was killed): the game loop records a loss on time and names the player as crashed, so a
    referee restarts it."""


class Interrupted(Exception):  # noqa: N818 - a signal, not an error
    """Raised by a player's ``choose`` when the game loop's :class:`~komaken.match.Control` asks it
    to stop waiting (a move taken back, a resignation, the game stopped from outside)."""


@runtime_checkable
class Player(Protocol):
    """Something that chooses moves.

    ``choose`` receives the current position (a :class:`komaken.game.Game`; never modify it,
    take ``position.copy()`` if you need to) and returns one of its legal moves,
    :data:`RESIGN` or :data:`DECLARE`.  An answer that is not legal loses the game (反則).

    Optional: a ``stop()`` method ends a ``choose`` in progress early (it then answers its best
    so far, or raises :class:`Interrupted`); a settable ``on_progress`` attribute is called with
    each finished search iteration (an object with ``depth``, ``score``, ``nodes``, ``pv``)
    while it thinks — the game loop points it at its observer.
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
