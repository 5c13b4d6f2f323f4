"""The opening files the strength matches use (examples/eval/*quiet6*.sfen) are what their headers
and docs/strength.md say: distinct quiet positions, each set disjoint from the sets drawn before it.

A match on a set that repeats positions, or repeats another set's, would count the same
positions twice while its interval assumes fresh ones.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

from komaken.shogi import Position

EVAL = Path(__file__).resolve().parent.parent / "examples" / "eval"
MINISHOGI_SETS = sorted(EVAL.glob("minishogi-quiet6*.sfen"))


def _positions(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def _is_quiet(pos: Position) -> bool:
    """Not in check, no capture available: what benchmarks/openings.py promises of its positions."""
    captures = [m for m in pos.legal_moves() if not m.drop and pos.piece_at(m.to_square) is not None]
    return not pos.is_check() and not captures


def test_the_minishogi_sets_are_found() -> None:
    assert len(MINISHOGI_SETS) >= 5, MINISHOGI_SETS


@pytest.mark.parametrize(
    ("path", "variant"),
    [(p, "minishogi") for p in MINISHOGI_SETS] + [(EVAL / "judkins-quiet6.sfen", "judkins")],
    ids=lambda x: getattr(x, "name", x),
)
def test_a_set_is_100_distinct_quiet_positions(path: Path, variant: str) -> None:
    sfens = _positions(path)
    assert len(sfens) == 100
    assert len(set(sfens)) == 100, f"{path.name} repeats a position"
    for sfen in sfens:
        pos = Position.from_sfen(sfen, variant)
        assert _is_quiet(pos), f"{path.name}: {sfen} is not quiet"


def test_the_minishogi_sets_share_no_position() -> None:
    sets = {p.name: set(_positions(p)) for p in MINISHOGI_SETS}
    for (a, sa), (b, sb) in combinations(sets.items(), 2):
        assert not sa & sb, f"{a} and {b} share {sorted(sa & sb)[:3]}"
