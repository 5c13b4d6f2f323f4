"""Piece values: what each piece is worth on the board and in hand, in centipawn-like units.

The 9×9 default is the table the thesis (seed 003, table 5) quotes for 本将棋::

    歩 100  香 600  桂 700  銀 1000  金 1200  角 1800  飛 2000
    と・成香・成桂・成銀 1200   馬 2000   龍 2200

The thesis set out to find better values for 5五将棋 and found no significant difference from
this table (every result fell inside the ±10 % interval of 100 games), so the small boards start
from the same numbers.  A piece in hand is worth its unpromoted board value unless a separate
hand value is given.

>>> v = PieceValues.default("minishogi").with_values({"B": 1500, "hand": {"P": 150}})
>>> v.board["B"], v.hand["P"], v.hand["S"]
(1500, 150, 1000)
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError
from komaken.shogi._board import BLACK_BIT, KIND_OF_LETTER, WHITE_BIT
from komaken.shogi._names import KANJI_MOVE as _NAMES
from komaken.shogi.variant import Variant, load_variant

#: the seed's table (thesis table 5)
SEED_TABLE: dict[str, int] = {
    "P": 100, "L": 600, "N": 700, "S": 1000, "G": 1200, "B": 1800, "R": 2000,
    "+P": 1200, "+L": 1200, "+N": 1200, "+S": 1200, "+B": 2000, "+R": 2200,
}
#: piece values are integers in -MAX_PIECE_VALUE..MAX_PIECE_VALUE (the USI options' range), so
#: no material sum comes near the search's mate scores or overflows the int64 kernels
MAX_PIECE_VALUE = 100_000
#: hand letters, in SFEN order
HAND_LETTERS = ("R", "B", "G", "S", "N", "L", "P")
_ALL_LETTERS = tuple(SEED_TABLE)


def kind_code(letter: str) -> int:
    """The kernel kind (0..15) of a piece letter such as ``"+R"``."""
    kind = KIND_OF_LETTER[letter.lstrip("+")]
    return kind | 8 if letter.startswith("+") else kind


@dataclass(frozen=True)
class PieceValues:
    """A value per piece kind (promoted kinds separate) and per kind in hand.

    ``board`` maps SFEN letters (``"P"``, ``"+P"``, ...) to values; ``hand`` maps the
    unpromoted letters.  The king has no value (both kings are always on the board).
    Build one with :meth:`default`, :meth:`from_mapping` or :meth:`from_toml`.
    """

    board: Mapping[str, int] = field(default_factory=lambda: dict(SEED_TABLE))
    hand: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        board = {k: int(v) for k, v in SEED_TABLE.items()}
        board.update({_norm(k): _int(v, k) for k, v in self.board.items()})
        hand = {k: board[k] for k in HAND_LETTERS}
        hand.update({_norm(k, hand=True): _int(v, f"hand.{k}") for k, v in self.hand.items()})
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "hand", hand)

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def default(cls, variant: Variant | str | None = None) -> PieceValues:
        """The default table of a variant (the seed's table for every built-in variant)."""
        if variant is not None:
            load_variant(variant)  # validates the name
        return cls()

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None, variant: Variant | str | None = None) -> PieceValues:
        """The variant's defaults overridden by ``mapping``: ``{"P": 100, "+R": 2200}``, with an
        optional ``"hand": {"P": 120}`` table (keys ``"P*"`` also mean a value in hand)."""
        return cls.default(variant).with_values(mapping or {})

    @classmethod
    def from_toml(cls, path: str | Path, variant: Variant | str | None = None) -> PieceValues:
        """Read a TOML file: top-level letters (or a ``[values]`` table) and ``[hand]``."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise KomakenError(f"piece value file not found: {path}") from None
        except UnicodeDecodeError as exc:
            raise KomakenError(f"{path}: not UTF-8 (byte {exc.start + 1})") from None
        except OSError as exc:
            raise KomakenError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except ValueError as exc:  # TOMLDecodeError, or an integer of more than 4300 digits
            raise KomakenError(f"{path}: invalid TOML: {exc}") from None
        if "values" in data and isinstance(data["values"], dict):
            data = {**data["values"], **({"hand": data["hand"]} if "hand" in data else {})}
        try:
            return cls.from_mapping(data, variant)
        except KomakenError as exc:
            raise KomakenError(f"{path}: {exc}") from None

    def with_values(self, mapping: Mapping[str, Any]) -> PieceValues:
        """A copy with some values replaced."""
        board = dict(self.board)
        hand = dict(self.hand)
        explicit_hand: dict[str, int] = {}
        for key, value in mapping.items():
            if key == "hand":
                if not isinstance(value, Mapping):
                    raise KomakenError("piece values: 'hand' must be a table such as {P = 120}")
                for k, v in value.items():
                    explicit_hand[_norm(k, hand=True)] = _int(v, f"hand.{k}")
            elif str(key).endswith("*"):
                explicit_hand[_norm(str(key)[:-1], hand=True)] = _int(value, key)
            else:
                board[_norm(key)] = _int(value, key)
        # a hand value follows its board value unless it was set apart from it
        for k in HAND_LETTERS:
            hand[k] = explicit_hand.get(k, board[k] if self.hand[k] == self.board[k] else hand[k])
        return PieceValues(board, hand)

    # ---- use -------------------------------------------------------------------------------
    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Kernel tables: ``bval[piece code]`` signed (black +, white -) and ``hval[color, kind]``."""
        bval = np.zeros(64, dtype=np.int64)
        for letter, v in self.board.items():
            c = kind_code(letter)
            bval[c | BLACK_BIT] = v
            bval[c | WHITE_BIT] = -v
        hval = np.zeros((2, 8), dtype=np.int64)
        for letter, v in self.hand.items():
            hval[0, KIND_OF_LETTER[letter]] = v
            hval[1, KIND_OF_LETTER[letter]] = -v
        return bval, hval

    def as_dict(self) -> dict[str, Any]:
        """``{"P": 100, ..., "hand": {...}}`` (hand only where it differs from the board)."""
        out: dict[str, Any] = dict(self.board)
        diff = {k: v for k, v in self.hand.items() if v != self.board[k]}
        if diff:
            out["hand"] = diff
        return out

    def __str__(self) -> str:
        rows = [f"{_NAMES[k]}({k}) {self.board[k]}" for k in _ALL_LETTERS]
        hand = [f"{_NAMES[k]}({k}) {self.hand[k]}" for k in HAND_LETTERS if self.hand[k] != self.board[k]]
        text = "  ".join(rows)
        return text + ("\nin hand: " + "  ".join(hand) if hand else "")


def _norm(key: Any, hand: bool = False) -> str:
    k = str(key).strip().upper()
    if hand and k.startswith("+"):
        raise KomakenError(f"piece values: a piece in hand is never promoted ({key!r})")
    if k not in SEED_TABLE:
        known = " ".join(_ALL_LETTERS)
        raise KomakenError(f"piece values: unknown piece {key!r} (known: {known})")
    return k


def check_piece_value(value: Any, key: Any) -> int:
    """``value`` as a piece value, or :class:`KomakenError` naming ``key``.

    Accepts an integer, an integral float or integer text (a USI option's value, ``"1200"``) in
    ``-MAX_PIECE_VALUE..MAX_PIECE_VALUE``; NaN, infinities, fractions and huge numbers are refused
    here, so they never reach the evaluation kernels.

    >>> check_piece_value("1500", "Value_B")
    1500
    """
    number: int | float | None = None
    if isinstance(value, str):
        text = value.strip()
        if 0 < len(text) <= 12 and text.lstrip("+-").isascii() and text.lstrip("+-").isdigit():
            number = int(text)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = value
    if number is None or (isinstance(number, float) and (not math.isfinite(number) or number != int(number))):
        raise KomakenError(f"piece values: {key} must be an integer, not {value!r}")
    if not -MAX_PIECE_VALUE <= number <= MAX_PIECE_VALUE:
        raise KomakenError(f"piece values: {key} must be within -{MAX_PIECE_VALUE}..{MAX_PIECE_VALUE}, not {value!r}")
    return int(number)


def _int(value: Any, key: Any) -> int:
    if isinstance(value, str):  # values in files and mappings are numbers, not text
        raise KomakenError(f"piece values: {key} must be an integer, not {value!r}")
    return check_piece_value(value, key)


__all__ = ["HAND_LETTERS", "MAX_PIECE_VALUE", "PieceValues", "SEED_TABLE", "check_piece_value", "kind_code"]
