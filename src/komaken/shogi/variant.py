"""Shogi variants as data: board size, promotion zone, start position, piece set and rules.

Three variants are built in — ``shogi`` (9×9), ``minishogi`` (5五将棋, 5×5) and ``judkins``
(6×6) — and any other can be described in a TOML file (see ``examples/goro7x7.toml``)::

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

The piece set is whatever the start position holds; a piece kind may appear at most as often
as it does there (board and hands together).
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np

from komaken.errors import VariantError
from komaken.shogi import _kernels as K
from komaken.shogi._board import (
    BOARD_SIZE,
    KING,
    LETTERS,
    MAX_FILES,
    MAX_RANKS,
    PROMOTABLE,
    square,
)

Repetition = Literal["draw", "sente_loses"]
Impasse = Literal["none", "24", "27"]


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

    def __post_init__(self) -> None:
        where = f"variant {self.name!r}"
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
        from komaken.shogi.sfen import parse_sfen

        try:
            parse_sfen(self.start_sfen, self, check_counts=False)
        except ValueError as exc:
            raise VariantError(f"{where}: bad start position: {exc}") from None

    # ---- derived data ------------------------------------------------------------------------
    @cached_property
    def max_counts(self) -> dict[int, int]:
        """How many pieces of each base kind exist (from the start position)."""
        from komaken.shogi.sfen import parse_sfen

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
        return tuple(LETTERS[k] for k in kinds) + tuple("+" + LETTERS[k] for k in kinds if k in PROMOTABLE)

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
        }

        def val(v: Any) -> str:
            return ("true" if v else "false") if isinstance(v, bool) else repr(v) if isinstance(v, int) else f'"{v}"'

        lines = [
            f'name = "{self.name}"',
            f"width = {self.width}",
            f"height = {self.height}",
            f"promotion_zone = {self.promotion_zone}",
            f'start = "{self.start_sfen}"',
        ]
        if self.description:
            lines.append(f'description = "{self.description}"')
        lines += ["", "[rules]"] + [f"{k} = {val(v)}" for k, v in rules.items()]
        return "\n".join(lines) + "\n"


SHOGI = Variant(
    name="shogi",
    width=9,
    height=9,
    promotion_zone=3,
    start_sfen="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    impasse="24",
    description="本将棋: 9x9 shogi",
)
MINISHOGI = Variant(
    name="minishogi",
    width=5,
    height=5,
    promotion_zone=1,
    start_sfen="rbsgk/4p/5/P4/KGSBR b - 1",
    repetition="sente_loses",
    description="5五将棋: 5x5 shogi (UEC rules: 千日手 is a loss for sente)",
)
JUDKINS = Variant(
    name="judkins",
    width=6,
    height=6,
    promotion_zone=2,
    start_sfen="rbnsgk/5p/6/6/P5/KGSNBR b - 1",
    description="Judkins shogi: 6x6",
)

BUILTIN: dict[str, Variant] = {v.name: v for v in (SHOGI, MINISHOGI, JUDKINS)}

_ALIASES = {"standard": "shogi", "9x9": "shogi", "5x5": "minishogi", "gogo": "minishogi", "6x6": "judkins"}

_TOP_KEYS = {"name", "width", "height", "promotion_zone", "start", "description", "rules"}
_RULE_KEYS = {f.name for f in dataclasses.fields(Variant)} - {
    "name", "width", "height", "promotion_zone", "start_sfen", "description",
}


def variant_from_dict(data: dict[str, Any], source: str = "<dict>") -> Variant:
    """Build a variant from the TOML layout (a dict); errors name ``source`` and the key."""
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise VariantError(f"{source}: unknown key {sorted(unknown)[0]!r}")
    for key in ("width", "height", "promotion_zone", "start"):
        if key not in data:
            raise VariantError(f"{source}: missing key {key!r}")
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise VariantError(f"{source}: [rules] must be a table")
    bad = set(rules) - _RULE_KEYS
    if bad:
        raise VariantError(f"{source}: unknown key rules.{sorted(bad)[0]}")
    kwargs: dict[str, Any] = {}
    for key in ("width", "height", "promotion_zone"):
        if not isinstance(data[key], int) or isinstance(data[key], bool):
            raise VariantError(f"{source}: {key} must be an integer")
        kwargs[key] = data[key]
    for key, value in rules.items():
        if key in ("impasse",) and isinstance(value, int):
            value = str(value)
        kwargs[key] = value
    name = data.get("name") or Path(source).stem
    try:
        return Variant(
            name=str(name), start_sfen=str(data["start"]), description=str(data.get("description", "")), **kwargs
        )
    except VariantError as exc:
        raise VariantError(f"{source}: {exc}") from None


def load_variant(spec: str | Path | Variant) -> Variant:
    """A built-in variant by name (``shogi``, ``minishogi``, ``judkins``) or one read from a
    TOML file path."""
    if isinstance(spec, Variant):
        return spec
    text = str(spec)
    key = _ALIASES.get(text.lower(), text.lower())
    if key in BUILTIN:
        return BUILTIN[key]
    path = Path(text)
    if path.suffix.lower() != ".toml" and not path.exists():
        names = ", ".join(BUILTIN)
        raise VariantError(f"unknown variant {text!r} (built in: {names}; or a .toml file)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VariantError(f"variant file not found: {text}") from None
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(f"{text}: invalid TOML: {exc}") from None
    return variant_from_dict(data, text)


__all__ = ["BUILTIN", "JUDKINS", "MINISHOGI", "SHOGI", "Variant", "load_variant", "variant_from_dict"]
