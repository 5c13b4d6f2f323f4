"""The stop path under a clock: the kernel's own deadline, the adaptive margin (``StopLag``) and the
garbage collector kept away from the clock.  Each check fails if its rule is taken out: the search
that must stop by itself has its alarm thread disarmed, the margin is read back from the budget."""

from __future__ import annotations

import gc
import importlib
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from komaken.clock import LAG_ALLOWANCE, LAG_CAP, StopLag
from komaken.shogi import Position
from komaken.shogi.engine import Limits
from komaken.shogi.engine._clock import NATIVE, monotonic_ns
from komaken.usi.server import UsiServer
from komaken.usi.thinking import Search

# the module, not the function komaken.shogi.engine exports under the same name
search_module = importlib.import_module("komaken.shogi.engine.search")


def test_the_kernel_reads_the_clock_python_reads() -> None:
    from numba import njit

    @njit
    def read() -> int:
        return monotonic_ns()

    before = time.monotonic_ns()
    now = read()
    after = time.monotonic_ns()
    if NATIVE:
        assert before <= now <= after
    else:  # pragma: no cover
        assert now == 0


@pytest.mark.skipif(not NATIVE, reason="the kernel reads the clock on Linux only")
@pytest.mark.parametrize("ahead", [-1, 10**12])
def test_the_kernel_stops_itself_at_its_deadline(ahead: int) -> None:
    # no stop flag, no node limit: only the deadline (past, or 1000 s ahead) can end this depth-30
    # search at its first poll; a backstop stops it after 3 s should the kernel not read its clock
    from komaken.shogi.engine import _search as S
    from komaken.shogi.engine._context import clear_control

    engine = search_module.Engine("minishogi", hash_mb=1)
    ctl = engine._ctx.ctl
    clear_control(ctl)
    ctl["deadline"][0] = time.monotonic_ns() + ahead
    backstop = threading.Timer(3.0 if ahead < 0 else 0.3, engine.stop)
    backstop.start()
    S.search_depth(Position.start("minishogi").kernel_state(S.MAX_PLY + 8), engine._ctx, 30, -S.INF, S.INF)
    backstop.cancel()
    assert ctl["abort"][0] == 1
    if ahead < 0:
        # stopped at the first poll (every 1024 nodes); the node on which the abort is seen may
        # count once more, whether it does depends on the tree the evaluation gives
        assert 1024 <= ctl["nodes"][0] < 2048
    else:
        assert ctl["nodes"][0] > 1024  # a deadline ahead lets it run (the backstop ended it)


def test_a_search_bound_by_time_gives_the_kernel_its_deadline() -> None:
    engine = search_module.Engine("minishogi", hash_mb=1)
    engine.search(Position.start("minishogi"), Limits(depth=1))  # compiled before the clock starts
    t = time.perf_counter()
    engine.search(Position.start("minishogi"), Limits(movetime=0.1))
    assert engine.deadline is not None and t < engine.deadline <= t + 0.1
    assert engine._ctx.ctl["deadline"][0] > 0
    engine.search(Position.start("minishogi"), Limits(depth=2))
    assert engine.deadline is None and engine._ctx.ctl["deadline"][0] == 0


def test_a_deadline_of_one_search_does_not_cut_the_next() -> None:
    engine = search_module.Engine("minishogi", hash_mb=1)
    engine.search(Position.start("minishogi"), Limits(movetime=0.05))
    engine.stop_at(time.perf_counter() - 1.0)  # a late ponderhit's deadline, after that search ended
    r = engine.search(Position.start("minishogi"), Limits(depth=5))
    assert r.depth == 5 and engine.deadline is None


def test_lag_within_the_allowance_costs_nothing() -> None:
    lag = StopLag()
    for late in (-0.05, 0.0, 0.003, LAG_ALLOWANCE):
        lag.observe(late)
    assert lag.margin == 0.0 and lag.count == 4 and lag.worst == LAG_ALLOWANCE


@given(st.lists(st.floats(-1.0, 5.0), min_size=1, max_size=60))
def test_lag_margin_covers_the_last_stall_and_is_capped(lates: list[float]) -> None:
    lag = StopLag()
    for late in lates:
        lag.observe(late)
    assert 0.0 <= lag.margin <= LAG_CAP
    assert lag.margin >= min(LAG_CAP, lates[-1] - LAG_ALLOWANCE) - 1e-12


def test_lag_margin_decays_once_moves_come_on_time() -> None:
    lag = StopLag()
    lag.observe(0.2)
    first = lag.margin
    for _ in range(100):
        lag.observe(0.0)
    assert first == pytest.approx(0.19) and lag.margin < 0.01


def test_a_late_answer_shortens_the_next_budget() -> None:
    lines: list[str] = []
    server = UsiServer("minishogi", out=lines.append)
    server.handle("isready")
    server.handle("go btime 0 wtime 0 byoyomi 1000")
    assert server._search is not None and server._search.join(10)
    calm = server.engine.deadline
    s0 = server._search
    assert calm is not None and s0.deadline == calm
    server.lag.observe(0.31)  # as if that answer had gone out 310 ms late
    margin = server.lag.margin
    t = time.perf_counter()
    server.handle("go btime 0 wtime 0 byoyomi 1000")
    assert server._search is not None and server._search.join(10)
    late = server.engine.deadline
    assert late is not None
    # 1 s byoyomi: the search stops at 0.91 s; with 0.3 s of margin earned, 0.3 s sooner
    assert late - t == pytest.approx(0.91 - 0.30, abs=0.05)
    assert sum(line.startswith("bestmove") for line in lines) == 2
    # and the GUI is told why this answer comes early, before the search starts
    said = [i for i, line in enumerate(lines) if line.startswith("info string stop margin")]
    first = next(i for i, line in enumerate(lines) if line.startswith("bestmove"))
    assert len(said) == 1 and said[0] > first and lines[said[0]].split()[4] == f"{margin * 1000:.0f}"
    # a search without a clock has no budget to shorten, and says nothing of it
    assert server.lag.margin > 0.2
    server.handle("go depth 2")
    assert server._search is not None and server._search.join(10)
    assert sum(line.startswith("info string stop margin") for line in lines) == 1


def test_ponderhit_sets_the_kernel_deadline() -> None:
    from komaken.usi.go import parse_go

    at: list[float] = []
    s = Search(lambda: None, wait=True, pending=parse_go("ponder btime 0 wtime 0 byoyomi 500".split()),
               overhead=0.03, stop_at=at.append)
    t = time.perf_counter()
    s.ponderhit()
    assert s.timer is not None
    s.timer.cancel()
    assert len(at) == 1 and at[0] == s.deadline
    assert at[0] - t == pytest.approx(0.5 - 0.03 - 0.05, abs=0.02)


def test_isready_collects_and_freezes_what_the_kernels_made() -> None:
    gc.unfreeze()
    server = UsiServer("minishogi", out=lambda line: None)
    server.handle("isready")
    assert gc.get_freeze_count() > 1000  # numba's objects, exempt from later collections
    t = time.perf_counter()
    gc.collect()
    assert time.perf_counter() - t < 0.05 or threading.active_count() > 50  # the full collection is cheap now
    gc.unfreeze()


def test_an_engine_player_loads_its_kernels_before_its_first_clock_starts() -> None:
    """In a fresh process the first search loads the compiled kernels (seconds on a busy
    machine, which once lost a web game at 0.5 s byoyomi): making the player does it, so the
    search kernel is ready before any move is timed."""
    import subprocess
    import sys

    code = ("from komaken.shogi.engine import _search as S\n"
            "from komaken.players.engine import EnginePlayer\n"
            "assert not S.search_depth.signatures\n"
            "EnginePlayer('minishogi', movetime=0.5)\n"
            "print(len(S.search_depth.signatures))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and int(r.stdout) >= 1, r.stderr
