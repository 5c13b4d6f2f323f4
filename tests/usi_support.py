"""Helpers for the USI tests: a ``komaken usi`` subprocess read with deadlines, busy cores, legality."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from komaken.shogi import Position
from komaken.usi.client import UsiProcess

CMD = [sys.executable, "-m", "komaken", "usi"]
#: generous: the first isready of a fresh checkout compiles the kernels
STARTUP = 300.0
#: how long any answer may take before the test fails instead of hanging
DEADLINE = 30.0


def start_engine(variant: str | None = None) -> UsiProcess:
    """A ``komaken usi`` process after ``usi``/``isready`` (and the variant, if given)."""
    eng = UsiProcess(CMD, stderr=subprocess.PIPE, name="komaken usi")
    eng.handshake({"UCI_Variant": variant} if variant else {}, STARTUP)
    return eng


class SharedEngine:
    """One ``komaken usi`` process that serves a module's tests in turn (a module-scoped fixture
    holds it): :meth:`game` hands it over at the start of a new game of ``variant`` — the variant
    set, ``usinewgame``, ``isready`` answered — and a test that failed (an answer missing, a search
    maybe still under way) gets the process killed, so the next test starts a new one."""

    def __init__(self) -> None:
        self.eng: UsiProcess | None = None

    def game(self, variant: str = "shogi") -> UsiProcess:
        if self.eng is None or not self.eng.alive():
            self.eng = start_engine()
        self.eng.send(f"setoption name UCI_Variant value {variant}")
        self.eng.send("usinewgame")
        self.eng.send("isready")
        self.eng.until("readyok", STARTUP)
        return self.eng

    def failed(self) -> None:
        if self.eng is not None:
            self.eng.kill()
            self.eng = None

    def close(self) -> int | None:
        """The exit status after ``quit`` (0), or ``None`` when no engine is left."""
        eng, self.eng = self.eng, None
        return None if eng is None else eng.close(timeout=DEADLINE)


@contextmanager
def shared_game(shared: SharedEngine, failures: Callable[[], int], variant: str = "shogi") -> Iterator[UsiProcess]:
    """``shared`` for one test (in a function-scoped fixture); ``failures`` counts the session's
    failed tests (``lambda: request.session.testsfailed``): one more after the test kills the engine."""
    before = failures()
    eng = shared.game(variant)
    yield eng
    if failures() != before:
        shared.failed()


@contextmanager
def busy_cores(n: int = 2) -> Iterator[None]:
    """``n`` busy-loop processes for the duration (as a GUI and an opponent engine load the cores)."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait(timeout=DEADLINE)


def position_after(variant: str, sfen: str | None, moves: list[str]) -> Position:
    pos = Position.from_sfen(sfen, variant) if sfen else Position.start(variant)
    for m in moves:
        pos.push_usi(m)
    return pos


def is_legal_answer(pos: Position, word: str) -> bool:
    """``word`` (after ``bestmove``) is a legal move of ``pos`` — by komaken's rules and, on 9×9,
    by cshogi's — or ``resign`` exactly when there is none, or ``win`` when a declaration wins."""
    legal = {m.usi() for m in pos.legal_moves()}
    if word == "resign":
        return not legal
    if word == "win":
        return pos.can_declare()
    if word not in legal:
        return False
    if pos.variant.name == "shogi":
        import cshogi

        board = cshogi.Board(pos.sfen())
        return word in {cshogi.move_to_usi(m) for m in board.legal_moves}
    return True
