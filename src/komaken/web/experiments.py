"""Experiment databases, read-only: statistics per pairing and the stored games, page by page.

Only the files named when the server started are ever opened, and a request addresses them by
their index in that list — never by a path.  Every connection is opened with a ``mode=ro`` URI,
so nothing a request does can write to a database; WAL lets ``komaken experiment run`` keep
writing while pages read.  A fresh connection per call keeps threads apart (SQLite connections
are cheap to open).
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Color
from komaken.lab.config import Experiment, experiment_from_dict
from komaken.lab.live import live_games
from komaken.lab.report import status_json
from komaken.lab.results import row_labels
from komaken.lab.storage import ExperimentDB, GameRow, select_columns
from komaken.web import _games as G

MAX_PER_PAGE = 200
#: live games of one database sent to the page (a run has one in flight per worker)
MAX_LIVE = 16
#: meta.kind of a piece-values study database (komaken values selfplay), and of one written before studies were
#: experiments (read here as it is: the server never writes, so it never converts one)
STUDY_KINDS = ("selfplay", "komaken-values-selfplay")


class NotFound(KomakenError):
    """A database, game or ply that does not exist (HTTP 404)."""


class BadQuery(KomakenError):
    """A query parameter that cannot be used (HTTP 400)."""


@dataclass(frozen=True)
class Source:
    """One database named on the command line."""

    index: int
    path: Path

    @property
    def name(self) -> str:
        return self.path.name


class Databases:
    """The databases this server may read, addressed by index."""

    def __init__(self, paths: list[str | Path] | tuple[str | Path, ...]) -> None:
        self.sources = [Source(i, Path(p).resolve()) for i, p in enumerate(paths)]
        self._replays: OrderedDict[tuple[int, int], dict[str, Any]] = OrderedDict()
        self._live: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()

    def source(self, index: Any) -> Source:
        try:
            i = int(index)
        except (TypeError, ValueError):
            raise NotFound(f"no database {index!r}") from None
        if not 0 <= i < len(self.sources) or str(i) != str(index):
            raise NotFound(f"no database {index!r} (this server has {len(self.sources)})")
        return self.sources[i]

    def kind(self, index: Any) -> str:
        """``"study"`` for a piece-values self-play database (its ``meta`` table says so), else
        ``"experiment"`` (a lab database, or a file that is not yet one)."""
        src = self.source(index)
        try:
            conn = sqlite3.connect(f"{src.path.as_uri()}?mode=ro", uri=True, timeout=2)
        except sqlite3.DatabaseError:
            return "experiment"
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='kind'").fetchone()
        except sqlite3.DatabaseError:
            row = None
        finally:
            conn.close()
        return "study" if row is not None and row[0] in STUDY_KINDS else "experiment"

    def _experiment_only(self, index: Any) -> None:
        if self.source(index).path.exists() and self.kind(index) == "study":
            raise NotFound(f"database {index} is a piece-values study: it has no pairings or game list here "
                           "(its report is on the Reports page)")

    def study_config(self, index: Any) -> dict[str, Any]:
        """The stored configuration of a study database and its game count."""
        with self.connect(index) as db:
            config = dict(json.loads(db._conn.execute("SELECT value FROM meta WHERE key='config'").fetchone()[0]))
            games = int(db._conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        return {**config, "stored": games}

    @contextmanager
    def connect(self, index: Any) -> Iterator[ExperimentDB]:
        """A read-only :class:`ExperimentDB` on database ``index``."""
        src = self.source(index)
        if not src.path.exists():
            raise NotFound(f"database {src.index} ({src.name}) does not exist yet")
        try:
            conn = sqlite3.connect(f"{src.path.as_uri()}?mode=ro", uri=True, timeout=2, check_same_thread=False)
            conn.execute("PRAGMA query_only=1")
        except sqlite3.DatabaseError as exc:
            raise NotFound(f"database {src.index} ({src.name}) cannot be opened: {exc}") from None
        try:
            yield _ReadOnlyDB(src.path, conn)
        except sqlite3.DatabaseError as exc:  # e.g. a run is creating the file right now
            raise NotFound(f"database {src.index} ({src.name}) cannot be read yet: {exc}") from None
        finally:
            conn.close()

    # ---- summaries ------------------------------------------------------------------------------
    def listing(self) -> list[dict[str, Any]]:
        out = []
        for src in self.sources:
            item: dict[str, Any] = {"id": src.index, "name": src.name, "kind": "experiment"}
            try:
                if src.path.exists() and self.kind(src.index) == "study":
                    c = self.study_config(src.index)
                    item.update(kind="study", experiment=f"piece-values study: {c.get('variant')}",
                                game="shogi", games=c["stored"], target=c.get("games"))
                    out.append(item)
                    continue
                with self.connect(src.index) as db:
                    exp = experiment(db)
                    item.update(experiment=exp.name, game=exp.game, variant=exp.variant, games=db.count(),
                                target=exp.total_games)
            except (KomakenError, sqlite3.DatabaseError) as exc:
                item["error"] = str(exc)
            out.append(item)
        return out

    def stamp(self, index: Any) -> tuple[int, int]:
        """``(games, last id)``: changes whenever a game is stored."""
        key = "game_index" if self.kind(index) == "study" else "id"
        with self.connect(index) as db:
            row = db._conn.execute(f"SELECT COUNT(*), COALESCE(MAX({key}), 0) FROM games").fetchone()
        return int(row[0]), int(row[1])

    def status(self, index: Any) -> dict[str, Any]:
        """``komaken experiment status --json`` for database ``index``, plus its game."""
        self._experiment_only(index)
        with self.connect(index) as db:
            exp = experiment(db)  # first: a database still being created is "not yet", not an error
            doc = status_json(db)
        doc["id"] = int(index)
        doc["name"] = self.source(index).name
        doc["game"] = exp.game
        doc["variant"] = exp.variant  # minishogi, not "shogi"
        return doc

    # ---- games -----------------------------------------------------------------------------------
    def games(self, index: Any, query: dict[str, Any]) -> dict[str, Any]:
        """One page of games matching the filters, newest first by default, and the total count.
        ``query`` holds the values of :data:`komaken.web._fields.GAMES_QUERY` (``None``: not given)."""
        self._experiment_only(index)
        where, args = _filters(query)
        page, per_page = query.get("page") or 1, query.get("per_page") or 50
        order = "id ASC" if query.get("order") == "asc" else "id DESC"
        cols = "id, pairing, game_index, a, b, result, reason, sente, plies, seconds, finished_at"
        sql_where = (" WHERE " + " AND ".join(where)) if where else ""
        with self.connect(index) as db:
            total = int(db._conn.execute(f"SELECT COUNT(*) FROM games{sql_where}", args).fetchone()[0])
            rows = db._conn.execute(f"SELECT {cols} FROM games{sql_where} ORDER BY {order} LIMIT ? OFFSET ?",
                                    [*args, per_page, (page - 1) * per_page]).fetchall()
        keys = [c.strip() for c in cols.split(",")]
        return {"total": total, "page": page, "per_page": per_page, "pages": max(1, -(-total // per_page)),
                "games": [dict(zip(keys, r, strict=True)) for r in rows]}

    def facets(self, index: Any) -> dict[str, Any]:
        """The pairings and the distinct end reasons (before any ``:`` detail), for the filters."""
        self._experiment_only(index)
        with self.connect(index) as db:
            exp = experiment(db)
            reasons = [r[0] for r in db._conn.execute(
                "SELECT DISTINCT CASE WHEN instr(reason, ':') > 0 THEN substr(reason, 1, instr(reason, ':') - 1) "
                "ELSE reason END FROM games ORDER BY 1")]
        return {"pairings": [{"name": p.name, "a": p.a, "b": p.b, "setting": label}  # named as the report names it
                             for p, label in zip(exp.pairings, row_labels(exp), strict=True)], "reasons": reasons}

    def game(self, index: Any, game_id: Any) -> dict[str, Any]:
        """A stored game: its row, move labels, and every position of its replay (cached)."""
        src = self.source(index)
        gid = _int_value(game_id, "game id")
        key = (src.index, gid)
        if key in self._replays:
            self._replays.move_to_end(key)
            return self._replays[key]
        self._experiment_only(index)
        with self.connect(index) as db:
            row = _row(db, gid)
            exp = experiment(db)
        doc = _replay_doc(exp, row, gid)
        self._replays[key] = doc
        while len(self._replays) > 32:
            self._replays.popitem(last=False)
        return doc

    def record(self, index: Any, game_id: Any, fmt: str) -> tuple[str, str]:
        """``(text, file name)`` of a stored game in ``fmt``."""
        gid = _int_value(game_id, "game id")
        self._experiment_only(index)
        with self.connect(index) as db:
            row = _row(db, gid)
            exp = experiment(db)
        info = G.experiment_info(exp)
        try:
            pos = G.replay(info, row.start, row.moves.split())
        except KomakenError as exc:
            raise NotFound(f"game {gid} cannot be replayed: {exc}") from None
        a, b = exp.players[row.a].label, exp.players[row.b].label
        first = G.replay(info, row.start, []).turn  # white in chess, black in shogi (unless set up)
        names = (a, b) if row.sente == "a" else (b, a)  # (first mover, second mover)
        if first is not Color.BLACK:
            names = (names[1], names[0])  # record_text takes (black, white)
        text = G.record_text(info, pos, fmt, names, row.outcome_from(first),
                             f"{row.pairing} game {row.game_index}: {row.reason}")
        return text, f"game-{gid}.{fmt}"


    def live(self, index: Any) -> list[dict[str, Any]]:
        """The games a run is playing into database ``index`` now (:mod:`komaken.lab.live`), each
        with its players' labels, move labels and the board after the last published move."""
        src = self.source(index)
        games = live_games(src.path)[:MAX_LIVE]
        if not games:
            return []
        with self.connect(index) as db:
            exp = experiment(db)
        out = []
        for g in games:
            key = (src.index, g.get("pid"), g.get("pairing"), g.get("game_index"), len(g["moves"]))
            if key not in self._live:
                self._live[key] = _live_doc(exp, g)
                while len(self._live) > 4 * MAX_LIVE:
                    self._live.popitem(last=False)
            out.append(self._live[key])
        return out


class _ReadOnlyDB(ExperimentDB):
    """The lab's database class on a read-only connection; results are counted by SQLite."""

    def results(self, pairing: str) -> list[tuple[str, str]]:
        """``(result, sente)`` of every game of ``pairing`` (grouped: the statistics only count them)."""
        rows = self._conn.execute("SELECT result, sente, COUNT(*) FROM games WHERE pairing=? GROUP BY result, sente",
                                  (pairing,))
        return [(r, s) for r, s, n in rows for _ in range(n)]


def experiment(db: ExperimentDB) -> Experiment:
    text = db.meta("config")
    if text is None:
        raise NotFound(f"{db.path.name}: holds no experiment (yet)")
    return experiment_from_dict(json.loads(text), source=f"{db.path.name} (stored experiment)")


def _row(db: ExperimentDB, gid: int) -> GameRow:
    r = db._conn.execute(f"SELECT {select_columns(db._conn)} FROM games WHERE id=?", (gid,)).fetchone()
    if r is None:
        raise NotFound(f"no game {gid} in {db.path.name}")
    return GameRow(*r)


def _replay_doc(exp: Experiment, row: GameRow, gid: int) -> dict[str, Any]:
    info = G.experiment_info(exp)
    moves = row.moves.split()
    doc: dict[str, Any] = {"id": gid, "pairing": row.pairing, "game_index": row.game_index, "a": row.a, "b": row.b,
                           "result": row.result, "reason": row.reason, "sente": row.sente, "plies": row.plies,
                           "seconds": row.seconds, "game": info.to_json(), "moves": moves, "frames": []}
    if not info.shown:
        doc["labels"] = moves
        return doc
    try:
        pos, labels, frames = _walk(info, row.start, moves, every=True)
        western = _walk(info, row.start, moves, every=False, western=True)[1]
    except KomakenError as exc:
        doc.update(labels=moves, error=f"cannot replay: {exc}")
        return doc
    doc.update(labels=labels, western=western, frames=frames, outcome=G.outcome_json(pos.outcome(), info))
    return doc


def _walk(info: G.GameInfo, start: str, moves: list[str], every: bool,
          western: bool = False) -> tuple[Any, list[str], list[dict[str, Any]]]:
    """Play ``moves`` from ``start``: the last position, the move labels (``western``: in Western
    letters), and the frames (every position's with ``every``, else the last one's)."""
    pos = G.new_position(info, start)
    labels, frames = [], [_frame(pos, info)] if every else []
    for m in moves:
        mv = G.parse_move(pos, info, m)
        labels.append(G.move_label(pos, info, mv, western))
        G.push(pos, info, m)
        if every:
            frames.append(_frame(pos, info))
    return pos, labels, frames if every else [_frame(pos, info)]


_LIVE_GAME_KEYS = ("id", "title", "game", "first", "bottom", "side_names", "numbered")


def _live_doc(exp: Experiment, game: dict[str, Any]) -> dict[str, Any]:
    """A live game (:func:`komaken.lab.live.live_games`) as the page shows it."""
    info = G.experiment_info(exp)
    moves = [str(m) for m in game["moves"]]
    players = {k: exp.players[p].label if p in exp.players else p for k, p in (("a", str(game.get("a"))),
                                                                                ("b", str(game.get("b"))))}
    doc: dict[str, Any] = {"pairing": game.get("pairing"), "game_index": game.get("game_index"), **players,
                           "sente": game.get("sente"), "plies": len(moves), "moves": moves, "labels": moves,
                           "updated": game.get("updated"), "board": None, "position": "",
                           "game": {k: v for k, v in info.to_json().items() if k in _LIVE_GAME_KEYS}}
    if info.shown:
        try:
            _, doc["labels"], frames = _walk(info, str(game.get("start") or ""), moves, every=False)
            doc["western"] = _walk(info, str(game.get("start") or ""), moves, every=False, western=True)[1]
        except KomakenError as exc:
            doc["error"] = f"cannot replay: {exc}"
            return doc
        doc.update(frames[0])
    return doc


def _frame(pos: Any, info: G.GameInfo) -> dict[str, Any]:
    return {"board": G.board_json(pos, info), "position": G.position_text(info, pos)}


def _filters(query: dict[str, Any]) -> tuple[list[str], list[Any]]:
    where: list[str] = []
    args: list[Any] = []
    for key in ("pairing", "result"):
        if query.get(key):
            where.append(f"{key} = ?")
            args.append(query[key])
    if query.get("reason"):
        where.append("(reason = ? OR reason LIKE ? ESCAPE '\\')")
        esc = query["reason"].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        args += [query["reason"], esc + ":%"]
    for key, op in (("min_plies", ">="), ("max_plies", "<=")):
        if query.get(key) is not None:
            where.append(f"plies {op} ?")
            args.append(query[key])
    return where, args


def _int_value(text: Any, what: str) -> int:
    try:
        if not str(text).lstrip("-").isdigit() or len(str(text)) > 12:
            raise ValueError
        return int(text)
    except ValueError:
        raise BadQuery(f"{what}: {str(text)[:40]!r} is not a whole number") from None
