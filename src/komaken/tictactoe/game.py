"""Tic-tac-toe in the game registry.

>>> GAME.parse_move(GAME.start(None), "5")
TicTacToeMove(square=5)
"""

from __future__ import annotations

from typing import Any

from komaken.games import GameSpec, checked_move
from komaken.players.base import Player
from komaken.players.boardgames import PerfectPlayer
from komaken.players.registry import SEED, BuildContext, Option, PlayerType
from komaken.presentation import Look, Presentation, grid_cells, marked
from komaken.tictactoe._position import ROWS, TicTacToe, TicTacToeMove


def _build_perfect(ctx: BuildContext, o: dict[str, Any]) -> Player:
    return PerfectPlayer(o.get("seed"), o.get("depth"))


def _svg(position: TicTacToe) -> str:
    return position._repr_svg_()


def _board(pos: TicTacToe) -> dict[str, Any]:
    def square(col: int, row: int) -> tuple[str, dict[str, Any] | None]:
        sq = ROWS[row][col]
        c = pos.at(sq)
        return str(sq), None if c is None else {"label": "×○"[int(c)], "side": int(c)}

    last = pos.move_stack[-1] if pos.ply else None
    return {"width": 3, "height": 3, "look": Look(cell=96, background="#fbfbf7", line="#333", shape="mark").to_json(),
            "cells": grid_cells(3, 3, square), "hands": None, "files": [], "ranks": [],
            "last": None if last is None else {"from": None, "to": str(last)}, "check": None, "note": None}


_PERFECT = PlayerType("perfect", "exact negamax: never loses (depth limits it)", _build_perfect,
                      (SEED, Option("depth", "int", "plies", 1, 9)))

GAME = GameSpec(
    name="tictactoe",
    title="tic-tac-toe (三目並べ)",
    start=lambda variant: TicTacToe.start(),
    from_text=lambda text, variant: TicTacToe.from_text(text),
    to_text=TicTacToe.to_text,
    parse_move=lambda position, text: checked_move(position, TicTacToeMove.parse(text)),
    players={"perfect": _PERFECT, "engine": _PERFECT},
    default_opponent="perfect",
    side_names=("X", "O"),
    svg=_svg,
    presentation=Presentation(board=_board, size=lambda variant: (3, 3), label=marked(("×", "○")),
                              side_names=("× X", "○ O")),
)

__all__ = ["GAME"]
