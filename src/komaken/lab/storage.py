"""The results database: one SQLite file per experiment, one row per finished game.

One schema for every kind of work the runner does (:mod:`komaken.lab.runner`): ``meta.kind``
says which (``match``: players in pairings, the default; ``selfplay``: the piece-values study's
self-play, :mod:`komaken.lab.valuestudy.selfplay`) and ``meta.config`` holds its configuration.
A kind that keeps more than the game's row — the moves as ``int32`` codes and per-position
features — stores it in ``positions``, in the game's own transaction.

* WAL journal, ``synchronous=FULL``: each game is inserted in its own transaction, so a process
  killed at any instant (even with SIGKILL) leaves every finished game in the file and no
  half-written one.  ``UNIQUE(pairing, game_index)`` makes counting a game twice impossible.
* Table ``meta`` holds the schema version and the experiment's normalized configuration, so
  ``resume``, ``status``, ``report`` and ``export`` need nothing but the database; and, under
  ``sprt_decision:PAIRING``, each SPRT decision as the run took it (games still being played when
  a bound was crossed are stored afterwards and must not undo it).
* A database from another experiment, or written by a newer komaken (higher schema version), is
  refused before anything is written to it.  One written by an earlier komaken is brought up to
  this schema in place, in one transaction (:mod:`komaken.lab.migrate`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from komaken.game import Color, Outcome, Termination
from komaken.lab.config import Experiment, experiment_from_dict
from komaken.lab.errors import ConfigError, ExperimentDBError
from komaken.lab.migrate import SELFPLAY, STUDY_FORMAT, migrate_study, upgrade_experiment

SCHEMA_VERSION = 1
#: the kind of a lab experiment of players in pairings (``meta.kind`` absent means this too)
MATCH = "match"

_SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE games (
    id            INTEGER PRIMARY KEY,
    pairing       TEXT    NOT NULL,
    game_index    INTEGER NOT NULL CHECK (game_index >= 0),
    a             TEXT    NOT NULL,
    b             TEXT    NOT NULL,
    result        TEXT    NOT NULL CHECK (result IN ('a', 'b', 'draw')),
    reason        TEXT    NOT NULL,
    sente         TEXT    NOT NULL CHECK (sente IN ('a', 'b')),
    moves         TEXT    NOT NULL,
    plies         INTEGER NOT NULL,
    opening_plies INTEGER NOT NULL DEFAULT 0,
    start         TEXT    NOT NULL DEFAULT '',
    seconds       REAL    NOT NULL,
    seed          INTEGER NOT NULL,
    finished_at   REAL    NOT NULL,
    termination   TEXT    NOT NULL DEFAULT '',
    UNIQUE (pairing, game_index)
);
CREATE TABLE positions (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id),
    count    INTEGER NOT NULL,
    codes    BLOB    NOT NULL,
    features BLOB    NOT NULL
);
"""
_TABLES = [x.strip() for x in _SCHEMA.split(";") if x.strip()]

GAME_COLUMNS = (
    "pairing",
    "game_index",
    "a",
    "b",
    "result",
    "reason",
    "sente",
    "moves",
    "plies",
    "opening_plies",
    "start",
    "seconds",
    "seed",
    "finished_at",
    "termination",
)


@dataclass(frozen=True, slots=True)
class GameRow:
    """One finished game as stored (``moves``: space-separated, opening included)."""

    pairing: str
    game_index: int
    a: str
    b: str
    result: str
    reason: str
    sente: str
    moves: str
    plies: int
    opening_plies: int
    start: str
    seconds: float
    seed: int
    finished_at: float
    termination: str = ""  # a Termination value; '' in rows stored before the column existed

    @property
    def outcome(self) -> Outcome:
        """The structured end of the game when black moved first (shogi, reversi); see
        :meth:`outcome_from` for games where white moves first (chess) or set-ups with white to move."""
        return self.outcome_from(Color.BLACK)

    def outcome_from(self, first: Color) -> Outcome:
        """The termination and the winning colour, given the colour that made the first move
        (the ``sente`` player's colour)."""
        winner = None if self.result == "draw" else (first if self.result == self.sente else first.other)
        return Outcome(Termination(self.termination) if self.termination else _legacy(self.reason), winner)


@dataclass(frozen=True, slots=True)
class Positions:
    """What a kind of work keeps beside a game's row: its moves as ``int32`` codes and ``count`` rows
    of per-position features (their layout is the kind's)."""

    count: int
    codes: bytes
    features: bytes


def _legacy(reason: str) -> Termination:
    """The termination of a row stored before the ``termination`` column, from its reason text."""
    head = reason.split(":", 1)[0].strip()
    if head == "illegal declaration":
        return Termination.ILLEGAL_MOVE
    for t in Termination:
        if t.value == head:
            return t
    return Termination.ABORTED  # a crashed player


class DatabaseFault(ExperimentDBError, sqlite3.DatabaseError):
    """SQLite failed on an open database (disk full, read-only, damaged pages, not created yet).

    An :class:`ExperimentDBError` (the CLI prints one line) that is still an
    :class:`sqlite3.DatabaseError` for callers that handle those (the web viewer reads databases
    while a run is creating them)."""


class ExperimentDB:
    """An open results database.  Use :meth:`create` (for ``run``) or :meth:`open`."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, experiment: Experiment) -> ExperimentDB:
        """Open ``path`` for ``experiment``, creating it if needed.

        An existing database must hold the same experiment (game counts may differ: the stored
        counts are updated, so a run can be extended with ``--games``).  Creation is one
        ``BEGIN IMMEDIATE`` transaction (schema and configuration together), so runs started at
        the same instant on a new file agree: one creates it, the others find it complete.  A
        file with no tables yet (empty, or another run is between opening it and committing its
        schema) takes the same path: the transaction waits for the other run's and then finds
        the schema, where reading it at once would find an empty database.
        """
        identity = experiment.identity()

        def same(db: ExperimentDB) -> None:
            # the identity taken when the database was made: its players' files as they were then
            # (a database of an earlier komaken has none; its files are read as they are now)
            if (db.meta("identity") or db.experiment().identity()) != identity:
                raise ExperimentDBError(f"{path}: holds experiment {db.meta('experiment')!r} with a different "
                                        "configuration; refusing to mix results (use another --db, or `resume` "
                                        "to continue it)")

        return cls._create(Path(path), MATCH, experiment.name, experiment.to_json(), same, (("identity", identity),))

    @classmethod
    def create_work(cls, path: str | Path, kind: str, name: str, config: dict[str, Any]) -> ExperimentDB:
        """Open ``path`` for work of ``kind`` (other than a match of players) with ``config`` (a JSON
        object), creating it as :meth:`create` does.  An existing database must hold the same kind
        and a configuration that differs at most in ``games`` (the target is then updated)."""
        def same(db: ExperimentDB) -> None:
            stored = db.config()
            if db.kind != kind:
                raise ExperimentDBError(f"{path}: holds {db.kind} games, not {kind}; refusing to mix them "
                                        "(use another --db)")
            diff = sorted(k for k in set(stored) | set(config) if k != "games" and stored.get(k) != config.get(k))
            if diff:
                raise ExperimentDBError(f"{path}: holds another study (differs in {', '.join(diff)}); refusing to "
                                        "mix games (use another --db)")

        return cls._create(Path(path), kind, name, json.dumps(config, sort_keys=True), same)

    @classmethod
    def _create(cls, path: Path, kind: str, name: str, config: str, same: Callable[[ExperimentDB], None],
                extra: tuple[tuple[str, str], ...] = ()) -> ExperimentDB:
        if not path.exists() or _has_no_tables(path):
            conn = _connect(path, create=True)
            try:
                made = _busy_retry(path, "cannot create the database",
                                   lambda: _create_schema(conn, kind, name, config, extra))
            except BaseException:
                conn.close()
                raise
            if made:
                return cls(path, conn)
            conn.close()  # another run created it an instant ago: check it like any other
        db = cls.open(path, upgrade=False)
        try:
            same(db)  # before any upgrade: a refused file is left as it was
            db._upgrade()
            changed = [(k, v) for k, v in (("config", config), *extra) if db.meta(k) != v]
            with db._guard("cannot update the stored configuration"), db._conn:
                for k, v in changed:  # the game counts; an identity an earlier komaken did not store
                    db._set_meta(k, v)
        except BaseException:
            db.close()
            raise
        return db

    @classmethod
    def open(cls, path: str | Path, upgrade: bool = True) -> ExperimentDB:
        """Open an existing database, refusing (without writing to it) one we cannot use.

        ``upgrade`` brings a database written by an earlier komaken up to this schema
        (:mod:`komaken.lab.migrate`); without it only its ``meta`` may be read."""
        path = Path(path)
        if (kind := _inspect(path)).startswith("!"):
            raise ExperimentDBError(f"{path}: {kind[1:]}")
        try:
            conn = _connect(path, create=False)
        except ExperimentDBError:
            if _writable(path):
                raise
            # Read-only file or file system: status, report and export still work.
            db = cls(path, _read_only(path))
            if db.meta("kind") == STUDY_FORMAT:
                db.close()
                raise ExperimentDBError(f"{path}: a study database of an earlier komaken on a read-only file; copy "
                                        "it somewhere writable once, where it is converted") from None
            return db
        db = cls(path, conn)
        if upgrade:
            db._upgrade()
        return db

    @property
    def kind(self) -> str:
        """The kind of work stored: ``match`` (players in pairings), ``selfplay``, ..."""
        kind = self.meta("kind") or MATCH
        return SELFPLAY if kind == STUDY_FORMAT else kind

    def _upgrade(self) -> None:
        """Bring a database of an earlier komaken up to this schema, in one transaction; on failure
        the file is as it was and the database is closed."""
        try:
            if self.meta("kind") == STUDY_FORMAT:
                config = self.config()
                migrate_study(self._conn, _TABLES[1:], [t.value for t in Termination],
                                      f"{SELFPLAY}:{config.get('variant', '?')}")
            else:
                upgrade_experiment(self._conn, _TABLES[-1])
        except sqlite3.Error as exc:
            self.close()
            raise ExperimentDBError(f"{self.path}: cannot bring the database up to this version of komaken "
                                    f"(it is left as it was): {_explain(exc)}") from None

    def close(self) -> None:
        self._conn.close()

    @contextlib.contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """SQLite errors (disk full, read-only file, damaged pages) as one :class:`ExperimentDBError`
        naming the file; a failed transaction is rolled back, so committed games stay as they were."""
        try:
            yield
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise DatabaseFault(f"{self.path}: {action}: {_explain(exc)}") from None

    def __enter__(self) -> ExperimentDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta --------------------------------------------------------------------------------
    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        with self._guard("cannot read the experiment"):
            row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def config(self) -> dict[str, Any]:
        """The stored configuration as a JSON object (of any kind of work)."""
        text = self.meta("config")
        try:
            value = json.loads(text or "")
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise ExperimentDBError(f"{self.path}: the stored configuration is missing or unreadable")
        return value

    def experiment(self) -> Experiment:
        """The experiment of players in pairings stored in the database, validated again."""
        if self.kind != MATCH:
            hint = " (a piece-values study: read it with `komaken values fit` or `values report`)" \
                if self.kind == SELFPLAY else ""
            raise ExperimentDBError(f"{self.path}: holds {self.kind} games, not an experiment of players in "
                                    f"pairings{hint}")
        text = self.meta("config")
        if text is None:
            raise ExperimentDBError(f"{self.path}: the database holds no experiment configuration")
        try:
            return experiment_from_dict(json.loads(text), source=f"{self.path} (stored experiment)")
        except ConfigError:
            raise
        except (ValueError, TypeError) as exc:
            raise ExperimentDBError(f"{self.path}: stored configuration is unreadable: {exc}") from None

    # -- SPRT decisions ----------------------------------------------------------------------
    def record_decision(self, pairing: str, decision: dict[str, Any]) -> None:
        """Keep the SPRT decision of ``pairing`` (the test's state when its LLR crossed a bound, with
        ``games``, the games counted then).  The first decision recorded stays."""
        with self._guard(f"cannot record the SPRT decision of {pairing!r}"), self._conn:
            self._conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                               (f"sprt_decision:{pairing}", json.dumps(decision, sort_keys=True)))

    def decision(self, pairing: str) -> dict[str, Any] | None:
        """The recorded SPRT decision of ``pairing``, or ``None`` while its test continues."""
        text = self.meta(f"sprt_decision:{pairing}")
        if text is None:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            raise ExperimentDBError(f"{self.path}: the stored SPRT decision of {pairing!r} is unreadable") from None
        return value if isinstance(value, dict) else None

    # -- games -------------------------------------------------------------------------------
    def insert(self, row: GameRow, positions: Positions | None = None) -> bool:
        """Store one finished game (and its ``positions``) in its own transaction; ``False`` if it was
        already there."""
        values = tuple(getattr(row, c) for c in GAME_COLUMNS)
        try:
            with self._guard(f"cannot store game {row.game_index} of {row.pairing!r}"), self._conn:
                cur = self._conn.execute(
                    f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) VALUES ({', '.join('?' * len(values))})",
                    values,
                )
                if positions is not None:
                    self._conn.execute("INSERT INTO positions (game_id, count, codes, features) VALUES (?, ?, ?, ?)",
                                       (cur.lastrowid, positions.count, positions.codes, positions.features))
        except sqlite3.IntegrityError:
            return False
        return True

    def games_with_positions(self, pairing: str | None = None) -> Iterator[tuple[GameRow, Positions]]:
        """Stored games that keep positions, with them, by pairing and game index (read as they are
        consumed: a reader that stops early does not read the rest)."""
        cols = ", ".join(f"g.{c}" for c in GAME_COLUMNS)
        sql = f"SELECT {cols}, p.count, p.codes, p.features FROM games g JOIN positions p ON p.game_id = g.id"
        args: tuple[Any, ...] = () if pairing is None else (pairing,)
        sql += "" if pairing is None else " WHERE g.pairing=?"
        with self._guard("cannot read the stored games"):
            for r in self._conn.execute(sql + " ORDER BY g.pairing, g.game_index", args):
                yield GameRow(*r[:-3]), Positions(*r[-3:])

    def done_indexes(self, pairing: str) -> set[int]:
        with self._guard("cannot read the stored games"):
            return {r[0] for r in self._conn.execute("SELECT game_index FROM games WHERE pairing=?", (pairing,))}

    def results(self, pairing: str) -> list[tuple[str, str]]:
        """``(result, sente)`` of every stored game of ``pairing``, by game index."""
        with self._guard("cannot read the stored games"):
            rows = self._conn.execute("SELECT result, sente FROM games WHERE pairing=? ORDER BY game_index",
                                      (pairing,)).fetchall()
        return [(r[0], r[1]) for r in rows]

    def game_indexes(self, pairing: str) -> list[int]:
        """The game index of every stored game of ``pairing``, in the order of :meth:`results`."""
        with self._guard("cannot read the stored games"):
            rows = self._conn.execute("SELECT game_index FROM games WHERE pairing=? ORDER BY game_index", (pairing,))
            return [r[0] for r in rows]

    def indexed_results(self, pairing: str) -> tuple[list[tuple[str, str]], list[int]]:
        """:meth:`results` and :meth:`game_indexes` from one query, so they agree even while another
        process is adding games (two separate reads can see different numbers of games)."""
        with self._guard("cannot read the stored games"):
            rows = self._conn.execute("SELECT result, sente, game_index FROM games WHERE pairing=? "
                                      "ORDER BY game_index", (pairing,)).fetchall()
        return [(r[0], r[1]) for r in rows], [r[2] for r in rows]

    def count(self, pairing: str | None = None) -> int:
        with self._guard("cannot count the stored games"):
            if pairing is None:
                return int(self._conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
            return int(self._conn.execute("SELECT COUNT(*) FROM games WHERE pairing=?", (pairing,)).fetchone()[0])

    def games(self, pairing: str | None = None) -> Iterator[GameRow]:
        """Stored games ordered by pairing and game index."""
        with self._guard("cannot read the stored games"):
            sql = f"SELECT {select_columns(self._conn)} FROM games"
        args: tuple[Any, ...] = ()
        if pairing is not None:
            sql += " WHERE pairing=?"
            args = (pairing,)
        with self._guard("cannot read the stored games"):
            for r in self._conn.execute(sql + " ORDER BY pairing, game_index", args):
                yield GameRow(*r)

    def seconds(self) -> float:
        """Total seconds spent in games (summed over games, not wall-clock)."""
        with self._guard("cannot read the stored games"):
            return float(self._conn.execute("SELECT COALESCE(SUM(seconds), 0) FROM games").fetchone()[0])


def select_columns(conn: sqlite3.Connection) -> str:
    """The ``SELECT`` list for a :class:`GameRow`; on a database from before the ``termination``
    column (opened read-only, so not upgraded) that column reads as ``''``."""
    have = {r[1] for r in conn.execute("PRAGMA table_info(games)")}
    return ", ".join(c if c in have else f"'' AS {c}" for c in GAME_COLUMNS)


def _connect(path: Path, create: bool) -> sqlite3.Connection:
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ExperimentDBError(f"{path}: cannot create its folder: {exc.strerror}") from None
    try:
        conn = sqlite3.connect(_uri(path, "rwc" if create else "rw"), uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise ExperimentDBError(f"{path}: cannot open the database: {_explain(exc)}") from None
    try:
        _busy_retry(path, "cannot open the database", lambda: conn.execute("PRAGMA journal_mode=WAL"))
        conn.execute("PRAGMA synchronous=FULL")
    except BaseException:
        conn.close()
        raise
    return conn


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK) and not _read_only_fs(path)


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection.  On read-only media SQLite cannot create the WAL index of a
    database closed cleanly (no ``-wal`` file left); nothing can change it there, so it is then
    opened as immutable."""
    try:
        conn = sqlite3.connect(_uri(path, "ro"), uri=True)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        wal = path.with_name(path.name + "-wal")
        if _writable(path) or (wal.exists() and wal.stat().st_size > 0):
            raise
    return sqlite3.connect(_uri(path, "ro") + "&immutable=1", uri=True)


def kind_of(path: Path) -> str | None:
    """The kind of work a komaken results database holds (``match``, ``selfplay``, ...), read
    without writing; ``None`` for a file that is none (missing, not SQLite, another program's, or
    written by a newer komaken)."""
    kind = _inspect(path)
    return None if kind.startswith("!") else kind


def _inspect(path: Path) -> str:
    """The kind :func:`kind_of` reads, or ``!`` and why there is none."""
    if not path.exists():
        return "!no such results database"
    try:
        ro = _read_only(path)
        try:
            if not {"meta", "games"} <= _tables(ro):
                return "!not a komaken experiment database"
            meta = dict(ro.execute("SELECT key, value FROM meta WHERE key IN ('schema_version', 'kind')").fetchall())
        finally:
            ro.close()
    except sqlite3.DatabaseError as exc:
        return f"!not a komaken experiment database ({_explain(exc)})"
    version = str(meta.get("schema_version", ""))
    if not version.isdigit():
        return "!not a komaken experiment database (no schema version)"
    if int(version) > SCHEMA_VERSION:
        return f"!written by a newer komaken (schema {version}, this one reads {SCHEMA_VERSION}); upgrade komaken"
    kind = str(meta.get("kind", MATCH))
    return SELFPLAY if kind == STUDY_FORMAT else kind


def _tables(conn: sqlite3.Connection) -> set[str]:
    """The names of the tables in ``conn``'s database."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _has_no_tables(path: Path) -> bool:
    """True for an empty file or an SQLite database with no table yet; ``False`` for anything
    else, unreadable files included (:meth:`ExperimentDB.open` then says what is wrong)."""
    try:
        ro = _read_only(path)
        try:
            return not _tables(ro)
        finally:
            ro.close()
    except sqlite3.DatabaseError:
        return False


def _create_schema(conn: sqlite3.Connection, kind: str, name: str, config: str,
                   extra: tuple[tuple[str, str], ...]) -> bool:
    """In one ``BEGIN IMMEDIATE`` transaction: create the tables and store the experiment, unless
    another process did it first (then ``False``).  Any other table there: refused untouched."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _tables(conn):
            conn.rollback()
            return False
        for statement in _TABLES:
            conn.execute(statement)
        for key, value in (("schema_version", str(SCHEMA_VERSION)), ("kind", kind), ("experiment", name),
                           ("config", config), ("created_at", str(time.time())), *extra):
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return True


_T = TypeVar("_T")


def _busy_retry(path: Path, action: str, work: Callable[[], _T], attempts: int = 20) -> _T:
    """``work()``, tried again (with a short pause) while another process holds the file's lock;
    any other SQLite error becomes one :class:`ExperimentDBError`."""
    for attempt in range(attempts):
        try:
            return work()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or attempt == attempts - 1:
                raise ExperimentDBError(f"{path}: {action}: {_explain(exc)}") from None
            time.sleep(0.05 * (attempt + 1))
        except sqlite3.Error as exc:
            raise ExperimentDBError(f"{path}: {action}: {_explain(exc)}") from None
    raise AssertionError("unreachable")


_PLAIN = {
    "database or disk is full": "the disk is full",
    "attempt to write a readonly database": "the file or its folder is read-only",
    "readonly database": "the file or its folder is read-only",
    "database disk image is malformed": "the file is damaged (database disk image is malformed)",
    "file is not a database": "the file is damaged or not SQLite (file is not a database)",
    "unable to open database file": "cannot open the file (missing folder or no permission)",
    "disk I/O error": "disk I/O error (full or failing disk?)",
}


def _explain(exc: sqlite3.Error) -> str:
    """An SQLite error in words a user can act on."""
    text = str(exc)
    for key, plain in _PLAIN.items():
        if key in text:
            return plain
    return text


def _uri(path: Path, mode: str) -> str:
    return f"{path.absolute().as_uri()}?mode={mode}"
