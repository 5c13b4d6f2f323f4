"""The player registry: one :class:`PlayerSpec`, parsed the same way from the command line and
from an experiment file, validated once, built in one place.

A player type (:class:`PlayerType`) lists its options with their types and units; a spec names
a type and gives values for some options.  The command line writes ``engine:depth=6,seed=3``;
an experiment file writes the same as a table::

    [players.deep]
    engine = "engine"
    depth = 6
    seed = 3

>>> from komaken.games import find_game
>>> spec = PlayerSpec.parse("engine:movetime=250ms,seed=3", find_game("shogi"))
>>> spec.kind, spec.options["movetime"], spec.options["seed"]
('engine', 0.25, 3)
>>> PlayerSpec.parse("random:seed=x", find_game("shogi"))
Traceback (most recent call last):
...
komaken.players.registry.PlayerSpecError: random: option seed needs an integer, not 'x'; the options of random: seed

Generic player types live here (``human``, ``random``, ``python``); a game adds its own
(``engine``, ``thesis``, ``perfect``, ``usi``) in its :class:`~komaken.games.GameSpec`.
Times are always seconds: ``movetime=1`` is a second, ``movetime=250ms`` a quarter of one
(the suffix is accepted on the command line only; in TOML write ``movetime = 0.25``).
"""

from __future__ import annotations

import difflib
import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from komaken.errors import KomakenError
from komaken.games import import_object
from komaken.players.base import Player
from komaken.players.human import HumanPlayer
from komaken.players.random import RandomPlayer

if TYPE_CHECKING:
    from komaken.games import GameSpec


class PlayerSpecError(KomakenError):
    """A player spec that cannot be used: the message names the option and what is allowed."""


class OptionError(ValueError):
    """Raised by an :attr:`Option.check` about one entry of a table (``values.Q``)."""

    def __init__(self, entry: str, problem: str) -> None:
        super().__init__(problem)
        self.entry = entry


#: Player-type names that stored experiment files and study databases still use: ``komaken`` is
#: the engine's earlier name, whose ``movetime`` is in milliseconds.
ALIASES = {"komaken": "engine"}


@dataclass(frozen=True)
class Option:
    """One option of a player type.

    ``kind`` is ``int``, ``float``, ``seconds``, ``bool``, ``str`` or ``table``; numbers must lie
    in ``[low, high]``.  ``check(value, variant)`` may refine a table (piece letters, terms).
    A table option with ``file_ok`` also takes a file name (text), which ``check`` reads; a ``str``
    option with ``path`` is a file name.  An experiment file's loader resolves both kinds of file
    name against the experiment file's folder (:meth:`names_a_file`); the ``words`` such an option
    also takes (the engine's ``eval = "linear"``) are not file names.
    """

    name: str
    kind: str
    help: str = ""
    low: float | None = None
    high: float | None = None
    check: Callable[[Any, Any], Any] | None = None
    required_in_file: bool = False
    file_ok: bool = False
    path: bool = False
    words: tuple[str, ...] = ()

    def names_a_file(self, value: Any) -> bool:
        """Whether ``value`` given for this option is a file name."""
        return ((self.path or self.file_ok) and isinstance(value, str) and bool(value.strip())
                and value.strip() not in self.words)

    def convert(self, value: Any, from_text: bool) -> Any:
        """``value`` (a string from the command line, else a TOML value) as this option's type."""
        if self.kind == "str":
            if not isinstance(value, str) or not value.strip():
                raise ValueError("must be a non-empty string")
            return value
        if self.kind == "table":
            if self.file_ok and isinstance(value, str) and value.strip():
                return value
            if from_text or not isinstance(value, dict):
                raise ValueError("must be a table such as { key = value }")
            return dict(value)
        if self.kind == "bool":
            return _bool(value, from_text)
        number = _number(value, self.kind, from_text)
        if self.low is not None and number < self.low or self.high is not None and number > self.high:
            raise ValueError(f"must be in {_g(self.low)}..{_g(self.high)}{' seconds' * (self.kind == 'seconds')}, "
                             f"not {_g(number)}")
        return number


def _g(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def _bool(value: Any, from_text: bool) -> bool:
    if isinstance(value, bool):
        return value
    if from_text and isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        return value.lower() in ("1", "true", "yes", "on")
    raise ValueError(f"must be true or false, not {value!r}")


def _number(value: Any, kind: str, from_text: bool) -> float | int:
    if from_text and isinstance(value, str):
        text = value.strip()
        scale = 1.0
        if kind == "seconds" and text.endswith("ms"):
            text, scale = text[:-2], 0.001
        elif kind == "seconds" and text.endswith("s"):
            text = text[:-1]
        try:
            value = int(text) if kind == "int" else float(text) * scale
        except ValueError:
            raise ValueError(f"needs {_KIND_WORDS[kind]}, not {value!r}") from None
    elif kind == "seconds" and isinstance(value, str):
        raise ValueError(f"must be a number of seconds (write {_digits(value)}), not {value!r}")
    if isinstance(value, bool) or not isinstance(value, int | float) or (kind == "int" and not isinstance(value, int)):
        raise ValueError(f"needs {_KIND_WORDS[kind]}, not {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"must be a finite number, not {value!r}")
    return value


def _digits(text: str) -> str:
    t = text.strip().lower()
    try:
        return f"{float(t[:-2]) / 1000:g} for {text}" if t.endswith("ms") else f"{float(t.rstrip('s')):g}"
    except ValueError:
        return "e.g. 1.5"


_KIND_WORDS = {"int": "an integer", "float": "a number", "seconds": "a number of seconds"}


@dataclass(frozen=True)
class BuildContext:
    """What a player type's builder may use besides its options."""

    game: GameSpec
    variant: Any = None
    label: str = ""
    opponent: PlayerSpec | None = None


@dataclass(frozen=True)
class PlayerType:
    """A kind of player: its name, options, and the function that builds one.

    ``positional`` names the option that takes the text after ``kind:`` (``usi:COMMAND``); trailing
    ``,name=value`` items that name one of the type's other options are options, not part of it
    (``usi:/usr/games/fairy-stockfish,move_timeout=2``);
    ``extra`` names a table option that collects unknown ``name=number`` pairs from the
    command line (the engine's evaluation terms: ``engine:king_safety=0``).
    ``remote`` is false for types that run a command or import code (``usi``, ``python``): the
    web page does not offer them.
    """

    name: str
    help: str
    build: Callable[[BuildContext, dict[str, Any]], Player]
    options: tuple[Option, ...] = ()
    positional: str | None = None
    extra: str | None = None
    remote: bool = True

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    @property
    def option_names(self) -> list[str]:
        return [o.name for o in self.options]


def _trailing_options(ptype: PlayerType, text: str) -> tuple[str, dict[str, Any]]:
    """Split ``"/path/engine --flag,move_timeout=2"`` into the positional text and the trailing
    ``name=value`` items that name one of ``ptype``'s other options (a comma inside a command
    line stays part of it unless what follows is such an option)."""
    names = set(ptype.option_names) - {ptype.positional}
    raw: dict[str, Any] = {}
    head, sep, tail = text.rpartition(",")
    while sep:
        key, eq, value = tail.partition("=")
        if not eq or key.strip() not in names or key.strip() in raw:
            break
        raw[key.strip()] = value.strip()
        text = head
        head, sep, tail = text.rpartition(",")
    return text, raw


def _build_random(ctx: BuildContext, options: dict[str, Any]) -> Player:
    return RandomPlayer(seed=options.get("seed"), name=ctx.label or None)


def _build_human(ctx: BuildContext, options: dict[str, Any]) -> Player:
    return HumanPlayer(game=ctx.game)


def _build_python(ctx: BuildContext, options: dict[str, Any]) -> Player:
    factory = import_object(options["factory"])
    player: Player = factory(**dict(options.get("options", {})))
    return player


def _factory_path(value: Any, variant: Any) -> Any:
    if ":" not in value:
        raise ValueError("must be 'module:callable'")
    return value


SEED = Option("seed", "int", "random stream seed", 0, 2**63 - 1)

GENERIC: dict[str, PlayerType] = {
    "human": PlayerType("human", "you, at the terminal", _build_human),
    "random": PlayerType("random", "a uniformly random legal move", _build_random, (SEED,)),
    "python": PlayerType("python", "any 'module:callable' called with options as keywords", _build_python,
                         (Option("factory", "str", "module:callable", check=_factory_path),
                          Option("options", "table", "keyword arguments")), remote=False),
}


def player_types(game: GameSpec) -> dict[str, PlayerType]:
    """Every player type ``game`` can use: its own, then the generic ones."""
    return {**GENERIC, **game.players}


def player_type(kind: str, game: GameSpec, *, warn: bool = True) -> PlayerType:
    """The player type called ``kind`` for ``game`` (old names are accepted, with a warning
    unless ``warn`` is false: for a look that is not the player's validation)."""
    kinds = player_types(game)
    if kind in ALIASES and ALIASES[kind] in kinds:
        new = ALIASES[kind]
        if warn:
            warnings.warn(f"player type {kind!r} is deprecated: write {new!r} (times in seconds)", FutureWarning,
                          stacklevel=3)
        kind = new
    if kind not in kinds:
        raise PlayerSpecError(unknown_type(kind, game))
    return kinds[kind]


def unknown_type(kind: str, game: GameSpec, *more: str) -> str:
    """What is wrong with player type ``kind`` that ``game`` lacks, from the command line and from
    an experiment file alike (``more``: the types only a file knows, such as ``boardgame``)."""
    known = sorted({*player_types(game), *more})
    close = difflib.get_close_matches(kind, known, n=1)
    return (f"unknown player type {kind!r}: no {kind} player for {game.name}"
            + (f" (did you mean {close[0]!r}?)" if close else "") + f"; the player types: {', '.join(known)}")


@dataclass(frozen=True)
class PlayerSpec:
    """A validated player description: the type and its typed options (times in seconds).

    ``name`` is the ``[players.NAME]`` key in an experiment file; ``label`` what results call it.
    ``settings`` is the table as written (what the lab stores and reports on).
    """

    kind: str
    options: Mapping[str, Any]
    name: str = ""
    label: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def engine(self) -> str:
        """The player type (the ``engine`` key of the experiment table)."""
        return self.kind

    @classmethod
    def parse(cls, text: str, game: GameSpec, variant: Any = None) -> PlayerSpec:
        """``"engine:depth=6,seed=3"``, ``"usi:/path/to/engine --flag"``, ``"random"``."""
        kind_text, _, rest = text.strip().partition(":")
        kind = kind_text.strip().lower()
        ptype = player_type(kind, game)
        raw: dict[str, Any] = {}
        if ptype.positional is not None:
            rest, raw = _trailing_options(ptype, rest)
            if not rest.strip():
                raise PlayerSpecError(f"{ptype.name} needs {ptype.positional}: {ptype.name}:{ptype.positional.upper()}")
            raw[ptype.positional] = rest.strip()
        else:
            for item in filter(None, (part.strip() for part in rest.replace(";", ",").split(","))):
                key, eq, value = item.partition("=")
                if not eq:
                    raise PlayerSpecError(f"{ptype.name}: player option {item!r} should be name=value; "
                                          f"{_options_of(ptype)}")
                raw[key.strip()] = value.strip()
        options = _validate(ptype, raw, variant, from_text=True, where=ptype.name, legacy=kind in ALIASES)
        return cls(ptype.name, options, name=text.strip(), label=text.strip(), settings=raw)

    @classmethod
    def from_table(cls, name: str, table: Mapping[str, Any], game: GameSpec, variant: Any = None) -> PlayerSpec:
        """A ``[players.NAME]`` table: ``engine`` names the type, ``label`` the display name."""
        where = f"players.{name}"
        kind = table.get("engine")
        if not isinstance(kind, str):
            raise PlayerSpecError(f"{where}.engine: missing player type (known: "
                                  f"{', '.join(sorted(player_types(game)))})")
        label = table.get("label", name)
        if not isinstance(label, str):
            raise PlayerSpecError(f"{where}.label: must be a string")
        if kind == "boardgame":  # a command-line spec embedded in a table
            spec = table.get("spec")
            if not isinstance(spec, str) or set(table) - {"engine", "label", "spec"}:
                raise PlayerSpecError(f"{where}.spec: must be a player spec string such as 'engine:depth=4'")
            try:
                parsed = cls.parse(spec, game, variant)
            except PlayerSpecError as exc:
                raise PlayerSpecError(f"{where}.spec: {exc}") from None
            return cls(parsed.kind, parsed.options, name, label, table)
        if kind not in player_types(game) and kind not in ALIASES:
            raise PlayerSpecError(f"{where}.engine: {unknown_type(kind, game, 'boardgame')}")
        ptype = player_type(kind, game)
        raw = {k: v for k, v in table.items() if k not in ("engine", "label")}
        options = _validate(ptype, raw, variant, from_text=False, where=where, legacy=kind in ALIASES)
        return cls(ptype.name, options, name, label, table)

    def build(self, game: GameSpec, variant: Any = None, opponent: PlayerSpec | None = None) -> Player:
        """A fresh player (``opponent``: the spec it will face; the thesis replica reads it)."""
        ptype = player_type(self.kind, game)
        return ptype.build(BuildContext(game, variant, self.label if self.label != self.name else "", opponent),
                           dict(self.options))


def make_player(spec: str | Mapping[str, Any] | PlayerSpec, game: GameSpec, variant: Any = None,
                opponent: PlayerSpec | None = None) -> Player:
    """A fresh player: the one way every interface builds one.

    ``spec`` is a command-line spec (``"engine:movetime=1"``), a table of settings with the type
    under ``kind`` (``{"kind": "engine", "depth": 2}``: the web page's side; options a file must
    give are optional here, as on the command line), or a :class:`PlayerSpec`.

    >>> from komaken.games import find_game
    >>> make_player({"kind": "perfect", "seed": 1}, find_game("tictactoe")).name
    'perfect(seed=1)'
    """
    if isinstance(spec, str):
        spec = PlayerSpec.parse(spec, game, variant)
    elif not isinstance(spec, PlayerSpec):
        spec = settings_spec(spec, game, variant)
    return spec.build(game, variant, opponent)


def settings_spec(table: Mapping[str, Any], game: GameSpec, variant: Any = None) -> PlayerSpec:
    """A :class:`PlayerSpec` from ``{"kind": TYPE, OPTION: value, ...}`` (JSON values)."""
    kind = table.get("kind", "human")
    if not isinstance(kind, str):
        known = ", ".join(sorted(player_types(game)))
        raise PlayerSpecError(f"kind must name a player type; the player types: {known}")
    ptype = player_type(kind, game, warn=False)
    raw = {k: v for k, v in table.items() if k != "kind"}
    options = _validate(ptype, raw, variant, from_text=False, where=ptype.name, legacy=False, required=False)
    return PlayerSpec(ptype.name, options, name=ptype.name, label=ptype.name, settings=raw)


def _validate(ptype: PlayerType, raw: Mapping[str, Any], variant: Any, *, from_text: bool, where: str,
              legacy: bool, required: bool = True) -> dict[str, Any]:
    """Typed options from ``raw``; errors name the option (``where.key``) and what is allowed."""
    out: dict[str, Any] = {}
    sep = ": option " if from_text else "."
    extra = ptype.option(ptype.extra) if ptype.extra else None
    entries: list[str] = []  # extra entries given one by one
    for key, value in raw.items():
        opt = ptype.option(key)
        if opt is None and from_text and extra is not None and _is_extra_entry(extra, key, variant):
            entries.append(key)
            if not isinstance(out.get(extra.name, {}), dict):
                continue  # the table option names a file: refused below
            try:
                out.setdefault(extra.name, {})[key] = _number(value, "float", True)
            except ValueError as exc:
                raise PlayerSpecError(f"{where}{sep}{key} {exc}; {_options_of(ptype)}") from None
            continue
        if opt is None:
            raise PlayerSpecError(f"{where}{'.' + key if not from_text else ''}: "
                                  f"{unknown_option(ptype, key, variant)}")
        if legacy and opt.kind == "seconds" and isinstance(value, int | float) and not isinstance(value, bool):
            value = value / 1000.0  # the old name took milliseconds
            warnings.warn(f"{where}: 'komaken' players took movetime in milliseconds; write engine = \"engine\" "
                          f"and {key} = {value:g} (seconds)", FutureWarning, stacklevel=4)
        try:
            out[key] = opt.convert(value, from_text)
            if opt.check is not None:
                out[key] = opt.check(out[key], variant)
        except (ValueError, KomakenError) as exc:
            if isinstance(exc, OptionError):
                key = f"{key}.{exc.entry}"
            problem = f"{where}{sep}{key} {exc}" if from_text else f"{where}.{key}: {exc}"
            raise PlayerSpecError(f"{problem}; {_options_of(ptype)}") from None
    if extra is not None and entries and isinstance(out.get(extra.name), str):
        raise PlayerSpecError(f"{where}{sep}{entries[0]}: cannot be given beside {extra.name}={out[extra.name]} "
                              f"(a file: the {extra.help} do not apply to it)")
    if extra is not None and extra.check is not None and isinstance(out.get(extra.name), dict):
        try:
            out[extra.name] = extra.check(out[extra.name], variant)
        except ValueError as exc:
            raise PlayerSpecError(f"{where}: {exc}") from None
    if not from_text and required:
        for opt in ptype.options:
            if opt.required_in_file and opt.name not in out:
                raise PlayerSpecError(f"{where}.{opt.name}: the {ptype.name} player needs {opt.help or opt.name}")
    return out


def _is_extra_entry(extra: Option, key: str, variant: Any) -> bool:
    """Whether ``key`` names an entry of the table option ``extra`` (an evaluation term), as its
    check tells (with a weight that is always valid, so only the name is judged)."""
    if extra.check is None:
        return True
    try:
        extra.check({key: 0.0}, variant)
    except OptionError:
        return False
    except ValueError:
        return True
    return True


def _options_of(ptype: PlayerType) -> str:
    return f"the options of {ptype.name}: {', '.join(ptype.option_names) or 'none'}"


def unknown_option(ptype: PlayerType, key: str, variant: Any = None) -> str:
    """What is wrong with option ``key`` that ``ptype`` lacks — the same words from the command
    line and from an experiment file: the closest name, every option, and for a type that takes
    extra entries (the engine's evaluation terms) the entries it knows.

    >>> from komaken.games import find_game
    >>> unknown_option(player_type("random", find_game("shogi")), "sed")
    "unknown option 'sed' (did you mean 'seed'?); the options of random: seed"
    """
    entries: list[str] = []
    extra = ptype.option(ptype.extra) if ptype.extra else None
    if extra is not None and extra.check is not None:
        try:
            extra.check({key: 0.0}, variant)
        except OptionError as exc:  # its message lists the known entries
            known = re.search(r"\(known: ([^)]*)\)", str(exc))
            entries = known.group(1).split(", ") if known else []
        except ValueError:
            pass
    close = difflib.get_close_matches(key, [*ptype.option_names, *entries], n=1)
    text = f"unknown option {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "") + f"; {_options_of(ptype)}"
    if extra is not None and entries:
        text += f"; {extra.help}: {', '.join(entries)}"
    return text


__all__ = ["ALIASES", "GENERIC", "BuildContext", "Option", "OptionError", "PlayerSpec", "PlayerSpecError", "PlayerType",
           "make_player", "player_type", "player_types", "settings_spec", "unknown_option", "unknown_type"]
