"""Statistics of the lab against values computed by hand or by an independent method."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize

from komaken.lab.stats import (
    SPRT,
    elo_from_score,
    gsprt_llr,
    p_value_half,
    pairing_stats,
    score_from_elo,
    sprt_state,
    wilson_interval,
)


def test_wilson_60_of_100() -> None:
    lo, hi = wilson_interval(60, 100)
    # (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n) with z = 1.959964
    assert lo == pytest.approx(0.502003, abs=1e-6)
    assert hi == pytest.approx(0.690599, abs=1e-6)


def test_thesis_band_at_100_games() -> None:
    # The thesis says 40-60 % is the 95 % band for 100 games at 50 %; Wilson agrees.
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)


@given(st.integers(1, 400), st.data())
def test_wilson_interval_contains_the_estimate(n: int, data: st.DataObject) -> None:
    # 10 of 10 once gave an upper bound of 0.9999999999999999 < 1.0: a negative error bar
    k = data.draw(st.sampled_from([0, n, data.draw(st.integers(0, 2 * n)) / 2]))
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_wilson_at_the_ends_is_exact() -> None:
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(0, 3)[0] == 0.0


def test_elo_of_three_quarters() -> None:
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.005)
    assert elo_from_score(0.5) == 0
    assert elo_from_score(1.0) is None and elo_from_score(0.0) is None
    assert score_from_elo(190.848) == pytest.approx(0.75, abs=1e-5)


def test_p_value_of_60_of_100() -> None:
    # z = (0.6 - 0.5) / sqrt(0.25 / 100) = 2  →  p = 2·(1 - Φ(2)) = 0.0455003
    assert p_value_half(60, 100) == pytest.approx(0.0455003, abs=1e-6)
    assert p_value_half(50, 100) == 1.0


@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300))
def test_p_value_agrees_with_interval(w: int, l: int, d: int) -> None:
    n = w + l + d
    if n == 0:
        return
    lo, hi = wilson_interval(w + d / 2, n)
    p = p_value_half(w + d / 2, n)
    if abs(p - 0.05) > 1e-9:
        assert (p < 0.05) == (not lo <= 0.5 <= hi)


def test_gsprt_llr_known_value() -> None:
    # W=100, L=80, D=20: x = 0.55, per-game variance (100·0.45² + 20·0.05² + 80·0.55²)/200 = 0.2225;
    # s0 = 0.5, s1 = score(10 Elo).
    s1 = 1 / (1 + 10 ** (-10 / 400))
    expected = 200 * (s1 - 0.5) * (2 * 0.55 - 0.5 - s1) / (2 * 0.2225)
    assert gsprt_llr(100, 80, 20, 0, 10) == pytest.approx(expected, rel=1e-12)
    assert gsprt_llr(100, 80, 20, 0, 10) == pytest.approx(0.55359, abs=1e-4)


def _exact_trinomial_llr(w: int, l: int, d: int, elo0: float, elo1: float) -> float:
    """The GLR with the trinomial distribution fitted (max. likelihood) at each hypothesis's mean."""
    n = w + l + d
    counts, scores = [w, d, l], [1.0, 0.5, 0.0]
    phat = [c / n for c in counts]

    def loglik(s: float) -> float:
        # MLE under a mean constraint: p_i = phat_i / (1 + lam (a_i - s))
        f = lambda lam: sum(p * (a - s) / (1 + lam * (a - s)) for p, a in zip(phat, scores, strict=True))  # noqa: E731
        lo = -1 / max(a - s for a in scores) + 1e-12
        hi = -1 / min(a - s for a in scores) - 1e-12
        lam = optimize.brentq(f, lo, hi)
        return sum(c * math.log(p / (1 + lam * (a - s))) for c, p, a in zip(counts, phat, scores, strict=True))

    return loglik(score_from_elo(elo1)) - loglik(score_from_elo(elo0))


@pytest.mark.parametrize("w,l,d", [(100, 80, 20), (520, 480, 200), (1200, 1150, 650)])
def test_gsprt_matches_exact_trinomial_glr(w: int, l: int, d: int) -> None:
    approx = gsprt_llr(w, l, d, 0, 10)
    exact = _exact_trinomial_llr(w, l, d, 0, 10)
    assert approx == pytest.approx(exact, rel=0.02, abs=0.01)


def test_sprt_decisions() -> None:
    test = SPRT(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    assert test.upper == pytest.approx(math.log(19)) and test.lower == pytest.approx(-math.log(19))
    assert sprt_state(100, 80, 20, test)["state"] == "continue"
    assert sprt_state(3000, 2000, 500, test)["state"] == "H1"
    assert sprt_state(2000, 3000, 500, test)["state"] == "H0"


def test_pairing_stats_counts_and_first_move() -> None:
    results = [("a", "a")] * 30 + [("b", "b")] * 20 + [("draw", "a")] * 10 + [("a", "b")] * 40
    s = pairing_stats("p", "x", "y", results)
    assert (s.games, s.a_wins, s.b_wins, s.draws) == (100, 70, 20, 10)
    assert s.a_score == pytest.approx(0.75)
    assert s.elo == pytest.approx(190.85, abs=0.005)
    assert s.elo_ci95[0] == pytest.approx(elo_from_score(s.a_score_ci95[0]))
    # sente: 30 wins (a as sente) + 20 wins (b as sente) + 10 draws → 55 / 100
    assert s.sente_score == pytest.approx(0.55)
    assert s.a_sente_games == 40
    doc = s.to_json()
    assert doc["a_score_ci95"] == [round(x, 6) for x in s.a_score_ci95]
