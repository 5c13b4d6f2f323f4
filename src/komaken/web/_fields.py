"""Every value a request brings in, checked where it enters: JSON bodies, query strings, players.

A handler names the fields it takes as a schema (field → rule) and gets back plain Python values
that are known to be in range; whatever is wrong becomes a :class:`BadRequest` naming the field
(``black.depth``) and what it allows (``1..30``), answered as HTTP 400.  A field that is missing
or ``null`` takes its default (``None`` here); a field the schema does not know is refused, so a
misspelt setting is never silently ignored.

A computer player's settings are checked against the ranges of its registry options
(:class:`komaken.players.registry.Option`), the same ranges ``GET /api/games`` sends with each
game (:func:`komaken.web._games.player_kinds`), so the page's input boxes offer exactly what the
server accepts.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from komaken.analysis import MULTIPV_RANGE, SECONDS_RANGE
from komaken.clock import MAX_SECONDS, ClockError, TimeControl
from komaken.errors import KomakenError
from komaken.lab.limits import WORKERS
from komaken.players.registry import Option
from komaken.web import _games as G
from komaken.web._guard import MAX_BODY
from komaken.web.analysis import MAX_RECORD, MAX_RUNNING
from komaken.web.experiments import MAX_PER_PAGE

#: The nesting a JSON body may have: the deepest body the page sends is two objects.
MAX_NESTING = 32


class BadRequest(KomakenError):
    """A request value that cannot be used (HTTP 400); ``field`` names it, dotted for nested
    fields (``black.depth``), or is ``None`` for the body as a whole."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


def _shown(value: Any) -> str:
    """A short description of a value in an error message (never the whole of a large value)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        return repr(value[:40] + ("…" if len(value) > 40 else ""))
    return "an array" if isinstance(value, list) else "an object"


def _number(x: float) -> str:
    if isinstance(x, int):
        return "a number of many digits" if x.bit_length() > 64 else str(x)
    return str(int(x)) if math.isfinite(x) and float(x).is_integer() and abs(x) < 1e16 else f"{x:g}"


@dataclass(frozen=True)
class Num:
    """A number within ``lo..hi``; ``whole`` numbers only unless told (``3.0`` counts as 3)."""

    lo: float
    hi: float
    whole: bool = True
    unit: str = ""

    @property
    def allowed(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        return f"within {_number(self.lo)}..{_number(self.hi)}{unit}"

    def check(self, value: Any, field: str) -> int | float:
        kind = "a whole number" if self.whole else "a number"
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise BadRequest(f"{_shown(value)} is not a number: allowed is {kind} {self.allowed}", field)
        if self.whole and not float(value).is_integer():
            raise BadRequest(f"{_shown(value)} is not a whole number: allowed is {kind} {self.allowed}", field)
        if not self.lo <= value <= self.hi:
            raise BadRequest(f"{_shown(value)} is not {self.allowed}", field)
        return int(value) if self.whole else float(value)

    def from_text(self, text: str, field: str) -> int | float:
        """A query-string value: plain decimal digits (and a point when not whole)."""
        body = text[1:] if text[:1] == "-" else text
        digits = body.replace(".", "", 0 if self.whole else 1)
        if not digits.isascii() or not digits.isdigit() or len(text) > 20:
            kind = "a whole number" if self.whole else "a number"
            raise BadRequest(f"{_shown(text)} is not a number: allowed is {kind} {self.allowed}", field)
        return self.check(float(text) if not self.whole else int(text), field)

    def to_json(self) -> dict[str, Any]:
        """The limits as the page's ``<input type=number>`` takes them."""
        return {"min": self.lo, "max": self.hi, "step": 1 if self.whole else "any"}


@dataclass(frozen=True)
class Text:
    """A string of at most ``longest`` characters (at least ``shortest``), valid Unicode."""

    longest: int
    shortest: int = 0

    def check(self, value: Any, field: str) -> str:
        if not isinstance(value, str):
            raise BadRequest(f"must be text, not {_shown(value)}", field)
        if not self.shortest <= len(value) <= self.longest:
            raise BadRequest(f"{len(value)} characters is not within {self.shortest}..{self.longest}", field)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate from a \ud800 escape
            raise BadRequest(f"character {exc.start + 1} is not valid Unicode", field) from None
        return value

    def from_text(self, text: str, field: str) -> str:
        return self.check(text, field)


@dataclass(frozen=True)
class Choice:
    """One of a few words."""

    words: tuple[str, ...]

    def check(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or value not in self.words:
            raise BadRequest(f"{_shown(value)} is not one of {', '.join(self.words)}", field)
        return str(value)

    def from_text(self, text: str, field: str) -> str:
        return self.check(text, field)


@dataclass(frozen=True)
class Flag:
    """``true`` or ``false``."""

    def check(self, value: Any, field: str) -> bool:
        if not isinstance(value, bool):
            raise BadRequest(f"{_shown(value)} is not true or false", field)
        return value


@dataclass(frozen=True)
class Obj:
    """A JSON object (checked further once its context is known, as a player is with its game)."""

    example: str

    def check(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise BadRequest(f"must be an object like {self.example}, not {_shown(value)}", field)
        return value


Rule = Num | Text | Choice | Flag | Obj


def fields(data: Any, schema: Mapping[str, Rule], where: str = "") -> dict[str, Any]:
    """The values of ``data`` (a decoded JSON object) by ``schema``; absent or ``null`` ones ``None``."""
    if not isinstance(data, dict):
        raise BadRequest(f"must be a JSON object, not {_shown(data)}", where or None)
    prefix = f"{where}." if where else ""
    for key in data:
        if key not in schema:
            known = ", ".join(schema) or "none"
            raise BadRequest(f"unknown field (known: {known})", prefix + key[:40])
    return {k: None if data.get(k) is None else rule.check(data[k], prefix + k) for k, rule in schema.items()}


def query(items: list[tuple[str, str]], schema: Mapping[str, Num | Text | Choice]) -> dict[str, Any]:
    """The parameters of a query string by ``schema``; absent or empty ones ``None``."""
    out: dict[str, Any] = dict.fromkeys(schema)
    seen: set[str] = set()
    for key, value in items:
        rule = schema.get(key)
        if rule is None:
            raise BadRequest(f"unknown parameter (known: {', '.join(schema) or 'none'})", key[:40])
        if key in seen:
            raise BadRequest("given more than once", key)
        seen.add(key)
        out[key] = rule.from_text(value, key) if value != "" else None
    return out


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        twice = next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i]))
        raise BadRequest("appears twice in one object", twice[:40])
    return out


def _int_literal(text: str) -> int | float:
    # beyond 30 digits no field can be in range: a float (perhaps inf) keeps the parse cheap and
    # lets the field's check say what it allows
    return int(text) if len(text) <= 30 else float(text)


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _nesting(text: str) -> int:
    """How deeply ``text`` nests arrays and objects (outside strings); counted only when it has
    more opening brackets than :data:`MAX_NESTING`, so the usual body costs two ``count`` calls."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0

    brackets = np.frombuffer(_NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii"), dtype=np.uint8)
    steps = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
    return int(steps.cumsum().max(initial=0))


def parse_body(raw: bytes) -> Any:
    """A request body decoded as UTF-8 JSON; an empty body is ``{}``."""
    if not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"the request body is not UTF-8 (byte {exc.start + 1})") from None
    if _nesting(text) > MAX_NESTING:
        raise BadRequest(f"the request body nests deeper than {MAX_NESTING} levels")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_int_literal)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"the request body is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None


# ---- the requests ------------------------------------------------------------------------------
NEW_GAME: dict[str, Rule] = {
    "game": Text(200), "start": Text(4096), "record": Text(MAX_BODY),
    "black": Obj('{"kind": "engine", "depth": 3}'), "white": Obj('{"kind": "engine", "movetime": 1}'),
    "clock": Obj('{"main": 600, "byoyomi": 30}'), "black_clock": Obj('{"main": 300, "increment": 5}'),
    "white_clock": Obj('{"main": 300, "increment": 5}'),
}
#: a side's clock (:class:`komaken.clock.TimeControl`): seconds of main time, then byoyomi or an increment
CLOCK: dict[str, Rule] = {name: Num(0, MAX_SECONDS, whole=False, unit="s") for name in ("main", "byoyomi", "increment")}
MOVE: dict[str, Rule] = {"move": Text(16, 1)}
NOTHING: dict[str, Rule] = {}
RUN: dict[str, Rule] = {"action": Choice(("start", "pause", "resume", "stop")), "workers": Num(*WORKERS)}
RECORD_QUERY: dict[str, Num | Text | Choice] = {"format": Text(8)}
#: an analysis: a record's text (or a Play session's game), seconds a position, lines a position
ANALYSE: dict[str, Rule] = {
    "game": Text(200), "record": Text(MAX_RECORD), "session": Text(64),
    "seconds": Num(*SECONDS_RANGE, whole=False, unit="s"), "multipv": Num(*MULTIPV_RANGE),
}
HINT: dict[str, Rule] = {"seconds": Num(*SECONDS_RANGE, whole=False, unit="s")}


def analysis_limits() -> dict[str, Any]:
    """What the analysis form allows, as the server checks it (:data:`ANALYSE`)."""
    out: dict[str, Any] = {k: r.to_json() for k, r in ANALYSE.items() if isinstance(r, Num)}
    return out | {"record": MAX_RECORD, "running": MAX_RUNNING}
GAMES_QUERY: dict[str, Num | Text | Choice] = {
    "page": Num(1, 10**9), "per_page": Num(1, MAX_PER_PAGE), "order": Choice(("desc", "asc")),
    "pairing": Text(200), "result": Choice(("a", "b", "draw")), "reason": Text(200),
    "min_plies": Num(0, 10**6), "max_plies": Num(0, 10**6),
}


def clocks(data: dict[str, Any]) -> tuple[TimeControl | None, TimeControl | None]:
    """Black's and white's clocks from a new game's ``clock`` (both sides) and ``black_clock`` /
    ``white_clock`` (one side, in place of ``clock``); ``None`` for a side without one."""
    out: list[TimeControl | None] = []
    for side in ("black", "white"):
        key = f"{side}_clock" if data.get(f"{side}_clock") is not None else "clock"
        if data.get(key) is None:
            out.append(None)
            continue
        values = {k: v for k, v in fields(data[key], CLOCK, key).items() if v is not None}
        try:
            out.append(TimeControl(**values))
        except ClockError as exc:
            raise BadRequest(str(exc).removeprefix("clock: ").removeprefix("clock "), key) from None
    return out[0], out[1]


def query_limits(schema: Mapping[str, Num | Text | Choice]) -> dict[str, dict[str, Any]]:
    """The numeric parameters' limits, for the page's input boxes."""
    return {k: rule.to_json() for k, rule in schema.items() if isinstance(rule, Num)}


# ---- players -----------------------------------------------------------------------------------
#: Bounds for a number option the registry leaves open: no setting of a player is larger.
OPEN = 2.0**63
#: A number option's kind: whether it takes whole numbers only, and its unit.
NUMBERS = {"int": (True, ""), "float": (False, ""), "seconds": (False, "s")}


def option_rule(opt: Option) -> Rule:
    """The rule for a player option the page may set (a number or a switch, never a file name or
    a table: :data:`komaken.web._games.UNSETTABLE`), with the registry option's own range."""
    if opt.kind not in NUMBERS:
        return Flag()
    whole, unit = NUMBERS[opt.kind]
    lo = -OPEN if opt.low is None else opt.low
    hi = OPEN if opt.high is None else opt.high
    return Num(lo, hi, whole=whole, unit=unit)


def side(value: dict[str, Any] | None, field: str, info: G.GameInfo, default: str) -> dict[str, Any]:
    """A player for one side of a game of ``info``: ``{"kind", ...its settings}``, each setting
    one the page offers (:func:`komaken.web._games.offered`) and within its registry range."""
    spec = {"kind": default} if value is None else value
    kinds = tuple(p["kind"] for p in G.player_kinds(info.spec))  # in the order the page lists them
    kind = Choice(kinds).check(spec.get("kind", "human"), f"{field}.kind")
    schema: dict[str, Rule] = {"kind": Text(16)}
    schema.update({o.name: option_rule(o) for o in G.offered(info.spec)[kind].options if o.kind not in G.UNSETTABLE})
    return {k: v for k, v in fields(spec, schema, field).items() if v is not None} | {"kind": kind}
