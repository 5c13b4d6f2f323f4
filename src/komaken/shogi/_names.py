"""The names of the pieces, one table per language, by SFEN letter (``"+P"`` for a promoted pawn).

* :data:`KANJI` — one character each, as diagrams and pieces on a board show them (杏 圭 全);
* :data:`KANJI_MOVE` — as move text writes them (成香 成桂 成銀, KIF/KI2);
* :data:`ENGLISH` — the English names;
* :data:`KIND_OF_NAME` — every Japanese spelling a reader meets (王, 竜, 成歩 …), to the letter.

A variant may name its pieces otherwise (``[pieces.K] name = "lion"``, ``kanji = "ラ"`` in its
file): :class:`PieceNames` is these tables with a variant's own names over them, and every surface
that writes or reads a piece's name (diagrams, SVG, the web page, KIF/KI2 moves, messages) asks
the position's ``variant.names``.  SFEN, USI and CSA keep the slot letters and codes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

KANJI = {
    "P": "歩", "L": "香", "N": "桂", "S": "銀", "G": "金", "B": "角", "R": "飛", "K": "玉",
    "+P": "と", "+L": "杏", "+N": "圭", "+S": "全", "+B": "馬", "+R": "龍",
}  # fmt: skip
KANJI_MOVE = {**KANJI, "+L": "成香", "+N": "成桂", "+S": "成銀"}
ENGLISH = {
    "P": "pawn", "L": "lance", "N": "knight", "S": "silver", "G": "gold", "B": "bishop", "R": "rook",
    "K": "king", "+P": "tokin", "+L": "promoted lance", "+N": "promoted knight", "+S": "promoted silver",
    "+B": "horse", "+R": "dragon",
}  # fmt: skip
KIND_OF_NAME = {
    **{v: k for k, v in KANJI_MOVE.items()},
    "王": "K", "竜": "+R", "杏": "+L", "圭": "+N", "全": "+S", "成歩": "+P", "成角": "+B", "成飛": "+R",
}  # fmt: skip


@dataclass(frozen=True)
class PieceNames:
    """Every piece's name in each language: the standard tables with a variant's own names over
    them.  ``own`` holds the Japanese names the variant gave (its reader accepts them)."""

    english: Mapping[str, str] = field(default_factory=lambda: ENGLISH)
    kanji: Mapping[str, str] = field(default_factory=lambda: KANJI)
    kanji_move: Mapping[str, str] = field(default_factory=lambda: KANJI_MOVE)
    own: tuple[str, ...] = ()

    @classmethod
    def of(cls, given: Iterable[tuple[str, str, str, str]]) -> PieceNames:
        """The tables with ``(letter, english, kanji, kanji_move)`` names over them ("" keeps the
        standard name; a piece given ``kanji`` only writes it in moves too)."""
        english, kanji, move = dict(ENGLISH), dict(KANJI), dict(KANJI_MOVE)
        own: list[str] = []
        for letter, en, ja, ja_move in given:
            if en:
                english[letter] = en
            if ja:
                kanji[letter] = ja
            if ja or ja_move:
                move[letter] = ja_move or ja
            own += [n for n in (ja, ja_move) if n]
        return cls(english, kanji, move, tuple(dict.fromkeys(own)))

    @cached_property
    def reading(self) -> dict[str, str]:
        """Japanese spelling → letter: the standard ones, and the variant's own over them."""
        own = {**{v: k for k, v in self.kanji.items()}, **{v: k for k, v in self.kanji_move.items()}}
        return {**KIND_OF_NAME, **{name: own[name] for name in self.own}}


#: the standard names (a variant that names none of its pieces)
STANDARD_NAMES = PieceNames()

__all__ = ["ENGLISH", "KANJI", "KANJI_MOVE", "KIND_OF_NAME", "STANDARD_NAMES", "PieceNames"]
