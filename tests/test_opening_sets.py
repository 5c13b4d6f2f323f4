"""The opening files the strength matches use (examples/eval/*quiet6*.sfen) are what their headers
and docs/strength.md say: distinct quiet positions, each set disjoint from the sets drawn before it.

A match on a set that repeats positions, or repeats another set's, would count the same
positions twice while its interval assumes fresh ones.
"""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

import pytest

from komaken.shogi import Position

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
# what drew the sets: one position is one key (move number aside), quiet is where a line may end
from openings import read_keys, read_sfens  # noqa: E402
from strength import is_quiet  # noqa: E402

EVAL = ROOT / "examples" / "eval"
MINISHOGI_SETS = sorted(EVAL.glob("minishogi-quiet6*.sfen"))


def test_the_minishogi_sets_are_found() -> None:
    assert len(MINISHOGI_SETS) >= 5, MINISHOGI_SETS


@pytest.mark.parametrize(
    ("path", "variant"),
    [(p, "minishogi") for p in MINISHOGI_SETS] + [(EVAL / "judkins-quiet6.sfen", "judkins")],
    ids=lambda x: getattr(x, "name", x),
)
def test_a_set_is_100_distinct_quiet_positions(path: Path, variant: str) -> None:
    sfens = read_sfens(path)
    assert len(sfens) == 100
    assert len(read_keys(path)) == 100, f"{path.name} repeats a position"
    for sfen in sfens:
        assert is_quiet(Position.from_sfen(sfen, variant)), f"{path.name}: {sfen} is not quiet"


def test_the_minishogi_sets_share_no_position() -> None:
    sets = {p.name: read_keys(p) for p in MINISHOGI_SETS}
    for (a, sa), (b, sb) in combinations(sets.items(), 2):
        assert not sa & sb, f"{a} and {b} share {sorted(sa & sb)[:3]}"
