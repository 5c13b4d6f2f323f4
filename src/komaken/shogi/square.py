"""Squares and pieces of a shogi-family board: :class:`Square` and :class:`Piece`.

>>> from komaken.shogi import Square
>>> Square.parse("7g"), Square.parse("７七").usi(), Square(7, 7).japanese()
(Square(file=7, rank=7), '7g', '７七')
"""

from __future__ import annotations

from typing import NamedTuple

from komaken.errors import InvalidPositionError
from komaken.game import Color
from komaken.shogi._board import square
from komaken.shogi.sfen import square_name


class Square(NamedTuple):
    """A board square by file (1 = rightmost from black's view) and rank (1 = top, ``a``)."""

    file: int
    rank: int

    @property
    def index(self) -> int:
        """Index in the kernels' one-dimensional board (``file * 16 + rank``)."""
        return square(self.file, self.rank)

    @classmethod
    def from_index(cls, index: int) -> Square:
        return cls(index >> 4, index & 15)

    def usi(self) -> str:
        """``7g``"""
        return square_name(self.file, self.rank)

    def japanese(self) -> str:
        """``７七`` (full-width file, kanji rank)"""
        return _ZEN[self.file] + _KAN[self.rank]

    @classmethod
    def parse(cls, text: str) -> Square:
        """``"7g"`` (USI), ``"77"`` or ``"７七"`` (Japanese) → ``Square(7, 7)``.  Raises
        :class:`InvalidPositionError` for anything else (whether it is on a given board is checked
        where it is used)."""
        t = text.strip()
        if len(t) == 2:
            f = _digit(t[0])
            r = ord(t[1]) - ord("a") + 1 if "a" <= t[1] <= "i" else _digit(t[1])
            if f and r:
                return cls(f, r)
        raise InvalidPositionError(f"not a square: {text!r} (expected e.g. 7g, 77 or ７七)")


def _digit(ch: str) -> int:
    """1..9 from ``7``, ``７`` or ``七``; 0 for anything else."""
    for table in ("0123456789", "０１２３４５６７８９", "〇一二三四五六七八九"):
        i = table.find(ch)
        if i > 0:
            return i
    return 0


def _to_square(sq: object) -> Square:
    """A :class:`Square` from a Square, a ``(file, rank)`` tuple or square text (``"7g"``)."""
    if type(sq) is Square:  # the common case first: readers and writers ask per move
        return sq
    if isinstance(sq, str):
        return Square.parse(sq)
    if isinstance(sq, tuple) and len(sq) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in sq):
        return Square(*sq)
    raise TypeError(f"a square is 'file rank' text ('7g'), a (file, rank) tuple or a Square, not {sq!r}")


_ZEN = " １２３４５６７８９"
_KAN = " 一二三四五六七八九"


class Piece(NamedTuple):
    """A piece: its kind letter (``"P"``, ``"+R"``, ``"K"``...) and owner."""

    kind: str
    color: Color

    def symbol(self) -> str:
        """SFEN symbol: upper case for black, lower case for white (``+p``)."""
        return self.kind if self.color is Color.BLACK else self.kind.lower()


__all__ = ["Piece", "Square"]
