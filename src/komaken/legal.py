"""``pos.legal_moves``: the legal moves as a live, sized collection that can also be called.

python-chess users write ``len(board.legal_moves)``, ``move in board.legal_moves`` and
``for move in board.legal_moves``; code that keeps the moves while it pushes others wants a list.
Both work: ``legal_moves`` is a property returning a :class:`LegalMoves` view, a read-only
:class:`~collections.abc.Sequence` of the moves of the position *as it is now* (it follows
``push``/``pop``, like python-chess's generator), and calling the view, ``pos.legal_moves()``,
returns a plain ``list`` snapshot that later pushes do not change.

>>> from komaken.shogi import Position
>>> pos = Position.start("minishogi")
>>> moves = pos.legal_moves
>>> len(moves), moves[0], "5d5c" in moves
(14, Move.from_usi('1e1d'), True)
>>> pos.legal_moves() == list(pos.legal_moves)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

M = TypeVar("M")


class LegalMoves(Sequence[M], Generic[M]):
    """The legal moves of a position, regenerated from the position on each use.

    * ``len(view)``, ``view[i]``, ``for m in view``, ``m in view`` — a read-only sequence;
    * ``view()`` — a new ``list``, a snapshot that later pushes do not change;
    * ``move in view`` also accepts move text (``"7g7f"``) when the position can parse it.

    Iterating takes a snapshot first, so pushing moves inside the loop does not disturb it.
    """

    __slots__ = ("_generate", "_parse")

    def __init__(self, generate: Callable[[], list[M]], parse: Callable[[str], Any] | None = None) -> None:
        self._generate = generate
        self._parse = parse

    def __call__(self) -> list[M]:
        """All legal moves now, as a new list."""
        return self._generate()

    def __len__(self) -> int:
        return len(self._generate())

    @overload
    def __getitem__(self, index: int) -> M: ...

    @overload
    def __getitem__(self, index: slice) -> list[M]: ...

    def __getitem__(self, index: int | slice) -> M | list[M]:
        return self._generate()[index]

    def __iter__(self) -> Iterator[M]:
        return iter(self._generate())

    def __contains__(self, move: object) -> bool:
        if isinstance(move, str) and self._parse is not None:
            try:
                move = self._parse(move)
            except ValueError:
                return False
        return move in self._generate()

    def __bool__(self) -> bool:
        return bool(self._generate())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves):
            return self._generate() == other._generate()
        if isinstance(other, (list, tuple)):
            return self._generate() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a live view of a mutable position

    def __repr__(self) -> str:
        moves = self._generate()
        shown = ", ".join(str(m) for m in moves[:12])
        more = f", … {len(moves) - 12} more" if len(moves) > 12 else ""
        return f"<LegalMoves ({len(moves)}): {shown}{more}>"


__all__ = ["LegalMoves"]
