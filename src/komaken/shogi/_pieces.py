"""Pieces as data: how each kind slot moves in a variant, read from its ``[pieces]`` table.

A variant plays with the eight kind slots of :mod:`komaken.shogi._board` (P L N S G B R K) and
their promoted forms.  What a slot moves like is data: the standard shogi movement
(:data:`~komaken.shogi._board.STANDARD_STEPS` / ``STANDARD_SLIDES``) unless the variant's TOML file
gives the slot its own, e.g. dobutsu's giraffe in the rook's slot::

    [pieces.R]
    name = "giraffe"                # its English name
    kanji = "キ"                    # one character, as boards and diagrams show it
    steps = ["N", "E", "W", "S"]
    promotes = false

The names (``name``, ``kanji``, and ``kanji_move`` for move text when it differs from ``kanji``)
go to the variant's :class:`~komaken.shogi._names.PieceNames`; a slot given names only moves as
standard.

A movement is a list of one-square ``steps`` and of ``slides`` (any distance until blocked) by
direction name, seen from the side that moves the piece (:data:`DIRECTION_NAMES`: ``N`` is
forward, ``NNE``/``NNW`` the knight's jumps).  The tables go to the kernels packed into the
variant's ``rules`` array (:meth:`Movement.pack`), one mechanism for every variant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from komaken.errors import VariantError
from komaken.shogi import _kernels as K
from komaken.shogi._board import (
    BLACK_BIT,
    DIRECTION_NAMES,
    DIRS,
    FLIP,
    KIND_OF_LETTER,
    KING,
    LETTERS,
    PROMOTABLE,
    PROMOTED,
    SLIDE_DIRECTIONS,
    STANDARD_SLIDES,
    STANDARD_STEPS,
    WHITE_BIT,
    kind_letter,
)

_PIECE_KEYS = ("name", "kanji", "kanji_move", "steps", "slides", "promotes")
#: what a Japanese piece name may not hold: it would read as a count, a square or a mark
_NOT_IN_NAMES = set("0123456789０１２３４５６７８９〇一二三四五六七八九十同仝打▲△☗☖()（）・|")
#: (file, rank) step of each direction for black, rank 1 being forward (for the dead ranks)
_FR = [(0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1), (-1, 1), (1, 1), (-1, -2), (1, -2)]


@dataclass(frozen=True)
class PieceMoves:
    """A variant's word on one slot (``letter`` as in SFEN, ``"+P"`` for a promoted one): its
    names (English ``name``, Japanese ``kanji`` and ``kanji_move``; "" keeps the standard one),
    and its movement when ``steps`` or ``slides`` is given (``None``: the standard one);
    ``promotes`` ``None`` keeps the standard (P L N S B R promote)."""

    letter: str
    name: str = ""
    steps: tuple[str, ...] | None = None
    slides: tuple[str, ...] | None = None
    promotes: bool | None = None
    kanji: str = ""
    kanji_move: str = ""


class Movement:
    """Steps and slides (black's direction indexes) of every kind 1..15 and which kinds promote."""

    def __init__(self, pieces: tuple[PieceMoves, ...]) -> None:
        self.steps: dict[int, tuple[int, ...]] = {k: STANDARD_STEPS.get(k, ()) for k in range(1, 16)}
        self.slides: dict[int, tuple[int, ...]] = {k: STANDARD_SLIDES.get(k, ()) for k in range(1, 16)}
        self.promotes = [k in PROMOTABLE for k in range(16)]
        for p in pieces:
            kind = _kind(p.letter)
            if p.steps is not None or p.slides is not None:
                self.steps[kind] = tuple(DIRECTION_NAMES.index(d) for d in p.steps or ())
                self.slides[kind] = tuple(DIRECTION_NAMES.index(d) for d in p.slides or ())
            if p.promotes is not None:
                self.promotes[kind] = p.promotes

    def offsets(self, letter: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """The steps and the slides of the piece ``letter`` (``"+P"``) as ``(file, rank)`` offsets
        for black (rank -1: forward), for drawing its movement."""
        kind = _kind(letter)
        return [_FR[j] for j in self.steps[kind]], [_FR[j] for j in self.slides[kind]]

    def dead_ranks(self, kind: int) -> int:
        """On how many of its last ranks a piece of ``kind`` would have no move: 0 if it has a
        move that does not go forward, else the shortest forward reach (1 pawn, 2 knight)."""
        ranks = [-_FR[j][1] for j in self.steps[kind]] + [1 for _ in self.slides[kind]]
        if any(_FR[j][1] >= 0 for j in self.steps[kind] + self.slides[kind]):
            return 0
        return min(ranks) if ranks else 0

    def moves_of(self, kind: int, width: int, height: int) -> int:
        """The most board moves a piece of ``kind`` can have (its steps, plus each slide line's
        squares: a pair of opposite slides shares one line)."""
        reach = {0: height - 1, 5: height - 1, 3: width - 1, 4: width - 1}
        diag = min(width, height) - 1
        lines = {min(j, FLIP[j]) for j in self.slides[kind]}
        return len(self.steps[kind]) + sum(reach.get(j, diag) for j in lines)

    def most_moves(self, kind: int, width: int, height: int) -> int:
        """:meth:`moves_of`, counting both promotion choices of a kind that promotes, or its
        promoted form if that moves more."""
        n = self.moves_of(kind, width, height)
        if not self.promotes[kind]:
            return n
        return max(2 * n, self.moves_of(kind | PROMOTED, width, height))

    def pack(self, r: np.ndarray) -> None:
        """Write the kernels' tables into the ``rules`` array ``r`` (layout in :mod:`_kernels`)."""
        for kind in range(1, 16):
            r[K.R_PROMOTE + kind] = self.promotes[kind] if kind <= KING else 0
            r[K.R_DEAD_RANKS + kind] = self.dead_ranks(kind)
            for color, bit in ((0, BLACK_BIT), (1, WHITE_BIT)):
                code = kind | bit
                steps = [j if color == 0 else FLIP[j] for j in self.steps[kind]]
                slides = [j if color == 0 else FLIP[j] for j in self.slides[kind]]
                r[K.R_STEP_N + code] = len(steps)
                r[K.R_SLIDE_N + code] = len(slides)
                can = 0
                for i, j in enumerate(steps):
                    r[K.R_STEPS + code * K.MAX_STEPS + i] = DIRS[j]
                    can |= 1 << j
                for i, j in enumerate(slides):
                    r[K.R_SLIDES + code * K.MAX_SLIDES + i] = DIRS[j]
                    can |= 1 << (K.CAN_SLIDE_BIT + j) | 1 << j  # a slide reaches the next square too
                r[K.R_CAN + code] = can


def _kind(letter: str) -> int:
    base = KIND_OF_LETTER[letter.lstrip("+")]
    return base | PROMOTED if letter.startswith("+") else base


_SLOTS = tuple(LETTERS[k] for k in range(1, 9)) + tuple(kind_letter(k | PROMOTED) for k in PROMOTABLE)


def _directions(value: Any, where: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        raise VariantError(f"{where} must be a list of direction names, not {value!r}")
    for d in value:
        if d not in allowed:
            raise VariantError(f"{where}: unknown direction {d!r} (allowed: {' '.join(allowed)})")
    if len(set(value)) != len(value):
        raise VariantError(f"{where}: a direction is listed twice")
    return tuple(value)


def _piece(letter: str, entry: Any, source: str) -> PieceMoves:
    where = f"{source}: pieces.{letter}"
    if letter not in _SLOTS:
        raise VariantError(f"{where}: unknown piece slot {letter!r} (slots: {' '.join(_SLOTS)})")
    if not isinstance(entry, dict):
        raise VariantError(f"{where} must be a table (name, steps, slides, promotes)")
    unknown = sorted(set(entry) - set(_PIECE_KEYS))
    if unknown:
        raise VariantError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(_PIECE_KEYS)})")
    name, kanji, kanji_move = (_name(entry, key, where) for key in ("name", "kanji", "kanji_move"))
    steps = _directions(entry["steps"], f"{where}.steps", DIRECTION_NAMES) if "steps" in entry else None
    slides = _directions(entry["slides"], f"{where}.slides", SLIDE_DIRECTIONS) if "slides" in entry else None
    if (steps is not None or slides is not None) and not (steps or slides):
        raise VariantError(f"{where}: a piece given no moves (steps and slides both empty)")
    if letter == "K" and slides:
        raise VariantError(f"{where}.slides: the king (K) moves by steps only")
    promotes = entry.get("promotes")
    if promotes is not None:
        if not isinstance(promotes, bool):
            raise VariantError(f"{where}.promotes must be true or false, not {promotes!r}")
        if promotes and (letter.startswith("+") or _kind(letter) not in PROMOTABLE):
            raise VariantError(f"{where}.promotes: only {' '.join(LETTERS[k] for k in PROMOTABLE)} can promote")
    return PieceMoves(letter, name, steps, slides, promotes, kanji, kanji_move)


def _name(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise VariantError(f"{where}.{key} must be a string, not {value!r}")
    if key not in entry:
        return ""
    if key == "name":
        if value != value.strip() or any(ch < " " for ch in value):
            raise VariantError(f"{where}.name must be one line without spaces around it, not {value!r}")
        return value
    if not 1 <= len(value) <= (1 if key == "kanji" else 4):
        size = "one character" if key == "kanji" else "1 to 4 characters"
        raise VariantError(f"{where}.{key} must be {size}, not {value!r}")
    bad = [ch for ch in value if ch in _NOT_IN_NAMES or ch.isspace() or not ch.isprintable()]
    if bad:
        raise VariantError(f"{where}.{key}: {bad[0]!r} cannot be part of a piece name (it would read as a "
                           "count, a square or a mark)")
    return value


def pieces_from_toml(data: Any, source: str) -> tuple[PieceMoves, ...]:
    """The ``[pieces]`` table of a variant file; errors name ``source`` and the key."""
    if not isinstance(data, dict):
        raise VariantError(f"{source}: [pieces] must be a table of piece slots")
    pieces = tuple(_piece(letter, entry, source) for letter, entry in data.items())
    promotes = {p.letter: p.promotes for p in pieces}
    for p in pieces:
        base = p.letter.lstrip("+")
        if p.letter.startswith("+") and base in promotes and promotes[base] is False:
            raise VariantError(f"{source}: pieces.{p.letter}: {base} does not promote (pieces.{base}.promotes)")
    return pieces


def pieces_to_toml(pieces: tuple[PieceMoves, ...], quote: Callable[[str], str]) -> list[str]:
    """``[pieces.X]`` tables that :func:`pieces_from_toml` reads back."""
    lines: list[str] = []
    for p in pieces:
        lines += ["", f"[pieces.{quote(p.letter) if p.letter.startswith('+') else p.letter}]"]
        for key, value in (("name", p.name), ("kanji", p.kanji), ("kanji_move", p.kanji_move)):
            if value:
                lines.append(f"{key} = {quote(value)}")
        fields: Mapping[str, tuple[str, ...] | None] = {"steps": p.steps, "slides": p.slides}
        for key, dirs in fields.items():
            if dirs is not None:
                lines.append(f"{key} = [{', '.join(quote(d) for d in dirs)}]")
        if p.promotes is not None:
            lines.append(f"promotes = {'true' if p.promotes else 'false'}")
    return lines
