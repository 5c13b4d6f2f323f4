"""Long runs are never silent off a terminal, and exported times are ISO 8601."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

from cli_support import komaken_in_process
from komaken.lab import ExperimentDB
from komaken.lab.export import export
from komaken.lab.progress import LineProgress

TICTACTOE = """
[experiment]
name = "quiet-run"
game = "tictactoe"
games = {games}
seed = 3

[players.a]
engine = "random"

[players.b]
engine = "random"

[[pairings]]
a = "a"
b = "b"
colors = "alternate"
"""

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def _run(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "t.toml"
    cfg.write_text(TICTACTOE.format(games=6), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "komaken", "experiment", "run", str(cfg), "--db", str(tmp_path / "t.db"), "-j", "1",
         *extra],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )


def _run_in_process(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """:func:`_run` in this process (tests/cli_support.py); its stderr is no terminal either."""
    cfg = tmp_path / "t.toml"
    cfg.write_text(TICTACTOE.format(games=6), encoding="utf-8")
    return komaken_in_process("experiment", "run", str(cfg), "--db", str(tmp_path / "t.db"), "-j", "1", *extra)


def test_progress_lines_when_not_a_terminal(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--progress-every", "0")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "progress:" in line]
    assert lines[0].endswith("0/6 games (0.0%) · started") and re.match(STAMP, lines[0])
    # one line per game with --progress-every 0, then the closing one
    assert len(lines) == 1 + 6 + 1
    assert "3/6 games (50.0%)" in lines[3] and "games/s" in lines[3] and "ETA" in lines[3]
    assert lines[-1].endswith("· finished") and "6/6 games (100.0%)" in lines[-1]
    assert all(re.match(STAMP + " progress: ", line) for line in lines)
    assert "played 6 games" in proc.stdout and "progress:" not in proc.stdout


def test_default_interval_still_prints_start_and_end_and_quiet_prints_none(tmp_path: Path) -> None:
    # in-process: the real process's standard error (a pipe) is test_progress_lines_when_not_a_terminal's
    proc = _run_in_process(tmp_path)
    lines = [line for line in proc.stderr.splitlines() if "progress:" in line]
    assert proc.returncode == 0 and lines[0].endswith("started") and lines[-1].endswith("finished")
    (tmp_path / "t.db").unlink()
    proc = _run_in_process(tmp_path, "--quiet")
    assert proc.returncode == 0 and "progress:" not in proc.stderr


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_line_progress_prints_at_intervals() -> None:
    out, clock = io.StringIO(), _Clock()
    p = LineProgress(out, interval=10, clock=clock)
    p.start(total=100, done=20, counts=[])
    for _ in range(30):
        clock.now += 1.0  # a game a second: a line every ten games
        p.advance(None, [])  # type: ignore[arg-type]
    p.stop()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 + 3 + 1
    assert "30/100 games (30.0%) · 1.00 games/s · elapsed 10s · ETA 1m10s" in lines[1]
    assert lines[-1].endswith("50/100 games (50.0%) · 1.00 games/s · elapsed 30s · ETA 50s · stopped")


def test_csv_finished_at_is_iso_8601(tmp_path: Path) -> None:
    proc = _run_in_process(tmp_path, "--quiet")
    assert proc.returncode == 0, proc.stderr
    out = io.StringIO()
    with ExperimentDB.open(tmp_path / "t.db") as db:
        assert export(db, "csv", out) == 6
        epochs = [row.finished_at for row in db.games()]
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    from datetime import datetime

    for row, epoch in zip(rows, epochs, strict=True):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", row["finished_at"]), row["finished_at"]
        parsed = datetime.fromisoformat(row["finished_at"].replace("Z", "+00:00"))
        assert abs(parsed.timestamp() - epoch) < 0.001
