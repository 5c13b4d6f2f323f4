"""Tic-tac-toe: keypad squares, line sums, リーチ, perft and perfect play."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from komaken.errors import IllegalMoveError, InvalidPositionError
from komaken.game import Color, Game, Termination
from komaken.players.boardgames import PerfectPlayer
from komaken.tictactoe import TicTacToe, TicTacToeMove, best_move, value

PERFT = [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


def test_is_a_game() -> None:
    assert isinstance(TicTacToe.start(), Game)


@pytest.mark.parametrize("depth", range(len(PERFT)))
def test_perft(depth: int) -> None:
    assert TicTacToe.start().perft(depth) == PERFT[depth]


def test_keypad_layout() -> None:
    p = TicTacToe.start()
    for sq in (7, 1, 8, 2, 9):  # X: 7 8 9 (top row); O: 1 2
        p.push_text(str(sq))
    assert p.to_text() == "XXX/.../OO. O"
    assert p.outcome() is not None and p.outcome().winner is Color.BLACK
    assert p.outcome().termination is Termination.GAME_OVER
    assert p.legal_moves() == []


def test_line_sums_and_reach() -> None:
    p = TicTacToe.from_text("X.O/.X./... O")
    assert p.turn is Color.WHITE
    assert p.reach(Color.BLACK) == [3]  # 7-5-3 diagonal
    assert p.reach(Color.WHITE) == []
    assert 2 in p.line_sums()
    shown = str(p)
    assert "リーチ: X 3" in shown and "O to move" in shown
    both = TicTacToe.from_text("XX./.OO/X.. O")
    assert both.reach(Color.BLACK) == [4, 9]  # 7-8-9 and 7-4-1
    assert both.reach(Color.WHITE) == [4]  # 4-5-6
    assert "リーチ: X 4,9; O 4" in str(both)
    assert "ffe082" in both._repr_svg_()  # リーチ squares are shaded


def test_draw() -> None:
    p = TicTacToe.start()
    for sq in (5, 7, 3, 1, 4, 6, 8, 2, 9):
        p.push_text(str(sq))
    assert p.outcome() is not None and p.outcome().winner is None
    assert "draw" in str(p)


def test_value_of_start_is_a_draw() -> None:
    assert value(TicTacToe.start()) == 0
    assert value(TicTacToe.from_text("XX./OO./... X")) > 0
    assert best_move(TicTacToe.from_text("XX./OO./... X")).move == TicTacToeMove(9)


def _never_loses(player: PerfectPlayer, p: TicTacToe, me: Color, counter: list[int]) -> None:
    """Walk every game where ``player`` plays ``me`` and the opponent tries every reply."""
    out = p.outcome()
    if out is not None:
        counter[0] += 1
        assert out.winner in (me, None), p.to_text()
        return
    if p.turn is me:
        move = player.choose(p)
        assert move in p.legal_moves()
        p.push(move)
        _never_loses(player, p, me, counter)
        p.pop()
        return
    for move in p.legal_moves():
        p.push(move)
        _never_loses(player, p, me, counter)
        p.pop()


@pytest.mark.parametrize("me", [Color.BLACK, Color.WHITE])
@pytest.mark.parametrize("seed", [None, 1])
def test_perfect_player_never_loses(me: Color, seed: int | None) -> None:
    player = PerfectPlayer(seed=seed)
    player.new_game()
    games = [0]
    _never_loses(player, TicTacToe.start(), me, games)
    assert games[0] > 50


def test_perfect_player_takes_the_win_and_blocks() -> None:
    player = PerfectPlayer()
    assert player.choose(TicTacToe.from_text("XX./OO./... X")) == TicTacToeMove(9)
    assert player.choose(TicTacToe.from_text("XX./O../... O")) == TicTacToeMove(9)


def _random_position(seed: int, plies: int) -> TicTacToe:
    rng = random.Random(seed)
    p = TicTacToe.start()
    for _ in range(plies):
        moves = p.legal_moves()
        if not moves:
            break
        p.push(rng.choice(moves))
    return p


@given(st.integers(0, 10_000), st.integers(0, 9))
@settings(max_examples=80, deadline=None)
def test_push_pop_and_text_round_trip(seed: int, plies: int) -> None:
    p = _random_position(seed, plies)
    assert TicTacToe.from_text(p.to_text()) == p
    assert TicTacToe.from_text(p.to_text()).key == p.key
    history = []
    q = TicTacToe.start()
    for move in p.move_stack:
        history.append((q.copy(), q.key))
        q.push(move)
    assert q == p
    while history:
        before, key = history.pop()
        q.pop()
        assert q == before and q.key == key


@given(st.integers(0, 10_000), st.integers(0, 9))
@settings(max_examples=80, deadline=None)
def test_reach_means_one_move_wins(seed: int, plies: int) -> None:
    p = _random_position(seed, plies)
    if p.outcome() is not None:
        return
    for color in (Color.BLACK, Color.WHITE):
        for sq in range(1, 10):
            if p.at(sq) is not None:
                continue
            cells = list(p._cells)
            cells[sq] = 1 if color is Color.BLACK else -1
            wins = any(cells[a] + cells[b] + cells[c] in (3, -3) for a, b, c in _lines())
            assert wins == (sq in p.reach(color))


def _lines() -> tuple[tuple[int, int, int], ...]:
    from komaken.tictactoe import LINES

    return LINES


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("XX./.../... X", "X has 2 marks and O has 0"),
        ("O../.../...", "X has 0 marks and O has 1"),
        ("XXX/OOO/X..", "both X and O"),
        ("XXX/OO./O..", "X has a line but O moved after it"),
        ("X../.../... X", "X cannot be to move"),
        ("X?./.../...", r"bad character '\?' on square 8"),
        ("XO/.../...", "three rows"),
        ("", "empty"),
    ],
)
def test_bad_positions(text: str, match: str) -> None:
    with pytest.raises(InvalidPositionError, match=match):
        TicTacToe.from_text(text)


@pytest.mark.parametrize(
    ("move", "match"),
    [("0", "not a tic-tac-toe square"), ("10", "not a tic-tac-toe square"), ("5", "square 5 is occupied by X")],
)
def test_bad_moves(move: str, match: str) -> None:
    p = TicTacToe.from_text(".../.X./... O")
    with pytest.raises(IllegalMoveError, match=match):
        p.push_text(move)
    with pytest.raises(IllegalMoveError, match="off the board"):
        p.push(TicTacToeMove(12))


def test_no_move_after_a_win() -> None:
    p = TicTacToe.from_text("XXX/OO./... O")
    with pytest.raises(IllegalMoveError, match="game is over, X has a line"):
        p.push_text("6")


def test_keypad_digits_in_text() -> None:
    assert TicTacToe.from_text("789/456/123") == TicTacToe.start()
    assert TicTacToe.from_text("X89456123 O") == TicTacToe.from_text("X../.../... O")
    assert str(TicTacToeMove(7)) == "7"
    assert str(TicTacToe.start()).splitlines()[0] == " 7 | 8 | 9"
