"""UsiPlayer: an external engine with a deadline on every read; a silent engine is killed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from komaken.errors import KomakenError
from komaken.players.usi import EngineError, EngineTimeoutError, UsiPlayer
from komaken.shogi import Position
from usi_support import STARTUP

# answers the handshake, starts a child process, then never answers a go
SILENT = textwrap.dedent("""
    import subprocess, sys
    child = None
    for line in sys.stdin:
        cmd = line.split()[0] if line.split() else ""
        if cmd == "usi":
            print("id name silent"); print("usiok", flush=True)
        elif cmd == "isready":
            if child is None:
                child = subprocess.Popen(["sleep", "1000"])
                print(f"info string child {child.pid}")
            print("readyok", flush=True)
""")


@pytest.fixture()
def silent(tmp_path: Path) -> str:
    path = tmp_path / "silent.py"
    path.write_text(SILENT)
    return f"{sys.executable} {path}"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:  # a zombie is gone too
        return f.read().split()[2] == "Z"


def test_a_silent_engine_times_out_is_killed_and_restarts(silent: str) -> None:
    player = UsiPlayer(silent, go_args="btime 0 wtime 0 byoyomi 100", timeout=STARTUP, grace=0.5)
    try:
        assert player.name == "silent" and player.move_deadline(0) == pytest.approx(0.6)
        eng = player._eng
        assert eng is not None
        with pytest.raises(EngineTimeoutError, match="gave no bestmove within 0.6 s at move 1") as info:
            player.choose(Position.start("shogi"))
        assert info.value.expected == "bestmove" and isinstance(info.value, KomakenError)
        assert not eng.alive()
        player.restart()
        assert player._eng is not eng and player._eng is not None and player._eng.alive()
        with pytest.raises(EngineTimeoutError):
            player.choose(Position.start("shogi"))
    finally:
        player.close()


def test_the_whole_process_group_is_killed(silent: str) -> None:
    from komaken.usi.client import UsiProcess

    eng = UsiProcess(silent)
    eng.send("isready")
    child = int(eng.until("info string child", STARTUP)[-1].split()[-1])
    eng.until("readyok", STARTUP)
    with pytest.raises(EngineTimeoutError):
        eng.until("bestmove", 0.2)
    assert not eng.alive()
    # SIGKILL reaches the grandchild asynchronously: kill() waits for the engine it started, not
    # for processes the engine started, so give the signal a (bounded) moment to land.
    deadline = time.monotonic() + 10.0
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _gone(child)


def test_deadlines_follow_the_time_control() -> None:
    def deadline(go: str, side: int = 0, **kw: float) -> float:
        p = UsiPlayer.__new__(UsiPlayer)
        p.timeout, p.grace, p.move_timeout = kw.get("timeout", 30.0), kw.get("grace", 1.0), kw.get("move_timeout")
        from komaken.players.usi import _check_go

        p._go = _check_go(go)
        return p.move_deadline(side)

    assert deadline("movetime 1000") == pytest.approx(2.0)
    assert deadline("btime 5000 wtime 1000 byoyomi 300", 0) == pytest.approx(6.3)
    assert deadline("btime 5000 wtime 1000 byoyomi 300", 1) == pytest.approx(2.3)
    assert deadline("btime 1000 wtime 1000 binc 100 winc 200", 1) == pytest.approx(2.2)
    assert deadline("depth 6") == 30.0
    assert deadline("depth 6", move_timeout=3.0) == 3.0
    with pytest.raises(KomakenError, match="infinite"):
        deadline("infinite")
    with pytest.raises(KomakenError, match="go depth"):
        deadline("depth inf")


def test_cat_is_not_an_engine() -> None:
    with pytest.raises(EngineError, match="does not speak USI"):
        UsiPlayer("/bin/cat", timeout=STARTUP)
    with pytest.raises(EngineError, match="cannot start"):
        UsiPlayer("/nonexistent/engine")


def test_komaken_play_with_cat_is_one_line_and_exit_2() -> None:
    r = subprocess.run([sys.executable, "-m", "komaken", "play", "--sente", "usi:/bin/cat", "-q"],
                       capture_output=True, text=True, timeout=STARTUP)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["komaken: error: '/bin/cat' does not speak USI: it echoes its input"]


def test_usi_player_plays_komaken_usi() -> None:
    player = UsiPlayer(f"{sys.executable} -m komaken usi", {"UCI_Variant": "minishogi"}, go_args="depth 2",
                       timeout=STARTUP)
    try:
        player.new_game()
        pos = Position.start("minishogi")
        for _ in range(6):
            mv = player.choose(pos)
            assert mv in pos.legal_moves()
            pos.push(mv)
            assert player.last_reply is not None and player.last_reply > 0
    finally:
        player.close()


def test_a_reply_time_is_never_negative_when_the_writer_is_slow_to_resume(tmp_path: Path) -> None:
    """On a busy machine the engine can answer — and the reader thread stamp the answer — before
    the thread that wrote ``go`` runs again.  The reply's clock starts when the write began, so
    it cannot come out negative (it did, −24 µs, in a loaded CI run)."""
    from komaken.usi.client import UsiProcess

    engine = tmp_path / "instant.py"
    engine.write_text("import sys\nfor line in sys.stdin:\n    if line.startswith('quit'):\n        break\n"
                      "    print('bestmove 1a1b', flush=True)\n")
    eng = UsiProcess([sys.executable, str(engine)])
    real = eng.proc.stdin
    assert real is not None

    class SlowToResume:  # the writer is descheduled right after its flush
        def write(self, text: str) -> int:
            return real.write(text)

        def flush(self) -> None:
            real.flush()
            time.sleep(0.3)

    eng.proc.stdin = SlowToResume()  # type: ignore[assignment]
    try:
        t0 = eng.send("go")
        arrived, line = eng.until_timed("bestmove", STARTUP)[-1]
        assert line == "bestmove 1a1b"
        assert arrived - t0 >= 0.0
    finally:
        eng.proc.stdin = real
        eng.close()


# writes every command it gets to the file named by its argument; resigns at every go
RECORDER = textwrap.dedent("""
    import sys
    log = open(sys.argv[1], "a")
    for line in sys.stdin:
        log.write(line); log.flush()
        cmd = line.split()[0] if line.split() else ""
        if cmd == "usi":
            print("id name recorder"); print("usiok", flush=True)
        elif cmd == "isready":
            print("readyok", flush=True)
        elif cmd == "go":
            print("bestmove resign", flush=True)
        elif cmd == "quit":
            break
""")


def test_each_game_starts_with_isready_then_usinewgame(tmp_path: Path) -> None:
    """The USI order a GUI keeps: options, ``isready``/``readyok``, then ``usinewgame``, then the
    game's ``position``/``go`` — for the first game and for every game after it."""
    script, log = tmp_path / "recorder.py", tmp_path / "commands.log"
    script.write_text(RECORDER)
    player = UsiPlayer(f"{sys.executable} {script} {log}", {"UCI_Variant": "minishogi"}, go_args="byoyomi 100",
                       timeout=STARTUP)
    try:
        for seed in (1, 2):
            player.new_game(seed)
            player.choose(Position("minishogi"))
    finally:
        player.close()
    words = [line.split()[0] for line in log.read_text().splitlines()]
    game = ["isready", "usinewgame", "position", "go"]
    assert words[:3] == ["usi", "setoption", "isready"]
    assert words[3:11] == game + game
    assert words[11:] in ([], ["quit"])  # the recorder may exit before it logs quit


def test_uci_variant_is_set_after_the_options_that_define_it(tmp_path: Path) -> None:
    """``VariantPath`` (Fairy-Stockfish) defines the variants ``UCI_Variant`` names: set the other
    way round, the engine ignores a variant it does not know yet and plays its default game."""
    script, log = tmp_path / "recorder.py", tmp_path / "commands.log"
    script.write_text(RECORDER)
    player = UsiPlayer(f"{sys.executable} {script} {log}",
                       {"UCI_Variant": "ctrl7", "VariantPath": "fsf-ctrl.ini", "USI_Hash": "32"}, timeout=STARTUP)
    player.close()
    assert log.read_text().splitlines()[:5] == ["usi", "setoption name VariantPath value fsf-ctrl.ini",
                                                "setoption name USI_Hash value 32",
                                                "setoption name UCI_Variant value ctrl7", "isready"]


@pytest.mark.skipif(not Path("/usr/games/fairy-stockfish").exists(), reason="needs Debian's fairy-stockfish")
def test_fairy_stockfish_plays_a_variant_its_variant_path_defines() -> None:
    ini = Path(__file__).resolve().parent.parent / "examples" / "values" / "fsf-ctrl.ini"
    player = UsiPlayer("/usr/games/fairy-stockfish", {"UCI_Variant": "ctrl7", "VariantPath": str(ini)},
                       go_args="nodes 500", timeout=STARTUP)
    pos = Position.start("ctrl7")
    try:
        player.new_game()
        for _ in range(4):
            move = player.choose(pos)
            assert move in pos.legal_moves()
            pos.push(move)
    finally:
        player.close()
