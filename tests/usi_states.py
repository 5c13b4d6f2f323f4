"""The USI conversation as a model: commands sent over any state, every answer checked.

:class:`UsiModel` sends one command at a time to a ``komaken usi`` (a subprocess, or
:class:`InProcess`: the same :func:`komaken.usi.server.run` in a thread, on a pipe) and keeps
what the engine must do: every ``isready`` answered ``readyok`` within ``deadline`` seconds
(searching or not; the first after a new engine or variant, which warms it up, within
:data:`SETUP_DEADLINE`), every accepted ``go`` answered by exactly one ``bestmove`` (``checkmate``
for ``go mate``) legal in the position it was sent for — a ``ponder`` move legal after it — in
the order the ``go`` lines came, every refused ``go`` (bad numbers, no variant) answered
``info string error: go...`` and never by a move, and ``quit`` ending the engine.  A breach
raises :class:`Breach`.  ``tests/test_usi_states.py`` draws the commands with hypothesis;
``benchmarks/usi_states.py`` with :func:`random_walk`, by the ten thousand.
"""

from __future__ import annotations

import os
import queue
import random
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from komaken.shogi import Position
from komaken.usi.client import EngineError, EngineTimeoutError, UsiProcess
from komaken.usi.server import run
from usi_support import CMD, DEADLINE, STARTUP, is_legal_answer

VARIANTS = ("minishogi", "judkins", "shogi")
#: variants that cannot be set up: unknown, missing, and a file whose parent does not exist
BAD_VARIANTS = ("nosuch", "/nonexistent/v.toml", "broken")
#: the deadline of the first ``isready`` after a new engine or variant, which warms it up
SETUP_DEADLINE = DEADLINE
#: a ``go`` with small limits each (a search ends in milliseconds), by kind
GO_KINDS = ("depth", "nodes", "byoyomi", "movetime", "clock", "infinite", "ponder", "mate")
#: ``go`` lines the engine must refuse, each naming the field
BAD_GOS = ("go depth 0", "go depth 101", "go nodes 0", "go nodes 1e400", "go byoyomi -2147483649",
           "go movetime 2147483648", "go mate 0", "go btime inf", "go wtime", "go searchmoves 7g7f")


class Breach(AssertionError):
    """The engine broke the protocol (an answer missing, late, extra or illegal)."""


def broken_file() -> str:
    """A variant file that reads as TOML but cannot be set up: its parent does not exist."""
    path = Path(tempfile.gettempdir()) / f"komaken-usi-states-broken-{os.getpid()}.toml"
    if not path.exists():
        path.write_text('inherits = "nosuch"\nname = "broken"\n', encoding="utf-8")
    return str(path)


class InProcess:
    """:func:`komaken.usi.server.run` in a thread of this process, reading a pipe as its stdin."""

    def __init__(self, variant: str = "shogi") -> None:
        r, w = os.pipe()
        self._stdin = open(w, "w", encoding="utf-8", buffering=1)  # noqa: SIM115 - closed in ended()
        self._reader = open(r, encoding="utf-8")  # noqa: SIM115
        self._lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self._result: list[bool] = []
        self.thread = threading.Thread(target=self._serve, args=(variant,), name="usi-in-process", daemon=True)
        self.thread.start()

    def _serve(self, variant: str) -> None:
        self._result.append(run(variant, self._reader, out=lambda line: self._lines.put((time.perf_counter(), line))))

    def send(self, line: str) -> float:
        self._stdin.write(line + "\n")
        return time.perf_counter()

    def read(self, timeout: float) -> tuple[float, str]:
        try:
            return self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise EngineTimeoutError(f"in-process USI said nothing for {timeout:.3g} s", timeout) from None

    def ended(self, timeout: float) -> bool:
        """After ``quit``: whether the server returned, with every search thread ended."""
        self.thread.join(timeout)
        if self.thread.is_alive():
            return False
        self._stdin.close()
        self._reader.close()
        return self._result == [True]


class Subprocess:
    """A real ``komaken usi`` process (:class:`~komaken.usi.client.UsiProcess`)."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.proc = UsiProcess(command or CMD, name="komaken usi", kill_on_timeout=False)
        self.proc.send("usi")
        self.proc.until("usiok", STARTUP)

    def send(self, line: str) -> float:
        return self.proc.send(line)

    def read(self, timeout: float) -> tuple[float, str]:
        return self.proc.read(timeout)

    def ended(self, timeout: float) -> bool:
        try:
            code = self.proc.proc.wait(timeout=timeout)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired
            self.proc.kill()
            return False
        self.proc.kill()
        return code == 0


@dataclass
class _Go:
    line: str
    pos: Position
    mate: bool = False
    ponder_move: bool = False


@dataclass
class Stats:
    sequences: int = 0
    commands: int = 0
    gos: int = 0
    answered: int = 0
    refused: int = 0
    isready: int = 0
    quits: int = 0
    latencies: list[float] = field(default_factory=list)  # isready to readyok, seconds, when idle
    busy_latencies: list[float] = field(default_factory=list)  # the same with a search under way
    setup_latencies: list[float] = field(default_factory=list)  # idle, the first after a new engine or variant


class UsiModel:
    """One engine and what it owes; survives from sequence to sequence until ``quit``."""

    def __init__(self, factory: Callable[[], InProcess | Subprocess], deadline: float,
                 stats: Stats | None = None) -> None:
        self.factory = factory
        self.deadline = deadline
        self.stats = stats or Stats()
        self.transport: InProcess | Subprocess | None = None
        self.variant: str | None = "shogi"  # None: a UCI_Variant failed, no variant is set
        self.ponder_option = False
        self.pos = Position.start("shogi")
        self.pending: deque[_Go] = deque()
        self.refusals = 0  # go lines the engine must refuse, not yet seen refused
        self.searching = False  # a go may be under way (for the busy isready latency)
        self.setup_due = True  # the next idle isready warms a new engine up

    # ---- sequences -------------------------------------------------------------------------
    def begin(self) -> None:
        """A new sequence: start an engine if there is none, else a new game."""
        if self.transport is None:
            self.transport = self.factory()
            self.variant, self.ponder_option, self.pos = "shogi", False, Position.start("shogi")
            self.setup_due = True
            self.isready()
        self.stats.sequences += 1
        if self.variant is None:  # a GUI sets its variant before a game
            self.set_variant("minishogi")
        self.send("usinewgame")
        self.position(0, 0)

    def settle(self) -> None:
        """End a sequence: every owed answer must come, and nothing more."""
        if self.transport is None:
            return
        self.stop()
        while self.pending:
            self._next(self.deadline)
        self.isready()
        if self.refusals:
            raise Breach(f"{self.refusals} refused go line(s) got no 'info string error: go'")

    # ---- the link --------------------------------------------------------------------------
    def send(self, line: str) -> float:
        assert self.transport is not None
        self.stats.commands += 1
        try:
            return self.transport.send(line)
        except EngineError as exc:
            raise Breach(f"engine went away before {line!r}: {exc}") from None

    def _next(self, timeout: float) -> tuple[float, str]:
        """Read one line and check it against what is owed."""
        assert self.transport is not None
        try:
            t, line = self.transport.read(timeout)
        except EngineTimeoutError:
            owed = self.pending[0].line if self.pending else "readyok"
            raise Breach(f"no answer within {timeout} s (owed: {owed!r}, {len(self.pending)} go pending)") from None
        except EngineError as exc:
            raise Breach(f"engine died: {exc}") from None
        if line.startswith(("bestmove", "checkmate")):
            self._answer(line)
        elif line.startswith("info string error: go"):
            if not self.refusals:
                raise Breach(f"a go was refused that should not be: {line!r}")
            self.refusals -= 1
        return t, line

    def _answer(self, line: str) -> None:
        if not self.pending:
            raise Breach(f"an answer no go asked for: {line!r}")
        go = self.pending.popleft()
        self.stats.answered += 1
        words = line.split()
        if go.mate:
            ok = words[0] == "checkmate" and len(words) >= 2 and (words[1] in ("nomate", "timeout")
                                                                   or is_legal_answer(go.pos, words[1]))
        else:
            ok = words[0] == "bestmove" and len(words) in (2, 4) and is_legal_answer(go.pos, words[1])
            if ok and len(words) == 4:
                ok = go.ponder_move and words[2] == "ponder" and _legal_after(go.pos, words[1], words[3])
        if not ok:
            raise Breach(f"{line!r} answers {go.line!r} at {go.pos.sfen()}")
        if not self.pending:
            self.searching = False

    # ---- commands --------------------------------------------------------------------------
    def isready(self) -> None:
        busy, setup = self.searching, self.setup_due and not self.searching
        t0 = self.send("isready")
        self.stats.isready += 1
        # warming a new engine up is work (tables touched, kernels loaded), not a wait on a search
        deadline = max(self.deadline, SETUP_DEADLINE) if setup else self.deadline
        while True:
            t, line = self._next(deadline)
            if line == "readyok":
                kind = "busy_latencies" if busy else "setup_latencies" if setup else "latencies"
                getattr(self.stats, kind).append(t - t0)
                self.setup_due &= busy
                return

    def usi(self) -> None:
        self.send("usi")
        seen = False
        while True:
            _, line = self._next(self.deadline)
            seen |= line.startswith("option name USI_Ponder type check")
            if line == "usiok":
                if not seen:
                    raise Breach("usi does not offer USI_Ponder")
                return

    def position(self, seed: int, plies: int, as_sfen: bool = False) -> None:
        if self.variant is None:
            self.send("position startpos")  # refused: nothing owed, nothing changes
            return
        rng = random.Random(seed)
        pos, moves = Position.start(self.variant), []
        for _ in range(plies):
            legal = pos.legal_moves()
            if not legal or pos.outcome() is not None:
                break
            m = rng.choice(legal)
            pos.push(m)
            moves.append(m.usi())
        self.pos = pos
        if as_sfen:
            self.send(f"position sfen {pos.sfen()}")
        else:
            self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))

    def go(self, kind: str, n: int) -> None:
        """A ``go`` of ``kind`` (:data:`GO_KINDS`) with small limits drawn from ``n``."""
        line = {"depth": f"go depth {1 + n % 2}", "nodes": f"go nodes {1 + n * 37 % 400}",
                "byoyomi": f"go btime 0 wtime 0 byoyomi {n % 6}", "movetime": f"go movetime {n % 5}",
                "clock": f"go btime {n % 20} wtime {n % 30} binc {n % 3} winc 1",
                "infinite": "go infinite", "ponder": f"go ponder btime 0 wtime 0 byoyomi {n % 6}",
                "mate": f"go mate {1 + n % 6}"}[kind]
        self.send(line)
        self.stats.gos += 1
        if self.variant is None:
            self.refusals += 1
            self.stats.refused += 1
            return
        self.pending.append(_Go(line, self.pos.copy(), mate=kind == "mate", ponder_move=self.ponder_option))
        self.searching = True

    def bad_go(self, line: str) -> None:
        self.send(line)
        self.stats.gos += 1
        self.stats.refused += 1
        self.refusals += 1

    def stop(self) -> None:
        self.send("stop")

    def ponderhit(self) -> None:
        self.send("ponderhit")

    def gameover(self, result: str) -> None:
        self.send(f"gameover {result}")

    def usinewgame(self) -> None:
        self.send("usinewgame")

    def setoption(self, name: str, value: str, accepted: bool) -> None:
        """A non-variant option; ``accepted`` says whether the value is in range."""
        self.send(f"setoption name {name} value {value}")
        if accepted and name == "USI_Ponder":
            self.ponder_option = value == "true"

    def set_variant(self, name: str) -> None:
        """``name`` from :data:`VARIANTS` (sets it up) or :data:`BAD_VARIANTS` (leaves none)."""
        self.send(f"setoption name UCI_Variant value {broken_file() if name == 'broken' else name}")
        if name in VARIANTS:
            self.variant, self.pos, self.setup_due = name, Position.start(name), True
        else:
            self.variant = None

    def quit(self) -> None:
        assert self.transport is not None
        self.send("quit")
        self.stats.quits += 1
        transport, self.transport = self.transport, None
        self.pending.clear()  # after quit nothing more is owed
        self.refusals = 0
        if not transport.ended(self.deadline + 2.0):
            raise Breach("quit did not end the engine")


def _legal_after(pos: Position, move: str, reply: str) -> bool:
    after = pos.copy()
    after.push_usi(move)
    return reply in {m.usi() for m in after.legal_moves()}


def random_walk(model: UsiModel, rng: random.Random, steps: int, quit_one_in: int = 40) -> None:
    """One sequence of up to ``steps`` commands drawn from every state, then :meth:`UsiModel.settle`."""
    model.begin()
    for _ in range(rng.randint(1, steps)):
        r = rng.random()
        if r < 0.3:
            model.go(rng.choice(GO_KINDS), rng.randrange(1000))
        elif r < 0.45:
            model.isready()
        elif r < 0.6:
            model.position(rng.randrange(10**6), rng.randint(0, 30), as_sfen=rng.random() < 0.2)
        elif r < 0.7:
            model.stop()
        elif r < 0.78:
            model.ponderhit()
        elif r < 0.82:
            model.bad_go(rng.choice(BAD_GOS))
        elif r < 0.86:
            model.gameover(rng.choice(("win", "lose", "draw")))
        elif r < 0.9:
            model.usinewgame()
        elif r < 0.94:
            model.setoption("USI_Ponder", rng.choice(("true", "false")), True)
        elif r < 0.97:
            model.set_variant(rng.choice(VARIANTS * 3 + BAD_VARIANTS))
        elif rng.randrange(quit_one_in) == 0:
            model.quit()
            return
        else:
            model.usi()
    model.settle()


__all__ = ["BAD_GOS", "BAD_VARIANTS", "Breach", "GO_KINDS", "InProcess", "Stats", "Subprocess", "UsiModel",
           "VARIANTS", "broken_file", "random_walk"]
