"""A tiny tic-tac-toe implementing komaken.game.Game, so lab tests need no other game module.

Also a few misbehaving players for the match tests.  Importable by worker processes when
``tests/`` is on ``PYTHONPATH``.
"""

from __future__ import annotations

from typing import Any

from komaken.game import Color, Outcome, Termination

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class Toy:
    """Tic-tac-toe; moves are square numbers 0-8."""

    def __init__(self, cells: list[int] | None = None, history: list[int] | None = None) -> None:
        self.cells = cells or [-1] * 9
        self.history = history or []

    @classmethod
    def start(cls) -> Toy:
        return cls()

    @property
    def turn(self) -> Color:
        return Color(len(self.history) % 2)

    @property
    def ply(self) -> int:
        return len(self.history)

    def legal_moves(self) -> list[int]:
        if self.outcome() is not None:
            return []
        return [i for i, c in enumerate(self.cells) if c < 0]

    def push(self, move: int) -> None:
        self.cells[move] = int(self.turn)
        self.history.append(move)

    def pop(self) -> int:
        move = self.history.pop()
        self.cells[move] = -1
        return move

    def outcome(self) -> Outcome | None:
        for a, b, c in LINES:
            if self.cells[a] >= 0 and self.cells[a] == self.cells[b] == self.cells[c]:
                return Outcome(Termination.GAME_OVER, Color(self.cells[a]))
        if len(self.history) == 9:
            return Outcome(Termination.GAME_OVER, None)
        return None

    @property
    def key(self) -> Any:
        return tuple(self.cells)

    def copy(self) -> Toy:
        return Toy(list(self.cells), list(self.history))


class FirstMove:
    """Always the lowest legal square (deterministic)."""

    name = "first"

    def new_game(self, seed: int | None = None) -> None:
        pass

    def choose(self, position: Any) -> Any:
        return position.legal_moves()[0]

    def close(self) -> None:
        pass


class Crasher(FirstMove):
    name = "crasher"

    def choose(self, position: Any) -> Any:
        raise RuntimeError("engine exploded")


class Cheater(FirstMove):
    name = "cheater"

    def choose(self, position: Any) -> Any:
        return 42


def crasher() -> Crasher:
    return Crasher()


class SlowRandom:
    """A seeded random player that takes a few milliseconds per move (for kill-during-run tests)."""

    name = "slow"

    def __init__(self, delay: float = 0.003) -> None:
        import random

        self.delay = delay
        self.rng = random.Random(0)

    def new_game(self, seed: int | None = None) -> None:
        self.rng.seed(seed)

    def choose(self, position: Any) -> Any:
        import time

        if self.delay > 0:  # sleep(0) still gives the core away, seconds over a run of thousands of moves
            time.sleep(self.delay)
        return self.rng.choice(position.legal_moves())

    def close(self) -> None:
        pass
