"""The one game loop: two players, one position, a :class:`GameResult` with a structured outcome.

:func:`play_game` is used by ``komaken play`` (an observer prints the board and each move) and by
the experiment lab (no observer; the result is stored).  A player that raises, answers something
that is not a legal move, resigns or declares wrongly loses the game, and the reason is kept —
an experiment never stops because one engine misbehaved.  An external engine that does not
answer in time (:class:`~komaken.usi.client.EngineTimeoutError`: it has been killed) loses on
time (``TIME_FORFEIT``, reason ``timeout: …``); ``crashed`` names it so a referee can rebuild it.

>>> from komaken.tictactoe import TicTacToe
>>> from komaken.players.boardgames import PerfectPlayer
>>> result = play_game(TicTacToe.start(), (PerfectPlayer(), PerfectPlayer()))
>>> result.outcome.termination.value, result.outcome.winner, len(result.moves)
('game over', None, 9)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from komaken.game import Color, Game, Outcome, Termination
from komaken.players.base import DECLARE, RESIGN, Player
from komaken.usi.client import EngineTimeoutError


class UndoRequest(Exception):  # noqa: N818 - a request, not an error
    """Raised by a player's ``choose`` to take moves back (a human typing ``undo``)."""

    def __init__(self, plies: int = 2) -> None:
        super().__init__(f"take back {plies} plies")
        self.plies = plies


class QuitRequest(Exception):  # noqa: N818 - a request, not an error
    """Raised by a player's ``choose`` to stop the game unfinished (a human typing ``quit`` or
    closing the input): the game ends ``ABORTED`` (中断) with no winner, nobody resigns."""

    def __init__(self, reason: str = "quit") -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(slots=True)
class GameResult:
    """How a game went.

    ``outcome`` holds the termination and the winner (``None``: a draw); ``detail`` adds what
    the termination alone does not say (``"illegal move: 5e5d"``, ``"crash: ValueError: …"``).
    ``moves`` are the moves' texts (opening included), ``times`` the seconds each player took
    for its moves (opening moves excluded), ``crashed`` the side whose player raised (or timed
    out: its engine was killed and needs a restart).
    """

    outcome: Outcome
    moves: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0
    crashed: Color | None = None

    @property
    def winner(self) -> Color | None:
        return self.outcome.winner

    @property
    def termination(self) -> Termination:
        return self.outcome.termination

    @property
    def reason(self) -> str:
        """The reason in words: :attr:`detail` when there is one, else the termination."""
        return self.detail or self.outcome.termination.value

    @property
    def plies(self) -> int:
        return len(self.moves)


class Observer:
    """Watches a game (printing it, sending it to a web page); every method does nothing here.

    ``move`` is called before ``move`` is played on ``position`` (so it can be written in
    notation that needs the position, such as Japanese); ``undo`` after moves were taken back.
    """

    def start(self, position: Game[Any]) -> None:
        """The game begins from ``position``."""

    def thinking(self, position: Game[Any], player: Player) -> None:
        """``player`` is about to be asked for a move in ``position``."""

    def move(self, position: Game[Any], move: Any, player: Player, seconds: float) -> None:
        """``player`` chose ``move`` in ``position`` after thinking ``seconds``."""

    def played(self, position: Game[Any]) -> None:
        """A move was just played: ``position`` is the new position."""

    def undo(self, position: Game[Any], plies: int) -> None:
        """``plies`` moves were taken back."""

    def end(self, position: Game[Any], result: GameResult) -> None:
        """The game is over."""


_QUIET = Observer()


def _never(position: Any) -> bool:
    return False


def play_game(
    start: Game[Any],
    players: Sequence[Player],
    observer: Observer | None = None,
    *,
    max_plies: int | None = None,
    seeds: tuple[int | None, int | None] = (None, None),
    moves_before: Sequence[str] = (),
    move_text: Callable[[Any], str] = str,
    can_declare: Callable[[Any], bool] | None = None,
) -> GameResult:
    """Play ``start`` (played on: pass a copy to keep it) to the end; ``players[0]`` is black.

    ``max_plies`` adjudicates a draw once that many plies have been played, counting
    ``moves_before`` (the opening already on the board).  ``seeds`` go to each player's
    ``new_game(seed=...)``.  ``move_text`` writes moves for :attr:`GameResult.moves` (a
    :class:`~komaken.games.GameSpec` has it); ``can_declare(position)`` says whether the side
    to move may win by declaring (shogi's 入玉宣言; without it a declaration is illegal).
    """
    watch = observer or _QUIET
    loop = _Loop(start, players, watch, list(moves_before), move_text, can_declare or _never)
    for color, seed in zip((Color.BLACK, Color.WHITE), seeds, strict=True):
        try:
            players[color].new_game(seed=seed)
        except EngineTimeoutError as exc:
            return loop.finish(Termination.TIME_FORFEIT, color.other, f"timeout: {_short(exc)}", color)
        except Exception as exc:  # noqa: BLE001 - a broken player loses, the run goes on
            return loop.finish(Termination.ABORTED, color.other, f"crash: {_describe(exc)}", color)
    watch.start(start)
    while True:
        result = loop.step(max_plies)
        if result is not None:
            return result


class _Loop:
    """The state of one game in :func:`play_game`: one :meth:`step` per move."""

    def __init__(self, position: Game[Any], players: Sequence[Player], observer: Observer, moves: list[str],
                 move_text: Callable[[Any], str], can_declare: Callable[[Any], bool]) -> None:
        self.position, self.players, self.observer = position, players, observer
        self.moves, self.move_text, self.can_declare = moves, move_text, can_declare
        self.times: list[float] = []
        self.t0 = time.perf_counter()

    def finish(self, termination: Termination, winner: Color | None, detail: str = "",
               crashed: Color | None = None) -> GameResult:
        result = GameResult(Outcome(termination, winner), self.moves, self.times, detail,
                            time.perf_counter() - self.t0, crashed)
        self.observer.end(self.position, result)
        return result

    def step(self, max_plies: int | None) -> GameResult | None:
        """Ask the side to move for a move and play it; the result once the game is over."""
        position = self.position
        outcome = position.outcome()
        if outcome is not None:
            return self.finish(outcome.termination, outcome.winner)
        if max_plies is not None and len(self.moves) >= max_plies:
            return self.finish(Termination.MAX_PLIES, None)
        turn = position.turn
        legal = position.legal_moves()
        if not legal:
            return self.finish(Termination.NO_LEGAL_MOVES, turn.other)
        player = self.players[turn]
        self.observer.thinking(position, player)
        t = time.perf_counter()
        try:
            answer = player.choose(position.copy())
        except UndoRequest as req:
            self.take_back(req.plies)
            return None
        except QuitRequest as req:
            return self.finish(Termination.ABORTED, None, req.reason)
        except EngineTimeoutError as exc:
            return self.finish(Termination.TIME_FORFEIT, turn.other, f"timeout: {_short(exc)}", turn)
        except Exception as exc:  # noqa: BLE001
            return self.finish(Termination.ABORTED, turn.other, f"crash: {_describe(exc)}", turn)
        spent = time.perf_counter() - t
        if answer is RESIGN:
            return self.finish(Termination.RESIGNATION, turn.other)
        if answer is DECLARE:
            if self.can_declare(position):
                return self.finish(Termination.DECLARATION, turn)
            return self.finish(Termination.ILLEGAL_MOVE, turn.other, "illegal declaration")
        if answer not in legal:
            return self.finish(Termination.ILLEGAL_MOVE, turn.other, f"illegal move: {_short(answer)}")
        self.observer.move(position, answer, player, spent)
        position.push(answer)
        self.moves.append(self.move_text(answer))
        self.times.append(spent)
        self.observer.played(position)
        return None

    def take_back(self, plies: int) -> None:
        back = min(plies, len(self.times))  # never into the opening
        for _ in range(back):
            self.position.pop()
            self.moves.pop()
            self.times.pop()
        self.observer.undo(self.position, back)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_short(exc)}"


def _short(value: Any, limit: int = 120) -> str:
    try:
        text = str(value)
    except Exception:  # noqa: BLE001
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["GameResult", "Observer", "QuitRequest", "UndoRequest", "play_game"]
