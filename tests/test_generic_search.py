"""Generic negamax on toy games whose theory is known, plus the options it offers."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from komaken.game import Color, Game, Outcome, Termination
from komaken.games import find_game
from komaken.players.base import Player
from komaken.players.boardgames import RandomPlayer
from komaken.players.registry import make_player as registry_player
from komaken.search import best_move, negamax
from komaken.search.generic import WIN, is_loss, is_win
from komaken.tictactoe import TicTacToe


@dataclass
class Subtraction:
    """Take 1, 2 or 3 stones; whoever takes the last stone wins.  Lost iff stones % 4 == 0."""

    stones: int
    _turn: Color = Color.BLACK

    def __post_init__(self) -> None:
        self.stack: list[int] = []

    @property
    def turn(self) -> Color:
        return self._turn

    @property
    def ply(self) -> int:
        return len(self.stack)

    def legal_moves(self) -> list[int]:
        return [n for n in (1, 2, 3) if n <= self.stones]

    def push(self, move: int) -> None:
        self.stack.append(move)
        self.stones -= move
        self._turn = self._turn.other

    def pop(self) -> int:
        move = self.stack.pop()
        self.stones += move
        self._turn = self._turn.other
        return move

    def outcome(self) -> Outcome | None:
        if self.stones:
            return None
        return Outcome(Termination.GAME_OVER, self._turn.other)  # the last taker won

    @property
    def key(self) -> tuple[int, Color]:
        return (self.stones, self._turn)

    def copy(self) -> Subtraction:
        other = Subtraction(self.stones, self._turn)
        other.stack = list(self.stack)
        return other


def test_toy_game_is_a_game() -> None:
    assert isinstance(Subtraction(5), Game)


# Without a table the tree grows by about 1.8 per stone, so stop earlier there.
@pytest.mark.parametrize(
    ("stones", "use_table"), [(n, True) for n in range(1, 25)] + [(n, False) for n in range(1, 17)]
)
def test_subtraction_game_theory(stones: int, use_table: bool) -> None:
    game = Subtraction(stones)
    v = negamax(game, use_table=use_table)
    assert is_loss(v) == (stones % 4 == 0)
    assert is_win(v) == (stones % 4 != 0)
    if stones % 4:
        assert best_move(game).move == stones % 4  # leave a multiple of four
    assert game.stones == stones and not game.stack  # the position is left as it was


def test_quick_wins_are_preferred() -> None:
    # Three stones: taking all three wins at once (WIN - 1); any other move wins later or loses.
    result = best_move(Subtraction(3))
    assert result.move == 3 and result.score == WIN - 1
    assert negamax(Subtraction(4)) == -(WIN - 2)  # every reply loses two plies later


def test_depth_limit_calls_the_evaluation_at_the_horizon() -> None:
    seen: list[int] = []

    def evaluate(position: Subtraction) -> float:
        seen.append(position.stones)
        return 0.5

    v = negamax(Subtraction(20), depth=2, evaluate=evaluate, use_table=False)
    assert seen and all(14 <= s <= 18 for s in seen)
    assert v == 0.5  # even depth: the horizon is the side to move's own view
    assert negamax(Subtraction(20), depth=1, evaluate=evaluate) == -0.5
    assert negamax(Subtraction(20), depth=3) == 0  # no callback: the horizon scores 0


def test_finished_game() -> None:
    done = Subtraction(0)
    result = best_move(done)
    assert result.move is None and is_loss(result.score)


@given(st.integers(0, 10_000), st.integers(2, 8))
@settings(max_examples=25, deadline=None)
def test_table_does_not_change_values(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    p = TicTacToe.start()
    for _ in range(plies):
        moves = p.legal_moves()
        if not moves:
            break
        p.push(rng.choice(moves))
    assert negamax(p, use_table=True) == negamax(p, use_table=False)
    for depth in (1, 2, 3):
        assert negamax(p, depth) == negamax(p, depth, use_table=False)


def test_alpha_beta_window_bounds_the_result() -> None:
    v = negamax(TicTacToe.start(), alpha=0.5, beta=1.0)
    assert v <= 0.5  # the true value (a draw) is below the window: fail low


def test_seed_chooses_among_equal_moves_reproducibly() -> None:
    start = TicTacToe.start()
    picks = {best_move(start, seed=s).move for s in range(8)}
    assert len(picks) > 1  # every first move draws, so several are chosen
    assert best_move(start, seed=4) == best_move(start, seed=4)


def test_random_player_works_for_any_game() -> None:
    player = RandomPlayer(seed=3)
    game = Subtraction(10)
    first = [player.choose(game)]
    player.new_game()
    assert [player.choose(game)] == first
    assert player.choose(game) in game.legal_moves()


def make_player(game: str, spec: str) -> Any:
    return registry_player(spec, find_game(game))


@pytest.mark.parametrize(
    ("game", "spec", "name"),
    [
        ("reversi", "engine:depth=3,empties=8,seed=2", "reversi-engine(depth=3,empties=8)"),
        ("reversi", "random:seed=3", "random(seed=3)"),
        ("tictactoe", "perfect", "perfect"),
        ("tictactoe", "engine", "perfect"),
    ],
)
def test_make_player(game: str, spec: str, name: str) -> None:
    player = make_player(game, spec)
    assert player.name == name
    assert isinstance(player, Player)
    player.new_game()
    player.close()


@pytest.mark.parametrize(
    ("game", "spec", "match"),
    [
        ("go", "random", "unknown game"),
        ("reversi", "perfect", "no perfect player for reversi"),
        ("reversi", "engine:depth=x", "needs an integer"),
        ("reversi", "engine:width=3", "unknown option"),
        ("reversi", "engine:depth", "name=value"),
    ],
)
def test_make_player_rejects_bad_specs(game: str, spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_player(game, spec)


def test_engine_beats_random_at_reversi() -> None:
    wins = 0
    for seed in range(4):
        engine = make_player("reversi", "engine:depth=2,empties=8")
        rand = make_player("reversi", f"random:seed={seed}")
        p = find_game("reversi").start(None)
        engine_color = Color(seed % 2)
        while p.outcome() is None:
            player = engine if p.turn is engine_color else rand
            p.push(player.choose(p))
        wins += p.outcome().winner is engine_color
    assert wins >= 3
