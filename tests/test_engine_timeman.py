"""Time management: ``clock_budget`` / ``Limits.budget`` as pure functions (no clocks are read)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from komaken.shogi.engine import Limits
from komaken.shogi.engine.timeman import MIN_SECONDS, clock_budget

times = st.floats(0.0, 3600.0, allow_nan=False)


@given(times, st.floats(0.0, 30.0), st.floats(0.0, 60.0), st.floats(0.0, 0.5))
def test_never_more_than_a_tenth_plus_byoyomi_nor_past_the_clock(rem: float, inc: float, byo: float,
                                                                 overhead: float) -> None:
    soft, hard = clock_budget(rem, inc, byo, overhead)
    assert MIN_SECONDS <= soft <= hard
    assert hard <= max(MIN_SECONDS, rem / 10 + inc + byo)
    assert hard <= max(MIN_SECONDS, rem + byo - overhead)  # the increment comes only after the move


@given(times, times, st.floats(0.0, 30.0), st.floats(0.0, 60.0))
def test_more_time_on_the_clock_never_means_less_thinking(a: float, b: float, inc: float, byo: float) -> None:
    lo, hi = sorted((a, b))
    assert clock_budget(lo, inc, byo)[1] <= clock_budget(hi, inc, byo)[1] + 1e-12


@pytest.mark.parametrize("byo", [0.2, 1.0, 3.0, 10.0, 30.0])
def test_byoyomi_alone_is_used_in_full_less_overhead_and_margin(byo: float) -> None:
    soft, hard = clock_budget(0.0, 0.0, byo, 0.03)
    assert hard == soft == pytest.approx(byo - 0.03 - min(0.02 * byo, 0.1))
    assert byo - hard >= 0.03 + 0.004  # 1 s: answered by 0.95 s, not the 0.977 s measured before


def test_sudden_death_3s_over_40_plies_spends_the_clock() -> None:
    # Each side plays 20 moves on 3 s.  Whatever the search does between soft and hard, the clock
    # must last, and most of it must be used (the old rule left 1.7 s of 3 unused).
    for spend in ("soft", "mid", "hard"):
        clock = 3.0
        for _ in range(20):
            soft, hard = clock_budget(clock, 0.0, 0.0, 0.03)
            used = {"soft": soft, "mid": (soft + hard) / 2, "hard": hard}[spend] + 0.03
            clock -= used
            assert clock > 0
        if spend != "soft":
            assert clock < 1.5
    soft, hard = clock_budget(1.0, 0.0, 0.0, 0.03)
    assert hard > 0.08 and soft > 0.02  # 1 s left: still real thinking, not depth-1 moves


def test_main_time_with_byoyomi_is_spread() -> None:
    soft, hard = clock_budget(600.0, 0.0, 10.0, 0.03)
    assert 10.0 < soft < 20.0 and hard < 50.0  # was: up to 60 s (58 s measured on move 12)
    soft, hard = clock_budget(5.0, 0.0, 10.0, 0.03)
    assert hard == pytest.approx(4.97 / 10 + 9.9)  # a tenth of the main time left, plus the byoyomi (less margin)


def test_increment_is_spent_but_never_borrowed() -> None:
    soft, hard = clock_budget(10.0, 2.0, 0.0, 0.03)
    assert hard > 2.0  # the increment is used each move
    assert clock_budget(0.01, 2.0, 0.0, 0.03)[1] == MIN_SECONDS  # 10 ms on the clock: move now


def test_limits_budget_reads_the_side_to_move() -> None:
    limits = Limits(btime=60.0, wtime=2.0, byoyomi=1.0)
    assert limits.budget(0, 0.03) == clock_budget(60.0, 0.0, 1.0, 0.03)
    assert limits.budget(1, 0.03) == clock_budget(2.0, 0.0, 1.0, 0.03)
    assert Limits(depth=3).budget(0) is None and Limits(byoyomi=1.0, infinite=True).budget(0) is None
    assert Limits(movetime=1.0).budget(0) == pytest.approx((0.679, 0.97))
