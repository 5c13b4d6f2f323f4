"""The one game loop: two players, one position, a :class:`GameResult` with a structured outcome.

:func:`play_game` is used by ``komaken play`` (an observer prints the board and each move), by
the experiment lab (no observer; the result is stored) and by the web page (an observer sends
each change to the page; a human's moves arrive through a player that waits for them).  A
player that raises, answers something that is not a legal move, resigns or declares wrongly
loses the game, and the reason is kept — an experiment never stops because one engine
misbehaved.  A player that does not answer in time
(:class:`~komaken.players.base.PlayerTimeout`: an external engine that was killed) loses on time
(``TIME_FORFEIT``, reason ``timeout: …``); ``crashed`` names it so a referee can rebuild it.
With a :class:`~komaken.clock.Clock` the loop runs each side's clock: a side whose answer comes
after its time is up loses on time (``TIME_FORFEIT``, reason ``time up (…)``), and a player with a
``time_left`` attribute is told the clock (:class:`~komaken.clock.TimeLeft`) before each move.

Taking moves back and resigning are operations of the loop: a player's ``choose`` raises
:class:`UndoRequest` or answers :data:`~komaken.players.base.RESIGN` (a human at the
terminal), or another thread asks through a :class:`Control` (the web page's buttons), which
stops the player that is thinking so the request is served at once.

>>> from komaken.tictactoe import TicTacToe
>>> from komaken.players.boardgames import PerfectPlayer
>>> result = play_game(TicTacToe.start(), (PerfectPlayer(), PerfectPlayer()))
>>> result.outcome.termination.value, result.outcome.winner, len(result.moves)
('game over', None, 9)
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from komaken.clock import Clock
from komaken.errors import KomakenError
from komaken.game import Color, Game, Outcome, Termination
from komaken.games import game_of
from komaken.players.base import DECLARE, RESIGN, Interrupted, Player, PlayerTimeout

if TYPE_CHECKING:
    from komaken.games import GameSpec

T = TypeVar("T")


class UndoRequest(Exception):  # noqa: N818 - a request, not an error
    """Raised by a player's ``choose`` to take moves back (a human typing ``undo``), or made by
    :meth:`Control.undo`: ``plies`` moves, or — with ``sides`` — back to and including the last
    move one of ``sides`` made (a human's move and the engine's replies after it).  Moves
    played before the loop started (an opening, a record) are never taken back."""

    def __init__(self, plies: int = 2, sides: Collection[Color] = ()) -> None:
        super().__init__(f"take back {plies} plies" if not sides else "take back the last move of "
                         + " or ".join(c.name.lower() for c in sides))
        self.plies = plies
        self.sides = tuple(sides)


class QuitRequest(Exception):  # noqa: N818 - a request, not an error
    """Raised by a player's ``choose`` to stop the game unfinished (a human typing ``quit`` or
    closing the input): the game ends ``ABORTED`` (中断) with no winner, nobody resigns."""

    def __init__(self, reason: str = "quit") -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ResignRequest:
    """Made by :meth:`Control.resign`: ``color`` resigns, whoever is to move."""

    color: Color


Request = UndoRequest | QuitRequest | ResignRequest


class Control:
    """Requests to a running :func:`play_game` from another thread: take moves back, resign for
    a side, stop the game.  The player being asked for a move is stopped (its ``stop()``, when
    it has one: an engine ends its search, a waiting human raises
    :class:`~komaken.players.base.Interrupted`); its answer is dropped and the request served.

    >>> control = Control()
    >>> control.resign(Color.WHITE)
    >>> control.take()
    ResignRequest(color=Color.WHITE)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: deque[Request] = deque()
        self._asked: Player | None = None

    def undo(self, plies: int = 2, sides: Collection[Color] = ()) -> None:
        """Take back ``plies`` moves, or up to the last move one of ``sides`` made."""
        self._ask(UndoRequest(plies, sides))

    def resign(self, color: Color) -> None:
        self._ask(ResignRequest(color))

    def quit(self, reason: str = "stopped") -> None:
        """End the game unfinished (``ABORTED``, no winner)."""
        self._ask(QuitRequest(reason))

    def _ask(self, request: Request) -> None:
        with self._lock:
            self._requests.append(request)
            player = self._asked
        stop = getattr(player, "stop", None)
        if callable(stop):
            stop()

    def take(self) -> Request | None:
        """The oldest request not yet served (the loop calls this)."""
        with self._lock:
            return self._requests.popleft() if self._requests else None

    def asking(self, player: Player | None) -> None:
        """``player`` is (``None``: no longer) being asked for a move: a request stops it."""
        with self._lock:
            self._asked = player


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

    def progress(self, position: Game[Any], player: Player, result: Any) -> None:
        """``player``, thinking in ``position``, finished a search iteration (``result`` has
        ``depth``, ``score``, ``nodes``, ``pv``); only players with ``on_progress`` report."""

    def played(self, position: Game[Any]) -> None:
        """A move was just played: ``position`` is the new position."""

    def undo(self, position: Game[Any], plies: int) -> None:
        """``plies`` moves were taken back."""

    def end(self, position: Game[Any], result: GameResult) -> None:
        """The game is over."""


_QUIET = Observer()


def _never(position: Any) -> bool:
    return False


def seat(first: Color, pair: tuple[T, T]) -> tuple[T, T]:
    """``pair`` (the first mover's, the other side's) by colour: (black's, white's).

    >>> seat(Color.WHITE, ("sente", "gote"))
    ('gote', 'sente')
    """
    return pair if first is Color.BLACK else (pair[1], pair[0])


def _game_of(position: Game[Any]) -> GameSpec | None:
    try:
        return game_of(position)
    except KomakenError:
        return None  # a position of an unregistered game: moves written with str()


def play_game(
    start: Game[Any],
    players: Sequence[Player],
    observer: Observer | None = None,
    *,
    game: GameSpec | None = None,
    max_plies: int | None = None,
    seeds: tuple[int | None, int | None] = (None, None),
    moves_before: Sequence[str] = (),
    control: Control | None = None,
    clock: Clock | None = None,
) -> GameResult:
    """Play ``start`` (played on: pass a copy to keep it) to the end; ``players[0]`` is black
    (:func:`seat` orders a first mover's and a second mover's pair by colour).

    ``game`` (default: the registered game ``start`` belongs to) writes the moves for
    :attr:`GameResult.moves` and says whether the side to move may win by declaring (shogi's
    入玉宣言; without it a declaration is illegal).  ``max_plies`` adjudicates a draw once that
    many plies have been played, counting ``moves_before`` (the opening already on the board).
    ``seeds`` go to each player's ``new_game(seed=...)``.  ``control`` takes requests from
    another thread (:class:`Control`).  ``clock`` times the sides (:mod:`komaken.clock`).
    """
    watch = observer or _QUIET
    spec = game if game is not None else _game_of(start)
    move_text: Callable[[Any], str] = spec.move_text if spec is not None else str
    can_declare = spec.can_declare if spec is not None and spec.can_declare is not None else _never
    loop = _Loop(start, players, watch, list(moves_before), move_text, can_declare, control, clock)
    for color, seed in zip((Color.BLACK, Color.WHITE), seeds, strict=True):
        try:
            players[color].new_game(seed=seed)
        except PlayerTimeout as exc:
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
                 move_text: Callable[[Any], str], can_declare: Callable[[Any], bool],
                 control: Control | None, clock: Clock | None = None) -> None:
        self.position, self.players, self.observer = position, players, observer
        self.moves, self.move_text, self.can_declare = moves, move_text, can_declare
        self.control = control
        self.clock = clock
        self.times: list[float] = []
        self.t0 = time.perf_counter()

    def finish(self, termination: Termination, winner: Color | None, detail: str = "",
               crashed: Color | None = None) -> GameResult:
        result = GameResult(Outcome(termination, winner), self.moves, self.times, detail,
                            time.perf_counter() - self.t0, crashed)
        self.observer.end(self.position, result)
        return result

    def serve(self, request: Request) -> GameResult | None:
        """Carry out an undo, a resignation or a stop; the result if the game ended."""
        if isinstance(request, UndoRequest):
            self.take_back(request)
            return None
        if isinstance(request, QuitRequest):
            return self.finish(Termination.ABORTED, None, request.reason)
        return self.finish(Termination.RESIGNATION, request.color.other)

    def pending(self) -> Request | None:
        return self.control.take() if self.control is not None else None

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
        answer, spent = self.ask(player, position)
        if isinstance(answer, UndoRequest | QuitRequest | ResignRequest):
            return self.serve(answer)
        if answer is Interrupted:
            return None  # stopped with nothing to serve: ask again
        if isinstance(answer, GameResult):
            return answer
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

    def ask(self, player: Player, position: Game[Any]) -> tuple[Any, float]:
        """``player``'s answer (a request from the :class:`Control` wins over it) and its time."""
        turn = position.turn
        if self.control is not None:
            self.control.asking(player)
        t = time.perf_counter()
        try:
            request = self.pending()
            if request is not None:
                return request, 0.0
            if self.clock is not None and hasattr(player, "time_left"):
                setattr(player, "time_left", self.clock.left(turn))  # noqa: B010
            if self.clock is not None:
                self.clock.start(turn)
            self.observer.thinking(position, player)
            if hasattr(player, "on_progress"):
                setattr(player, "on_progress", lambda result: self.observer.progress(position, player, result))  # noqa: B010
            try:
                answer = player.choose(position.copy())
            except (UndoRequest, QuitRequest) as req:
                return req, 0.0
            except Interrupted:
                answer = Interrupted
            except PlayerTimeout as exc:
                answer = self.finish(Termination.TIME_FORFEIT, turn.other, f"timeout: {_short(exc)}", turn)
            except Exception as exc:  # noqa: BLE001
                answer = self.finish(Termination.ABORTED, turn.other, f"crash: {_describe(exc)}", turn)
        finally:
            if self.control is not None:
                self.control.asking(None)
        request = None if isinstance(answer, GameResult) else self.pending()
        spent = time.perf_counter() - t
        if self.clock is not None and not isinstance(answer, GameResult):
            if isinstance(request, ResignRequest | QuitRequest | UndoRequest) or \
                    isinstance(answer, UndoRequest | QuitRequest):
                self.clock.cancel()  # a request served before the flag fell: no move, no verdict
            elif not self.clock.stop():
                tc = self.clock.controls[turn]
                return self.finish(Termination.TIME_FORFEIT, turn.other,
                                   f"time up ({tc.text() if tc else 'no time'})"), spent
        return (request if request is not None else answer), spent

    def take_back(self, request: UndoRequest) -> None:
        back = 0
        while self.times:  # never into the opening
            if not request.sides and back >= request.plies:
                break
            self.position.pop()
            self.moves.pop()
            self.times.pop()
            back += 1
            if self.position.turn in request.sides:
                break
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


__all__ = ["Control", "GameResult", "Observer", "QuitRequest", "ResignRequest", "UndoRequest", "play_game", "seat"]
