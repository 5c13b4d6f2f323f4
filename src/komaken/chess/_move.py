"""Squares, pieces and moves as python-chess names them (a1 = 0 … h8 = 63, UCI move text)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from komaken.chess._tables import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK
from komaken.errors import IllegalMoveError
from komaken.game import Color

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
#: ``SQUARE_NAMES[0] == "a1"``, ``SQUARE_NAMES[63] == "h8"``.
SQUARE_NAMES = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
PIECE_SYMBOLS = " pnbrqk"  # index = piece type
PIECE_NAMES = ("", "pawn", "knight", "bishop", "rook", "queen", "king")
UNICODE_PIECES = {
    "P": "♙", "N": "♘", "B": "♗", "R": "♖", "Q": "♕", "K": "♔",
    "p": "♟", "n": "♞", "b": "♝", "r": "♜", "q": "♛", "k": "♚",
}  # fmt: skip

_UCI = re.compile(r"([a-h][1-8])([a-h][1-8])([qrbn]?)\Z")


def square_name(square: int) -> str:
    """``0`` → ``"a1"``, ``63`` → ``"h8"``."""
    return SQUARE_NAMES[square]


def parse_square(text: str) -> int:
    """``"e4"`` → 28; :class:`IllegalMoveError` for anything else."""
    t = text.strip()
    if len(t) != 2 or t[0] not in FILE_NAMES or t[1] not in RANK_NAMES:
        raise IllegalMoveError(f"{text!r} is not a chess square (a1..h8)")
    return FILE_NAMES.index(t[0]) + 8 * RANK_NAMES.index(t[1])


class Piece(NamedTuple):
    """A piece: its type (``PAWN`` … ``KING``, 1..6) and colour."""

    piece_type: int
    color: Color

    def symbol(self) -> str:
        """FEN letter: upper case for white (``"N"``), lower case for black (``"n"``)."""
        s = PIECE_SYMBOLS[self.piece_type]
        return s.upper() if self.color is Color.WHITE else s

    def unicode_symbol(self) -> str:
        return UNICODE_PIECES[self.symbol()]

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        return cls(PIECE_SYMBOLS.index(symbol.lower()), Color.WHITE if symbol.isupper() else Color.BLACK)


@dataclass(frozen=True, slots=True)
class Move:
    """A move from one square to another (0..63), with the piece a pawn promotes to.

    Castling is the king's move (``e1g1``); en passant is the pawn's diagonal move.
    ``promotion`` is ``KNIGHT``, ``BISHOP``, ``ROOK`` or ``QUEEN`` (2..5), else ``None``.
    """

    from_square: int
    to_square: int
    promotion: int | None = None

    @classmethod
    def from_uci(cls, text: str) -> Move:
        """``"e2e4"``, ``"e7e8q"`` → the move; :class:`IllegalMoveError` if malformed."""
        m = _UCI.match(text.strip())
        if not m:
            raise IllegalMoveError(f"{text!r} is not a UCI move (like e2e4 or e7e8q)")
        promo = PIECE_SYMBOLS.index(m.group(3)) if m.group(3) else None
        return cls(parse_square(m.group(1)), parse_square(m.group(2)), promo)

    def uci(self) -> str:
        promo = PIECE_SYMBOLS[self.promotion] if self.promotion else ""
        return SQUARE_NAMES[self.from_square] + SQUARE_NAMES[self.to_square] + promo

    def __str__(self) -> str:
        return self.uci()


def is_uci(text: str) -> bool:
    """Whether ``text`` has the shape of a UCI move."""
    return _UCI.match(text.strip()) is not None


__all__ = [
    "BISHOP", "FILE_NAMES", "KING", "KNIGHT", "Move", "PAWN", "PIECE_NAMES", "Piece", "QUEEN", "RANK_NAMES",
    "ROOK", "SQUARE_NAMES", "UNICODE_PIECES", "is_uci", "parse_square", "square_name",
]  # fmt: skip
