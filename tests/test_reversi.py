"""Reversi: bitboard move generation, perft, notation, bad input and the search."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from komaken.errors import IllegalMoveError, InvalidPositionError
from komaken.game import Color, Game, Termination
from komaken.reversi import PASS, Reversi, ReversiMove, search, solve
from komaken.reversi import _search as ks
from komaken.search.generic import best_move as generic_best_move
from komaken.search.generic import negamax as generic_negamax

PERFT = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216]
DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]


def reference_flips(own: int, opp: int, square: int) -> int:
    """Square-by-square ray walking, the slow obvious way (seed 004's board loops)."""
    if (own | opp) >> square & 1:
        return 0
    f0, r0 = square % 8, square // 8
    total = 0
    for df, dr in DIRECTIONS:
        f, r, run = f0 + df, r0 + dr, 0
        while 0 <= f < 8 and 0 <= r < 8 and opp >> (r * 8 + f) & 1:
            run |= 1 << (r * 8 + f)
            f, r = f + df, r + dr
        if run and 0 <= f < 8 and 0 <= r < 8 and own >> (r * 8 + f) & 1:
            total |= run
    return total


def playout(seed: int, stop_at_empties: int = 0) -> Reversi:
    rng = random.Random(seed)
    p = Reversi.start()
    while p.empties > stop_at_empties and (moves := p.legal_moves()):
        p.push(rng.choice(moves))
    return p


def test_is_a_game() -> None:
    assert isinstance(Reversi.start(), Game)


@pytest.mark.parametrize("depth", range(len(PERFT)))
def test_perft_from_start(depth: int) -> None:
    assert Reversi.start().perft(depth) == PERFT[depth]


def test_start_moves_and_first_move() -> None:
    p = Reversi.start()
    assert [str(m) for m in p.legal_moves()] == ["d3", "c4", "f5", "e6"]
    p.push_text("f5")
    assert p.turn is Color.WHITE
    assert (p.discs(Color.BLACK), p.discs(Color.WHITE)) == (4, 1)
    assert p.piece_at(ReversiMove.parse("e5").square) is Color.BLACK


@given(st.integers(0, 10_000), st.integers(0, 60))
@settings(max_examples=60, deadline=None)
def test_bit_parallel_generator_matches_ray_walking(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    p = Reversi.start()
    for _ in range(plies):
        moves = p.legal_moves()
        if not moves:
            break
        p.push(rng.choice(moves))
    own, opp = p._own_opp()
    expected = [sq for sq in range(64) if reference_flips(own, opp, sq)]
    assert [m.square for m in p.legal_moves() if not m.is_pass] == expected
    for sq in expected:
        assert p.flips(ReversiMove(sq)) == reference_flips(own, opp, sq)


@given(st.integers(0, 10_000), st.integers(0, 70))
@settings(max_examples=60, deadline=None)
def test_push_pop_restores_position_and_key(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    p = Reversi.start()
    history = []
    for _ in range(plies):
        moves = p.legal_moves()
        if not moves:
            break
        history.append((p.copy(), p.key))
        p.push(rng.choice(moves))
    while history:
        before, key = history.pop()
        p.pop()
        assert p == before and p.key == key


@given(st.integers(0, 10_000), st.integers(0, 70))
@settings(max_examples=60, deadline=None)
def test_text_round_trip(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    p = Reversi.start()
    for _ in range(plies):
        moves = p.legal_moves()
        if not moves:
            break
        p.push(rng.choice(moves))
    q = Reversi.from_text(p.to_text())
    assert q == p and q.key == p.key
    kanji = p.to_text().translate(str.maketrans("XO-", "黒白口"))
    assert Reversi.from_text(kanji) == p


def test_transcript_round_trip_and_auto_pass() -> None:
    p = Reversi.from_transcript("f5d6c3d3c4")
    assert p.transcript() == "f5d6c3d3c4"
    assert p.turn is Color.WHITE
    for seed in range(20):
        game = playout(seed)
        replay = Reversi.from_transcript(game.transcript())
        assert replay == game
        assert replay.move_stack == game.move_stack  # the passes come back too


def test_pass_and_game_over() -> None:
    # White to move, but every white-empty square flips nothing; black can still play.
    p = Reversi.from_text("XO" + "-" * 62 + " O")
    assert p.legal_moves() == [PASS]
    with pytest.raises(IllegalMoveError, match="must pass"):
        p.push_text("c1")
    p.push(PASS)
    assert p.turn is Color.BLACK
    assert [str(m) for m in p.legal_moves()] == ["c1"]
    p.push_text("c1")
    assert p.legal_moves() == []
    assert p.outcome() is not None
    assert p.outcome().termination is Termination.GAME_OVER
    assert p.outcome().winner is Color.BLACK
    with pytest.raises(IllegalMoveError, match="game is over"):
        p.push(PASS)
    draw = Reversi.from_text("X" * 32 + "O" * 32 + " X")
    assert draw.outcome() is not None and draw.outcome().winner is None
    assert draw.perft(3) == 1  # a finished game is one leaf


def test_full_game_outcome_matches_disc_count() -> None:
    for seed in range(10):
        p = playout(seed)
        out = p.outcome()
        assert out is not None
        b, w = p.discs(Color.BLACK), p.discs(Color.WHITE)
        assert out.winner == (Color.BLACK if b > w else Color.WHITE if w > b else None)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("-" * 63 + " X", "63 squares"),
        ("-" * 65 + " X", "65 squares"),
        ("-" * 10 + "Z" + "-" * 53 + " X", "'Z' on c2"),
        ("", "empty"),
    ],
)
def test_bad_board_text(text: str, match: str) -> None:
    with pytest.raises(InvalidPositionError, match=match):
        Reversi.from_text(text)


def test_overlapping_bitboards_rejected() -> None:
    with pytest.raises(InvalidPositionError, match="a1"):
        Reversi(1, 1)


@pytest.mark.parametrize(
    ("move", "match"),
    [
        ("i5", "not a reversi square"),
        ("a9", "not a reversi square"),
        ("f", "not a reversi square"),
        ("d4", "d4 is occupied"),
        ("a1", "a1 flips nothing for black"),
        ("pass", "pass is illegal: black has 4 legal moves"),
    ],
)
def test_bad_moves(move: str, match: str) -> None:
    p = Reversi.start()
    with pytest.raises(IllegalMoveError, match=match):
        p.push_text(move)
    assert p == Reversi.start() and p.ply == 0


def test_bad_transcript_names_the_move() -> None:
    with pytest.raises(IllegalMoveError, match="transcript move 3: a1 flips nothing"):
        Reversi.from_transcript("f5d6a1")
    with pytest.raises(ValueError):  # every komaken input error is a ValueError
        Reversi.from_transcript("f5zz")


def test_display() -> None:
    p = Reversi.start()
    ascii_board = str(p)
    assert ascii_board.splitlines()[0] == "  a b c d e f g h"
    assert ascii_board.splitlines()[4] == "4 . . . O X . . ."
    assert "black to move" in ascii_board
    kanji = p.board_text("kanji", hints=True)
    assert kanji.splitlines()[4] == "4 口口候白黒口口口"
    assert "手番: 黒" in kanji
    svg = p._repr_svg_()
    assert svg.startswith("<svg") and svg.count("<circle") == 4
    assert str(PASS) == "pass" and str(ReversiMove.parse("F5")) == "f5"


def test_copy_is_independent() -> None:
    p = Reversi.start()
    q = p.copy()
    q.push_text("f5")
    assert p == Reversi.start() and q != p


# ------------------------------------------------------------------------------ search


@pytest.mark.parametrize("seed", range(6))
def test_endgame_solver_agrees_with_full_width_negamax(seed: int) -> None:
    p = playout(seed, stop_at_empties=10)
    own, opp = (np.uint64(x) for x in p._own_opp())
    exact = solve(p)
    assert exact == ks.solve_plain(own, opp)
    result = search(p, endgame_empties=10)
    assert result.exact and result.score == exact
    p.push(result.move)
    assert -solve(p) == exact  # the chosen move keeps the value


@pytest.mark.parametrize("seed", range(4))
def test_endgame_solver_agrees_with_generic_search(seed: int) -> None:
    p = playout(100 + seed, stop_at_empties=7)
    exact = solve(p)
    value = generic_negamax(p)
    assert (value > 0) == (exact > 0) and (value < 0) == (exact < 0)
    chosen = generic_best_move(p.copy()).move
    assert chosen is not None
    p.push(chosen)
    assert (-solve(p) > 0) == (exact > 0)  # a winning position stays won


def test_midgame_search_returns_legal_moves_and_is_reproducible() -> None:
    p = Reversi.from_transcript("f5d6c3d3c4f4")
    a = search(p, depth=4, seed=7)
    b = search(p, depth=4, seed=7)
    assert a == b
    assert a.move in p.legal_moves() and not a.exact and a.nodes > 0


def test_search_passes_when_it_must() -> None:
    p = Reversi.from_text("XO" + "-" * 62 + " O")
    assert search(p, depth=3, endgame_empties=0).move == PASS
    assert search(p).move == PASS  # exact: 62 empties but only one line of play


def test_search_rejects_finished_games() -> None:
    with pytest.raises(ValueError, match="game is over"):
        search(Reversi.from_text("X" * 64 + " X"))


def test_evaluation_likes_corners() -> None:
    # The same discs but for one black disc: on d1 in one, on the corner a1 in the other.
    base = Reversi.from_text("---X" + "-" * 23 + "OX------XO" + "-" * 27 + " X")
    corner = Reversi.from_text("X---" + "-" * 23 + "OX------XO" + "-" * 27 + " X")
    own, opp = (np.uint64(x) for x in corner._own_opp())
    assert ks.evaluate(own, opp) > ks.evaluate(*(np.uint64(x) for x in base._own_opp()))
    assert ks.edge_stable(np.uint64(0b111)) == 0b111
