"""Every game in the registry passes the same protocol tests.

A new game gets these for free by registering: start, native text round trip, legal moves,
push/pop restoring the key, outcome, perft(2) consistent with the legal moves, copy/equality,
move text round trip, and a full random game through the one game loop.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from komaken.errors import IllegalMoveError, KomakenError
from komaken.game import Outcome, Termination
from komaken.games import GameSpec, find_game, game_names, game_of
from komaken.match import GameResult, Observer, play_game
from komaken.players.random import RandomPlayer
from komaken.players.registry import PlayerSpec

GAMES = game_names()


@pytest.fixture(params=GAMES)
def game(request: pytest.FixtureRequest) -> GameSpec:
    return find_game(request.param)


def _start(game: GameSpec) -> Any:
    return game.start(game.variant())


def _walk(game: GameSpec, plies: int, seed: int) -> list[Any]:
    """Positions along a seeded random game."""
    rng = random.Random(seed)
    pos = _start(game)
    seen = [pos.copy()]
    for _ in range(plies):
        moves = pos.legal_moves()
        if pos.outcome() is not None or not moves:
            break
        pos.push(rng.choice(list(moves)))
        seen.append(pos.copy())
    return seen


def test_registry_knows_the_builtins() -> None:
    assert {"shogi", "reversi", "tictactoe"} <= set(GAMES)
    with pytest.raises(KomakenError, match="unknown game 'go'"):
        find_game("go")


def test_start_and_text_round_trip(game: GameSpec) -> None:
    for pos in _walk(game, 12, seed=1):
        text = game.to_text(pos)
        again = game.from_text(text, game.variant())
        assert game.to_text(again) == text
        assert again.key == pos.key
        assert game_of(pos) is game


def test_turn_ply_and_legal_moves(game: GameSpec) -> None:
    pos = _start(game)
    assert pos.turn is game.first and pos.ply == 0
    moves = list(pos.legal_moves())
    assert moves and pos.outcome() is None
    pos.push(moves[0])
    assert pos.turn is game.first.other and pos.ply == 1


def test_results_name_the_first_mover(game: GameSpec) -> None:
    first = game.first
    assert game.result(Outcome(Termination.CHECKMATE, first)) == "1-0"
    assert game.result(Outcome(Termination.CHECKMATE, first.other)) == "0-1"
    assert game.result(Outcome(Termination.REPETITION, None)) == "1/2-1/2" and game.result(None) == "*"
    assert game.winner_text(first) == f"{game.side_names[int(first)]} wins"
    assert game.winner_text(None) == "draw"


def test_push_pop_restores_key_and_equality(game: GameSpec) -> None:
    for pos in _walk(game, 10, seed=2):
        before, key = pos.copy(), pos.key
        for move in list(pos.legal_moves())[:8]:
            pos.push(move)
            assert pos.key != key or pos.turn != before.turn
            assert pos.pop() == move
            assert pos.key == key and pos == before


def test_copy_is_independent(game: GameSpec) -> None:
    pos = _start(game)
    twin = pos.copy()
    twin.push(list(twin.legal_moves())[0])
    assert pos.ply == 0 and twin.ply == 1 and pos != twin


def test_perft_two_matches_the_legal_moves(game: GameSpec) -> None:
    for pos in _walk(game, 6, seed=3):
        key = pos.key
        assert pos.perft(1) == len(list(pos.legal_moves()))
        assert pos.perft(2) == sum(_children(pos, m) for m in pos.legal_moves())
        assert pos.key == key


def _children(pos: Any, move: Any) -> int:
    pos.push(move)
    try:
        return len(list(pos.legal_moves()))
    finally:
        pos.pop()


def test_move_text_round_trip(game: GameSpec) -> None:
    for pos in _walk(game, 8, seed=4):
        for move in list(pos.legal_moves())[:10]:
            assert game.parse_move(pos, game.move_text(move)) == move
            assert game.describe(pos, move)


def test_bad_text_and_moves_are_documented_errors(game: GameSpec) -> None:
    with pytest.raises(KomakenError):
        game.from_text("this is not a position", game.variant())
    with pytest.raises(IllegalMoveError):
        game.parse_move(_start(game), "zz99")


def test_random_game_through_the_loop(game: GameSpec) -> None:
    seen: list[str] = []

    class Count(Observer):
        def played(self, position: Any) -> None:
            seen.append(game.to_text(position))

        def end(self, position: Any, result: GameResult) -> None:
            seen.append("end")

    pos = _start(game)
    players = (RandomPlayer(seed=1), RandomPlayer(seed=2))
    result = play_game(pos, players, Count(), game=game, max_plies=300)
    assert isinstance(result.outcome, Outcome) and seen[-1] == "end"
    assert len(result.moves) == len(result.times) == pos.ply == len(seen) - 1
    replay = _start(game)
    for text in result.moves:
        replay.push(game.parse_move(replay, text))
    assert replay.key == pos.key


def test_default_opponent_builds(game: GameSpec) -> None:
    player = PlayerSpec.parse(game.default_opponent, game, game.variant()).build(game, game.variant())
    try:
        assert player.name
    finally:
        player.close()
