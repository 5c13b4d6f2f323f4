"""A stronger engine's search scores for the quiet positions of self-play games: targets for tuning.

The Texel fit (:mod:`komaken.shogi.engine.tune`) labels every position with its game's result.
One result says little about one position — the game was decided many moves later, often by
moves the engine under tuning got wrong — while a stronger engine's search score says much
more about that very position.  :func:`label_study` asks a USI engine (``go nodes N``) for the
score of every quiet position of a self-play study (the positions the fit uses: not in check, no
capture sequence that gains material) and keeps the scores, **in black's view and in the
engine's centipawns**, in a label file: an SQLite database beside the study, written game by
game, so an interrupted run continues where it stopped and a finished one is not asked again.
:func:`load_labels` reads them back for :func:`komaken.lab.valuestudy.positions.read_games`.

A label file belongs to one study, engine command and node count: another of any of them is an
error (:class:`LabelError`), never a mix.  A mate score is stored as ``±MATE_CP``; the fit leaves
such positions out (a decided position has nothing to say about the terms of the evaluation).
"""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.special import expit

from komaken.errors import KomakenError
from komaken.lab.valuestudy.games import identity, open_study, study_games
from komaken.lab.valuestudy.selfplay import game_start
from komaken.shogi import Move
from komaken.shogi.engine.tune import LABEL_CAP
from komaken.shogi.variant import Variant, variant_from_dict
from komaken.usi.client import UsiProcess

if TYPE_CHECKING:
    from komaken.lab.valuestudy.games import SelfPlayGame
    from komaken.usi.client import UsiProcess

#: the score stored for a mate found by the labelling engine (black's view: + black mates)
MATE_CP = 30_000
_SCORE = re.compile(r"\bscore (cp|mate) ([+-]?\d+)")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS labels (game_index INTEGER NOT NULL, ply INTEGER NOT NULL, score INTEGER NOT NULL,
                                   PRIMARY KEY (game_index, ply));
CREATE TABLE IF NOT EXISTS labelled (game_index INTEGER PRIMARY KEY);
"""


class LabelError(KomakenError):
    """A label file that does not fit (another study, engine or node count), or an engine that gave no score."""


class _Labeller(NamedTuple):
    """A labelling engine and what makes it start a game as a fresh process would."""

    usi: UsiProcess
    #: ``setoption name Threads value N`` (``N`` as set, else the engine's default), or ``None``
    #: for an engine without that option
    threads: str | None


_THREADS = re.compile(r"^option name Threads type spin default (\d+)")


def score_of(lines: Sequence[str]) -> int | None:
    """The last ``score`` of a search's ``info`` lines, side to move's view (a mate: ``±MATE_CP``)."""
    found = None
    for line in lines:
        m = _SCORE.search(line)
        if m is not None:
            v = int(m.group(2))
            found = v if m.group(1) == "cp" else (MATE_CP if v > 0 else -MATE_CP)
    return found


def engine_command(text: str) -> list[str]:
    """The command line of a labelling engine given as text (shell quoting): ``komaken ...`` is
    the komaken of this interpreter, whatever is on ``PATH`` — the inverse of :func:`engine_name`.

    >>> import sys
    >>> engine_command("komaken usi") == [sys.executable, "-m", "komaken", "usi"]
    True
    >>> engine_command("/usr/games/fairy-stockfish")
    ['/usr/games/fairy-stockfish']
    """
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise LabelError(f"engine command {text!r}: {exc}") from None
    if not argv:
        raise LabelError("engine command is empty: give the engine's program, e.g. /usr/games/fairy-stockfish")
    return [sys.executable, "-m", "komaken", *argv[1:]] if argv[0] == "komaken" else argv


def engine_name(command: Sequence[str]) -> list[str]:
    """The labelling engine as a label file records it: komaken's own engine run by this
    interpreter is ``komaken ...``, so labelling goes on from another clone or virtual environment;
    any other command is kept as given.

    >>> import sys
    >>> engine_name([sys.executable, "-m", "komaken", "usi"])
    ['komaken', 'usi']
    """
    if list(command[:3]) == [sys.executable, "-m", "komaken"]:
        return ["komaken", *command[3:]]
    return list(command)


def _meta(study_db: Path, command: Sequence[str], nodes: int, options: Mapping[str, str]) -> dict[str, str]:
    with open_study(study_db) as study:
        study_id = identity(study.config())
    return {"study": study_id, "command": json.dumps(engine_name(command)), "nodes": str(nodes),
            "options": json.dumps(dict(sorted(options.items())))}


def _open(path: Path, meta: Mapping[str, str] | None) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    try:
        conn.executescript(_SCHEMA)
        stored = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise LabelError(f"{path}: not a label file ({exc})") from None
    if meta is not None:
        if not stored:
            conn.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
            conn.commit()
        elif stored != dict(meta):
            conn.close()
            what = [_differs(k, stored.get(k), meta.get(k)) for k in sorted(set(stored) | set(meta))
                    if stored.get(k) != meta.get(k)]
            raise LabelError(f"{path}: labels of another {'; '.join(what)}: use another label file")
    return conn


def _differs(key: str, stored: str | None, asked: str | None) -> str:
    """One difference between a label file's making and the one asked for, for its error line
    (a study by name only: its description is a page of JSON).

    >>> _differs("nodes", "5000", "151")
    'nodes (the file: 5000; asked: 151)'
    """
    if key == "study":
        return "study"
    return f"{key} (the file: {str(stored)[:100]}; asked: {str(asked)[:100]})"


def label_study(study_db: str | Path, labels: str | Path, command: Sequence[str], *, nodes: int = 5000,
                options: Mapping[str, str] | None = None, variant: str | None = None,
                progress: Callable[[int, int], None] | None = None, workers: int = 1,
                games: int | None = None, every: int = 1) -> int:
    """Label the quiet positions of every game of ``study_db`` not yet in ``labels`` with the
    search score of the USI engine ``command`` at ``nodes`` nodes (``options``: its USI options;
    ``variant``: sent as ``UCI_Variant``, default the study's).  Returns the positions labelled now;
    ``progress(games done, games in all)`` after each game.  ``games`` labels only the study's
    games of the first that many indexes (as :func:`~komaken.lab.nnue_data.read_study` reads
    them): a sample that a later call with more extends.  ``every`` labels only every
    ``every``-th quiet position of a game (:meth:`~komaken.lab.valuestudy.games.SelfPlayGame.quiet`):
    for the same labelling time, positions of more games.  A game is labelled once: one already in
    ``labels`` keeps the positions it was labelled with.
    A game that starts from a changed army (``--imbalance``, ``--odds``) is sent as
    ``position sfen`` of its start (:func:`~komaken.lab.valuestudy.selfplay.game_start`).

    ``workers`` engine processes label games side by side (one game each at a time; this thread
    writes every finished game).  Each game starts as in a fresh process, so a game's scores do
    not depend on which process labelled it or what that process labelled before (nor, so, on
    ``workers`` or timing): ``usinewgame`` clears komaken's search, and an engine with a
    ``Threads`` option is first given it again (:func:`_fresh_game`)."""

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise LabelError(f"workers must be a positive integer, not {workers!r}")
    for name, val in (("games", games), ("every", every)):
        if val is not None and (isinstance(val, bool) or not isinstance(val, int) or val < 1):
            raise LabelError(f"{name} must be a positive integer, not {val!r}")
    study_db, labels, options = Path(study_db), Path(labels), dict(options or {})
    with open_study(study_db) as study:
        config = study.config()
        v = variant_from_dict(tomllib.loads(config["variant_toml"]), source=str(study_db))
        stored = list(study_games(study, games))
    conn = _open(labels, _meta(study_db, command, nodes, options))
    done = {r[0] for r in conn.execute("SELECT game_index FROM labelled")}
    pending = [(g, _position_head(config, v, g.game_index)) for g in stored if g.game_index not in done]
    engines: list[_Labeller] = []
    try:
        for _ in range(min(workers, len(pending))):
            engines.append(_start(command, {**options, "UCI_Variant": options.get("UCI_Variant", variant or v.name)}))
        return _label_games(conn, engines, pending, nodes, every, progress)
    finally:
        for eng in engines:  # a search still running in a worker thread ends with its engine
            eng.usi.close(timeout=5)
        conn.close()


def _position_head(config: dict, variant: Variant, game_index: int) -> str:
    """The start of every ``position`` command of one game: ``startpos``, or ``sfen`` of the
    changed army it started from."""
    sfen = game_start(config, variant, game_index)
    return "startpos" if sfen is None else f"sfen {sfen}"


def _label_games(conn: sqlite3.Connection, engines: Sequence[_Labeller], games: Sequence[tuple[SelfPlayGame, str]],
                 nodes: int, every: int, progress: Callable[[int, int], None] | None) -> int:
    """Label ``games`` with ``engines`` side by side, one game each at a time, writing each
    finished game here; returns the positions labelled."""
    todo = iter(games)
    made = 0
    pool = ThreadPoolExecutor(max_workers=max(1, len(engines)))
    running: dict[Future[list[tuple[int, int, int]]], tuple[_Labeller, tuple[SelfPlayGame, str]]] = {}
    try:
        for eng in engines:
            _next_game(pool, running, eng, todo, nodes, every)
        n = 0
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                eng, (game, _) = running.pop(future)
                rows = future.result()
                with conn:  # one game at a time: a kill loses at most the games being labelled
                    conn.executemany("INSERT OR REPLACE INTO labels VALUES (?, ?, ?)", rows)
                    conn.execute("INSERT INTO labelled VALUES (?)", (game.game_index,))
                made += len(rows)
                n += 1
                if progress is not None:
                    progress(n, len(games))
                _next_game(pool, running, eng, todo, nodes, every)
    finally:  # not waiting: a game still being labelled ends when the caller closes its engine
        pool.shutdown(wait=False)
    return made


def _start(command: Sequence[str], options: Mapping[str, str]) -> _Labeller:
    """A labelling engine, past ``usi`` and ``isready`` with ``options`` set."""

    eng = UsiProcess(list(command), name=Path(command[0]).name)
    try:
        said = eng.handshake(options, timeout=120)
    except BaseException:
        eng.close(timeout=5)
        raise
    found = [m.group(1) for m in map(_THREADS.match, said) if m]
    threads = options.get("Threads", found[0] if found else None)
    return _Labeller(eng, None if threads is None else f"setoption name Threads value {threads}")


def _fresh_game(labeller: _Labeller) -> None:
    """Make ``labeller`` search the next game as a fresh process would.  ``usinewgame`` is not
    enough for a Stockfish-family engine: Fairy-Stockfish 11.1 keeps per-thread tables across it
    (and across ``Clear Hash``), so a game labelled after others got other scores in 2 of 30
    positions; setting ``Threads`` again rebuilds its threads, and after that its scores equal a
    fresh process's."""
    eng = labeller.usi
    if labeller.threads is not None:
        eng.send(labeller.threads)
        eng.send("isready")
        eng.until("readyok", 60)
    eng.send("usinewgame")


def _next_game(pool: ThreadPoolExecutor,
               running: dict[Future[list[tuple[int, int, int]]], tuple[_Labeller, tuple[SelfPlayGame, str]]],
               eng: _Labeller, todo: Iterator[tuple[SelfPlayGame, str]], nodes: int, every: int) -> None:
    """Give ``eng`` the next game of ``todo``, if any is left."""
    game = next(todo, None)
    if game is not None:
        running[pool.submit(_label_game, eng, *game, nodes, every)] = (eng, game)


def _label_game(labeller: _Labeller, game: SelfPlayGame, head: str, nodes: int,
                every: int) -> list[tuple[int, int, int]]:
    """``(game, ply, score in black's view)`` of each quiet position of ``game`` (of every
    ``every``-th: :meth:`~komaken.lab.valuestudy.games.SelfPlayGame.quiet`; its ``position``
    commands begin ``position {head}``), asked of ``labeller``."""

    quiet = game.quiet(every)
    usi = [Move(code).usi() for code in game.move_codes().tolist()]  # a move code alone spells its USI
    _fresh_game(labeller)
    eng = labeller.usi
    rows = []
    missed = 0
    for i in np.flatnonzero(quiet).tolist():
        ply = game.opening_plies + i
        eng.send(f"position {head}" + (" moves " + " ".join(usi[:ply]) if ply else ""))
        eng.send(f"go nodes {nodes}")
        lines = eng.until("bestmove", 60)
        score = score_of(lines)
        if score is None and lines and lines[-1].split()[1:2] == ["resign"]:
            score = -MATE_CP  # no legal move (the game's last position): the side to move has lost
        if score is None:
            # a move played at once without a search (komaken does so with one legal move):
            # that position stays unlabelled; an engine that never scores is an error below
            missed += 1
            continue
        rows.append((game.game_index, ply, score if ply % 2 == 0 else -score))
    if missed and not rows:
        raise LabelError(f"{eng.name} gave no score for any of the {missed} positions of game {game.game_index}")
    return rows


def _read_only(labels: Path) -> sqlite3.Connection:
    """A label file opened for reading only, its ``meta`` checked to be there: reading never
    creates or alters a file (another SQLite database given by mistake stays as it was)."""
    if not labels.is_file():
        raise LabelError(f"label file not found: {labels}")
    conn = sqlite3.connect(f"{labels.resolve().as_uri()}?mode=ro", uri=True)
    try:
        conn.execute("SELECT key, value FROM meta LIMIT 1").fetchall()
        conn.execute("SELECT game_index, ply, score FROM labels LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise LabelError(f"{labels}: not a label file ({exc})") from None
    return conn


def describe_labels(labels: str | Path) -> str:
    """Who labelled a label file, as a fit names it: ``fairy-stockfish at 5000 nodes``."""
    labels = Path(labels)
    conn = _read_only(labels)
    try:
        stored = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    finally:
        conn.close()
    if "command" not in stored:
        raise LabelError(f"{labels}: no labelling engine recorded (an empty label file)")
    command = json.loads(stored["command"])
    options = json.loads(stored.get("options", "{}"))
    extra = "".join(f", {k}={Path(v).name if '/' in v else v}" for k, v in options.items())  # a file: its name
    return f"{' '.join([Path(command[0]).name, *command[1:]])} at {stored.get('nodes')} nodes{extra}"


def label_targets(scores: Mapping[int, int], plies: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``plies`` have a score short of a decided one (|score| < ``LABEL_CAP``; an
    unlabelled ply counts as decided), and σ(score / scale) of those: the fit's targets."""
    target = np.array([scores.get(int(p), LABEL_CAP) for p in plies], dtype=np.float64)
    scored = np.abs(target) < LABEL_CAP
    return scored, expit(target[scored] / scale)


def load_labels(labels: str | Path, study_db: str | Path) -> dict[int, dict[int, int]]:
    """``{game_index: {ply: score}}`` (black's view) of a label file made for ``study_db``."""

    labels = Path(labels)
    conn = _read_only(labels)
    try:
        stored = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        with open_study(study_db) as study:
            if stored.get("study") != identity(study.config()):
                raise LabelError(f"{labels}: labels of another study than {study_db}")
        out: dict[int, dict[int, int]] = {}
        for g, ply, score in conn.execute("SELECT game_index, ply, score FROM labels"):
            out.setdefault(g, {})[ply] = score
        return out
    finally:
        conn.close()


__all__ = ["MATE_CP", "LabelError", "describe_labels", "engine_command", "engine_name", "label_study", "label_targets",
           "load_labels",
           "score_of"]
