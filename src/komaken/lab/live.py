"""The games a run is playing, move by move: a side folder the workers write and anyone may read.

While ``komaken experiment run`` plays, every worker keeps one small JSON file per game it is
playing in the folder ``DB-live/`` beside the database ``DB`` (as SQLite keeps ``DB-wal``):

* the file is written after a move once :data:`INTERVAL` seconds have passed since the game
  began or since its last write (so a move costs a list append and a clock look, moves are
  written as text only then, and a game over in less than that writes nothing at all; a slow
  engine's every move is shown), always whole (written beside and renamed over), and removed
  when the game ends — its result is then in the database;
* the database is never touched: the parent process stays its only writer, so a publication
  can neither slow a game's transaction nor lose a stored game;
* the parent empties the folder when the run starts and when it ends (finished, failed or
  interrupted); files left by a run killed with SIGKILL name a process that no longer exists and
  are skipped by :func:`live_games` until the next run clears them.

Work on a Dask cluster publishes nothing (its workers are on other machines).  The self-play
study's games run inside one numba kernel and are not published either.

>>> import tempfile, pathlib
>>> db = pathlib.Path(tempfile.mkdtemp()) / "x.db"
>>> clear(db, make=True)
>>> pub = Publisher(folder_of(db), {"pairing": "p", "game_index": 3, "start": ""}, str, interval=0.0)
>>> pub.played_move("7g7f"); pub.flush()
>>> [(g["pairing"], g["game_index"], g["moves"]) for g in live_games(db)]
[('p', 3, ['7g7f'])]
>>> pub.close(); live_games(db)
[]
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from komaken.game import Game
from komaken.match import GameResult, Observer
from komaken.players.base import Player

#: seconds between two writes of one game's file (a move in between waits for the next move)
INTERVAL = 0.2
#: the most game files :func:`live_games` reads (a run has at most one game per worker in flight)
MAX_GAMES = 64
_SUFFIX = ".json"
_PREFIX = "game-"

_folder: Path | None = None  # set in a worker for the duration of a task (see publishing)


def folder_of(db: str | Path) -> Path:
    """The live folder of the database ``db``: ``DB-live`` beside it."""
    db = Path(db)
    return db.with_name(db.name + "-live")


@contextlib.contextmanager
def publishing(folder: Path | None) -> Iterator[None]:
    """Within the block, :func:`publisher` makes publishers into ``folder`` (``None``: none)."""
    global _folder
    before, _folder = _folder, folder
    try:
        yield
    finally:
        _folder = before


class Publisher(Observer):
    """Publishes one game: an :class:`~komaken.match.Observer` for :func:`komaken.match.play_game`.

    ``header`` is what the reader gets besides the moves (pairing, game index, players, start
    text); ``moves`` are the moves played before the loop started (an opening) and
    ``move_text`` writes a move as the database does."""

    def __init__(self, folder: Path, header: dict[str, Any], move_text: Callable[[Any], str],
                 moves: list[str] | None = None, interval: float | None = None) -> None:
        self.path = folder / f"{_PREFIX}{os.getpid()}-{threading.get_ident()}{_SUFFIX}"
        self.header = {**header, "pid": os.getpid(), "started": time.time()}
        self.move_text = move_text
        self.opening = list(moves or [])
        self.moves: list[Any] = []  # as played: written as text only when the file is
        self.interval = INTERVAL if interval is None else interval
        self.last = time.monotonic()
        self.dirty = True
        self.written = False
        self.broken = False

    # ---- the loop's hooks --------------------------------------------------------------------
    def move(self, position: Game[Any], move: Any, player: Player, seconds: float) -> None:
        self.played_move(move)

    def undo(self, position: Game[Any], plies: int) -> None:
        del self.moves[len(self.moves) - plies:]
        self.dirty = True

    def end(self, position: Game[Any], result: GameResult) -> None:
        self.close()

    # ---- writing ------------------------------------------------------------------------------
    def played_move(self, move: Any) -> None:
        self.moves.append(move)
        self.dirty = True
        if time.monotonic() - self.last >= self.interval:
            self.flush()

    def flush(self) -> None:
        """Write the file now (whole: beside it, then renamed over it).  A folder that cannot be
        written (full disk; removed: the run is ending) stops the publication of this game, never
        the game.  Only the run's parent makes the folder (:func:`clear`)."""
        if self.broken or not self.dirty:
            return
        moves = self.opening + [self.move_text(m) for m in self.moves]
        doc = {**self.header, "moves": moves, "updated": time.time()}
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.path)
            self.written = True
        except OSError:
            self.broken = True
            with contextlib.suppress(OSError):
                tmp.unlink()
            return
        self.last, self.dirty = time.monotonic(), False

    def close(self) -> None:
        """The game is over: its file goes (its result is in the database)."""
        self.broken = True
        if self.written:
            with contextlib.suppress(OSError):
                self.path.unlink()


def publisher(header: dict[str, Any], move_text: Callable[[Any], str], moves: list[str]) -> Publisher | None:
    """A publisher for a game about to be played in this worker, or ``None`` when the task
    publishes nothing (no :func:`publishing` block around it)."""
    return None if _folder is None else Publisher(_folder, header, move_text, moves)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def live_games(db: str | Path) -> list[dict[str, Any]]:
    """The games being played into ``db`` now, by pairing and game index: each the header its
    publisher was given (``pairing``, ``game_index``, ``a``, ``b``, ``sente``, ``start``), ``moves``
    (opening included), ``pid``, ``started`` and ``updated`` (epoch seconds).  Files of processes
    that no longer exist, half-written or unreadable ones are skipped; at most :data:`MAX_GAMES`."""
    folder = folder_of(db)
    try:
        names = sorted(p for p in os.listdir(folder) if p.startswith(_PREFIX) and p.endswith(_SUFFIX))
    except OSError:
        return []
    out = []
    for name in names[:MAX_GAMES]:
        try:
            doc = json.loads((folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # removed since the listing (the game ended)
        if _well_formed(doc) and _alive(doc["pid"]):
            out.append(doc)
    return sorted(out, key=lambda d: (d["pairing"], d["game_index"]))


def _well_formed(doc: Any) -> bool:
    """A game file as :class:`Publisher` writes it (another program's file in the folder is skipped)."""
    return (isinstance(doc, dict) and isinstance(doc.get("pairing"), str) and type(doc.get("game_index")) is int
            and type(doc.get("pid")) is int and isinstance(doc.get("moves"), list)
            and all(isinstance(m, str) for m in doc["moves"]) and isinstance(doc.get("start", ""), str))


def clear(db: str | Path, make: bool = False) -> None:
    """Remove every game file of ``db``'s live folder and the folder (a run ending), or leave it
    empty with ``make`` (a run starting: files a killed run left go, and its workers may write)."""
    folder = folder_of(db)
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    for name in names:
        if name.startswith(_PREFIX) and (name.endswith(_SUFFIX) or name.endswith(".tmp")):
            with contextlib.suppress(OSError):
                (folder / name).unlink()
    with contextlib.suppress(OSError):
        if make:
            folder.mkdir(exist_ok=True)
        else:
            folder.rmdir()


__all__ = ["INTERVAL", "MAX_GAMES", "Publisher", "clear", "folder_of", "live_games", "publisher", "publishing"]
