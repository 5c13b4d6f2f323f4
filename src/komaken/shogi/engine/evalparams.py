"""Evaluation parameters as data: a variant's piece values, term weights and term tables in TOML.

The engine reads a shipped file by default (``komaken/shogi/engine/params/<id>.toml``, ``<id>``
one of the shipped variants': see :func:`params_id`); a variant with none plays the defaults
(:meth:`EvalParams.legacy`) and says so once (:func:`defaults_notice`).  Another file overrides
it (``Engine(params=PATH)``, the player spec ``engine:params=PATH``, USI ``setoption name
EvalFile value PATH``).  A file only has to name what
it changes: everything else keeps the variant's default.  ``komaken tune linear`` writes complete files.

>>> p = EvalParams.default("minishogi")
>>> p.variant, p.width, p.height, p.values.board["P"] > 0
('minishogi', 5, 5, True)
>>> try:
...     EvalParams.from_mapping({"psq": {"rank": {"P": [0, 1]}}}, "minishogi", source="x.toml")
... except ParamsError as exc:
...     print(exc)
x.toml: psq.rank.P: must be a list of 5 numbers (one per rank, from the back rank), not 2

The whole file is checked before anything is used: a bad one raises :class:`ParamsError` naming
the file and the key, and the engine keeps (or never gets) its previous parameters.
"""

from __future__ import annotations

import logging
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from komaken.errors import KomakenError
from komaken.shogi.engine import _paramsio
from komaken.shogi.engine._evaluate import (
    N_ATTACKED,
    N_FILES,
    N_HAND,
    N_RANKS,
    O_ATTACKED,
    O_ATTACKER,
    O_FILE,
    O_MOB,
    O_RANK,
    O_SHIELD,
    O_TEMPO,
    O_UNDEFENDED,
    W_SIZE,
    check_weight,
    legacy_tables,
    pad_tables,
    weights,
)
from komaken.shogi.engine._searchparams import SEARCH_PARAMS, search_array, search_defaults
from komaken.shogi.engine.values import PieceValues, kind_code
from komaken.shogi.variant import Variant, load_variant, shipped_id, shipped_variants

#: terms a file may weight (``noise`` is an engine setting, not a parameter)
FILE_TERMS = ("mobility", "king_safety", "psq")
#: the built-in term weights (what a variant without a parameter file plays)
LEGACY_TERMS = {"mobility": 0.0, "king_safety": 1.0, "psq": 1.0}
#: a table entry must lie within ±TABLE_RANGE (a pawn is about 100)
TABLE_RANGE = 10_000.0
_LETTERS = ("P", "L", "N", "S", "G", "B", "R", "K", "+P", "+L", "+N", "+S", "+B", "+R")
_TOP = ("variant", "board", "terms", "values", "hand", "mobility", "king_safety", "psq", "search")
#: the search's settings a file may give (``[search]``): name → (default, lowest, highest, meaning)
SEARCH_KEYS = {name: (default, lo, hi, doc) for name, default, lo, hi, doc in SEARCH_PARAMS}
#: rules that end or adjudicate a game without changing its positions or moves: a variant that
#: differs from a shipped one only in these plays that one's parameters
GAME_END_RULES = frozenset({"repetition", "perpetual_check_loses", "impasse", "impasse_points", "max_plies"})
_PARAMS = resources.files("komaken.shogi.engine").joinpath("params")
_log = logging.getLogger("komaken.engine")
_noted: set[tuple[object, ...]] = set()


class ParamsError(KomakenError):
    """An evaluation parameter file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, eq=False)
class EvalParams:
    """One variant's evaluation: ``values`` (material), ``terms`` (weights) and ``tables``
    (``w[O_RANK:]`` of :mod:`komaken.shogi.engine._evaluate`), and the search's selectivity for
    this variant (``search``, the ``[search]`` table: :data:`SEARCH_KEYS`).  ``source`` names the file."""

    variant: str
    width: int
    height: int
    values: PieceValues
    terms: dict[str, float]
    tables: np.ndarray = field(repr=False)
    source: str = "built-in"
    search: dict[str, int] = field(default_factory=search_defaults)
    #: the variant's piece letters, king included (what :meth:`letters` orders)
    pieces: tuple[str, ...] = ()

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def legacy(cls, variant: Variant | str) -> EvalParams:
        """The built-in evaluation: the seed's piece values and fixed tables (the piece-value study's)."""
        v = load_variant(variant)
        return cls(v.name, v.width, v.height, PieceValues.default(v), dict(LEGACY_TERMS), legacy_tables(),
                   pieces=_pieces(v))

    @classmethod
    def default(cls, variant: Variant | str) -> EvalParams:
        """The shipped parameters of the variant's game (:func:`params_id`), else :meth:`legacy`
        (and :func:`defaults_notice` is logged, once per game)."""
        v = load_variant(variant)
        vid = params_id(v)
        if vid is None:
            note = defaults_notice(v)
            if note is not None and _game_key(v) not in _noted:
                _noted.add(_game_key(v))
                _log.warning("%s", note)
            return cls.legacy(v)
        text = _PARAMS.joinpath(f"{vid}.toml").read_text(encoding="utf-8")
        return cls.from_mapping(_parse(text, f"params/{vid}.toml"), v, base=cls.legacy(v),
                                source=f"params/{vid}.toml")

    @classmethod
    def load(cls, path: str | Path, variant: Variant | str, base: EvalParams | None = None) -> EvalParams:
        """Read a file; what it leaves out comes from ``base`` (default: the variant's :meth:`default`)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ParamsError(f"evaluation parameter file not found: {path}") from None
        except UnicodeDecodeError as exc:
            raise ParamsError(f"{path}: not UTF-8 (byte {exc.start + 1})") from None
        except OSError as exc:
            raise ParamsError(f"{path}: cannot read: {exc.strerror or exc}") from None
        return cls.from_mapping(_parse(text, str(path)), variant, base=base, source=str(path))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], variant: Variant | str, base: EvalParams | None = None,
                     source: str = "parameters") -> EvalParams:
        """Parameters from a parsed file; every key is checked first (:class:`ParamsError`)."""
        v = load_variant(variant)
        base = base if base is not None else cls.default(v)
        reader = _Reader(source, v)
        reader.check_header(data)
        values = reader.values(base.values, data.get("values"), data.get("hand"))
        terms = dict(base.terms)
        for name, value in reader.table(data, "terms").items():
            if name not in FILE_TERMS:
                reader.fail(f"terms.{name}", f"unknown term (known: {', '.join(FILE_TERMS)})")
            terms[name] = reader.weight(f"terms.{name}", name, value)
        tables = base.tables.copy()
        reader.fill_tables(data, tables)
        search = dict(base.search)
        for name, value in reader.table(data, "search").items():
            search[name] = reader.search_setting(name, value)
        return cls(v.name, v.width, v.height, values, terms, tables, source, search, _pieces(v))

    # ---- use -------------------------------------------------------------------------------
    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``bval``, ``hval`` for the kernels."""
        return self.values.arrays()

    def weights(self, terms: Mapping[str, Any] | None = None) -> np.ndarray:
        """The kernels' ``w``: these weights and tables, ``terms`` (e.g. ``noise``) on top."""
        return weights({**self.terms, **(terms or {})}, self.tables)

    def with_tables(self, tables: np.ndarray, values: PieceValues | None = None,
                    terms: Mapping[str, float] | None = None, source: str = "tuned") -> EvalParams:
        """A copy with other tables (and optionally values and weights)."""
        if tables.shape != (W_SIZE - O_RANK,):
            raise KomakenError(f"tables must have {W_SIZE - O_RANK} entries, not {tables.shape}")
        return EvalParams(self.variant, self.width, self.height, values or self.values,
                          {**self.terms, **(terms or {})}, np.asarray(tables, dtype=np.float64).copy(), source,
                          dict(self.search), self.pieces)

    def search_array(self) -> np.ndarray:
        """The search kernel's ``sp`` (int64, in :data:`SEARCH_KEYS` order)."""
        return search_array(self.search)

    def letters(self) -> tuple[str, ...]:
        """The piece letters of this variant (king included), in table order."""
        return tuple(k for k in _LETTERS if k in self.pieces)

    def to_toml(self, comment: str = "") -> str:
        """The complete file (loads back to equal parameters)."""
        return _paramsio.to_toml(self, comment)

    def write(self, path: str | Path, comment: str = "") -> None:
        Path(path).write_text(self.to_toml(comment), encoding="utf-8")


def _pieces(v: Variant) -> tuple[str, ...]:
    present = set(v.piece_letters) | {"K"}
    return tuple(k for k in _LETTERS if k in present)


def _game_key(v: Variant) -> tuple[object, ...]:
    """What the evaluation depends on: every field but the name, the description and
    :data:`GAME_END_RULES`."""
    skip = GAME_END_RULES | {"name", "description"}
    return tuple((f.name, getattr(v, f.name)) for f in fields(v) if f.name not in skip)


@cache
def _shipped_params() -> dict[tuple[object, ...], str]:
    """Game key → id of the shipped variant whose parameter file serves that game."""
    variants = shipped_variants()
    ids = sorted(p.name.removesuffix(".toml") for p in _PARAMS.iterdir() if p.name.endswith(".toml"))
    return {_game_key(variants[vid]): vid for vid in ids if vid in variants}


def params_id(variant: Variant | str) -> str | None:
    """The shipped variant whose parameter file (``params/<id>.toml``) the engine plays ``variant``
    with: the one that is the same game in everything but its name, description and
    :data:`GAME_END_RULES`; ``None`` when there is none.  The variant's name never picks a file."""
    return _shipped_params().get(_game_key(load_variant(variant)))


def defaults_notice(variant: Variant | str) -> str | None:
    """What to tell a user whose variant plays the default evaluation for want of shipped
    parameters; ``None`` when it has some, or is itself shipped (``ctrl7``) and documented so."""
    v = load_variant(variant)
    if params_id(v) is not None or shipped_id(v) is not None:
        return None
    return (f"variant {v.name[:80]!r} ({v.width}x{v.height}) has no shipped net or evaluation parameters: "
            "the engine plays the linear evaluation with the defaults (seed piece values, untuned tables); "
            "EvalFile sets a net or a parameter file")


def _parse(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer of more than 4300 digits
        raise ParamsError(f"{source}: invalid TOML: {exc}") from None


class _Reader:
    """Checks the keys of one file and reads them; every error names ``source`` and the key."""

    def __init__(self, source: str, variant: Variant) -> None:
        self.source = source
        self.v = variant
        self.files = (variant.width + 1) // 2

    def fail(self, key: str, message: str) -> NoReturn:
        raise ParamsError(f"{self.source}: {key}: {message}")

    def check_header(self, data: Mapping[str, Any]) -> None:
        for key in data:
            if key not in _TOP:
                self.fail(str(key), f"unknown key (known: {', '.join(_TOP)})")
        name = data.get("variant", self.v.name)
        if name not in (self.v.name, params_id(self.v), shipped_id(self.v)):
            self.fail("variant", f"the file is for {str(name)[:80]!r}, the engine plays {self.v.name[:80]!r}")
        board = data.get("board", [self.v.width, self.v.height])
        if board != [self.v.width, self.v.height]:
            self.fail("board", f"the file is for a {_size(board)} board, {self.v.name} is "
                               f"{self.v.width}x{self.v.height}")

    def table(self, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            self.fail(key, f"must be a table, not {value!r}")
        return value

    def number(self, key: str, value: Any, limit: float = TABLE_RANGE) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(key, f"must be a number, not {value!r}")
        if not math.isfinite(value) or abs(value) > limit:
            self.fail(key, f"must be within ±{limit:g}, not {value!r}")
        return float(value)

    def weight(self, key: str, name: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(key, f"must be a number, not {value!r}")
        try:
            return check_weight(name, value)
        except KomakenError as exc:
            self.fail(key, str(exc))

    def search_setting(self, name: str, value: Any) -> int:
        key = f"search.{name}"
        if name not in SEARCH_KEYS:
            self.fail(key, f"unknown setting (known: {', '.join(SEARCH_KEYS)})")
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, not {value!r}")
        _, lo, hi, _ = SEARCH_KEYS[name]
        if not lo <= value <= hi:
            self.fail(key, f"must be within {lo}..{hi}, not {value!r}")
        return value

    def values(self, base: PieceValues, board: Any, hand: Any) -> PieceValues:
        mapping: dict[str, Any] = {}
        for key, section in (("values", board), ("hand", hand)):
            if section is None:
                continue
            if not isinstance(section, Mapping):
                self.fail(key, f"must be a table such as {{P = 100}}, not {section!r}")
            for letter, value in section.items():
                self._letter(f"{key}.{letter}", letter, hand=key == "hand")
                if letter == "K":
                    self.fail(f"{key}.K", "the king has no value")
                self.number(f"{key}.{letter}", value, 100_000)
                if value != int(value):
                    self.fail(f"{key}.{letter}", f"must be an integer, not {value!r}")
        mapping.update(board or {})
        if hand:
            mapping["hand"] = dict(hand)
        try:
            return base.with_values(mapping)
        except KomakenError as exc:
            self.fail("values", str(exc))

    def _letter(self, key: str, letter: str, hand: bool = False) -> int:
        if letter not in _LETTERS or (hand and letter.startswith("+")):
            self.fail(key, f"unknown piece {letter!r} (known: {' '.join(_LETTERS)})")
        return kind_code(letter)

    def per_kind(self, key: str, section: Any, tables: np.ndarray, offset: int) -> None:
        if not isinstance(section, Mapping):
            self.fail(key, f"must be a table of piece letters, not {section!r}")
        for letter, value in section.items():
            k = self._letter(f"{key}.{letter}", letter)
            tables[offset + k - O_RANK] = self.number(f"{key}.{letter}", value)

    def row(self, key: str, row: Any, tables: np.ndarray, offset: int, n: int, what: str) -> None:
        """A list of ``n`` numbers at ``key``, written into ``tables`` from slot ``offset`` on."""
        if not isinstance(row, list) or len(row) != n:
            got = len(row) if isinstance(row, list) else repr(row)
            self.fail(key, f"must be a list of {n} {what}, not {got}")
        for i, value in enumerate(row):
            tables[offset + i - O_RANK] = self.number(f"{key}[{i}]", value)

    def per_kind_list(self, key: str, section: Any, tables: np.ndarray, offset: int, n: int, stride: int,
                      what: str) -> None:
        if not isinstance(section, Mapping):
            self.fail(key, f"must be a table of piece letters, not {section!r}")
        for letter, row in section.items():
            k = self._letter(f"{key}.{letter}", letter)
            self.row(f"{key}.{letter}", row, tables, offset + k * stride, n, f"numbers ({what})")

    def fill_tables(self, data: Mapping[str, Any], tables: np.ndarray) -> None:
        if "mobility" in data:
            self.per_kind("mobility", data["mobility"], tables, O_MOB)
        ks = self.table(data, "king_safety")
        for key in ks:
            if key not in ("shield", "attacker", "attacked", "undefended"):
                self.fail(f"king_safety.{key}", "unknown key (known: shield, attacker, attacked, undefended)")
        if "shield" in ks:
            self.per_kind("king_safety.shield", ks["shield"], tables, O_SHIELD)
        if "attacker" in ks:
            self.per_kind("king_safety.attacker", ks["attacker"], tables, O_ATTACKER)
        if "attacked" in ks:
            self.row("king_safety.attacked", ks["attacked"], tables, O_ATTACKED, N_ATTACKED,
                     "numbers (0..8 attacked squares)")
        if "undefended" in ks:
            rows = ks["undefended"]
            if not isinstance(rows, list) or len(rows) != N_ATTACKED:
                got = len(rows) if isinstance(rows, list) else repr(rows)
                self.fail("king_safety.undefended", f"must be a list of {N_ATTACKED} rows (0..8 undefended "
                                                    f"squares), not {got}")
            for u, row in enumerate(rows):
                self.row(f"king_safety.undefended[{u}]", row, tables, O_UNDEFENDED + u * N_HAND, N_HAND,
                         f"numbers (0..{N_HAND - 1}+ enemy pieces in hand)")
        psq = self.table(data, "psq")
        for key in psq:
            if key not in ("rank", "file", "tempo"):
                self.fail(f"psq.{key}", "unknown key (known: rank, file, tempo)")
        if "rank" in psq:
            self.per_kind_list("psq.rank", psq["rank"], tables, O_RANK, self.v.height, N_RANKS,
                               "one per rank, from the back rank")
        if "file" in psq:
            self.per_kind_list("psq.file", psq["file"], tables, O_FILE, self.files, N_FILES,
                               "one per distance from the centre file")
        if "tempo" in psq:
            tables[O_TEMPO - O_RANK] = self.number("psq.tempo", psq["tempo"])


def _size(board: Any) -> str:
    if isinstance(board, list) and len(board) == 2:
        return f"{board[0]}x{board[1]}"
    return repr(board)


def override_values(base: PieceValues, mapping: Mapping[str, Any] | None) -> PieceValues:
    """``base`` with the values of ``mapping`` (as :meth:`PieceValues.with_values` reads it); a
    board value given without its hand value sets the hand value too, as in a value file."""
    mapping = dict(mapping or {})
    explicit = {str(k).upper() for k in mapping.get("hand", {})} | {str(k)[:-1].upper() for k in mapping
                                                                     if str(k).endswith("*")}
    follow = {str(k).strip().upper(): v for k, v in mapping.items()
              if k != "hand" and not str(k).endswith("*") and str(k).strip().upper() not in explicit}
    hand = {k: v for k, v in follow.items() if k in base.hand}
    if hand:
        mapping["hand"] = {**hand, **mapping.get("hand", {})}
    return base.with_values(mapping)


def resolve(params: EvalParams | str | Path | None, variant: Variant | str) -> EvalParams:
    """``params`` for ``variant``: ``None`` → the variant's default, a path → that file."""
    v = load_variant(variant)
    if params is None:
        return EvalParams.default(v)
    if isinstance(params, EvalParams):
        if params.variant != v.name or (params.width, params.height) != (v.width, v.height):
            raise ParamsError(f"{params.source}: variant: the parameters are for {params.variant} "
                              f"({params.width}x{params.height}), the engine plays {v.name}")
        return params
    return EvalParams.load(params, v)


__all__ = ["FILE_TERMS", "GAME_END_RULES", "LEGACY_TERMS", "N_FILES", "N_RANKS", "O_RANK", "O_UNDEFENDED",
           "SEARCH_KEYS", "TABLE_RANGE", "EvalParams", "ParamsError", "defaults_notice", "kind_code",
           "override_values", "pad_tables", "params_id", "resolve", "search_defaults"]
