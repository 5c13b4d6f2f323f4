"""The game loop: misbehaving players lose with a recorded reason; ply limits adjudicate draws."""

from __future__ import annotations

from komaken.game import Color
from komaken.lab import RandomPlayer, play_game
from komaken.players.base import RESIGN
from lab_toygame import Cheater, Crasher, FirstMove, Toy


class Resigner(FirstMove):
    def choose(self, position: object) -> object:
        return RESIGN


def test_normal_game() -> None:
    res = play_game(Toy.start(), (FirstMove(), FirstMove()))
    # 0 1 2 3 4 5 6: black takes 0, 2, 4, 6 → the 2-4-6 diagonal
    assert res.moves == ["0", "1", "2", "3", "4", "5", "6"]
    assert res.winner is Color.BLACK and res.reason == "game over" and res.crashed is None


def test_crash_is_a_loss_with_reason() -> None:
    res = play_game(Toy.start(), (FirstMove(), Crasher()))
    assert res.winner is Color.BLACK and res.crashed is Color.WHITE
    assert res.reason == "crash: RuntimeError: engine exploded"
    assert res.moves == ["0"]


def test_illegal_move_is_a_loss() -> None:
    res = play_game(Toy.start(), (Cheater(), FirstMove()))
    assert res.winner is Color.WHITE and res.reason == "illegal move: 42"


def test_resignation() -> None:
    res = play_game(Toy.start(), (FirstMove(), Resigner()))
    assert res.winner is Color.BLACK and res.reason == "resignation"


def test_max_plies_draw_counts_the_opening() -> None:
    pos = Toy.start()
    pos.push(4)
    res = play_game(pos, (FirstMove(), FirstMove()), max_plies=3, moves_before=["4"])
    assert res.winner is None and res.reason == "max plies" and res.plies == 3


def test_seeded_random_player_is_reproducible() -> None:
    a = play_game(Toy.start(), (RandomPlayer(), RandomPlayer()), seeds=(1, 2)).moves
    b = play_game(Toy.start(), (RandomPlayer(), RandomPlayer()), seeds=(1, 2)).moves
    assert a == b
