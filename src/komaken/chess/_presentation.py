"""Chess's presentation part: the 8×8 board from white's side with its dark squares shaded,
figurines filled by side, from→to moves with a ``Q R B N`` choice for a promotion, and SAN
labels that carry their move numbers (``1. e4``, ``1… e5``).

>>> board = Board()
>>> PRESENTATION.label(board, Move.from_uci("e2e4")), PRESENTATION.move(Move.from_uci("a7a8q"))["choice"]
('1. e4', 'Q')
"""

from __future__ import annotations

from typing import Any

from komaken.chess._board import Board
from komaken.chess._move import PIECE_SYMBOLS, Move, square_name
from komaken.game import Color
from komaken.presentation import Look, Presentation, grid_cells

#: solid figurines for both sides (the page fills them white or black)
GLYPHS = {"p": "♟", "n": "♞", "b": "♝", "r": "♜", "q": "♛", "k": "♚"}
LOOK = Look(cell=56, background="#f0d9b5", line="#8b6b43", dark="#b58863", shape="glyph", grid=False)


def board(pos: Board) -> dict[str, Any]:
    def square(col: int, row: int) -> tuple[str, dict[str, Any] | None]:
        sq = (7 - row) * 8 + col
        p = pos.piece_at(sq)
        piece = None if p is None else {"label": GLYPHS[PIECE_SYMBOLS[p.piece_type]], "side": int(p.color),
                                        "kind": p.symbol().upper()}
        return square_name(sq), piece

    m = pos.peek()
    return {"width": 8, "height": 8, "look": LOOK.to_json(),
            "cells": grid_cells(8, 8, square, shade=lambda col, row: (7 - row + col) % 2 == 0),
            "hands": None, "files": list("abcdefgh"), "ranks": [str(r) for r in range(8, 0, -1)],
            "last": None if m is None else {"from": square_name(m.from_square), "to": square_name(m.to_square)},
            "check": square_name(pos.king(pos.turn)) if pos.is_check() else None, "check_label": "check",
            "note": None}


def move(m: Move) -> dict[str, Any]:
    """Castling is the king's two-square move, en passant the pawn's diagonal one."""
    choice = PIECE_SYMBOLS[m.promotion].upper() if m.promotion else None
    return {"from": square_name(m.from_square), "to": square_name(m.to_square), "drop": None, "choice": choice,
            "pass": False}


def label(pos: Board, m: Move) -> str:
    """``1. e4`` for white's move, ``1… e5`` for black's (SAN, with + and #)."""
    n = pos.fullmove_number
    return f"{n}. {pos.san(m)}" if pos.turn is Color.WHITE else f"{n}… {pos.san(m)}"


PRESENTATION = Presentation(
    board=board,
    size=lambda variant: (8, 8),
    move=move,
    label=label,
    side_names=("♚ black", "♔ white"),
    bottom=Color.WHITE,
    numbered=True,
    choices={"Q": "♛ queen", "R": "♜ rook", "B": "♝ bishop", "N": "♞ knight"},
)

__all__ = ["GLYPHS", "PRESENTATION"]
