"""Shogi variants as data: board size, promotion zone, start position, piece set and rules.

Every shipped variant is a TOML file in :mod:`komaken.variants` — ``shogi`` (9×9),
``minishogi`` (5五将棋, 5×5), ``judkins`` (6×6), ``shogi7x7`` and the controlled family
``ctrl5`` … ``ctrl9`` (with ``ctrl4``, its 4×4 member without the silver) — and
:func:`load_variant` is the one resolver every surface uses: a
shipped id (or alias), or the path of any other TOML file::

    inherits = "shogi"          # optional: a shipped id or a .toml file; then only what differs
    name = "goro7"
    width = 7
    height = 7
    promotion_zone = 2
    start = "rbsgksr/7/ppppppp/7/PPPPPPP/7/RSKGSBR b - 1"

    [rules]
    nifu = true                 # 二歩 forbidden
    uchifuzume = true           # 打ち歩詰め forbidden
    dead_pieces = true          # no drop / forced promotion where a piece has no further move
    repetition = "draw"         # or "sente_loses" (UEC 5五将棋)
    perpetual_check_loses = true
    impasse = "none"            # "24" (both kings entered, 24-point count), "27" (declaration)
    impasse_points = 24
    max_plies = 0               # 0: no limit; else a draw after that many plies
    dead_drops = true           # with dead_pieces: no drop where the piece has no move either
    king_capture = false        # kings are not royal: they may stand attacked; taking one wins
    try_rule = false            # a king on its last rank that the enemy does not attack wins

    [pieces.R]                  # any slot (P L N S G B R K +P +L +N +S +B +R) may move otherwise
    name = "giraffe"            # and be named otherwise: English, and Japanese as boards show it
    kanji = "キ"                # (kanji_move: as KIF/KI2 moves write it, when that differs)
    steps = ["N", "E", "W", "S"]   # one step; "slides" = any distance; see docs/rules.md
    promotes = false

Finding files and resolving ``inherits`` is :mod:`komaken.shogi._variant_files`'s work.

The piece set is whatever the start position holds; a piece kind may appear at most as often
as it does there (board and hands together).  A variant must fit the kernels' fixed buffers:
boards from 3×3 to 9×9, at most :data:`~komaken.shogi._board.MAX_HAND` (81) pieces of one kind,
and few enough pieces that no position can have more than ``MAX_MOVES`` (1024) moves to
generate (see :meth:`Variant.move_bound`); anything else is a :class:`VariantError` saying why.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np

from komaken.errors import VariantError
from komaken.shogi import _kernels as K
from komaken.shogi import _variant_files as _files
from komaken.shogi._board import (
    BOARD_SIZE,
    KING,
    LETTERS,
    MAX_FILES,
    MAX_HAND,
    MAX_RANKS,
    PAWN,
    square,
)
from komaken.shogi._names import PieceNames
from komaken.shogi._pieces import Movement, PieceMoves, pieces_from_toml, pieces_to_toml
from komaken.shogi.sfen import parse_sfen

Repetition = Literal["draw", "sente_loses"]
Impasse = Literal["none", "24", "27"]

#: upper limits of the numeric rule switches (they go into the kernels' int64 tables)
MAX_IMPASSE_POINTS = 10_000
MAX_PLIES_LIMIT = 10**9
_BOOL_FIELDS = ("nifu", "uchifuzume", "dead_pieces", "perpetual_check_loses", "dead_drops", "king_capture",
                "try_rule")
_INT_FIELDS = ("width", "height", "promotion_zone", "impasse_points")
_STR_FIELDS = ("name", "start_sfen", "description")


def _field_problem(key: str, value: Any) -> str | None:
    """What is wrong with the type or range of field ``key`` (``None``: nothing)."""
    if key in _BOOL_FIELDS and not isinstance(value, bool):
        return f"must be true or false, not {value!r}"
    if key in _INT_FIELDS or key == "max_plies":
        if key == "max_plies" and value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be an integer, not {value!r}"
        if key == "impasse_points" and not 0 <= value <= MAX_IMPASSE_POINTS:
            return f"must be 0..{MAX_IMPASSE_POINTS}, not {value}"
        if key == "max_plies" and not 0 <= value <= MAX_PLIES_LIMIT:
            return f"must be 0..{MAX_PLIES_LIMIT} (0: no limit), not {value}"
    if key in _STR_FIELDS:
        if not isinstance(value, str):
            return f"must be a string, not {value!r}"
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            return "holds a lone surrogate (not text that can be written to a file)"
        if key == "name" and not value.strip():
            return "must not be empty"
    return None


@dataclass(frozen=True)
class Variant:
    """A shogi-family game: geometry, start position and rule switches.

    Variants are immutable; derive one with :func:`dataclasses.replace`, e.g.
    ``replace(MINISHOGI, repetition="draw")``.
    """

    name: str
    width: int
    height: int
    promotion_zone: int
    start_sfen: str
    nifu: bool = True
    uchifuzume: bool = True
    dead_pieces: bool = True
    repetition: Repetition = "draw"
    perpetual_check_loses: bool = True
    impasse: Impasse = "none"
    impasse_points: int = 24
    max_plies: int | None = None
    description: str = ""
    dead_drops: bool = True
    king_capture: bool = False
    try_rule: bool = False
    pieces: tuple[PieceMoves, ...] = ()

    def __post_init__(self) -> None:
        where = f"variant {self.name!r}"
        for f in dataclasses.fields(self):
            problem = _field_problem(f.name, getattr(self, f.name))
            if problem:
                raise VariantError(f"{where}: {f.name} {problem}")
        if not (3 <= self.width <= MAX_FILES and 3 <= self.height <= MAX_RANKS):
            raise VariantError(f"{where}: board {self.width}x{self.height} not within 3x3..9x9")
        if not 1 <= self.promotion_zone <= self.height // 2:
            raise VariantError(f"{where}: promotion_zone {self.promotion_zone} must be 1..{self.height // 2}")
        if self.repetition not in ("draw", "sente_loses"):
            raise VariantError(f"{where}: repetition must be 'draw' or 'sente_loses', not {self.repetition!r}")
        if self.impasse not in ("none", "24", "27"):
            raise VariantError(f"{where}: impasse must be 'none', '24' or '27', not {self.impasse!r}")
        if self.max_plies is not None and self.max_plies < 0:
            raise VariantError(f"{where}: max_plies must be >= 0")
        if self.max_plies == 0:
            object.__setattr__(self, "max_plies", None)

        try:
            parse_sfen(self.start_sfen, self, check_counts=False)
        except ValueError as exc:
            raise VariantError(f"{where}: bad start position: {exc}") from None
        self._check_pieces(where)
        self._check_capacity(where)

    def _check_pieces(self, where: str) -> None:
        """Refuse movement and rule switches the kernels cannot play as written."""
        moves = self.movement
        if self.uchifuzume and PAWN in self.max_counts and moves.steps[PAWN] != (0,):
            raise VariantError(f"{where}: rules.uchifuzume needs the pawn (P) to move one step forward only "
                               f"(pieces.P steps = [\"N\"]); set uchifuzume = false for other pawns")
        kings = [0, 0]

        board, _, _, _ = parse_sfen(self.start_sfen, self, check_counts=False)
        for code in board.values():
            if code & 0x0F == KING:
                kings[0 if code & 0x10 else 1] += 1
        for key in ("king_capture", "try_rule"):
            if getattr(self, key) and kings != [1, 1]:
                raise VariantError(f"{where}: rules.{key} needs one king (K) on each side in the start position, "
                                   f"not {kings[0]} and {kings[1]}")
        seen: dict[str, str] = {}
        for table in ("kanji", "kanji_move"):
            for letter in self.piece_letters:
                name = getattr(self.names, table)[letter]
                if seen.setdefault(name, letter) != letter:  # a diagram or a move could not be read back
                    raise VariantError(f"{where}: pieces.{letter}.{table}: {name!r} names {seen[name]} too")

    def _check_capacity(self, where: str) -> None:
        """Refuse a piece set the kernels' fixed-size buffers cannot hold."""
        for kind, n in self.max_counts.items():
            if kind != KING and n > MAX_HAND:
                raise VariantError(f"{where}: {n} pieces of kind {LETTERS[kind]}; a variant may have at most "
                                   f"{MAX_HAND} of one kind (hands hold at most that many)")
        bound = self.move_bound()
        if bound > K.MAX_MOVES:
            raise VariantError(f"{where}: too many pieces: a position could have up to {bound} moves to "
                               f"generate, more than the move buffers hold ({K.MAX_MOVES})")

    def move_bound(self) -> int:
        """An upper bound on the moves generated in any position of this variant (before the
        legality filter): every piece of the set on the mover's side, each making its most
        moves (twice when it may promote or not), plus every kind dropped on every square."""
        m = self.movement
        counts = self.max_counts
        board = sum(m.most_moves(k, self.width, self.height) * (1 if k == KING else n) for k, n in counts.items())
        drops = sum(1 for k in counts if k != KING) * self.width * self.height
        return board + drops

    # ---- derived data ------------------------------------------------------------------------
    @cached_property
    def movement(self) -> Movement:
        """How every kind moves: the standard pieces, with this variant's ``pieces`` over them."""
        return Movement(self.pieces)

    @cached_property
    def max_counts(self) -> dict[int, int]:
        """How many pieces of each base kind exist (from the start position)."""
        board, hands, _, _ = parse_sfen(self.start_sfen, self, check_counts=False)
        counts: dict[int, int] = {}
        for code in board.values():
            kind = code & 0x0F
            base = kind if kind <= KING else kind - 8
            counts[base] = counts.get(base, 0) + 1
        for color in range(2):
            for kind, n in hands[color].items():
                counts[kind] = counts.get(kind, 0) + n
        return counts

    @property
    def piece_letters(self) -> tuple[str, ...]:
        """Letters of every piece kind of this variant, promoted forms included (``"+P"``)."""
        kinds = [k for k in (1, 2, 3, 4, 5, 6, 7, 8) if k in self.max_counts]
        return tuple(LETTERS[k] for k in kinds) + tuple("+" + LETTERS[k] for k in kinds if self.movement.promotes[k])

    @cached_property
    def names(self) -> PieceNames:
        """Every piece's name in each language: the standard ones, with this variant's over them."""
        return PieceNames.of((p.letter, p.name, p.kanji, p.kanji_move) for p in self.pieces)

    def in_zone(self, color: int, rank: int) -> bool:
        """Whether ``rank`` is in ``color``'s promotion zone (the enemy camp)."""
        return rank <= self.promotion_zone if color == 0 else rank > self.height - self.promotion_zone

    @cached_property
    def geo(self) -> np.ndarray:
        """Per-square tables for the kernels (see :mod:`komaken.shogi._kernels`)."""
        g = np.zeros((K.G_ROWS, BOARD_SIZE), dtype=np.int8)
        for f in range(1, self.width + 1):
            for r in range(1, self.height + 1):
                s = square(f, r)
                g[K.G_BOARD, s] = 1
                g[K.G_ZONE + 0, s] = self.in_zone(0, r)
                g[K.G_ZONE + 1, s] = self.in_zone(1, r)
                g[K.G_DEAD + 0, s] = 1 if r == 1 else 2 if r == 2 else 0
                g[K.G_DEAD + 1, s] = 1 if r == self.height else 2 if r == self.height - 1 else 0
        g.flags.writeable = False
        return g

    @cached_property
    def rules(self) -> np.ndarray:
        """Rule switches and the list of board squares for the kernels."""
        squares = [square(f, r) for f in range(1, self.width + 1) for r in range(1, self.height + 1)]
        r = np.zeros(K.R_SQUARES + len(squares), dtype=np.int64)
        r[K.R_WIDTH], r[K.R_HEIGHT] = self.width, self.height
        r[K.R_NIFU], r[K.R_UCHIFUZUME], r[K.R_DEAD] = self.nifu, self.uchifuzume, self.dead_pieces
        r[K.R_REPETITION] = K.REPETITION_SENTE_LOSES if self.repetition == "sente_loses" else K.REPETITION_DRAW
        r[K.R_PERPETUAL] = self.perpetual_check_loses
        r[K.R_IMPASSE] = {"none": K.IMPASSE_NONE, "24": K.IMPASSE_BOTH_ENTERED, "27": K.IMPASSE_DECLARATION}[
            self.impasse
        ]
        r[K.R_IMPASSE_POINTS] = self.impasse_points
        r[K.R_MAX_PLIES] = self.max_plies or 0
        r[K.R_ZONE] = self.promotion_zone
        r[K.R_NSQ] = len(squares)
        r[K.R_DEAD_DROPS], r[K.R_KING_CAPTURE], r[K.R_TRY] = self.dead_drops, self.king_capture, self.try_rule
        r[K.R_DECIDE] = self.king_capture or self.try_rule
        self.movement.pack(r)
        r[K.R_SQUARES :] = squares
        r.flags.writeable = False
        return r

    def to_toml(self) -> str:
        """This variant as a TOML document :func:`load_variant` reads back."""
        rules = {
            "nifu": self.nifu,
            "uchifuzume": self.uchifuzume,
            "dead_pieces": self.dead_pieces,
            "repetition": self.repetition,
            "perpetual_check_loses": self.perpetual_check_loses,
            "impasse": self.impasse,
            "impasse_points": self.impasse_points,
            "max_plies": self.max_plies or 0,
            "dead_drops": self.dead_drops,
            "king_capture": self.king_capture,
            "try_rule": self.try_rule,
        }

        def val(v: Any) -> str:
            return ("true" if v else "false") if isinstance(v, bool) else str(v) if isinstance(v, int) else _toml_str(v)

        lines = [
            f"name = {_toml_str(self.name)}",
            f"width = {self.width}",
            f"height = {self.height}",
            f"promotion_zone = {self.promotion_zone}",
            f"start = {_toml_str(self.start_sfen)}",
        ]
        if self.description:
            lines.append(f"description = {_toml_str(self.description)}")
        lines += ["", "[rules]"] + [f"{k} = {val(v)}" for k, v in rules.items()]
        lines += pieces_to_toml(self.pieces, _toml_str)
        return "\n".join(lines) + "\n"


def _toml_str(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch < " " or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_TOP_KEYS = {"name", "width", "height", "promotion_zone", "start", "description", "rules", "pieces"}
_RULE_KEYS = {f.name for f in dataclasses.fields(Variant)} - {
    "name", "width", "height", "promotion_zone", "start_sfen", "description", "pieces",
}


def variant_from_dict(data: dict[str, Any], source: str = "<dict>") -> Variant:
    """Build a variant from the TOML layout (a dict); errors name ``source`` and the key."""
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise VariantError(f"{source}: unknown key {sorted(unknown, key=str)[0]!r}")
    for key in ("width", "height", "promotion_zone", "start"):
        if key not in data:
            raise VariantError(f"{source}: missing key {key!r}")
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise VariantError(f"{source}: [rules] must be a table")
    bad = set(rules) - _RULE_KEYS
    if bad:
        raise VariantError(f"{source}: unknown key rules.{sorted(bad, key=str)[0]}")
    kwargs: dict[str, Any] = {}
    top = {"width": "width", "height": "height", "promotion_zone": "promotion_zone", "start": "start_sfen",
           "description": "description", "name": "name"}
    for key, field_name in top.items():
        if key in data:
            kwargs[field_name] = data[key]
    for key, value in rules.items():
        if key == "impasse" and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        kwargs[key] = value
    if "pieces" in data:
        kwargs["pieces"] = pieces_from_toml(data["pieces"], source)
    kwargs.setdefault("name", Path(source).stem)
    for key, value in kwargs.items():
        problem = _field_problem(key, value)
        if problem:
            shown = {"start_sfen": "start"}.get(key, key if key in top else f"rules.{key}")
            raise VariantError(f"{source}: {shown} {problem}")
    try:
        return Variant(**kwargs)
    except VariantError as exc:
        raise VariantError(f"{source}: {exc}") from None


def variant_from_toml(text: str | bytes, source: str = "<toml>") -> Variant:
    """Read a variant from TOML text (bytes must be UTF-8); errors name ``source`` and the key."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise VariantError(f"{source}: not UTF-8 (byte {exc.start + 1}: {exc.reason})") from None
    try:
        data = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer of more than 4300 digits
        raise VariantError(f"{source}: invalid TOML: {exc}") from None
    if "inherits" in data or "aliases" in data:
        data = _files.resolve_inherits(data, source, variant_from_dict, Path.cwd())
    return variant_from_dict(data, source)


def load_variant(spec: str | Path | Variant) -> Variant:
    """The one resolver: a shipped variant by id or alias (``shogi``, ``5x5``, ``ctrl7``; see
    :func:`shipped_variants`), or one read from a TOML file path, its ``inherits`` resolved."""
    if isinstance(spec, Variant):
        return spec
    text = str(spec)
    vid = _files.shipped_id(text)
    if vid is not None:
        return _shipped(vid)
    path = _files.user_path(text)
    return variant_from_dict(_files.read_variant_data(path, text, variant_from_dict), text)


@cache
def _shipped(vid: str) -> Variant:
    path = _files.shipped_path(vid)
    return variant_from_dict(_files.read_variant_data(path, path.name, variant_from_dict, shipped=True), path.name)


def shipped_variants() -> dict[str, Variant]:
    """Every shipped variant by id, the standard games first (what ``UCI_Variant`` offers)."""
    return {vid: _shipped(vid) for vid in _files.shipped_ids()}


def shipped_id(spec: str | Path | Variant) -> str | None:
    """The id of the shipped variant ``spec`` names (an id or an alias; a :class:`Variant` equal
    to a shipped one in everything but its name and description), else ``None``."""
    if not isinstance(spec, Variant):
        return _files.shipped_id(str(spec))
    same = [vid for vid, v in shipped_variants().items() if same_game(v, spec)]
    return same[0] if same else None


def same_game(a: Variant, b: Variant) -> bool:
    """Whether ``a`` and ``b`` are the same game: equal in every field but name and description."""
    return _game_fields(a) == _game_fields(b)


def _game_fields(v: Variant) -> tuple[Any, ...]:
    return tuple(getattr(v, f.name) for f in dataclasses.fields(v) if f.name not in ("name", "description"))


#: the standard games (``shogi``, ``minishogi``, ``judkins``) by id, read from their shipped files
BUILTIN: dict[str, Variant] = {vid: _shipped(vid) for vid in _files.STANDARD}
SHOGI = BUILTIN["shogi"]
MINISHOGI = BUILTIN["minishogi"]
JUDKINS = BUILTIN["judkins"]


__all__ = [
    "BUILTIN", "JUDKINS", "MINISHOGI", "SHOGI", "Variant", "load_variant", "same_game", "shipped_id",
    "shipped_variants", "variant_from_dict", "variant_from_toml",
]
