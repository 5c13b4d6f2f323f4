"""Statistics of the lab against values computed by hand or by an independent method.

scipy and statsmodels are imported in the tests that use them: they take seconds to import, and
every xdist worker imports each test module to collect it."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from komaken.lab.stats import (
    MIN_DECISIVE,
    SPRT,
    elo_from_score,
    gsprt_llr,
    p_value_even,
    pairing_stats,
    score_from_elo,
    sprt_state,
    verdict,
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


@settings(deadline=None)  # the first example imports statsmodels
@given(st.integers(1, 10**6), st.data(), st.sampled_from([0.8, 0.95, 0.99]))
def test_wilson_interval_is_statsmodels_wilson(n: int, data: st.DataObject, confidence: float) -> None:
    from statsmodels.stats.proportion import proportion_confint

    k = data.draw(st.integers(0, 2 * n)) / 2
    lo, hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert wilson_interval(k, n, confidence) == pytest.approx((lo, hi), rel=1e-12, abs=1e-15)


@settings(deadline=None)  # the first example imports scipy.stats
@given(st.integers(0, 5000), st.integers(0, 5000))
def test_p_value_is_scipys_binomial_test(w: int, l: int) -> None:
    from scipy.stats import binomtest

    expected = binomtest(w, w + l, 0.5).pvalue if w + l else 1.0
    if expected == 0.0:  # scipy underflows below about 1e-300 (10 of 1 075: 2.7e-300); the exact tail, in integers
        expected = float(Fraction(2 * sum(math.comb(w + l, k) for k in range(min(w, l) + 1)), 2 ** (w + l)))
    assert p_value_even(w, l) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_wilson_at_the_ends_is_exact() -> None:
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(0, 3)[0] == 0.0


def test_elo_of_three_quarters() -> None:
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.005)
    assert elo_from_score(0.5) == 0
    assert elo_from_score(1.0) is None and elo_from_score(0.0) is None
    assert score_from_elo(190.848) == pytest.approx(0.75, abs=1e-5)


def test_p_value_is_exact_where_a_normal_approximation_overclaims() -> None:
    # 0 wins in 4 games: both 4-0 outcomes have probability 1/16 under a fair coin → p = 2/16.
    # The normal approximation said 0.0455 and the report called such a setting significant.
    assert p_value_even(0, 4) == 0.125
    # 60-40: 2·P(X ≥ 60), X ~ Bin(100, ½) = 0.056888 (the z-test without draws said 0.0455)
    assert p_value_even(60, 40) == pytest.approx(0.0568879, abs=1e-6)
    assert p_value_even(50, 50) == 1.0 and p_value_even(0, 0) == 1.0


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 300))
def test_p_value_is_the_sign_test_by_hand(w: int, l: int, d: int) -> None:
    n = w + l
    by_hand = min(1.0, 2 * sum(math.comb(n, k) for k in range(min(w, l) + 1)) / 2**n)
    stats = pairing_stats("p", "a", "b", [("a", "a")] * w + [("b", "a")] * l + [("draw", "a")] * d)
    assert stats.p_value == pytest.approx(by_hand, rel=1e-9, abs=1e-15)
    assert p_value_even(l, w) == pytest.approx(by_hand, rel=1e-9, abs=1e-15)  # draws and sides do not enter


def test_verdicts_need_enough_decisive_games() -> None:
    assert MIN_DECISIVE == 6 and p_value_even(0, MIN_DECISIVE - 1) > 0.05 > p_value_even(0, MIN_DECISIVE)
    assert verdict(0, 4, p_value_even(0, 4)) == "too few" and verdict(0, 5, 0.0625) == "too few"
    assert verdict(0, 6, p_value_even(0, 6)) == "below" and verdict(9, 1, p_value_even(9, 1)) == "above"
    assert verdict(3, 3, 1.0) == "even"


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
        from scipy import optimize

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


# ---- pentanomial GSPRT ------------------------------------------------------------------------
from komaken.lab.pentanomial import pentanomial_counts, pentanomial_llr, score_bounds  # noqa: E402


def _slsqp_penta_llr(counts: list[int], s0: float, s1: float) -> float:
    """Reference by a different route: maximise the multinomial likelihood of the (regularised)
    counts over all five-point distributions with mean s, numerically (SLSQP), at s0 and s1."""
    xs = [0.0, 0.25, 0.5, 0.75, 1.0]
    filled = [c if c > 0 else 1e-3 for c in counts]
    total = sum(filled)
    phat = [c / total for c in filled]

    def best(s: float) -> float:
        cons = [{"type": "eq", "fun": lambda p: sum(p) - 1},
                {"type": "eq", "fun": lambda p: sum(pi * x for pi, x in zip(p, xs, strict=True)) - s}]
        from scipy import optimize
        res = optimize.minimize(lambda p: -sum(q * math.log(max(pi, 1e-300)) for q, pi in zip(phat, p, strict=True)),
                                phat, method="SLSQP", bounds=[(1e-12, 1)] * 5, constraints=cons,
                                options={"ftol": 1e-15, "maxiter": 500})
        return -float(res.fun)

    return sum(counts) * (best(s1) - best(s0))


@pytest.mark.parametrize("counts", [[10, 40, 80, 50, 20], [3, 20, 55, 18, 4], [0, 12, 30, 25, 9], [1, 5, 9, 4, 0]])
def test_pentanomial_llr_matches_numerical_mle(counts: list[int]) -> None:
    s0, s1 = score_from_elo(0), score_from_elo(10)
    assert pentanomial_llr(counts, 0, 10) == pytest.approx(_slsqp_penta_llr(counts, s0, s1), rel=1e-4, abs=1e-5)


def test_pentanomial_llr_by_hand_normal_approximation() -> None:
    # Near the hypotheses the GLR is ≈ N (s1-s0)(2μ - s0 - s1) / (2σ²) with the pair mean μ and
    # the variance σ² of a pair's per-game score: counts [100, 400, 900, 450, 150], N = 2000:
    # μ = (400·.25 + 900·.5 + 450·.75 + 150)/2000 = 0.51875,
    # σ² = (100·.51875² + 400·.26875² + 900·.01875² + 450·.23125² + 150·.48125²)/2000 = 0.0574609375.
    counts = [100, 400, 900, 450, 150]
    mu, var = 0.51875, 0.0574609375
    s0, s1 = 0.5, score_from_elo(5)
    approx = 2000 * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert approx == pytest.approx(3.7947, abs=1e-3)
    assert pentanomial_llr(counts, 0, 5) == pytest.approx(approx, rel=0.01)


def test_pentanomial_counts_pair_games_by_index() -> None:
    # pair 0: a wins both (2 points); pair 1: split (1 point); pair 2: draw + loss (½); game 6 alone
    games = [(0, "a"), (1, "a"), (2, "a"), (3, "b"), (4, "draw"), (5, "b"), (6, "a")]
    assert pentanomial_counts(games) == [0, 1, 1, 0, 1]
    assert pentanomial_counts(reversed(games)) == [0, 1, 1, 0, 1]


def test_pentanomial_normalized_units() -> None:
    counts = [10, 40, 80, 50, 20]
    n = sum(counts)
    xs = [0, 0.25, 0.5, 0.75, 1]
    mu = sum(c * x for c, x in zip(counts, xs, strict=True)) / n
    sigma = math.sqrt(sum(c * (x - mu) ** 2 for c, x in zip(counts, xs, strict=True)) / n)
    s0, s1 = score_bounds(counts, 0, 5, "normalized")
    assert s0 == 0.5 and s1 == pytest.approx(0.5 + 5 * math.sqrt(2) * sigma * math.log(10) / 800)
    assert pentanomial_llr(counts, 0, 5, "normalized") == pytest.approx(_slsqp_penta_llr(counts, s0, s1), rel=1e-4)


def test_pentanomial_bad_counts() -> None:
    with pytest.raises(ValueError, match="five non-negative"):
        pentanomial_llr([1, 2, 3], 0, 5)
    assert pentanomial_llr([0] * 5, 0, 5) == 0.0


# no deadline: the first example loads the GSPRT's compiled kernel, hundreds of ms on a busy machine
@settings(deadline=None)
@given(st.floats(0.46, 0.56), st.floats(0.0, 0.6), st.integers(0, 2**32 - 1))
def test_pentanomial_and_trinomial_agree_on_iid_pairs(true_score: float, p_draw: float, seed: int) -> None:
    """With independent games (no pair correlation) both models see the same information:
    where an SPRT [0, 10] operates (true scores around its hypotheses) the LLRs agree in sign
    and are of the same size once the evidence is clear."""
    import random

    rng = random.Random(seed)
    p_win = true_score - p_draw / 2
    if p_win < 0:
        p_draw, p_win = 2 * true_score, 0.0
    games = []
    for i in range(2000):
        u = rng.random()
        games.append((i, "a" if u < p_win else "draw" if u < p_win + p_draw else "b"))
    w = sum(1 for _, r in games if r == "a")
    d = sum(1 for _, r in games if r == "draw")
    l_ = len(games) - w - d
    tri = gsprt_llr(w, l_, d, 0, 10)
    penta = pentanomial_llr(pentanomial_counts(games), 0, 10)
    if abs(tri) > 3:
        assert math.copysign(1, tri) == math.copysign(1, penta)
        assert 0.5 < penta / tri < 2.0
    else:
        assert abs(penta - tri) < 3


def test_sprt_state_pentanomial_reports_model_and_pairs() -> None:
    test = SPRT(elo0=0, elo1=10, model="pentanomial")
    state = sprt_state(0, 0, 0, test, [10, 40, 80, 50, 20])
    assert state["model"] == "pentanomial" and state["pentanomial"] == [10, 40, 80, 50, 20] and state["pairs"] == 200
    assert state["llr"] == pytest.approx(pentanomial_llr([10, 40, 80, 50, 20], 0, 10), abs=1e-4)
    stats = pairing_stats("p", "x", "y", [("a", "a"), ("a", "b"), ("b", "a"), ("draw", "b")], test, [0, 1, 2, 3])
    assert stats.sprt is not None and stats.sprt["pentanomial"] == [0, 1, 0, 0, 1]  # pair 1: loss + draw


def test_live_pair_counts_match_the_stored_ones() -> None:
    import random

    from komaken.lab.runner import PairingCounts

    rng = random.Random(5)
    games = [(i, rng.choice(["a", "b", "draw"])) for i in range(301)]
    rng.shuffle(games)  # games finish in any order
    live = PairingCounts("p", "x", "y", 301)
    for index, result in games:
        live.add(result, index)
    assert live.penta == pentanomial_counts(games) and sum(live.penta) == 150
