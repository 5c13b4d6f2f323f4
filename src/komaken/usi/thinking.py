"""The search threads of ``komaken usi``: one :class:`Search` per ``go``, each in its own thread.

A search thread first waits until the search before it has sent its answer (that one has been
told to stop), so every ``go`` gets exactly one answer, in order, while the thread that reads
the commands never waits on a search: ``isready``, ``stop``, ``ponderhit`` and ``quit`` are
heard whatever is thinking.  The jobs here (:func:`think`, :func:`think_thesis`, :func:`mate`)
return the answer line; :class:`Search` sends it once the search may answer (after ``stop`` or
``ponderhit`` for ``go infinite`` / ``go ponder``).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable

from komaken.clock import StopLag
from komaken.players.base import RESIGN
from komaken.players.thesis import ThesisPlayer
from komaken.shogi.engine.mate import solve
from komaken.shogi.engine.search import Alarm, Engine, Limits, SearchResult
from komaken.shogi.engine.timeman import next_iteration_fits
from komaken.shogi.position import Move, Position
from komaken.usi.go import Go

Send = Callable[[str], None]
#: how often a stop is said again until the search has returned: a stop that lands before the
#: search has begun (its kernel clears the flag as it starts) is not lost
REHALT_SECONDS = 0.005


class Search:
    """One ``go``.  :meth:`halt` may come from any thread at any time: once the search has
    returned it no longer touches the engine, so a late timer never stops the next search.

    ``wait`` (``go infinite`` / ``go ponder``): the answer is held back until :meth:`halt` or
    :meth:`ponderhit`.  ``pending`` is the ``go ponder`` line, whose clock starts at
    :meth:`ponderhit`; ``side`` is who moves in the searched position; ``overhead`` (seconds)
    is kept back from that clock."""

    def __init__(self, halt_engine: Callable[[], None], *, wait: bool, pending: Go | None = None, side: int = 0,
                 overhead: float = 0.03, lag: StopLag | None = None,
                 stop_at: Callable[[float], None] | None = None) -> None:
        self.halted = threading.Event()
        self.released = threading.Event()
        if not wait:
            self.released.set()
        self.answered = threading.Event()
        self.pending = pending
        self.side = side
        self.overhead = overhead
        self.budget: tuple[float, float] | None = None  # (soft, hard) from the ponderhit on
        self.t_hit = 0.0
        self.timer: Alarm | None = None
        self.thread: threading.Thread | None = None
        self._halt_engine = halt_engine
        self._lock = threading.Lock()
        self._done = threading.Event()  # the search has returned
        self._rehalter: threading.Thread | None = None
        self._took: list[float] = []  # the moments the search began and each depth ended
        self.lag = lag  # told how late the answer came past its deadline
        self.deadline: float | None = None  # when the search was to stop (time.perf_counter()), if by time
        self._stop_at = stop_at

    # ---- from the command reader -------------------------------------------------------------
    @property
    def pondering(self) -> bool:
        return self.pending is not None and not self.halted.is_set()

    @property
    def stopping(self) -> bool:
        return self.halted.is_set() and not self.answered.is_set()

    def halt(self) -> None:
        """Stop now and answer (also a held-back ``go infinite`` / ``go ponder``)."""
        self.halted.set()
        self.released.set()
        with self._lock:
            if self._done.is_set() or self._rehalter is not None:
                return
            self._halt_engine()
            self._rehalter = threading.Thread(target=self._rehalt, name="usi-stop", daemon=True)
            self._rehalter.start()

    def _rehalt(self) -> None:
        while not self._done.wait(REHALT_SECONDS):
            with self._lock:
                if not self._done.is_set():
                    self._halt_engine()

    def ponderhit(self) -> None:
        """The predicted move was played: the ``go ponder`` clock runs from now."""
        go, self.pending = self.pending, None
        if go is None:
            return
        self.t_hit = time.perf_counter()
        self.budget = go.limits().budget(self.side, self.overhead)
        self.released.set()  # from now on the search answers as soon as it ends
        if self.budget is None:
            return
        at = self.t_hit + self.budget[1]
        self.deadline = at
        if self._stop_at is not None:
            self._stop_at(at)  # the kernel stops itself then, whichever thread runs
        self.timer = Alarm(at, self.halt)
        if len(self._took) >= 2 and not self._fits(self._took[-1]):
            self.halt()  # the depth under way would not end within the budget: answer now

    # ---- from the search thread --------------------------------------------------------------
    def began(self) -> None:
        self._took = [time.perf_counter()]

    def depth_done(self) -> None:
        """A depth has ended: after a ponderhit, stop when the next would not fit the budget."""
        self._took.append(time.perf_counter())
        if self.budget is not None and not self._fits(self._took[-1]):
            self.halt()

    def _fits(self, at: float) -> bool:
        """Whether a depth begun at ``at`` is likely to end within the budget (as the engine
        itself decides between depths under a clock)."""
        assert self.budget is not None
        t = self._took
        last = t[-1] - t[-2] if len(t) >= 2 else 0.0
        before = t[-2] - t[-3] if len(t) >= 3 else 0.0
        return next_iteration_fits(at - self.t_hit, last, before, *self.budget)

    def start(self, job: Callable[[], str], send: Send, after: Search | None = None) -> None:
        self.thread = threading.Thread(target=self._run, args=(job, send, after), name="usi-search", daemon=True)
        self.thread.start()

    def _run(self, job: Callable[[], str], send: Send, after: Search | None) -> None:
        try:
            if after is not None:
                after.answered.wait()
            try:
                answer = job()
            finally:
                with self._lock:
                    self._done.set()
            self.released.wait()  # USI: after infinite/ponder, answer only once told to
            send(answer)
            if self.lag is not None and self.deadline is not None:
                self.lag.observe(time.perf_counter() - self.deadline)
        finally:
            if self.timer is not None:
                self.timer.cancel()
            self.answered.set()

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the answer; whether it came."""
        return self.answered.wait(timeout)


def think(s: Search, engine: Engine, pos: Position, limits: Limits, t_go: float, send: Send, multipv: int = 1,
          ponder_move: bool = False) -> str:
    """An alpha-beta search; the ``bestmove`` line.

    An ``info`` line goes out as each depth completes and, when the clock or a node limit cut the
    last depth short, once more before ``bestmove`` with the nodes and time of the whole search (as
    Stockfish and YaneuraOu do), so a GUI or tournament manager shows what the move cost."""
    reported = 0  # nodes of the last line sent

    def info(r: SearchResult[Move]) -> None:
        nonlocal reported
        if r.rank <= multipv:  # a skill level searches more lines than were asked for
            send(r.usi_info())
        if r.rank <= 1:
            reported = r.nodes
            s.depth_done()
        if s.halted.is_set():  # a stop that came before the search began: say it again
            engine.stop()

    overhead = engine.overhead
    # time lost before the search began, and the margin late answers have earned
    engine.overhead = s.overhead + _since(t_go)
    s.began()
    try:
        result = engine.search(pos, limits, info=info, multipv=multipv)
        if result.move is not None and result.nodes > reported:
            # the chosen line alone unless several were asked for (a skill level's pick is line 1 here)
            for line in (result.lines[:multipv] if multipv > 1 else [dataclasses.replace(result, rank=0)]):
                send(line.usi_info())
        if s.deadline is None:
            s.deadline = engine.deadline
        return bestmove(result, ponder_move)
    except Exception as exc:  # noqa: BLE001 - the engine must keep answering
        send(f"info string error: search failed: {type(exc).__name__}: {exc}")
        return fallback(pos)
    finally:
        engine.overhead = overhead


def think_thesis(s: Search, thesis: ThesisPlayer, pos: Position, go: Go, t_go: float, send: Send) -> str:
    """The thesis replica (no iterative deepening: the clock or ``stop`` cut it short)."""
    overhead = s.overhead + _since(t_go)
    budget = None if go.ponder or go.infinite else go.limits().budget(int(pos.turn), overhead)
    try:
        mv = thesis.choose(pos, movetime=None if budget is None else budget[1])
        send(f"info depth {thesis.depth} score cp {thesis.last_score} nodes {thesis.last_nodes}")
        return "bestmove resign" if mv is RESIGN else f"bestmove {mv.usi()}"  # type: ignore[union-attr]
    except Exception as exc:  # noqa: BLE001
        send(f"info string error: search failed: {type(exc).__name__}: {exc}")
        return fallback(pos)


def mate(s: Search, pos: Position, go: Go, send: Send) -> str:
    """``go mate``: the ``checkmate`` line."""
    assert go.mate is not None
    limit = None if go.mate <= 0 else max(0.001, go.mate / 1000.0 - s.overhead)
    try:
        r = solve(pos, nodes=2_000_000 if go.mate == 0 else 10**12, time_limit=limit, stop=s.halted)
    except Exception as exc:  # noqa: BLE001
        send(f"info string error: mate search failed: {type(exc).__name__}: {exc}")
        return "checkmate timeout"
    if r.status == "mate":
        return "checkmate " + " ".join(m.usi() for m in r.pv)
    return "checkmate nomate" if r.status == "nomate" else "checkmate timeout"


def bestmove(result: SearchResult[Move], ponder_move: bool = False) -> str:
    """The ``bestmove`` line for ``result``; with ``ponder_move`` the reply the line expects
    follows as ``ponder <move>`` when the principal variation has one."""
    if result.declare:
        return "bestmove win"
    if result.move is None:
        return "bestmove resign"
    line = f"bestmove {result.move.usi()}"
    if ponder_move and len(result.pv) >= 2 and result.pv[0] == result.move:
        line += f" ponder {result.pv[1].usi()}"
    return line


def fallback(pos: Position) -> str:
    """After an internal failure: any legal move beats none."""
    try:
        moves = pos.legal_moves()
    except Exception:  # noqa: BLE001
        return "bestmove resign"
    return f"bestmove {moves[0].usi()}" if moves else "bestmove resign"


def _since(t: float) -> float:
    """Seconds since ``t`` (a ``time.perf_counter()`` reading)."""
    return time.perf_counter() - t


__all__ = ["Search", "bestmove", "fallback", "mate", "think", "think_thesis"]
