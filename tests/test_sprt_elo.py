"""The bias-corrected Elo of a stopped SPRT (komaken.lab.sprt_elo).

The main test plays many SPRTs with the runner's own stopping rule (komaken.lab.stats.sprt_state,
game by game) from a known Elo, and checks that the corrected estimate lands above the truth half
the time, where the plain Elo of the stopped runs does not."""

from __future__ import annotations

import random

import pytest

from komaken.lab.pentanomial import closest_distribution
from komaken.lab.sprt_elo import GAME_SCORES, SPRTEloError, sprt_elo
from komaken.lab.stats import SPRT, score_from_elo, sprt_state


def _stopped_run(rng: random.Random, test: SPRT, dist: list[float], cap: int) -> list[int]:
    """One SPRT played game by game with the runner's rule: ``[losses, draws, wins]`` when it stopped."""
    counts = [0, 0, 0]
    while sum(counts) < cap:
        counts[rng.choices(range(3), dist)[0]] += 1
        if sprt_state(counts[2], counts[0], counts[1], test)["state"] != "continue":
            break
    return counts


def test_corrected_elo_is_median_unbiased_where_the_plain_elo_is_not() -> None:
    true_elo, test, cap, reps = -15.0, SPRT(0.0, 40.0), 600, 80
    dist = closest_distribution([0.45, 0.1, 0.45], score_from_elo(true_elo), GAME_SCORES)
    rng = random.Random(7)
    corrected_above = plain_above = covered = 0
    for r in range(reps):
        counts = _stopped_run(rng, test, dist, cap)
        e = sprt_elo(test, counts, cap, runs=200, seed=1000 * r)
        corrected_above += e.elo > true_elo
        plain_above += e.mle > true_elo
        covered += e.lo <= true_elo <= e.hi
    # the set-up must show the bias it corrects: runs that stop early at H0 understate the Elo
    assert plain_above / reps < 0.4
    assert 0.4 <= corrected_above / reps <= 0.6
    assert covered / reps >= 0.88


def test_corrected_elo_moves_toward_the_middle_of_the_test() -> None:
    # accepted H1 early: the plain Elo overstates; accepted H0 early: it understates
    high = sprt_elo(SPRT(0, 10, model="pentanomial"), [10, 100, 300, 150, 20], cap=10000, runs=400)
    low = sprt_elo(SPRT(0, 10, model="pentanomial"), [20, 150, 300, 100, 10], cap=10000, runs=400)
    assert high.elo < high.mle and high.lo < high.elo < high.hi
    assert low.elo > low.mle and low.lo < low.elo < low.hi


def test_same_seed_same_answer() -> None:
    a = sprt_elo(SPRT(0, 40), [40, 20, 60], cap=400, runs=300, seed=5)
    b = sprt_elo(SPRT(0, 40), [40, 20, 60], cap=400, runs=300, seed=5)
    assert a == b


@pytest.mark.parametrize(("test", "counts", "cap", "needle"), [
    (SPRT(0, 10, model="pentanomial"), [1, 2, 3], 100, "needs 5 non-negative counts"),
    (SPRT(0, 10), [1, -2, 3], 100, "needs 3 non-negative counts"),
    (SPRT(0, 10), [0, 0, 0], 100, "no games counted"),
    (SPRT(0, 10), [10, 10, 10], 20, "the cap (20) is below the 30 counted"),
])
def test_bad_counts_are_named(test: SPRT, counts: list[int], cap: int, needle: str) -> None:
    with pytest.raises(SPRTEloError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        sprt_elo(test, counts, cap)
    assert issubclass(SPRTEloError, ValueError)


def test_more_wins_in_the_same_games_never_lower_the_corrected_elo() -> None:
    # the MLE ordering: with the test and the sample size fixed, a better score is a better estimate
    test = SPRT(0, 40)
    estimates = [sprt_elo(test, [100 - w, 0, w], cap=300, runs=200).elo for w in (40, 50, 60, 70)]
    assert estimates == sorted(estimates) and estimates[0] < 0 < estimates[-1]


def test_normalized_units_are_corrected_in_their_own_test() -> None:
    e = sprt_elo(SPRT(0, 20, model="pentanomial", units="normalized"), [10, 100, 300, 150, 20], cap=1000, runs=200)
    assert e.lo < e.elo < e.hi and e.elo < e.mle
