"""Experiment files: parse a TOML file into an :class:`Experiment`, checking everything first.

Every problem is reported as ``ConfigError("FILE: KEY: problem")`` before a single game runs.
The validated experiment keeps a normalized copy of the file (:attr:`Experiment.raw`: openings
file read in, paths made absolute, ``--games`` applied) which the results database stores, so
``resume`` needs nothing but the database.  See ``docs/lab.md`` for the reference.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from komaken.errors import KomakenError
from komaken.games import GameSpec, find_game
from komaken.lab import limits
from komaken.lab.errors import ConfigError
from komaken.lab.pentanomial import ELO_UNITS
from komaken.lab.stats import SPRT, SPRT_MODELS
from komaken.lab.tomlkeys import key_line
from komaken.players.registry import PlayerSpec, PlayerSpecError, player_type

COLORS = ("fixed", "alternate")

_EXPERIMENT_KEYS = {"name", "game", "variant", "games", "seed", "repetition", "max_plies"}
_TOP_KEYS = {"experiment", "players", "pairings", "openings", "report"}
_PAIRING_KEYS = {"name", "a", "b", "colors", "sprt", "games", "published"}
_SPRT_KEYS = {"elo0", "elo1", "alpha", "beta", "model", "units"}
_PUBLISHED_KEYS = {"wins", "losses", "draws", "rate", "note"}
_OPENING_KEYS = {"random_plies", "file", "sfens"}


@dataclass(frozen=True, slots=True)
class Pairing:
    """One ``[[pairings]]`` entry: ``games`` games of player ``a`` against player ``b``."""

    name: str
    a: str
    b: str
    colors: str
    games: int
    sprt: SPRT | None = None
    published: Mapping[str, Any] | None = None

    def a_is_sente(self, game_index: int) -> bool:
        """Whether player a moves first in game ``game_index`` (fixed: always; else even games)."""
        return self.colors == "fixed" or game_index % 2 == 0

    def opening_index(self, game_index: int) -> int:
        """Which opening game ``game_index`` starts from: alternating pairs share one."""
        return game_index // 2 if self.colors == "alternate" else game_index


@dataclass(frozen=True, slots=True)
class Openings:
    """How games start: ``random_plies`` random legal moves, or a list of SFEN positions."""

    random_plies: int = 0
    sfens: tuple[str, ...] = ()


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file."""

    name: str
    game: str
    variant: str | None
    seed: int
    repetition: str | None
    max_plies: int | None
    players: Mapping[str, PlayerSpec]
    pairings: tuple[Pairing, ...]
    openings: Openings
    raw: Mapping[str, Any]
    source: str = "<experiment>"
    report: Mapping[str, Any] = field(default_factory=dict)

    @property
    def total_games(self) -> int:
        return sum(p.games for p in self.pairings)

    def pairing(self, name: str) -> Pairing:
        for p in self.pairings:
            if p.name == name:
                return p
        raise KeyError(name)

    def identity(self) -> str:
        """Hash of everything but the game counts: two runs may share a DB only if these match.

        A file a player or the variant is read from counts by its contents, not its path: the
        same experiment in another checkout is the same experiment, and a parameter file edited
        between two runs makes another one (its games would be another player's)."""
        raw = copy.deepcopy(dict(self.raw))
        raw.get("experiment", {}).pop("games", None)
        for p in raw.get("pairings", []):
            p.pop("games", None)
        variant = raw.get("experiment", {}).get("variant")
        if isinstance(variant, str) and variant.endswith(".toml"):
            raw["experiment"]["variant"] = _fingerprint(variant)
        for table in raw.get("players", {}).values():
            if isinstance(table, dict):
                _fingerprint_files(table, self.spec)
        text = json.dumps(raw, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def to_json(self) -> str:
        return json.dumps(self.raw, sort_keys=True, ensure_ascii=False)

    def load_variant(self) -> Any:
        """The shogi :class:`~komaken.shogi.Variant` with the experiment's overrides applied."""
        if not self.spec.has_variants:
            raise ConfigError(f"{self.source}: experiment.game: {self.game!r} has no variants")
        return _load_variant(lambda key, problem: ConfigError(f"{self.source}: {key}: {problem}"), self.spec,
                             self.variant or _lab_variant(self.spec), self.repetition, self.max_plies)

    @property
    def spec(self) -> GameSpec:
        """The experiment's game in the registry."""
        return find_game(self.game)

    def variant_or_none(self) -> Any:
        """:meth:`load_variant` for games with variants, ``None`` for the others."""
        return self.load_variant() if self.spec.has_variants else None


def load_experiment(path: str | Path, games: int | None = None) -> Experiment:
    """Read and validate an experiment file; ``games`` overrides every pairing's game count."""
    path = Path(path)
    try:
        text = _utf8(path.read_bytes(), path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such experiment file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        raw = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer of more than 4300 digits
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return experiment_from_dict(raw, source=str(path), base_dir=path.parent, games=games, text=text)


def _utf8(data: bytes, path: Path) -> str:
    """``data`` decoded, or a :class:`ConfigError` naming the line and byte that are not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 (byte {exc.start + 1}: {exc.reason}); save the file as "
                          "UTF-8") from None


def experiment_from_dict(
    raw: Mapping[str, Any],
    source: str = "<experiment>",
    base_dir: Path | None = None,
    games: int | None = None,
    text: str | None = None,
) -> Experiment:
    """Validate a parsed experiment (as from TOML or a database) and normalize it; ``text``, the
    file's text, lets an error name the line of its key."""
    data: dict[str, Any] = copy.deepcopy(dict(raw))
    base_dir = base_dir or Path.cwd()

    def err(key: str, problem: str) -> ConfigError:
        line = key_line(text, key) if text is not None and not key.startswith("-") else None
        return ConfigError(f"{source}:{line}: {key}: {problem}" if line else f"{source}: {key}: {problem}")

    for key in data:
        if key not in _TOP_KEYS:
            raise err(key, f"unknown table (expected one of {', '.join(sorted(_TOP_KEYS))})")
    head = _experiment_table(data, source, base_dir, games, err)
    players = _players(data, head.game, head.variant_obj, base_dir, err)
    pairings = _pairings(data, players, head.default_games, err)
    openings = _openings(data, head.game, head.variant_obj, base_dir, source, err)
    report = data.get("report", {})
    if not isinstance(report, dict):
        raise err("report", "must be a table")
    _unknown(report, {"vary", "title"}, "report", err)
    return Experiment(
        name=head.name,
        game=head.game.name,
        variant=head.variant,
        seed=head.seed,
        repetition=head.repetition,
        max_plies=head.max_plies,
        players=players,
        pairings=pairings,
        openings=openings,
        raw=data,
        source=source,
        report=report,
    )


@dataclass(frozen=True)
class _Head:
    """The validated ``[experiment]`` table."""

    name: str
    game: GameSpec
    variant: str | None
    variant_obj: Any
    default_games: int
    seed: int
    repetition: str | None
    max_plies: int | None


def _experiment_table(raw: dict[str, Any], source: str, base_dir: Path, games: int | None, err: Any) -> _Head:
    exp = raw.get("experiment")
    if not isinstance(exp, dict):
        raise err("experiment", "missing [experiment] table")
    _unknown(exp, _EXPERIMENT_KEYS, "experiment", err)
    name = exp.get("name")
    if not isinstance(name, str) or not name.strip():
        raise err("experiment.name", "must be a non-empty string")
    game_name = exp.get("game", "shogi")
    try:
        if not isinstance(game_name, str):
            raise KomakenError(f"must be a game name, not {game_name!r}")
        game = find_game(game_name)
    except KomakenError as exc:
        raise err("experiment.game", f"{exc} (or 'module:factory')") from None
    if games is not None:
        _int(games, "--games", err, limits.GAMES)
        exp["games"] = games
        for p in raw.get("pairings", []) if isinstance(raw.get("pairings"), list) else []:
            if isinstance(p, dict):
                p.pop("games", None)
    default_games = _int(exp.get("games", 100), "experiment.games", err, limits.GAMES)
    seed = _int(exp.get("seed", 0), "experiment.seed", err, limits.SEED)
    repetition = exp.get("repetition")
    max_plies = exp.get("max_plies")
    if repetition is not None and repetition not in ("draw", "sente_loses"):
        raise err("experiment.repetition", f"must be 'draw' or 'sente_loses', not {repetition!r}")
    if max_plies is not None:
        max_plies = _int(max_plies, "experiment.max_plies", err, limits.PLIES)
    variant_obj = None
    variant: str | None = None
    if game.has_variants:
        variant = exp.get("variant", _lab_variant(game))
        if not isinstance(variant, str) or not variant:
            raise err("experiment.variant", "must be a variant name or a variant file")
        if variant.endswith(".toml"):
            variant = str((base_dir / variant).resolve())
            exp["variant"] = variant
        variant_obj = _load_variant(err, game, variant, repetition, max_plies)
    elif "variant" in exp:
        raise err("experiment.variant", f"only shogi-family games have variants, not {game.name!r}")
    elif repetition is not None:
        raise err("experiment.repetition", f"only shogi-family games have a repetition rule, not {game.name!r}")
    return _Head(name, game, variant, variant_obj, default_games, seed, repetition, max_plies)


def _players(raw: dict[str, Any], game: GameSpec, variant: Any, base_dir: Path, err: Any) -> dict[str, PlayerSpec]:
    players_raw = raw.get("players")
    if not isinstance(players_raw, dict) or not players_raw:
        raise err("players", "at least one [players.NAME] table is needed")
    players: dict[str, PlayerSpec] = {}
    for pname, table in players_raw.items():
        if not isinstance(table, dict):
            raise err(f"players.{pname}", "must be a table")
        _resolve_files(table, game, base_dir)
        try:
            players[pname] = PlayerSpec.from_table(pname, table, game, variant)
        except KomakenError as exc:
            key, _, problem = str(exc).partition(": ")
            raise err(key, problem) from None
    return players


def _file_keys(table: dict[str, Any], game: GameSpec) -> list[str]:
    """The keys of a player's table whose values name files (none when the player type is
    unknown: the validation names that problem)."""
    kind = table.get("engine")
    try:
        ptype = player_type(kind, game, warn=False) if isinstance(kind, str) else None
    except PlayerSpecError:
        ptype = None
    if ptype is None:
        return []
    return [key for key, value in table.items()
            if (opt := ptype.option(key)) is not None and opt.names_a_file(value)]


def _resolve_files(table: dict[str, Any], game: GameSpec, base_dir: Path) -> None:
    """Make the file names among a player's options absolute (the stored copy then reads the same
    files from any folder): relative to the experiment file's folder, or, as files written before
    that rule had it, to the working directory when only there such a file exists."""
    for key in _file_keys(table, game):
        value = table[key]
        if Path(value).is_absolute():
            continue
        here = base_dir / value
        table[key] = str((here if here.exists() or not Path(value).exists() else Path(value)).resolve())


def _fingerprint(path: str) -> str:
    """A file as its contents' hash; a path that names no file stays as it is."""
    try:
        return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return path


def _fingerprint_files(table: dict[str, Any], game: GameSpec) -> None:
    """Replace the file names among a player's options (made absolute at loading) by their contents' hash."""
    for key in _file_keys(table, game):
        if Path(table[key]).is_absolute():
            table[key] = _fingerprint(table[key])


def _pairings(raw: dict[str, Any], players: Mapping[str, PlayerSpec], default_games: int,
              err: Any) -> tuple[Pairing, ...]:
    pairings_raw = raw.get("pairings")
    if not isinstance(pairings_raw, list) or not pairings_raw:
        raise err("pairings", "at least one [[pairings]] entry is needed")
    pairings: list[Pairing] = []
    for i, table in enumerate(pairings_raw):
        pairing = _pairing(f"pairings[{i}]", table, players, default_games, err)
        if any(p.name == pairing.name for p in pairings):
            raise err(f"pairings[{i}].name", f"pairing {pairing.name!r} appears twice; give each a distinct name")
        pairings.append(pairing)
    return tuple(pairings)


def _pairing(where: str, table: Any, players: Mapping[str, PlayerSpec], default_games: int, err: Any) -> Pairing:
    if not isinstance(table, dict):
        raise err(where, "must be a table")
    _unknown(table, _PAIRING_KEYS, where, err)
    for side in ("a", "b"):
        who = table.get(side)
        if not isinstance(who, str):
            raise err(f"{where}.{side}", "missing player name")
        if who not in players:
            raise err(f"{where}.{side}", f"unknown player {who!r} (defined: {', '.join(players)})")
    pname = table.get("name", f"{table['a']}-vs-{table['b']}")
    if not isinstance(pname, str) or not pname:
        raise err(f"{where}.name", "must be a non-empty string")
    colors = table.get("colors", "alternate")
    if colors not in COLORS:
        raise err(f"{where}.colors", f"must be 'fixed' or 'alternate', not {colors!r}")
    n = _int(table.get("games", default_games), f"{where}.games", err, limits.GAMES)
    sprt = _sprt(table["sprt"], f"{where}.sprt", err) if "sprt" in table else None
    if sprt is not None and sprt.model == "pentanomial" and colors != "alternate":
        raise err(f"{where}.sprt.model", "'pentanomial' counts game pairs: it needs colors = 'alternate'")
    published = table.get("published")
    if published is not None:
        if not isinstance(published, dict):
            raise err(f"{where}.published", "must be a table {wins, losses, draws}")
        _unknown(published, _PUBLISHED_KEYS, f"{where}.published", err)
        for k in ("wins", "losses", "draws"):
            _int(published.get(k), f"{where}.published.{k}", err, limits.PUBLISHED)
    return Pairing(pname, table["a"], table["b"], colors, n, sprt, published)


def _unknown(table: Mapping[str, Any], allowed: set[str], where: str, err: Any) -> None:
    for key in table:
        if key not in allowed:
            raise err(f"{where}.{key}", f"unknown key (allowed: {', '.join(sorted(allowed))})")


def _int(value: Any, key: str, err: Any, bounds: tuple[int, int]) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise err(key, f"must be an integer in {limits.span(bounds)}, not {value!r}")
    problem = limits.out_of_range(value, bounds)
    if problem is not None:
        raise err(key, problem)
    return value


def _number(value: Any, key: str, err: Any, bounds: tuple[float, float] | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise err(key, f"must be a number, not {value!r}")
    problem = None if bounds is None else limits.out_of_range(value, bounds)
    if problem is not None:
        raise err(key, problem)
    return float(value)


def _lab_variant(game: GameSpec) -> str:
    """The variant an experiment plays when it names none."""
    return game.lab_variant or game.default_variant or ""


def _load_variant(err: Any, game: GameSpec, name: str, repetition: str | None, max_plies: int | None) -> Any:

    try:
        variant = game.variant(name)
    except KomakenError as exc:
        raise err("experiment.variant", str(exc)) from None
    changes: dict[str, Any] = {}
    if repetition is not None:
        changes["repetition"] = repetition
    if max_plies is not None:
        changes["max_plies"] = max_plies
    return dataclasses.replace(variant, **changes) if changes else variant


def _sprt(table: Any, where: str, err: Any) -> SPRT:
    if not isinstance(table, dict):
        raise err(where, "must be a table { elo0, elo1, alpha, beta, model, units }")
    _unknown(table, _SPRT_KEYS, where, err)
    words = {"model": SPRT_MODELS, "units": ELO_UNITS}
    values: dict[str, Any] = {}
    for k, v in table.items():
        if k in words:
            if v not in words[k]:
                raise err(f"{where}.{k}", f"must be one of {', '.join(map(repr, words[k]))}, not {v!r}")
            values[k] = v
        else:
            values[k] = _number(v, f"{where}.{k}", err, limits.SPRT_ELO if k.startswith("elo") else None)
    test = SPRT(**values)
    if test.elo1 <= test.elo0:
        raise err(f"{where}.elo1", f"must be greater than elo0 ({test.elo0})")
    for k in ("alpha", "beta"):
        if not 0 < getattr(test, k) < 0.5:
            raise err(f"{where}.{k}", "must be between 0 and 0.5")
    return test


def _openings(raw: dict[str, Any], game: GameSpec, variant: Any, base_dir: Path, source: str, err: Any) -> Openings:
    """``random_plies``, or positions in the game's text (SFEN for shogi) from ``sfens``/``file``."""
    table = raw.get("openings")
    if table is None:
        return Openings()
    if not isinstance(table, dict):
        raise err("openings", "must be a table")
    _unknown(table, _OPENING_KEYS, "openings", err)
    if sum(k in table for k in _OPENING_KEYS) != 1:
        raise err("openings", "give exactly one of random_plies, file, sfens")
    if "random_plies" in table:
        return Openings(random_plies=_int(table["random_plies"], "openings.random_plies", err, limits.RANDOM_PLIES))
    if "file" in table:
        fpath = base_dir / str(table["file"])
        try:
            lines = _utf8(fpath.read_bytes(), fpath).splitlines()
        except OSError as exc:
            raise err("openings.file", f"cannot read {fpath}: {exc.strerror}") from None
        except ConfigError as exc:
            raise err("openings.file", str(exc)) from None
        sfens = [s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")]
        where = "openings.file"
        del table["file"]
        table["sfens"] = sfens  # stored in the database so resume does not need the file
    else:
        sfens = table["sfens"]
        where = "openings.sfens"
        if not isinstance(sfens, list) or not all(isinstance(s, str) for s in sfens):
            raise err(where, "must be a list of SFEN (position text) strings")
    if not sfens:
        raise err(where, "no SFEN positions")
    for i, sfen in enumerate(sfens):
        try:
            pos = game.from_text(sfen.removeprefix("sfen ").strip(), variant)
        except KomakenError as exc:
            raise err(f"{where}[{i}]", f"bad SFEN (position text): {exc}") from None
        if pos.outcome() is not None:
            raise err(f"{where}[{i}]", "the game is already over in this position")
    return Openings(sfens=tuple(s.removeprefix("sfen ").strip() for s in sfens))
