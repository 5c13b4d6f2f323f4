"""Perft from the start positions: the published counts are the rules' spine test."""

from __future__ import annotations

import pytest

from conftest import needs_module
from komaken.shogi import Position, load_variant

CASES = [
    ("minishogi", [14, 181, 2512, 35401, 533203, 8276188]),
    ("shogi", [30, 900, 25470, 719731, 19861490]),
    ("judkins", [20, 336, 6183, 118345, 2389896]),
]


@pytest.mark.parametrize(("variant", "counts"), CASES, ids=[c[0] for c in CASES])
def test_perft_from_start(variant: str, counts: list[int]) -> None:
    pos = Position.start(variant)
    for depth, expected in enumerate(counts, start=1):
        assert pos.perft(depth) == expected, f"{variant} perft({depth})"
    assert pos == Position.start(variant) and pos.ply == 0


def test_perft_depth_zero_is_one() -> None:
    assert Position.start("shogi").perft(0) == 1


def test_divide_sums_to_perft() -> None:
    pos = Position.start("judkins")
    split = pos.divide(3)
    assert len(split) == 20 and sum(split.values()) == 6183


def test_custom_variant_perft_agrees_with_python_tree_walk() -> None:
    """The kernel perft (bulk counting) agrees with walking the tree through the Python API."""
    pos = Position.start(load_variant("shogi7x7"))

    def walk(depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for m in pos.legal_moves():
            pos.push(m)
            total += walk(depth - 1)
            pos.pop()
        return total

    assert walk(3) == pos.perft(3)


def test_midgame_perft_matches_cshogi() -> None:
    """A busy middle game (drops, promotions, pins) three plies deep against cshogi."""
    cshogi = needs_module("cshogi")
    sfen = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
    board = cshogi.Board(sfen)
    total = 0
    for m1 in list(board.legal_moves):
        board.push(m1)
        for m2 in list(board.legal_moves):
            board.push(m2)
            total += len(board.legal_moves)
            board.pop()
        board.pop()
    assert Position.from_sfen(sfen).perft(3) == total
