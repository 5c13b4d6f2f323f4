"""The lab's view of the game loop (:func:`komaken.match.play_game`), sente and gote by name.

:class:`MatchResult` is :class:`komaken.match.GameResult`: the outcome (termination and
winner), the moves as text, the reason in words, who crashed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from komaken.game import Color, Game
from komaken.match import GameResult
from komaken.match import play_game as _play_game
from komaken.players.base import Player

if TYPE_CHECKING:
    from komaken.games import GameSpec

MatchResult = GameResult


def play_game(
    position: Game[Any],
    sente: Player,
    gote: Player,
    *,
    max_plies: int | None = None,
    seeds: tuple[int | None, int | None] = (None, None),
    moves_before: Sequence[str] | None = None,
    game: GameSpec | None = None,
) -> GameResult:
    """Play ``position`` to the end, ``sente`` moving for the colour that moves first
    (:attr:`GameSpec.first <komaken.games.GameSpec.first>`: black, white in chess) and ``gote``
    for the other (see :func:`komaken.match.play_game`; ``game`` also supplies move text and the
    declaration rule).  ``seeds`` are sente's and gote's."""
    players, by_color = (sente, gote), seeds
    if game is not None and game.first is Color.WHITE:
        players, by_color = (gote, sente), (seeds[1], seeds[0])
    return _play_game(position, players, max_plies=max_plies, seeds=by_color, moves_before=moves_before or (),
                      move_text=game.move_text if game is not None else str,
                      can_declare=game.can_declare if game is not None else None)


__all__ = ["MatchResult", "play_game"]
