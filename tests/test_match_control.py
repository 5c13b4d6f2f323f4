"""Undo, resign and stop from another thread (:class:`komaken.match.Control`): the loop serves
each request at once, stopping the player that is thinking."""

from __future__ import annotations

import threading
from typing import Any

from komaken.game import Color, Game, Termination
from komaken.games import find_game
from komaken.match import Control, GameResult, Observer, play_game
from komaken.players.base import Interrupted
from komaken.players.registry import make_player

DEADLINE = 120.0  # seconds any wait here may take before the test fails (a cold kernel compile included)


class Person:
    """Plays its first ``moves`` wishes that are legal, then waits until the loop stops it."""

    name = "person"

    def __init__(self, wishes: list[str], moves: int) -> None:
        self.wishes, self.moves = wishes, moves
        self.asked = threading.Semaphore(0)
        self._stop = threading.Event()

    def new_game(self, seed: int | None = None) -> None:
        pass

    def choose(self, position: Game[Any]) -> Any:
        if self.moves:
            self.moves -= 1
            legal = {str(m): m for m in position.legal_moves()}
            return legal[next(w for w in self.wishes if w in legal)]
        self.asked.release()
        if not self._stop.wait(DEADLINE):
            raise RuntimeError("never stopped")
        self._stop.clear()
        raise Interrupted

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        pass


class Undos(Observer):
    def __init__(self) -> None:
        self.plies: list[int] = []

    def undo(self, position: Game[Any], plies: int) -> None:
        self.plies.append(plies)


def run(target: Any) -> tuple[threading.Thread, list[GameResult]]:
    out: list[GameResult] = []
    thread = threading.Thread(target=lambda: out.append(target()), daemon=True)
    thread.start()
    return thread, out


def test_undo_back_to_the_persons_move_then_resign() -> None:
    ttt = find_game("tictactoe")
    person, control, watch = Person(["5", "1", "3", "7", "9"], moves=2), Control(), Undos()
    pos, engine = ttt.start(None), make_player("perfect:seed=1,depth=2", ttt)
    thread, out = run(lambda: play_game(pos, (person, engine), watch, control=control))
    assert person.asked.acquire(timeout=DEADLINE)  # after X, O, X, O: X is asked and waits
    control.undo(sides=[Color.BLACK])  # O's reply and X's move go
    assert person.asked.acquire(timeout=DEADLINE)
    assert pos.ply == 2 and watch.plies == [2]
    control.resign(Color.BLACK)
    thread.join(DEADLINE)
    assert not thread.is_alive()
    (result,) = out
    assert result.termination is Termination.RESIGNATION and result.winner is Color.WHITE
    assert result.moves[0] == "5" and len(result.moves) == 2


def test_resigning_stops_an_engine_in_the_middle_of_a_long_search() -> None:
    shogi = find_game("shogi")
    v = shogi.variant("minishogi")
    engine = make_player("engine:movetime=600", shogi, v)  # ten minutes: only a stop ends it in time
    control = Control()
    thinking = threading.Event()

    class Thinking(Observer):
        def thinking(self, position: Game[Any], player: Any) -> None:
            thinking.set()

    thread, out = run(lambda: play_game(shogi.start(v), (engine, engine), Thinking(), control=control))
    assert thinking.wait(DEADLINE)
    control.resign(Color.WHITE)
    thread.join(DEADLINE)
    assert not thread.is_alive()
    assert out[0].termination is Termination.RESIGNATION and out[0].winner is Color.BLACK and out[0].plies == 0
