"""A database on a full disk, on read-only media, or damaged: one line, exit 2, stored games kept.

Root ignores file permissions, so read-only and full are made for real with mounts (a read-only
bind mount, a small tmpfs); where mounting is not allowed those tests are skipped, and an
in-process test fills the database with SQLite's own page limit instead.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_support import komaken_in_process
from conftest import DEADLINE, ENV, toy_toml
from komaken.lab import ExperimentDB, ExperimentDBError, load_experiment, run_experiment
from komaken.lab import storage as storage_mod

pytestmark = pytest.mark.usefixtures("toy_on_path")


def toy(tmp_path: Path, games: int) -> Path:
    path = tmp_path / f"toy{games}.toml"
    path.write_text(toy_toml(games), encoding="utf-8")
    return path


def komaken(*args: str) -> subprocess.CompletedProcess[str]:
    """``komaken experiment ARGS`` as a real process (one per test, for the exit status and the error line)."""
    return subprocess.run([sys.executable, "-m", "komaken", "experiment", *args], env=ENV, capture_output=True,
                          text=True, timeout=DEADLINE, stdin=subprocess.DEVNULL)


def in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``komaken experiment ARGS`` in this process (tests/cli_support.py): the same checks, no interpreter."""
    return komaken_in_process("experiment", *args)


def one_line_error(out: subprocess.CompletedProcess[str], *words: str) -> None:
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("komaken: error: "), out.stderr
    assert "Traceback" not in out.stderr
    for word in words:
        assert word in lines[0], lines[0]


def stored(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return conn.execute("SELECT * FROM games ORDER BY pairing, game_index").fetchall()
    finally:
        conn.close()


@contextlib.contextmanager
def mounted(target: Path, *args: str) -> Iterator[Path]:
    target.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(["mount", *args, str(target)], check=True, capture_output=True, timeout=60)
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot mount here: {exc}")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True, timeout=60)


def test_damaged_database_is_one_line_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "good.db"
    run_experiment(load_experiment(toy(tmp_path, 6)), db, workers=1)
    bad = tmp_path / "bad.db"
    shutil.copy(db, bad)
    with bad.open("r+b") as fh:
        fh.write(b"\0garbage header!")  # the 16-byte "SQLite format 3\0" magic
    before = bad.read_bytes()
    one_line_error(komaken("run", str(toy(tmp_path, 6)), "--db", str(bad)), str(bad), "damaged")
    for args in (["resume"], ["status"], ["export", "--format", "csv"]):
        one_line_error(in_process(*args, "--db", str(bad)), str(bad), "damaged")
    assert bad.read_bytes() == before
    assert len(stored(db)) == 6


def test_read_only_media_refuse_runs_and_still_report(tmp_path: Path) -> None:
    rw = tmp_path / "rw"
    rw.mkdir()
    run_experiment(load_experiment(toy(tmp_path, 5)), rw / "r.db", workers=1)
    before = stored(rw / "r.db")
    with mounted(tmp_path / "ro", "--bind", str(rw)) as ro:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True, capture_output=True, timeout=60)
        db = ro / "r.db"
        one_line_error(komaken("run", str(toy(tmp_path, 9)), "--db", str(db)), str(db), "Read-only")
        one_line_error(in_process("resume", "--db", str(db)), "Read-only")
        status = in_process("status", "--db", str(db))
        assert status.returncode == 0 and "5/5 games" in status.stdout, status.stderr
    assert stored(rw / "r.db") == before


def test_disk_full_mid_run_is_one_line_and_keeps_every_stored_game(tmp_path: Path) -> None:
    with mounted(tmp_path / "small", "-t", "tmpfs", "-o", "size=8m", "tmpfs") as small:
        db = small / "f.db"
        run_experiment(load_experiment(toy(tmp_path, 20)), db, workers=1)
        before = stored(db)
        with (small / "filler").open("wb") as fh:  # leave room for a few more games only
            with contextlib.suppress(OSError):
                fh.write(b"\0" * (shutil.disk_usage(small).free - 48 * 1024))
        out = komaken("run", str(toy(tmp_path, 400)), "--db", str(db), "-j", "1", "--quiet")
        one_line_error(out, str(db), "disk is full")
        after = stored(db)
        assert 20 <= len(after) < 400 and after[: len(before)] == before
        (small / "filler").unlink()
        done = in_process("resume", "--db", str(db), "-j", "1", "--quiet")
        assert done.returncode == 0, done.stderr
        final = stored(db)
        assert len(final) == 400 and {r[:-1] for r in after} <= {r[:-1] for r in final}


def test_disk_full_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without mounts: SQLite's ``max_page_count`` makes the file full (SQLITE_FULL) for real."""
    db = tmp_path / "p.db"
    run_experiment(load_experiment(toy(tmp_path, 10)), db, workers=1)
    before = stored(db)
    connect = storage_mod._connect

    def capped(path: Path, create: bool) -> sqlite3.Connection:
        conn = connect(path, create)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count={pages + 2}")
        return conn

    monkeypatch.setattr(storage_mod, "_connect", capped)
    with pytest.raises(ExperimentDBError, match="disk is full"):
        run_experiment(load_experiment(toy(tmp_path, 3000)), db, workers=1)
    monkeypatch.undo()
    after = stored(db)
    assert len(after) > len(before) and after[: len(before)] == before
    with ExperimentDB.open(db) as again:
        assert again.count() == len(after)
