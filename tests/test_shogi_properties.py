"""Properties over random games (hypothesis draws the variant and the move choices)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from komaken.shogi import Move, Position, load_variant

VARIANTS = ["shogi", "minishogi", "judkins", "shogi7x7"]


@st.composite
def games(draw: st.DrawFn) -> tuple[Position, list[Move]]:
    pos = Position.start(load_variant(draw(st.sampled_from(VARIANTS))))
    played = []
    for _ in range(draw(st.integers(0, 120))):
        moves = pos.legal_moves()
        if not moves:
            break
        m = moves[draw(st.integers(0, len(moves) - 1))]
        pos.push(m)
        played.append(m)
    return pos, played


@settings(max_examples=60, deadline=None)
@given(games())
def test_push_pop_restores_position_and_hash(game: tuple[Position, list[Move]]) -> None:
    pos, played = game
    snapshots = []
    replay = Position.start(pos.variant)
    for m in played:
        snapshots.append((replay.sfen(), replay.zobrist))
        replay.push(m)
    for m in reversed(played):
        assert pos.pop() == m
        sfen, h = snapshots.pop()
        assert pos.sfen() == sfen and pos.zobrist == h
    assert pos == Position.start(pos.variant)


@settings(max_examples=60, deadline=None)
@given(games())
def test_sfen_round_trips_and_hash_matches_from_scratch(game: tuple[Position, list[Move]]) -> None:
    pos, _ = game
    again = Position.from_sfen(pos.sfen(), pos.variant)
    assert again.sfen() == pos.sfen()
    assert again == pos
    assert again.zobrist == pos.zobrist  # incremental hash == hash computed from scratch
    assert {m.usi() for m in again.legal_moves()} == {m.usi() for m in pos.legal_moves()}


@settings(max_examples=40, deadline=None)
@given(games())
def test_copy_is_independent_and_equal(game: tuple[Position, list[Move]]) -> None:
    pos, _ = game
    c = pos.copy()
    assert c == pos and c.move_stack == pos.move_stack
    moves = c.legal_moves()
    if moves:
        c.push(moves[0])
        assert c != pos or c.zobrist != pos.zobrist


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["7g7f", "2b3c+", "P*5e", "r*1a", "9i9h"]))
def test_usi_text_round_trips(text: str) -> None:
    m = Move.from_usi(text)
    assert m.usi() == text.replace("r*", "R*")
