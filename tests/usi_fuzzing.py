"""Seeded junk for the USI engine: lines a broken GUI or a fuzzer might send, mixed with valid ones.

:func:`session` drives one ``komaken usi`` process through ``lines`` commands and reports what
went wrong.  A *checked* block — ``setoption name UCI_Variant``, a legal ``position``, ``go`` with a
small byoyomi — must be answered with a legal move (komaken's rules, and cshogi's on 9×9).  Every
other ``go`` must be answered too: ``bestmove``/``checkmate``, or ``info string error`` when the
line itself is refused.  Used by ``tests/test_usi_fuzz.py`` and ``benchmarks/usi_fuzz.py``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from komaken.shogi import Position
from komaken.usi.client import EngineError, EngineTimeoutError, UsiProcess
from usi_support import CMD, DEADLINE, STARTUP, is_legal_answer

VARIANTS = ("minishogi", "shogi", "judkins")
NUMBERS = ("0", "1", "-1", "7", "100", "1000", "5000", "2147483648", "9223372036854775808", "99999999999999999999",
           "1e400", "1e30", "inf", "-inf", "nan", "-0", "+5", "0x10", "1.5", "①", "²", "", "٣")
WORDS = ("usi", "isready", "usinewgame", "position", "startpos", "sfen", "moves", "go", "stop", "ponderhit",
         "gameover", "win", "lose", "draw", "setoption", "name", "value", "btime", "wtime", "byoyomi", "binc",
         "winc", "movetime", "depth", "nodes", "infinite", "ponder", "mate", "movestogo", "searchmoves",
         "UCI_Variant", "Variant", "USI_Hash", "Threads", "Thesis", "HandQuirk", "Depth", "Noise", "Seed",
         "MoveOverhead", "Value_P", "Value_+R", "Value_Q", "ValueHand_P", "ValueHand_+P", "EvalPsq",
         "USI_Ponder", "7g7f", "P*5e", "5e4d", "G*1b", "1a1a+", "resign", "\x00", "\ufffd", "ｇｏ", "；")
OPTION_NAMES = ("UCI_Variant", "Variant", "USI_Hash", "Threads", "Thesis", "HandQuirk", "Depth", "Noise", "Seed",
                "MoveOverhead", "EvalMobility", "EvalKingSafety", "EvalPsq", "Value_P", "Value_+R", "Value_B",
                "ValueHand_P", "ValueHand_R", "Value_Q", "ValueHand_+P", "USI_Ponder", "Nope", "")
SFENS = ("4k/5/4P/5/K4 b G 1", "rbsgk/4p/5/P4/KGSBR b - 1", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL"
         " w - 1", "rbsgk/5/5/5/KGSBR b 2P 1", "4k/4G/4P/5/K4 w - 1")


@dataclass
class Report:
    lines: int = 0
    gos: int = 0
    checked: int = 0
    deaths: int = 0
    unanswered: int = 0
    illegal: int = 0
    problems: list[str] = field(default_factory=list)


def _played(rng: random.Random, variant: str) -> tuple[str, Position]:
    """A legal ``position`` line some random moves into a game, and that position."""
    pos = Position.start(variant)
    moves = []
    for _ in range(rng.randint(0, 40)):
        legal = pos.legal_moves()
        if not legal or pos.outcome() is not None:
            break
        m = rng.choice(legal)
        pos.push(m)
        moves.append(m.usi())
    return "position startpos" + (" moves " + " ".join(moves) if moves else ""), pos


def _valid(rng: random.Random, variant: str) -> str:
    r = rng.random()
    if r < 0.3:
        return _played(rng, variant)[0]
    if r < 0.5:
        name = rng.choice(("Noise", "Seed", "EvalPsq", "EvalMobility", "Value_P", "ValueHand_P", "Depth", "USI_Hash"))
        return f"setoption name {name} value {rng.choice(('0', '1', '3', '16', '50', '120'))}"
    if r < 0.6:
        return f"setoption name Thesis value {rng.choice(('true', 'false'))}"
    return rng.choice(("isready", "usinewgame", "stop", "ponderhit", "gameover win", "usi",
                       f"go depth {rng.randint(1, 3)}", "go btime 0 wtime 0 byoyomi 10", "go infinite", "go mate 50",
                       "go ponder byoyomi 10"))


def _mutate(rng: random.Random, line: str) -> str:
    words = line.split()
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        if op < 0.3 and words:
            words[rng.randrange(len(words))] = rng.choice(NUMBERS + WORDS)
        elif op < 0.5:
            words.insert(rng.randint(0, len(words)), rng.choice(NUMBERS + WORDS))
        elif op < 0.7 and words:
            del words[rng.randrange(len(words))]
        elif op < 0.85:
            text = " ".join(words)
            if text:
                i = rng.randrange(len(text))
                c = chr(rng.choice((0x20, 0x7F, 0xFF, 0x3000, 0x1F600, rng.randint(33, 126))))
                text = text[:i] + c + text[i + 1:]
            words = text.split()
        else:
            words = words[: rng.randint(0, len(words))]
    return " ".join(words)


def junk(rng: random.Random, variant: str) -> str:
    """One line of junk: random words, a mutated valid line, or a known-bad option/go."""
    r = rng.random()
    if r < 0.25:
        return " ".join(rng.choice(WORDS + NUMBERS) for _ in range(rng.randint(0, 8)))
    if r < 0.5:
        return _mutate(rng, _valid(rng, variant))
    if r < 0.7:
        name = rng.choice(OPTION_NAMES)
        tail = rng.choice(("", " value", f" value {rng.choice(NUMBERS + WORDS + VARIANTS)}"))
        return f"setoption name {name}{tail}"
    if r < 0.85:
        key = rng.choice(("depth", "nodes", "btime", "wtime", "byoyomi", "binc", "movetime", "mate", "movestogo"))
        return f"go {key} {rng.choice(NUMBERS)}"
    if r < 0.9:
        return f"position sfen {rng.choice(SFENS)}" + rng.choice(("", " moves 7g7f", " moves 5e4d 1a1b"))
    return rng.choice(("", " ", "\t", "x" * rng.randint(1, 5000), "position", "position sfen", "go go go",
                       "setoption", "setoption name", "position startpos moves", "quit_not"))


def _wait_go(eng: UsiProcess) -> str | None:
    """The answer to the ``go`` just sent: the bestmove/checkmate line, the error line, or None."""
    try:
        while True:
            _, line = eng.read(DEADLINE)
            if line.startswith(("bestmove", "checkmate")):
                return line
            if line.startswith(("info string error: go", "info string error: 'go'")):
                return line
    except EngineTimeoutError:
        return None


def session(seed: int, lines: int = 100, checked_every: int = 8, command: list[str] | None = None) -> Report:
    """Drive one engine process (``komaken usi`` unless ``command`` says otherwise) through ``lines``
    lines, about one in ``checked_every`` a checked block."""
    rng = random.Random(seed)
    rep = Report()
    eng = UsiProcess(command or CMD, name=f"{(command or CMD)[-1]} (fuzz seed {seed})", kill_on_timeout=False)
    try:
        eng.send("usi")
        eng.until("usiok", STARTUP)
        variant = "shogi"
        while rep.lines < lines:
            if rng.randrange(checked_every) == 0:
                variant = rng.choice(VARIANTS)
                pos_line, pos = _played(rng, variant)
                for line in (f"setoption name UCI_Variant value {variant}", pos_line,
                             f"go btime 0 wtime 0 byoyomi {rng.randint(5, 60)}"):
                    eng.send(line)
                rep.lines += 3
                rep.gos += 1
                rep.checked += 1
                answer = _wait_go(eng)
                if answer is None:
                    rep.unanswered += 1
                    rep.problems.append(f"seed {seed}: checked go unanswered at {pos.sfen()}")
                elif not answer.startswith("bestmove") or not is_legal_answer(pos, answer.split()[1]):
                    rep.illegal += 1
                    rep.problems.append(f"seed {seed}: {answer!r} at {pos.sfen()}")
                continue
            line = junk(rng, variant)
            eng.send(line)
            rep.lines += 1
            words = line.split()
            if words and words[0] == "go":
                rep.gos += 1
                eng.send("stop")  # a junk go may be unbounded: its answer must come either way
                rep.lines += 1
                if _wait_go(eng) is None:
                    rep.unanswered += 1
                    rep.problems.append(f"seed {seed}: {line!r} unanswered")
        eng.send("isready")
        eng.until("readyok", DEADLINE)
        if eng.close(timeout=DEADLINE) != 0:
            raise EngineError("did not exit cleanly after quit")
    except EngineError as exc:
        rep.deaths += 1
        err = eng.proc.stderr.read() if eng.proc.stderr and not eng.alive() else ""
        rep.problems.append(f"seed {seed}: engine died: {exc} {err[-500:]}")
    finally:
        eng.kill()
    return rep


__all__ = ["Report", "junk", "session"]
