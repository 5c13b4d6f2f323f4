"""Hypothesis properties of the chess board: take-backs, FEN and notation round trips, bad text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from komaken.chess import Board, Move
from komaken.errors import IllegalMoveError, InvalidPositionError

STARTS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
]

games = st.tuples(st.sampled_from(STARTS), st.lists(st.integers(0, 10_000), max_size=80))


def play(start: str, choices: list[int]) -> Board:
    board = Board(start)
    for c in choices:
        moves = board.legal_moves()
        if not moves:
            break
        board.push(moves[c % len(moves)])
    return board


@given(games)
@settings(max_examples=120, deadline=None)
def test_pop_restores_every_position_and_key(game: tuple[str, list[int]]) -> None:
    start, choices = game
    board = Board(start)
    seen = []
    for c in choices:
        moves = board.legal_moves()
        if not moves:
            break
        seen.append((board.fen(), board.key, sorted(m.uci() for m in moves)))
        board.push(moves[c % len(moves)])
    while seen:
        fen, key, moves_before = seen.pop()
        board.pop()
        assert (board.fen(), board.key) == (fen, key)
        assert sorted(m.uci() for m in board.legal_moves()) == moves_before
    assert board == Board(start) and board.ply == 0


@given(games)
@settings(max_examples=120, deadline=None)
def test_fen_round_trip_keeps_position_and_key(game: tuple[str, list[int]]) -> None:
    board = play(*game)
    again = Board.from_fen(board.fen())
    assert again == board
    assert again.fen() == board.fen()
    assert again.key == board.key  # the incremental key equals the one computed from scratch
    assert again.legal_moves() == board.legal_moves()


@given(games)
@settings(max_examples=60, deadline=None)
def test_san_and_uci_round_trip(game: tuple[str, list[int]]) -> None:
    board = play(*game)
    for move in board.legal_moves():
        assert board.parse_san(board.san(move)) == move
        assert board.parse_move(move.uci()) == move == Move.from_uci(move.uci())


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_any_text_is_a_fen_or_an_invalid_position_error(text: str) -> None:
    try:
        board = Board.from_fen(text)
    except InvalidPositionError:
        return
    assert Board.from_fen(board.fen()) == board


@given(st.text(alphabet="abcdefghxNBRQKO0-=+#12345678 ", max_size=8))
@settings(max_examples=300, deadline=None)
def test_any_move_text_is_a_move_or_an_illegal_move_error(text: str) -> None:
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    try:
        move = board.parse_move(text)
    except IllegalMoveError:
        return
    assert board.is_legal(move)


FEN_CHARS = "pnbrqkPNBRQK12345678/ wb-KQkqa3e6x0"


@given(st.sampled_from(STARTS), st.integers(0, 200), st.text(alphabet=FEN_CHARS, max_size=3))
@settings(max_examples=400, deadline=None)
def test_a_damaged_fen_is_read_or_refused_cleanly(start: str, at: int, insert: str) -> None:
    """One spot of a good FEN replaced by a few characters: a position or InvalidPositionError."""
    at %= len(start)
    text = start[:at] + insert + start[at + 1 :]
    try:
        board = Board.from_fen(text)
    except InvalidPositionError:
        return
    assert Board.from_fen(board.fen()) == board
    board.perft(2)
