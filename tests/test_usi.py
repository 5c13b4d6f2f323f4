"""USI sessions through a real subprocess (``komaken usi``)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from komaken.shogi import Position

CMD = [sys.executable, "-c", "from komaken.cli import main; main(['usi'])"]


class Session:
    def __init__(self) -> None:
        self.p = subprocess.Popen(CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, bufsize=1)

    def send(self, line: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix: str) -> list[str]:
        assert self.p.stdout is not None
        lines = []
        while True:
            line = self.p.stdout.readline()
            assert line, "engine closed its output: " + (self.p.stderr.read() if self.p.stderr else "")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines


@pytest.fixture(scope="module")
def usi() -> Session:
    s = Session()
    s.send("usi")
    lines = s.until("usiok")
    assert "id name komaken" in lines and any("UCI_Variant" in x for x in lines)
    s.send("isready")
    s.until("readyok")
    yield s
    s.send("quit")
    assert s.p.wait(timeout=10) == 0


def test_go_depth_gives_info_and_a_legal_bestmove(usi: Session) -> None:
    usi.send("usinewgame")
    usi.send("position startpos moves 7g7f 3c3d")
    usi.send("go depth 4")
    lines = usi.until("bestmove")
    assert any(x.startswith("info depth 4") and " score cp " in x and " pv " in x and " nps " in x for x in lines)
    pos = Position.start("shogi")
    pos.push_usi("7g7f")
    pos.push_usi("3c3d")
    assert lines[-1].split()[1] in {m.usi() for m in pos.legal_moves()}


def test_bad_input_keeps_the_engine_alive(usi: Session) -> None:
    usi.send("flurb")
    assert usi.until("info string error")[-1].startswith("info string error: unknown command")
    usi.send("position startpos moves 7g7f 7g7f")
    assert "7g7f" in usi.until("info string error")[-1]
    usi.send("go nonsense")
    usi.until("info string error")
    usi.send("setoption name Nope value 1")
    usi.until("info string error")
    usi.send("position sfen this is not sfen")
    usi.until("info string error")
    usi.send("isready")
    usi.until("readyok")


def test_variant_mate_and_resign(usi: Session) -> None:
    usi.send("setoption name UCI_Variant value minishogi")
    usi.send("position sfen 4k/5/4P/5/K4 b G 1")
    usi.send("go depth 3")
    lines = usi.until("bestmove")
    assert lines[-1] == "bestmove G*1b" and any("score mate 1" in x for x in lines)
    usi.send("position sfen 4k/4G/4P/5/K4 w - 1")
    usi.send("go depth 3")
    assert usi.until("bestmove")[-1] == "bestmove resign"
    usi.send("position sfen 4k/5/4P/5/K4 b G 1")
    usi.send("go mate")
    assert usi.until("checkmate")[-1] == "checkmate G*1b"


def test_byoyomi_and_stop(usi: Session) -> None:
    usi.send("setoption name UCI_Variant value shogi")
    usi.send("position startpos")
    usi.send("isready")
    usi.until("readyok")
    t0 = time.perf_counter()
    usi.send("go btime 0 wtime 0 byoyomi 100")
    usi.until("bestmove")
    assert (time.perf_counter() - t0) * 1000 < 100 + 250  # generous margin for pipes and the scheduler
    usi.send("go infinite")
    time.sleep(0.3)
    usi.send("stop")
    assert usi.until("bestmove")[-1].startswith("bestmove ")


def test_thesis_mode(usi: Session) -> None:
    usi.send("setoption name UCI_Variant value minishogi")
    usi.send("setoption name Thesis value true")
    usi.send("position startpos")
    usi.send("go")
    assert usi.until("bestmove")[-1].split()[1] in {m.usi() for m in Position.start("minishogi").legal_moves()}
    usi.send("setoption name Thesis value false")


def test_eof_ends_quietly() -> None:
    s = Session()
    s.send("usi")
    s.until("usiok")
    assert s.p.stdin is not None
    s.p.stdin.close()
    assert s.p.wait(timeout=20) == 0
