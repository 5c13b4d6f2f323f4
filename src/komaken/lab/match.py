"""The game loop: two players, one position, a result with its reason.

:func:`play_game` works for any :class:`komaken.game.Game`.  A player that raises, answers
something that is not a legal move, resigns or declares wrongly loses the game, and the reason
is recorded — an experiment never stops because one engine misbehaved.
"""

from __future__ import annotations

import functools
import inspect
import time
from dataclasses import dataclass, field
from typing import Any

from komaken.game import Color, Game
from komaken.players.base import DECLARE, RESIGN, Player


@dataclass(slots=True)
class MatchResult:
    """How one game went: ``winner`` is ``None`` for a draw; ``moves`` as text (USI for shogi)."""

    winner: Color | None
    reason: str
    moves: list[str] = field(default_factory=list)
    seconds: float = 0.0
    crashed: Color | None = None  # the side whose player raised (the lab rebuilds that player)

    @property
    def plies(self) -> int:
        return len(self.moves)


def move_text(move: Any) -> str:
    """A move as text: ``move.usi()`` where the game has it (shogi), else ``str(move)``."""
    usi = getattr(move, "usi", None)
    return usi() if callable(usi) else str(move)


@functools.cache
def _takes_seed(cls: type) -> bool:
    try:
        return "seed" in inspect.signature(cls.new_game).parameters
    except (TypeError, ValueError, AttributeError):
        return False


def start_player(player: Player, seed: int | None) -> None:
    """Call ``player.new_game()``, passing ``seed=`` when the player accepts one.

    Players that draw random numbers should accept ``new_game(seed=...)``: the lab gives each
    game its own seed, so a game's moves do not depend on which worker played it or when.
    """
    if seed is not None and _takes_seed(type(player)):
        player.new_game(seed=seed)  # type: ignore[call-arg]
    else:
        player.new_game()


def play_game(
    position: Game[Any],
    sente: Player,
    gote: Player,
    *,
    max_plies: int | None = None,
    seeds: tuple[int | None, int | None] = (None, None),
    moves_before: list[str] | None = None,
) -> MatchResult:
    """Play ``position`` to the end, ``sente`` moving for black and ``gote`` for white.

    ``max_plies`` adjudicates a draw once that many plies have been played (counting
    ``moves_before``, the opening already on the board).  ``seeds`` go to each player's
    ``new_game``.  ``position`` is played on (pass a copy to keep it).
    """
    players = {Color.BLACK: sente, Color.WHITE: gote}
    moves = list(moves_before or [])
    t0 = time.perf_counter()

    def done(winner: Color | None, reason: str, crashed: Color | None = None) -> MatchResult:
        return MatchResult(winner, reason, moves, time.perf_counter() - t0, crashed)

    for color, seed in zip((Color.BLACK, Color.WHITE), seeds, strict=True):
        try:
            start_player(players[color], seed)
        except Exception as exc:  # noqa: BLE001 - a broken player loses, the run goes on
            return done(color.other, f"crash: {_describe(exc)}", color)

    while True:
        outcome = position.outcome()
        if outcome is not None:
            return done(outcome.winner, outcome.termination.value)
        if max_plies is not None and len(moves) >= max_plies:
            return done(None, "max plies")
        turn = position.turn
        legal = position.legal_moves()
        if not legal:
            return done(turn.other, "no legal moves")
        try:
            answer = players[turn].choose(position.copy())
        except Exception as exc:  # noqa: BLE001
            return done(turn.other, f"crash: {_describe(exc)}", turn)
        if answer is RESIGN:
            return done(turn.other, "resignation")
        if answer is DECLARE:
            can_declare = getattr(position, "can_declare", None)
            if callable(can_declare) and can_declare():
                return done(turn, "declaration")
            return done(turn.other, "illegal declaration")
        if answer not in legal:
            return done(turn.other, f"illegal move: {_short(answer)}")
        position.push(answer)
        moves.append(move_text(answer))


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_short(exc)}"


def _short(value: Any, limit: int = 120) -> str:
    try:
        text = move_text(value) if not isinstance(value, BaseException) else str(value)
    except Exception:  # noqa: BLE001
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
