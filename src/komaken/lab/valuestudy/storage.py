"""The self-play database of the piece-values study: one SQLite file per study, one row per game.

Like the lab's results database (:mod:`komaken.lab.storage`): WAL journal with
``synchronous=FULL`` and one transaction per finished game, so a process killed at any instant
keeps every finished game and no half-written one; ``game_index`` is the primary key, so a game
can never be stored twice.  The study's configuration lives in table ``meta``; a database that
holds another study (another variant, node budget, seed, ...) or is not a study database at all
is refused — checked read-only, so a refused file is left exactly as it was.

Per game: the result (``score``: 1 black won, 0 white won, ½ draw), how it ended, the moves
(``int32`` codes) and the positions' features (``int8[rows, NF]``, see
:mod:`komaken.shogi.engine._selfplay`) as numpy blobs.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError

SCHEMA_VERSION = 1
KIND = "komaken-values-selfplay"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    game_index    INTEGER PRIMARY KEY CHECK (game_index >= 0),
    seed          INTEGER NOT NULL,
    score         REAL    NOT NULL CHECK (score IN (0, 0.5, 1)),
    termination   TEXT    NOT NULL,
    plies         INTEGER NOT NULL,
    opening_plies INTEGER NOT NULL,
    positions     INTEGER NOT NULL,
    moves         BLOB    NOT NULL,
    features      BLOB    NOT NULL,
    seconds       REAL    NOT NULL,
    finished_at   REAL    NOT NULL
);
"""
COLUMNS = ("game_index", "seed", "score", "termination", "plies", "opening_plies", "positions", "moves",
           "features", "seconds", "finished_at")


def read_meta(path: Path) -> tuple[set[str], dict[str, str]]:
    """A database's table names and ``meta`` rows, read-only (``sqlite3.DatabaseError`` for a file
    that is no SQLite database): how a study database, or a lab one, is told apart before writing."""
    ro = sqlite3.connect(_uri(path, "ro"), uri=True)
    try:
        tables = {r[0] for r in ro.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        meta = dict(ro.execute("SELECT key, value FROM meta").fetchall()) if "meta" in tables else {}
    finally:
        ro.close()
    return tables, meta


class StudyDBError(KomakenError):
    """A study database that cannot be used: missing, another study's, or not a study database."""


@dataclass(frozen=True, slots=True)
class SelfPlayGame:
    """One finished self-play game as stored."""

    game_index: int
    seed: int
    score: float
    termination: str
    plies: int
    opening_plies: int
    positions: int
    moves: bytes
    features: bytes
    seconds: float
    finished_at: float

    def feature_array(self, nf: int) -> np.ndarray:
        """The positions' features as ``int8[positions, nf]``."""
        return np.frombuffer(self.features, dtype=np.int8).reshape(self.positions, nf)

    def move_codes(self) -> np.ndarray:
        return np.frombuffer(self.moves, dtype=np.int32)


class StudyDB:
    """An open self-play database.  :meth:`create` for ``selfplay``; :meth:`open` to read."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn

    @classmethod
    def create(cls, path: str | Path, config: dict[str, Any]) -> StudyDB:
        """Open ``path`` for the study ``config``, creating it if needed; an existing database
        must hold the same study (its ``identity``)."""
        path = Path(path)
        if path.exists() and path.stat().st_size > 0:
            db = cls.open(path)
            stored = db.config()
            if identity(stored) != identity(config):
                db.close()
                diff = sorted(k for k in set(stored) | set(config) if k != "games" and stored.get(k) != config.get(k))
                raise StudyDBError(
                    f"{path}: holds another study (differs in {', '.join(diff)}); refusing to mix games "
                    "(use another --db)"
                )
            return db
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(_uri(path, "rwc"), uri=True, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.executescript("BEGIN;" + _SCHEMA + "COMMIT;")
        except (OSError, sqlite3.DatabaseError) as exc:
            raise StudyDBError(f"{path}: cannot create the database: {exc}") from None
        db = cls(path, conn)
        with conn:
            for key, value in (("kind", KIND), ("schema_version", str(SCHEMA_VERSION)),
                               ("config", json.dumps(config, sort_keys=True)), ("created_at", str(time.time()))):
                conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
        return db

    @classmethod
    def open(cls, path: str | Path) -> StudyDB:
        """Open an existing study database, refusing (read-only check first) anything else."""
        path = Path(path)
        if not path.exists():
            raise StudyDBError(f"{path}: no such study database")
        try:
            tables, meta = read_meta(path)
        except sqlite3.DatabaseError as exc:
            raise StudyDBError(f"{path}: not a komaken piece-values study database ({exc})") from None
        if meta.get("kind") != KIND or "games" not in tables:
            what = " (a lab experiment database)" if meta.get("experiment") else ""
            raise StudyDBError(f"{path}: not a komaken piece-values study database{what}")
        if int(meta.get("schema_version", "0")) > SCHEMA_VERSION:
            raise StudyDBError(f"{path}: written by a newer komaken (schema {meta['schema_version']}); upgrade komaken")
        conn = sqlite3.connect(_uri(path, "rw"), uri=True, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        return cls(path, conn)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> StudyDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def config(self) -> dict[str, Any]:
        row = self._conn.execute("SELECT value FROM meta WHERE key='config'").fetchone()
        return dict(json.loads(row[0]))

    def set_games_target(self, games: int) -> None:
        """Record a new target game count (extending a study keeps its identity)."""
        config = self.config()
        config["games"] = int(games)
        with self._conn:
            self._conn.execute("UPDATE meta SET value=? WHERE key='config'", (json.dumps(config, sort_keys=True),))

    def insert(self, game: SelfPlayGame) -> bool:
        """Store one game in its own transaction; ``False`` if its index was already stored."""
        values = tuple(getattr(game, c) for c in COLUMNS)
        try:
            with self._conn:
                self._conn.execute(f"INSERT INTO games ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                                   values)
        except sqlite3.IntegrityError:
            return False
        return True

    def done_indexes(self) -> set[int]:
        return {r[0] for r in self._conn.execute("SELECT game_index FROM games")}

    def count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def games(self) -> Iterator[SelfPlayGame]:
        """Stored games by game index."""
        for r in self._conn.execute(f"SELECT {', '.join(COLUMNS)} FROM games ORDER BY game_index"):
            yield SelfPlayGame(*r)

    def totals(self) -> dict[str, float]:
        """Games, positions and summed game seconds."""
        g, p, s = self._conn.execute("SELECT COUNT(*), COALESCE(SUM(positions), 0), COALESCE(SUM(seconds), 0) "
                                     "FROM games").fetchone()
        return {"games": int(g), "positions": int(p), "seconds": float(s)}


def identity(config: dict[str, Any]) -> str:
    """What makes two configurations the same study: everything but the target game count."""
    return json.dumps({k: v for k, v in config.items() if k != "games"}, sort_keys=True)


def _uri(path: Path, mode: str) -> str:
    return f"{path.absolute().as_uri()}?mode={mode}"
