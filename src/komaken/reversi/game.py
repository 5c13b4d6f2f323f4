"""Reversi in the game registry.

>>> GAME.parse_move(GAME.start(None), "F5")
ReversiMove(square=37)
"""

from __future__ import annotations

from typing import Any

from komaken.game import Color
from komaken.games import GameSpec, checked_move
from komaken.players.base import Player
from komaken.players.registry import SEED, BuildContext, Option, PlayerType
from komaken.presentation import Look, Presentation, grid_cells, marked
from komaken.reversi._position import Reversi, ReversiMove, square_name
from komaken.reversi.engine import ReversiAnalyser
from komaken.reversi.player import ReversiEnginePlayer


def _build_engine(ctx: BuildContext, o: dict[str, Any]) -> Player:
    return ReversiEnginePlayer(o.get("depth"), o.get("empties", o.get("endgame_empties", 14)), o.get("seed"),
                               o.get("movetime"))


def _svg(position: Reversi) -> str:
    return position._repr_svg_()


def _board(pos: Reversi) -> dict[str, Any]:
    """Rank 8 at the top; the status line counts the discs."""

    def square(col: int, row: int) -> tuple[str, dict[str, Any] | None]:
        sq = (7 - row) * 8 + col
        c = pos.piece_at(sq)
        return square_name(sq), None if c is None else {"label": "", "side": int(c)}

    last = pos.move_stack[-1] if pos.ply else None
    black, white = pos.discs(Color.BLACK), pos.discs(Color.WHITE)
    return {"width": 8, "height": 8, "look": Look(background="#2e7d4f", line="#14412a", shape="disc").to_json(),
            "cells": grid_cells(8, 8, square), "hands": None, "files": list("abcdefgh"),
            "ranks": [str(r) for r in range(8, 0, -1)],
            "last": None if last is None or last.is_pass else {"from": None, "to": str(last)},
            "check": None, "note": f"discs {black}–{white}"}


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
    presentation=Presentation(board=_board, size=lambda variant: (8, 8), label=marked(("●", "○")),
                              side_names=("● black", "○ white")),
    analyser=lambda position: ReversiAnalyser(),
)

__all__ = ["GAME", "PLAYERS"]
