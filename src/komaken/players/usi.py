"""An external USI engine as a :class:`~komaken.players.base.Player` (driven over a subprocess).

>>> player = UsiPlayer("fairy-stockfish", {"UCI_Variant": "minishogi"}, go_args="byoyomi 200")  # doctest: +SKIP

Every read has a deadline.  ``usi`` and ``isready`` get ``timeout`` seconds; a move gets the
time its ``go`` allows (``movetime``, or the side's ``btime``/``wtime`` + ``byoyomi`` +
``binc``/``winc``) plus ``grace`` seconds — under a game clock (:attr:`UsiPlayer.time_left`, set by
the game loop) the ``go`` carries the real clock instead of ``go_args``:
``go btime 58000 wtime 60000 byoyomi 10000`` — or ``timeout`` seconds when the ``go`` sets no time
(``depth``, ``nodes``); ``move_timeout`` fixes it instead.  An engine that does not answer in
time is killed (with everything it started) and :class:`EngineTimeoutError` is raised: a game
referee records a loss on time, calls :meth:`UsiPlayer.restart` and goes on.  An engine that
exits, or does not speak USI at all, raises :class:`EngineError`.  Both are
:class:`~komaken.errors.KomakenError`, so ``komaken play`` prints one line and exits 2.
"""

from __future__ import annotations

from typing import Any

from komaken.clock import TimeLeft
from komaken.errors import KomakenError
from komaken.game import Game
from komaken.players.base import DECLARE, RESIGN, PlayerAction, PlayerTimeout
from komaken.shogi.position import Move, Position
from komaken.usi.client import EngineError, EngineTimeoutError, UsiProcess
from komaken.usi.go import Go, parse_go


class UsiTimeout(EngineTimeoutError, PlayerTimeout):
    """An engine that did not answer in time and was killed: the game loop's
    :class:`~komaken.players.base.PlayerTimeout` (a loss on time)."""


class UsiPlayer:
    """Starts ``command``, sets ``options`` (``{"USI_Hash": "64"}``; ``{"go": "..."}`` replaces
    ``go_args``), and asks for each move with ``go`` plus ``go_args`` (default ``movetime 1000``).

    ``last_reply`` is the time the last ``bestmove`` took (seconds, from writing ``go`` to the
    answer's arrival), for referees that enforce a clock.
    """

    def __init__(self, command: str, options: dict[str, str] | None = None, go_args: str = "movetime 1000",
                 timeout: float = 30.0, grace: float = 1.0, move_timeout: float | None = None) -> None:
        self.command = command
        self.options = {str(k): str(v) for k, v in (options or {}).items()}
        self.go_args = str(self.options.pop("go", go_args))
        self._go = _check_go(self.go_args)
        for name, v in (("timeout", timeout), ("grace", grace), ("move_timeout", move_timeout)):
            if v is not None and not (v >= 0 and v < 1e9):
                raise KomakenError(f"UsiPlayer {name} must be a number of seconds >= 0, got {v!r}")
        self.timeout = float(timeout)
        self.grace = float(grace)
        self.move_timeout = move_timeout
        self.name = "usi:" + command
        self.last_reply: float | None = None
        #: the game clock as the loop tells it before each move (``None``: ``go_args`` decide)
        self.time_left: TimeLeft | None = None
        self._eng: UsiProcess | None = None
        self._variant_sent: str | None = None
        self._start()

    # ---- process ---------------------------------------------------------------------------
    def _start(self) -> None:
        eng = UsiProcess(self.command)
        self._eng = eng
        try:
            eng.handshake({k: v for k, v in self.options.items() if k != "UCI_Variant" or v}, self.timeout)
        except BaseException:
            eng.kill()
            raise
        self.name = eng.id_name or self.name
        self._variant_sent = self.options.get("UCI_Variant") or None

    def restart(self) -> None:
        """Kill the engine (if still running) and start it again with the same options."""
        if self._eng is not None:
            self._eng.kill()
        self._start()

    def _ready(self) -> None:
        assert self._eng is not None
        self._eng.send("isready")
        self._eng.until("readyok", self.timeout)

    def move_deadline(self, side: int, go: Go | None = None) -> float:
        """Seconds allowed for one move of ``side`` (0: sente) before the engine counts as hung,
        under ``go`` (default: the player's ``go_args``)."""
        if self.move_timeout is not None:
            return float(self.move_timeout)
        g = go or self._go
        if g.movetime is not None:
            return g.movetime / 1000.0 + self.grace
        clock = g.btime if side == 0 else g.wtime
        inc = g.binc if side == 0 else g.winc
        if clock is None and g.byoyomi is None and inc is None:
            return self.timeout
        return ((clock or 0) + (g.byoyomi or 0) + (inc or 0)) / 1000.0 + self.grace

    # ---- player ----------------------------------------------------------------------------
    def new_game(self, seed: int | None = None) -> None:
        """``isready``, then ``usinewgame`` once the engine said ``readyok`` — the order of the USI
        protocol, which strict engines hold their GUI to."""
        assert self._eng is not None
        try:
            self._ready()
        except EngineTimeoutError as exc:
            raise UsiTimeout(str(exc), exc.waited, exc.expected) from exc
        self._eng.send("usinewgame")

    def choose(self, position: Game[Any]) -> Move | PlayerAction:
        """The engine's answer; raises :class:`EngineTimeoutError` when it is late (and killed)."""
        if not isinstance(position, Position):
            raise KomakenError("USI engines play shogi variants only")
        eng = self._eng
        assert eng is not None
        if self._variant_sent is None and position.variant.name != "shogi":
            eng.send(f"setoption name UCI_Variant value {position.variant.name}")
            self._variant_sent = position.variant.name
            self._ready()
        eng.send(_position_line(position))
        args = self.go_args if self.time_left is None else self.time_left.usi()
        t0 = eng.send("go " + args)
        limit = self.move_deadline(int(position.turn), None if self.time_left is None else parse_go(args.split()))
        try:
            t, line = eng.until_timed("bestmove", limit)[-1]
        except EngineTimeoutError as exc:
            raise UsiTimeout(f"USI engine {self.name!r} gave no bestmove within {limit:.3g} s at move "
                                     f"{position.ply + 1}; killed it", limit, "bestmove") from exc
        self.last_reply = t - t0
        return _answer(self.name, line)

    def close(self) -> None:
        if self._eng is not None:
            self._eng.close()

    def __del__(self) -> None:
        eng = getattr(self, "_eng", None)
        if eng is not None:
            eng.kill()


def _check_go(go_args: str) -> Go:
    go = parse_go(go_args.split())
    if go.infinite or go.ponder or go.mate is not None:
        raise KomakenError(f"UsiPlayer go arguments {go_args!r}: infinite, ponder and mate cannot choose a move")
    return go


def _position_line(position: Position) -> str:
    first = position.copy()
    moves = []
    while first.ply:
        moves.append(first.pop().usi())
    return f"position sfen {first.sfen()}" + (" moves " + " ".join(reversed(moves)) if moves else "")


def _answer(name: str, line: str) -> Move | PlayerAction:
    words = line.split()
    word = words[1] if len(words) > 1 else "resign"
    if word == "resign":
        return RESIGN
    if word == "win":
        return DECLARE
    try:
        return Move.from_usi(word)
    except (KomakenError, ValueError, IndexError):
        raise EngineError(f"USI engine {name!r} answered {line!r}, which is not a move") from None


__all__ = ["EngineError", "EngineTimeoutError", "UsiPlayer", "UsiTimeout"]
