"""USI as a state machine (docs/usi.md): random command sequences over every state, and the
reproducers of the deadlock and of play on a board the GUI did not ask for.

Hypothesis draws the sequences (``RuleBasedStateMachine``); :class:`usi_states.UsiModel` checks
every answer, each read with a deadline: ``isready`` answered ``readyok`` (searching or not),
every ``go`` exactly one legal ``bestmove`` in order, refused lines refused, ``quit`` ends the
engine.  Four hundred sequences of up to six commands (some 4000 commands sent, over a thousand
``isready``, hundreds of ``go`` answered or refused, tens of ``quit`` and of variant switches, every
variant and every kind of failure among them) run against the server in this process (on a pipe, as
stdin), a few through a real ``komaken usi``; ``benchmarks/usi_states.py`` runs them by the ten
thousand on loaded cores with the latencies.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule

from komaken.usi.client import UsiProcess
from komaken.usi.go import parse_go
from komaken.usi.thinking import Search
from usi_states import BAD_GOS, BAD_VARIANTS, GO_KINDS, VARIANTS, InProcess, Subprocess, UsiModel, broken_file
from usi_support import CMD, DEADLINE, STARTUP, is_legal_answer, position_after, start_engine

#: a read that waits longer than this is a hang.  The deadlock it guards against never answers, so
#: the bound can be generous: with the suite's two workers on two cores a short search or the
#: first isready of a new engine has taken over 2 s
READ_DEADLINE = 10.0
_MODELS: dict[str, UsiModel] = {}


class UsiMachine(RuleBasedStateMachine):
    """One sequence = one example; the engine lives on from sequence to sequence until ``quit``."""

    kind = "in-process"

    def __init__(self) -> None:
        super().__init__()
        model = _MODELS.get(self.kind)
        if model is None:
            model = _MODELS[self.kind] = UsiModel(InProcess if self.kind == "in-process" else Subprocess,
                                                  READ_DEADLINE if self.kind == "in-process" else DEADLINE)
        self._m = model
        self._m.begin()

    @property
    def m(self) -> UsiModel:
        """The model, with an engine: after ``quit`` the next command goes to a new one."""
        if self._m.transport is None:
            self._m.begin()
        return self._m

    @rule(kind=st.sampled_from(GO_KINDS), n=st.integers(0, 999))
    def go(self, kind: str, n: int) -> None:
        self.m.go(kind, n)

    @rule(line=st.sampled_from(BAD_GOS))
    def bad_go(self, line: str) -> None:
        self.m.bad_go(line)

    @rule()
    def isready(self) -> None:
        self.m.isready()

    @rule(seed=st.integers(0, 10**6), plies=st.integers(0, 12), as_sfen=st.booleans())
    def position(self, seed: int, plies: int, as_sfen: bool) -> None:
        self.m.position(seed, plies, as_sfen)

    @rule()
    def stop(self) -> None:
        self.m.stop()

    @rule()
    def ponderhit(self) -> None:
        self.m.ponderhit()

    @rule(result=st.sampled_from(("win", "lose", "draw")))
    def gameover(self, result: str) -> None:
        self.m.gameover(result)

    @rule()
    def usinewgame(self) -> None:
        self.m.usinewgame()

    @rule(value=st.sampled_from(("true", "false", "yes")))
    def usi_ponder(self, value: str) -> None:
        self.m.setoption("USI_Ponder", value, value != "yes")

    @rule(value=st.sampled_from(("1", "2", "0", "1025")))
    def multipv(self, value: str) -> None:
        self.m.setoption("MultiPV", value, value in ("1", "2"))

    @rule(n=st.integers(0, 3), name=st.sampled_from(VARIANTS + BAD_VARIANTS))
    def variant(self, n: int, name: str) -> None:
        if n == 0:  # a variant switch builds an engine (tens of ms): one draw in four
            self.m.set_variant(name)

    @rule(n=st.integers(0, 15))
    def quit(self, n: int) -> None:
        if n == 0:  # a new engine costs a parameter file read and a warm-up: one draw in sixteen
            self.m.quit()

    def teardown(self) -> None:
        self.m.settle()


TestInProcess = UsiMachine.TestCase
TestInProcess.settings = settings(max_examples=400, stateful_step_count=6, deadline=None, derandomize=True,
                                  suppress_health_check=list(HealthCheck))


class SubprocessMachine(UsiMachine):
    kind = "subprocess"


TestSubprocess = SubprocessMachine.TestCase
TestSubprocess.settings = settings(max_examples=25, stateful_step_count=10, deadline=None, derandomize=True,
                                   suppress_health_check=list(HealthCheck))


# ---- the reproducers ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def usi() -> Iterator[UsiProcess]:
    eng = start_engine()
    yield eng
    assert eng.close(timeout=DEADLINE) == 0


def _ready_during(eng: UsiProcess, go: str, then: str) -> str:
    """``go``, then ``isready`` while it searches: ``readyok`` must come at once, and ``then``
    must be heard (the deadlock: readyok never came and nothing after it was read)."""
    eng.send("setoption name UCI_Variant value shogi")
    eng.send("position startpos moves 7g7f")
    eng.send(go)
    time.sleep(0.3)  # well into the search
    eng.send("isready")
    lines = eng.until("readyok", READ_DEADLINE)
    assert not any(x.startswith("bestmove") for x in lines)  # it was still thinking
    eng.send(then)
    answer = eng.until("bestmove", DEADLINE)[-1]
    assert is_legal_answer(position_after("shogi", None, ["7g7f"]), answer.split()[1])
    return answer


def test_isready_during_go_infinite_answers_and_stop_is_heard(usi: UsiProcess) -> None:
    _ready_during(usi, "go infinite", "stop")


def test_isready_during_go_ponder_answers_and_ponderhit_is_heard(usi: UsiProcess) -> None:
    _ready_during(usi, "go ponder btime 0 wtime 0 byoyomi 200", "ponderhit")


def test_quit_during_a_search_ends_the_process_at_once() -> None:
    gos = ("go infinite", "go ponder btime 0 wtime 0 byoyomi 100", "go mate infinite")
    engines = [UsiProcess(CMD, name="komaken usi") for _ in gos]  # started together: one wait for all
    try:
        for eng in engines:
            eng.send("isready")
        for eng, go in zip(engines, gos, strict=True):
            eng.until("readyok", STARTUP)
            eng.send("position sfen 4k4/9/9/9/9/9/9/9/4K4 b RBGSNLP 1")  # no quick mate proof either
            eng.send(go)
            eng.send("isready")
            eng.until("readyok", READ_DEADLINE)
            eng.send("quit")
            assert eng.proc.wait(timeout=DEADLINE) == 0
    finally:
        for eng in engines:
            eng.kill()


def test_a_variant_that_fails_refuses_go_until_one_loads(usi: UsiProcess) -> None:
    for bad in (broken_file(), "nosuch", "/nonexistent/v.toml", ""):
        usi.send(f"setoption name UCI_Variant value {bad}".rstrip())
        assert "no variant is set" in usi.until("info string error", DEADLINE)[-1]
        usi.send("position startpos")
        assert "position: refused" in usi.until("info string error", DEADLINE)[-1]
        usi.send("go btime 0 wtime 0 byoyomi 100")
        assert usi.until("info string error", DEADLINE)[-1].startswith("info string error: go: refused")
        usi.send("isready")
        lines = usi.until("readyok", DEADLINE)
        assert not any(x.startswith("bestmove") for x in lines)  # no move for a board nobody set up
        usi.send("setoption name UCI_Variant value minishogi")
        usi.send("position startpos")
        usi.send("go depth 2")
        answer = usi.until("bestmove", DEADLINE)
        assert not any(x.startswith("info string error") for x in answer)
        assert is_legal_answer(position_after("minishogi", None, []), answer[-1].split()[1])


def test_ponder_searches_the_given_position_and_names_a_ponder_move(usi: UsiProcess) -> None:
    usi.send("setoption name UCI_Variant value shogi")
    usi.send("setoption name USI_Ponder value true")
    try:
        # the GUI has played our move 7g7f and the reply we predicted, 3c3d, and ponders on that
        usi.send("position startpos moves 7g7f 3c3d")
        usi.send("go ponder btime 0 wtime 0 byoyomi 100")
        time.sleep(0.2)
        usi.send("ponderhit")
        lines = usi.until("bestmove", DEADLINE)
        words = lines[-1].split()
        pos = position_after("shogi", None, ["7g7f", "3c3d"])
        pvs = [x.split(" pv ")[1].split() for x in lines if " pv " in x]
        assert pvs and all(is_legal_answer(pos, pv[0]) for pv in pvs)
        assert is_legal_answer(pos, words[1]) and words[2] == "ponder"
        pos.push_usi(words[1])
        assert words[3] in {m.usi() for m in pos.legal_moves()}
        usi.send("go ponder btime 0 wtime 0 byoyomi 100")
        usi.send("stop")  # the predicted move was not played: the ponder search still answers
        assert usi.until("bestmove", DEADLINE)[-1].startswith("bestmove ")
    finally:
        usi.send("setoption name USI_Ponder value false")


@pytest.mark.parametrize("last_depth, answers_now", [(5.0, True), (0.001, False)])
def test_ponderhit_answers_at_once_when_the_depth_under_way_cannot_end_in_the_budget(
        last_depth: float, answers_now: bool) -> None:
    halted: list[bool] = []
    s = Search(lambda: halted.append(True), wait=True, pending=parse_go("ponder btime 10000 wtime 10000".split()))
    now = time.perf_counter()
    s._took = [now - 2 * last_depth, now - last_depth]  # depth 1 took last_depth and ended then
    s.ponderhit()
    try:
        assert s.budget is not None and s.budget[0] < s.budget[1] < 5.0  # the real clock, from the ponderhit
        assert s.released.is_set() and s.pending is None
        assert s.halted.is_set() is answers_now and bool(halted) is answers_now
    finally:
        if s.timer is not None:
            s.timer.cancel()
        s._done.set()  # as if the search had returned: no stop repeater is left behind
