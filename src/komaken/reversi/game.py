"""Reversi in the game registry.

>>> GAME.parse_move(GAME.start(None), "F5")
ReversiMove(square=37)
"""

from __future__ import annotations

from typing import Any

from komaken.games import GameSpec, checked_move
from komaken.players.base import Player
from komaken.players.registry import SEED, BuildContext, Option, PlayerType
from komaken.reversi._position import Reversi, ReversiMove


def _build_engine(ctx: BuildContext, o: dict[str, Any]) -> Player:
    from komaken.players.boardgames import ReversiEnginePlayer

    return ReversiEnginePlayer(o.get("depth"), o.get("empties", o.get("endgame_empties", 14)), o.get("seed"),
                               o.get("movetime"))


def _svg(position: Reversi) -> str:
    return position._repr_svg_()


_EMPTIES = Option("empties", "int", "solve exactly with this many empty squares or fewer", 0, 64)

PLAYERS = {
    "engine": PlayerType(
        "engine", "the numba α-β engine (depth 6, exact at 14 empties; or movetime seconds)", _build_engine,
        (Option("depth", "int", "plies", 1, 60), _EMPTIES,
         Option("endgame_empties", "int", _EMPTIES.help, 0, 64), SEED,
         Option("movetime", "seconds", "seconds a move", 0.001, 86400.0))),
}

GAME = GameSpec(
    name="reversi",
    title="reversi (Othello)",
    start=lambda variant: Reversi.start(),
    from_text=lambda text, variant: Reversi.from_text(text),
    to_text=Reversi.to_text,
    parse_move=lambda position, text: checked_move(position, ReversiMove.parse(text)),
    players=PLAYERS,
    default_opponent="engine:movetime=1",
    side_names=("black", "white"),
    svg=_svg,
)

__all__ = ["GAME", "PLAYERS"]
