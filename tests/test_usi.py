"""USI sessions through a real subprocess (``komaken usi``); every read has a deadline.  One engine
process (the module's fixture) serves the tests in turn, each leaving the options as it found them;
the tests of how a process ends (``quit``, end of input) start their own."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest

from komaken.shogi import Position
from komaken.usi.client import UsiProcess
from usi_support import DEADLINE, is_legal_answer, position_after, start_engine


@pytest.fixture(scope="module")
def usi() -> Iterator[UsiProcess]:
    eng = start_engine()
    yield eng
    assert eng.close(timeout=DEADLINE) == 0


def ask(eng: UsiProcess, *lines: str, until: str = "bestmove") -> list[str]:
    for line in lines:
        eng.send(line)
    return eng.until(until, DEADLINE)


def alive(eng: UsiProcess) -> None:
    assert ask(eng, "isready", until="readyok")[-1] == "readyok"


def test_usi_lists_options_with_ranges(usi: UsiProcess) -> None:
    lines = ask(usi, "usi", until="usiok")
    assert "id name komaken" in lines
    assert "option name USI_Hash type spin default 16 min 1 max 1024" in lines
    assert any(x.startswith("option name UCI_Variant type combo default shogi var shogi") for x in lines)


def test_go_depth_gives_info_and_a_legal_bestmove(usi: UsiProcess) -> None:
    lines = ask(usi, "usinewgame", "position startpos moves 7g7f 3c3d", "go depth 4")
    assert any(x.startswith("info depth 4") and " score cp " in x and " pv " in x and " nps " in x for x in lines)
    assert is_legal_answer(position_after("shogi", None, ["7g7f", "3c3d"]), lines[-1].split()[1])


def test_the_last_info_line_counts_the_whole_search(usi: UsiProcess) -> None:
    """A search cut short inside a depth (here by a node limit) reports once more before
    ``bestmove``: the nodes and time of everything searched, not only of the last complete depth."""
    lines = ask(usi, "usinewgame", "position startpos moves 7g7f 3c3d 2g2f", "go nodes 20000")
    infos = [x for x in lines if x.startswith("info depth")]
    nodes = [int(x.split(" nodes ")[1].split()[0]) for x in infos]
    assert nodes[-1] >= 20000 > nodes[-2], infos[-2:]  # the last complete depth stopped short of the limit
    assert infos[-1].split(" pv ")[1].split()[0] == lines[-1].split()[1]  # its move is the one played


def test_bad_input_keeps_the_engine_alive(usi: UsiProcess) -> None:
    usi.send("flurb")
    assert usi.until("info string error", DEADLINE)[-1].startswith("info string error: unknown command")
    usi.send("position startpos moves 7g7f 7g7f")
    assert "7g7f" in usi.until("info string error", DEADLINE)[-1]
    for line in ("go nonsense", "setoption name Nope value 1", "position sfen this is not sfen"):
        usi.send(line)
        usi.until("info string error", DEADLINE)
    alive(usi)


@pytest.mark.parametrize("line, says", [
    ("go depth inf", "go depth: 'inf' is not an integer"),
    ("go nodes 1e400", "go nodes: '1e400' is not an integer"),
    ("go btime inf", "go btime: 'inf' is not an integer"),
    ("go depth 0", "go depth: 0 is out of range 1..100"),
    ("go depth 101", "go depth: 101 is out of range"),
    ("go byoyomi", "go byoyomi: a number must follow"),
    ("go movetime 99999999999999999999", "go movetime: 99999999999999999999 is out of range -2147483648..2147483647"),
    ("go btime -2147483649", "go btime: -2147483649 is out of range -2147483648..2147483647"),
    ("go mate 0", "go mate: 0 is out of range 1..2147483647"),
    ("go nodes 0", "go nodes: 0 is out of range 1..1000000000000000"),
    ("setoption name Value_R value 99999999999999999999", "option Value_R: 99999999999999999999 is out of range"),
    ("setoption name Value_R value 100001", "option Value_R: 100001 is out of range -100000..100000"),
    ("setoption name USI_Hash value 1000000000000", "option USI_Hash: 1000000000000 is out of range 1..1024"),
    ("setoption name USI_Hash value 0", "option USI_Hash: 0 is out of range"),
    ("setoption name USI_Ponder value 1", "option USI_Ponder: expected true or false"),
    ("setoption name Threads value 4", "option Threads: 4 is out of range 1..1"),
    ("setoption name Thesis value maybe", "option Thesis: expected true or false"),
    ("setoption name Value_Q value 5", "unknown option 'Value_Q'"),
    ("setoption name MoveOverhead value -1", "option MoveOverhead: -1 is out of range"),
    ("setoption name MultiPV value 0", "option MultiPV: 0 is out of range 1..1024"),
    ("setoption name MultiPV value 1025", "option MultiPV: 1025 is out of range"),
    ("setoption name Skill Level value 21", "option Skill Level: 21 is out of range 0..20"),
    ("setoption name Skill Level value -1", "option Skill Level: -1 is out of range"),
    ("setoption name Skill Level value 3.5", "option Skill Level: '3.5' is not an integer"),
    ("setoption name UCI_Elo value 499", "option UCI_Elo: 499 is out of range 500..2500"),
    ("setoption name UCI_Elo value 2501", "option UCI_Elo: 2501 is out of range"),
    ("setoption name UCI_LimitStrength value yes", "option UCI_LimitStrength: expected true or false"),
])
def test_junk_is_answered_and_changes_nothing(usi: UsiProcess, line: str, says: str) -> None:
    usi.send(line)
    got = usi.until("info string error", DEADLINE)[-1]
    assert got.startswith("info string error: ") and says in got
    lines = ask(usi, "position startpos moves 2g2f", "go depth 2")
    assert not any(x.startswith("info string error") for x in lines)
    assert is_legal_answer(position_after("shogi", None, ["2g2f"]), lines[-1].split()[1])


def test_a_rejected_option_does_not_poison_a_variant_switch(usi: UsiProcess) -> None:
    usi.send("setoption name Value_Q value 5")
    usi.until("info string error", DEADLINE)
    usi.send("setoption name Value_R value 99999999999999999999")
    usi.until("info string error", DEADLINE)
    lines = ask(usi, "setoption name UCI_Variant value minishogi", "position startpos moves 5e4d", "go depth 3")
    assert not any(x.startswith("info string error") for x in lines)
    assert is_legal_answer(position_after("minishogi", None, ["5e4d"]), lines[-1].split()[1])
    ask(usi, "setoption name UCI_Variant value shogi", "isready", until="readyok")


def test_options_are_case_insensitive_and_checked_before_use(usi: UsiProcess) -> None:
    ask(usi, "setoption name value_p value 150", "setoption name usi_hash value 8", "isready", until="readyok")
    lines = ask(usi, "position startpos", "go depth 2")
    assert not any(x.startswith("info string error") for x in lines)
    ask(usi, "setoption name Value_P value 100", "setoption name USI_Hash value 16", "isready", until="readyok")


def test_multipv_gives_one_info_line_per_rank(usi: UsiProcess) -> None:
    ask(usi, "setoption name MultiPV value 3", "isready", until="readyok")
    try:
        lines = ask(usi, "position startpos moves 7g7f", "go depth 3")
        for k in (1, 2, 3):
            assert any(x.startswith("info depth 3 ") and f" multipv {k} " in x and " pv " in x for x in lines)
        last = [x for x in lines if x.startswith("info depth 3 ")]
        assert last[0].split(" pv ")[1].split()[0] == lines[-1].split()[1]  # bestmove is line 1
        assert len({x.split(" pv ")[1].split()[0] for x in last}) == 3
    finally:
        ask(usi, "setoption name MultiPV value 1", "isready", until="readyok")


def test_skill_level_and_elo_are_accepted_and_play_legal_moves(usi: UsiProcess) -> None:
    try:
        for setting in ("name Skill Level value 0", "name UCI_Elo value 800", "name UCI_LimitStrength value true"):
            lines = ask(usi, f"setoption {setting}", "position startpos moves 2g2f", "go depth 8")
            assert not any(x.startswith("info string error") for x in lines)
            assert is_legal_answer(position_after("shogi", None, ["2g2f"]), lines[-1].split()[1])
            # level 0 caps the search at depth 1; Elo 800 is level 3: depth 2
            assert not any(x.startswith("info depth 3") for x in lines)
    finally:
        ask(usi, "setoption name Skill Level value 20", "setoption name UCI_LimitStrength value false",
            "isready", until="readyok")


def test_variant_mate_and_resign(usi: UsiProcess) -> None:
    lines = ask(usi, "setoption name UCI_Variant value minishogi", "position sfen 4k/5/4P/5/K4 b G 1", "go depth 3")
    assert lines[-1] == "bestmove G*1b" and any("score mate 1" in x for x in lines)
    assert ask(usi, "position sfen 4k/4G/4P/5/K4 w - 1", "go depth 3")[-1] == "bestmove resign"
    assert ask(usi, "position sfen 4k/5/4P/5/K4 b G 1", "go mate", until="checkmate")[-1] == "checkmate G*1b"
    assert ask(usi, "go mate 1000", until="checkmate")[-1] == "checkmate G*1b"
    ask(usi, "setoption name UCI_Variant value shogi", "isready", until="readyok")


def test_go_mate_honours_its_time(usi: UsiProcess) -> None:
    # bare kings and a full hand: checks without end, no quick proof; unbounded this runs for minutes
    usi.send("position sfen 4k4/9/9/9/9/9/9/9/4K4 b RBGSNLP 1")
    assert ask(usi, "go mate 300", until="checkmate")[-1] == "checkmate timeout"
    usi.send("go mate infinite")
    usi.send("stop")
    assert usi.until("checkmate", DEADLINE)[-1] in ("checkmate timeout", "checkmate nomate")


def test_byoyomi_infinite_and_stop(usi: UsiProcess) -> None:
    ask(usi, "position startpos", "isready", until="readyok")
    assert ask(usi, "go btime 0 wtime 0 byoyomi 100")[-1].startswith("bestmove ")
    usi.send("go infinite")
    time.sleep(0.2)
    assert ask(usi, "stop")[-1].startswith("bestmove ")
    # a stop that follows at once, before the search thread has begun, is not lost
    assert ask(usi, "go infinite", "stop")[-1].startswith("bestmove ")


def test_ponder_then_ponderhit_or_stop(usi: UsiProcess) -> None:
    lines = ask(usi, "position startpos moves 7g7f", "go ponder btime 0 wtime 0 byoyomi 100", "ponderhit")
    assert is_legal_answer(position_after("shogi", None, ["7g7f"]), lines[-1].split()[1])
    assert ask(usi, "go ponder btime 0 wtime 0 byoyomi 100", "stop")[-1].startswith("bestmove ")


def test_go_while_searching_stops_the_search_and_answers_both(usi: UsiProcess) -> None:
    usi.send("position startpos")
    usi.send("go infinite")
    usi.send("go depth 2")
    first = usi.until("bestmove", DEADLINE)
    second = usi.until("bestmove", DEADLINE)
    assert first[-1].startswith("bestmove ") and second[-1].startswith("bestmove ")


def test_thesis_mode_obeys_the_clock_and_stop(usi: UsiProcess) -> None:
    # depth 6 on 9x9 takes minutes for the published program: only the clock or stop ends it
    ask(usi, "setoption name Thesis value true", "setoption name Depth value 6", "isready", until="readyok")
    pos = Position.start("shogi")
    assert is_legal_answer(pos, ask(usi, "position startpos", "go btime 0 wtime 0 byoyomi 100")[-1].split()[1])
    usi.send("go infinite")
    time.sleep(0.1)
    assert is_legal_answer(pos, ask(usi, "stop")[-1].split()[1])
    ask(usi, "setoption name Depth value 0", "setoption name UCI_Variant value minishogi", "isready",
        until="readyok")
    assert is_legal_answer(Position.start("minishogi"), ask(usi, "position startpos", "go")[-1].split()[1])
    ask(usi, "setoption name Thesis value false", "setoption name UCI_Variant value shogi", "isready",
        until="readyok")


def test_invalid_utf8_is_junk_not_death(usi: UsiProcess) -> None:
    assert usi.proc.stdin is not None
    usi.proc.stdin.buffer.write(b"go \xff\xfe depth\n")  # type: ignore[attr-defined]
    usi.proc.stdin.flush()
    assert usi.until("info string error", DEADLINE)[-1].startswith("info string error: go")
    alive(usi)


def test_quit_during_an_infinite_search_ends_the_process() -> None:
    eng = start_engine()
    eng.send("position startpos")
    eng.send("go infinite")
    eng.send("quit")
    assert eng.proc.wait(timeout=DEADLINE) == 0


def test_eof_ends_quietly() -> None:
    eng = start_engine()
    assert eng.proc.stdin is not None
    eng.send("go infinite")
    eng.proc.stdin.close()
    assert eng.proc.wait(timeout=DEADLINE) == 0


def test_sigterm_during_an_infinite_search_ends_the_process() -> None:
    """A GUI closing, or a tournament manager giving up on an engine, sends SIGTERM: the search
    thread must not keep the process alive."""
    eng = start_engine()
    eng.send("position startpos")
    eng.send("go infinite")
    assert eng.until("info depth", DEADLINE)[-1].startswith("info depth")
    eng.proc.send_signal(signal.SIGTERM)
    assert eng.proc.wait(timeout=DEADLINE) == 128 + signal.SIGTERM


def _last_score(lines: list[str]) -> int:
    return int([x for x in lines if " score cp " in x][-1].split(" score cp ")[1].split()[0])


def test_max_moves_to_draw_makes_the_line_that_reaches_it_a_draw(usi: UsiProcess) -> None:
    """``MaxMovesToDraw`` (YaneuraOu's option, which shogiarena sets before a game): a rook up,
    black scores high (the linear evaluation: the net's scale puts a rook at depth 3 near 60); with a
    draw after one ply every move ends the game drawn, so the score is 0; back to 0 (the variant's
    own rule) the rook counts again."""
    eng = usi
    ask(eng, "setoption name UCI_Variant value minishogi", "setoption name UseNNUE value false", "usinewgame",
        "isready", until="readyok")
    try:
        sfen = "position sfen 1bsgk/4p/5/P4/KGSBR b - 1"
        free = _last_score(ask(eng, sfen, "go depth 3"))
        ask(eng, "setoption name MaxMovesToDraw value 1", "isready", until="readyok")
        drawn = ask(eng, sfen, "go depth 3")
        ask(eng, "setoption name MaxMovesToDraw value 0", "isready", until="readyok")
        again = _last_score(ask(eng, sfen, "go depth 3"))
        eng.send("setoption name MaxMovesToDraw value -1")
        refused = eng.until("info string error", DEADLINE)[-1]
    finally:
        ask(eng, "setoption name MaxMovesToDraw value 0", "setoption name UseNNUE value true",
            "setoption name UCI_Variant value shogi", "isready", until="readyok")
    assert free > 300 and again == free
    assert _last_score(drawn) == 0 and is_legal_answer(position_after("minishogi", "1bsgk/4p/5/P4/KGSBR b - 1", []),
                                                        drawn[-1].split()[1])
    assert "MaxMovesToDraw" in refused and "out of range 0..100000" in refused
