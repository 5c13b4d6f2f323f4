"""Two runs on one database at once: the second is refused with a clear message; simultaneous
starts on a new file never see a half-made database."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from cli_support import komaken_in_process
from conftest import DEADLINE, ENV, toy_toml
from komaken.lab import ExperimentDB, experiment_from_dict

RAW = {
    "experiment": {"name": "toy", "game": "lab_toygame:Toy.start", "games": 4, "seed": 1},
    "players": {"r": {"engine": "random"}},
    "pairings": [{"a": "r", "b": "r"}],
}


def toy(tmp_path: Path, games: int, delay: float) -> Path:
    path = tmp_path / "toy.toml"
    path.write_text(toy_toml(games, delay=delay), encoding="utf-8")
    return path


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "komaken", "experiment", *args]


def count(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return 0


def test_a_second_run_on_a_busy_database_is_refused(tmp_path: Path) -> None:
    db, exp = tmp_path / "busy.db", toy(tmp_path, 6, delay=0.25)  # some 6 s of play
    first = subprocess.Popen(cli("run", str(exp), "--db", str(db), "-j", "1", "--quiet"), env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + DEADLINE
        while count(db) < 1 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert first.poll() is None, "the first run should still be playing"
        # the second run, the resume and the reader are this process (tests/cli_support.py): another
        # process than the first run all the same
        for args in (["resume", "--db", str(db)], ["run", str(exp), "--db", str(db)]):
            other = komaken_in_process("experiment", *args, "-j", "1", "--quiet")
            assert other.returncode == 2, other.stderr
            line = other.stderr.strip()
            assert "\n" not in line and line.startswith("komaken: error: ")
            assert f"another `komaken experiment run/resume` (pid {first.pid}) is playing" in line, line
        # Readers are not locked out.
        status = komaken_in_process("experiment", "status", "--db", str(db))
        assert status.returncode == 0, status.stderr
        out, err = first.communicate(timeout=DEADLINE)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(timeout=30)
    assert first.returncode == 0, err
    assert "played 6 games" in out and count(db) == 6  # every game played once, by the first run


def test_simultaneous_starts_on_a_new_database(tmp_path: Path) -> None:
    db, exp = tmp_path / "new.db", toy(tmp_path, 12, delay=0.0)
    procs = [subprocess.Popen(cli("run", str(exp), "--db", str(db), "-j", "1", "--quiet"), env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    results = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=DEADLINE)
            results.append((p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=30)
    played = 0
    for code, out, err in results:
        assert "not a komaken experiment database" not in err
        if code == 0:
            played += int(re.search(r"played (\d+) games", out).group(1))  # type: ignore[union-attr]
        else:
            assert code == 2 and "is playing into this database" in err, err
    assert any(code == 0 for code, _, _ in results)
    assert played == 12 == count(db)


def test_creation_is_one_transaction(tmp_path: Path) -> None:
    """Without the run lock (threads of one process, each its own connection): every caller
    gets the complete database, none a half-created one."""
    path = tmp_path / "race.db"
    exp = experiment_from_dict(RAW)
    errors: list[BaseException] = []
    barrier = threading.Barrier(10)

    def start() -> None:
        barrier.wait(timeout=60)
        try:
            ExperimentDB.create(path, exp).close()
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    with ExperimentDB.open(path) as db:
        assert db.experiment().name == "toy" and db.meta("schema_version") == "1"


def test_a_database_another_run_has_opened_but_not_yet_filled_is_created_into(tmp_path: Path) -> None:
    """The instant between another run's opening a new file (WAL header written, no table yet) and
    its committing the schema: a run starting then waits for that transaction, not refuses the file."""
    path = tmp_path / "opening.db"
    other = sqlite3.connect(path)
    other.execute("PRAGMA journal_mode=WAL")  # what a creator has done before its BEGIN IMMEDIATE
    assert path.stat().st_size > 0
    other.close()
    with ExperimentDB.create(path, experiment_from_dict(RAW)) as db:
        assert db.experiment().name == "toy"


def test_a_run_waits_for_a_creation_in_progress(tmp_path: Path) -> None:
    """Another run holds its creating transaction open; this one sees the finished database."""
    path = tmp_path / "slow.db"
    exp = experiment_from_dict(RAW)
    ExperimentDB.create(tmp_path / "model.db", exp).close()
    model = sqlite3.connect(tmp_path / "model.db")
    schema = [r[0] for r in model.execute("SELECT sql FROM sqlite_master WHERE type='table'")]
    meta = model.execute("SELECT key, value FROM meta").fetchall()
    model.close()
    creator = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    creator.execute("PRAGMA journal_mode=WAL")
    creator.execute("BEGIN IMMEDIATE")
    for sql in schema:
        creator.execute(sql)
    creator.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta)
    timer = threading.Timer(1.0, creator.execute, ("COMMIT",))
    timer.start()
    try:
        with ExperimentDB.create(path, exp) as db:
            assert db.experiment().identity() == exp.identity()
            assert db.meta("created_at") == dict(meta)["created_at"], "the other run's database, not a new one"
    finally:
        timer.join()
        creator.close()
