"""Moves of a shogi-family game: :class:`Move`, a thin wrapper over the kernels' integer code.

>>> from komaken.shogi import Move
>>> m = Move.from_usi("2b3c+")
>>> m.from_square, m.to_square, m.promotion, m.drop
(Square(file=2, rank=2), Square(file=3, rank=3), True, None)
>>> Move.from_usi("P*5e").drop, str(Move.from_usi("P*5e"))
('P', 'P*5e')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from komaken.errors import IllegalMoveError
from komaken.game import Color
from komaken.shogi import _kernels as K
from komaken.shogi._board import BLACK_BIT, KIND_OF_LETTER, KING, LETTERS, kind_letter, square
from komaken.shogi.notation import japanese, japanese_marked
from komaken.shogi.square import Piece, Square

if TYPE_CHECKING:
    from komaken.shogi.position import Position


@dataclass(frozen=True, slots=True)
class Move:
    """A move, wrapping the kernels' integer encoding.

    A board move has a ``from_square`` and may promote; a drop has ``drop`` (the kind letter)
    and no ``from_square``.  ``str(move)`` and :meth:`usi` give USI text (``7g7f``, ``2b3c+``,
    ``P*5e``); :meth:`japanese` gives Japanese text (``７六歩``) in a position.

    Moves that come from a position (``legal_moves``, ``push_usi``, ``pop``, ``peek``,
    ``move_stack``) also know the piece that moves (:attr:`piece`); two moves are equal when
    their codes are, whether or not they know it.
    """

    code: int
    _piece: int = field(default=0, compare=False, repr=False)

    @classmethod
    def from_usi(cls, text: str) -> Move:
        """Parse USI move text (syntax only; legality is checked when it is played)."""
        t = text.strip()
        try:
            if len(t) == 4 and t[1] == "*":
                kind = KIND_OF_LETTER.get(t[0].upper(), 0) if t[0].isascii() else 0  # not 'ſ' for S
                if not kind or kind == KING:
                    raise ValueError
                return cls(K.make_drop(kind, _parse_square(t[2:4])))
            if len(t) in (4, 5) and (len(t) == 4 or t[4] == "+"):
                return cls(K.make_move(_parse_square(t[0:2]), _parse_square(t[2:4]), int(len(t) == 5)))
        except ValueError:
            pass
        raise IllegalMoveError(f"not a USI move: {text!r} (expected e.g. 7g7f, 2b3c+ or P*5e)")

    @classmethod
    def board_move(cls, frm: Square, to: Square, promotion: bool = False) -> Move:
        return cls(K.make_move(frm.index, to.index, int(promotion)))

    @classmethod
    def drop_move(cls, kind: str, to: Square) -> Move:
        if KIND_OF_LETTER.get(kind, KING) == KING:
            raise IllegalMoveError(f"{kind!r} cannot be dropped (one of R B G S N L P)")
        return cls(K.make_drop(KIND_OF_LETTER[kind], to.index))

    @property
    def to_square(self) -> Square:
        return Square.from_index(self.code & 0xFF)

    @property
    def from_square(self) -> Square | None:
        frm = (self.code >> 8) & 0xFF
        return Square.from_index(frm) if frm else None

    @property
    def promotion(self) -> bool:
        return bool((self.code >> 16) & 1)

    @property
    def drop(self) -> str | None:
        kind = (self.code >> 17) & 0xF
        return LETTERS[kind] if kind else None

    @property
    def piece(self) -> Piece | None:
        """The piece that moves (before any promotion): ``Piece("S", Color.BLACK)``.  ``None`` for
        a move read from text alone (``Move.from_usi``) — then ask the position:
        ``pos.piece_at(move.from_square)``."""
        return _piece_of(self._piece) if self._piece else None

    def japanese(self, position: Position, *, style: str = "ki2", marked: bool = False) -> str:
        """Japanese text of this move about to be played in ``position``: ``７六歩``, ``同銀``,
        ``５二金直`` (``marked=True``: ``▲７六歩``).  ``style`` is ``"ki2"``, ``"kif"`` (``７六歩(77)``)
        or ``"origin"`` — see :mod:`komaken.shogi.notation`."""
        write = japanese_marked if marked else japanese
        return write(position, self, style=style)  # type: ignore[arg-type]

    def usi(self) -> str:
        if self.drop:
            return f"{self.drop}*{self.to_square.usi()}"
        assert self.from_square is not None
        return self.from_square.usi() + self.to_square.usi() + ("+" if self.promotion else "")

    def __str__(self) -> str:
        return self.usi()

    def __repr__(self) -> str:
        return f"Move.from_usi({self.usi()!r})"


def _piece_of(code: int) -> Piece:
    return Piece(kind_letter(code & 0x0F), Color.BLACK if code & BLACK_BIT else Color.WHITE)


def _parse_square(text: str) -> int:
    f, r = text[0], text[1]
    if not ("1" <= f <= "9" and "a" <= r <= "i"):
        raise ValueError(text)
    return square(int(f), ord(r) - ord("a") + 1)


__all__ = ["Move"]
