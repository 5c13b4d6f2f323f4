"""The USI engine driven the way GUIs drive it: the next command the moment ``bestmove`` is read,
hundreds of times, while two busy processes load the cores.  Not one ``go`` may go unanswered.

Every read has a deadline (a dropped ``go`` fails the test, it never hangs it); nothing here
asserts how long an answer took.
"""

from __future__ import annotations

import random

from komaken.shogi import Position
from komaken.usi.client import EngineTimeoutError, UsiProcess
from usi_support import CMD, DEADLINE, STARTUP, busy_cores, is_legal_answer, start_engine


def _moves(pos: Position) -> str:
    first, out = pos.copy(), []
    while first.ply:
        out.append(first.pop().usi())
    return " ".join(reversed(out))


def _fire(eng: UsiProcess, variant: str, searches: int, rng: random.Random) -> tuple[int, int]:
    """Play on move after move; returns (answered, searched)."""
    pos = Position.start(variant)
    answered = 0
    for i in range(searches):
        if pos.outcome() is not None or pos.ply > 120 or rng.random() < 0.03:
            pos = Position.start(variant)
            eng.send("usinewgame")
        moves = _moves(pos)
        eng.send("position startpos" + (f" moves {moves}" if moves else ""))
        kind = i % 10
        if kind == 7:  # stop at once, before the search has begun
            eng.send("go infinite")
            eng.send("stop")
        elif kind == 8:  # ponderhit at once
            eng.send(f"go ponder btime 0 wtime 0 byoyomi {rng.randint(1, 20)}")
            eng.send("ponderhit")
        elif kind == 9:  # a clock with increment
            eng.send(f"go btime {rng.randint(0, 300)} wtime {rng.randint(0, 300)} binc 5 winc 5")
        else:
            eng.send(f"go btime 0 wtime 0 byoyomi {rng.randint(1, 20)}")
        try:
            line = eng.until("bestmove", DEADLINE)[-1]
        except EngineTimeoutError:
            raise AssertionError(f"go number {i + 1} was never answered (after {answered} answers)") from None
        answered += 1
        word = line.split()[1]
        assert is_legal_answer(pos, word), (pos.sfen(), line)
        if word in ("resign", "win"):
            pos = Position.start(variant)
        else:
            pos.push_usi(word)
    return answered, searches


def test_back_to_back_searches_with_busy_cores_are_all_answered() -> None:
    rng = random.Random(9)
    eng = start_engine()  # one engine, one board after the other (a GUI switching variants between games)
    try:
        with busy_cores(2):
            # 200 searches: every kind of go (i % 10) ten times on each board
            for variant, searches in (("minishogi", 100), ("shogi", 100)):
                eng.send(f"setoption name UCI_Variant value {variant}")
                eng.send("usinewgame")
                eng.send("isready")
                eng.until("readyok", STARTUP)
                answered, asked = _fire(eng, variant, searches, rng)
                assert answered == asked
    finally:
        eng.close()


def test_quit_right_after_go_ends_the_process() -> None:
    lines = ("go btime 0 wtime 0 byoyomi 5", "go infinite", "go ponder byoyomi 5", "go mate infinite")
    engines = [UsiProcess(CMD) for _ in lines]
    try:
        for eng in engines:
            eng.send("isready")
        for eng in engines:  # started and ready before the load: the quit under load is the point
            eng.until("readyok", STARTUP)
        with busy_cores(2):
            for eng, line in zip(engines, lines, strict=True):
                eng.send("position startpos")
                eng.send(line)
                eng.send("quit")
                assert eng.proc.wait(timeout=DEADLINE) == 0
    finally:
        for eng in engines:
            eng.kill()
