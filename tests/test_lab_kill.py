"""kill -9 of a running experiment leaves no process behind: workers notice and take their engines along.
A plain kill (SIGTERM) does the same, and the run cleans up as after Ctrl-C."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from komaken.lab import live

FAKE = Path(__file__).with_name("lab_fake_usi.py")
#: the issue's promise: every process of the run is gone this long after the kill
GONE_WITHIN = 5.0
#: how long the run may take to start and store its first games (a fresh checkout compiles)
STARTUP = 300.0

# The fake engine hangs at its 3rd go and ignores the end of its input: only a kill stops it.
EXPERIMENT = """
[experiment]
name = "killme"
game = "shogi"
games = 200
seed = 3

[players.fake]
engine = "usi"
command = "{python} {fake} 3 stubborn"
move_timeout = 600
timeout = 120

[players.rnd]
engine = "random"

[[pairings]]
a = "fake"
b = "rnd"
"""


def _state(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()[0]


def marked(marker: str) -> dict[int, str]:
    """Live (not zombie) processes whose environment carries ``marker``, with their command lines."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            env = (entry / "environ").read_bytes()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"KOMAKEN_TEST_MARKER={marker}".encode() in env.split(b"\0") and _state(int(entry.name)) not in (None, "Z"):
            out[int(entry.name)] = cmd
    return out


def _stored(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return 0


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc to find the run's processes")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "kill"])
def test_killing_the_run_leaves_no_process_behind(tmp_path: Path, sig: signal.Signals) -> None:
    exp = tmp_path / "kill.toml"
    exp.write_text(EXPERIMENT.format(python=sys.executable, fake=FAKE), encoding="utf-8")
    db = tmp_path / "kill.db"
    marker = uuid.uuid4().hex  # only this run's processes carry it: never touch anyone else's
    env = {**os.environ, "KOMAKEN_TEST_MARKER": marker}
    proc = subprocess.Popen([sys.executable, "-m", "komaken", "experiment", "run", str(exp), "--db", str(db),
                             "--workers", "2", "--quiet"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + STARTUP
        # Both workers' engines hang after two resignations each: wait for games, then for engines.
        while time.monotonic() < deadline and proc.poll() is None:
            now = marked(marker).values()
            engines = sum("lab_fake_usi" in c for c in now)
            if _stored(db) >= 2 and engines >= 2 and sum(c.startswith("sleep") for c in now) >= 2:
                break
            time.sleep(0.1)
        before = marked(marker)
        assert proc.poll() is None and _stored(db) >= 2, "the run should be under way"
        assert sum("lab_fake_usi" in c for c in before.values()) >= 2
        assert sum(c.startswith("sleep") for c in before.values()) >= 2  # the engines' own children
        assert len(before) >= 7  # the run, 2 workers, 2 engines, 2 engine children (+ the pool's helpers)

        os.kill(proc.pid, sig)
        proc.wait(timeout=30)
        t0 = time.monotonic()
        while marked(marker) and time.monotonic() - t0 < GONE_WITHIN:
            time.sleep(0.05)
        left = marked(marker)
        print(f"all {len(before)} processes of the run gone {time.monotonic() - t0:.2f} s after {sig.name}")
        assert not left, f"still running {GONE_WITHIN} s after {sig.name}: {left}"
        assert proc.stderr is not None
        err = proc.stderr.read()  # every process that shared the pipe is gone: no wait
        if sig == signal.SIGTERM:
            # the clean-up of Ctrl-C ran: the live folder is gone, the pool was shut down (no
            # semaphore reported leaked), and the status is the one a shell gives a terminated process
            assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, err)
            assert not err.strip(), err
            assert not live.folder_of(db).exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        for pid in marked(marker):  # only if the test failed: clean up our own processes
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
