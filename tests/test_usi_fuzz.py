"""Junk mixed with valid commands (seeded): the engine never dies, every ``go`` is answered, and
every ``go`` on a legal position gets a legal move (komaken's rules; cshogi's too on 9×9).
``benchmarks/usi_fuzz.py`` runs the same sessions by the hundred."""

from __future__ import annotations

import pytest

from usi_fuzzing import session


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_junk_sessions_never_kill_the_engine(seed: int) -> None:
    rep = session(seed, lines=150)
    assert rep.checked >= 5 and rep.gos > rep.checked
    assert (rep.deaths, rep.unanswered, rep.illegal) == (0, 0, 0), rep.problems
