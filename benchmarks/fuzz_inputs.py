"""Mutation fuzzing of the rules layer's text inputs: only documented errors, no hangs.

    python benchmarks/fuzz_inputs.py [--n 100000] [--seed 1] [--limit 1.0] [--surface sfen ...]

For each surface — SFEN, USI move text, variant TOML files, piece-value TOML files, reversi
text and tic-tac-toe text — it mutates valid inputs (character flips, inserted ASCII and
Unicode digits, look-alike letters, huge numbers and invalid bytes, deletions, duplicated
slices, truncation) and reads each one with a per-input time limit.  An input either reads
(and then must round-trip: SFEN, variant TOML) or raises the surface's documented
:class:`komaken.errors.KomakenError` subclass.  Anything else is printed with examples:
undocumented exceptions, broken round trips, and hangs (inputs over the time limit).

Not part of the test suite (``tests/test_fuzz_inputs.py`` runs the same idea for seconds).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from komaken.errors import IllegalMoveError, InvalidPositionError, KomakenError, VariantError
from komaken.reversi import Reversi, ReversiMove
from komaken.shogi import Move, Position
from komaken.shogi.engine.values import PieceValues
from komaken.shogi.variant import BUILTIN, load_variant, variant_from_toml
from komaken.tictactoe import TicTacToe, TicTacToeMove

FRAGMENTS = ["0", "1", "9", "10", "39", "82", "127", "128", "255", "①", "²", "٣", "９", "Ｐ", "ſ", "K", "k", "+",
             "/", " ", "-", "*", "P", "p", "b", "w", "\x00", "\n", "\t", '"', "'", "\\", "=", "[", "]", "{", "}",
             ",", ".", "é", "\u3000", "\u200b", "\ud800", "99999999999999999999", "1e400", "-1e400", "nan", "inf",
             "-1", "0x10", "1_000", "9223372036854775808", "-9223372036854775809", "1" * 5000]
CHARS = "".join(f for f in FRAGMENTS if len(f) == 1)
BAD_BYTES = [b"\xff", b"\xfe", b"\xc3", b"\xe3\x81", b"\xef\xbb\xbf", b"\x80", b"\xed\xa0\x80"]


class Hang(Exception):
    """An input took longer than the per-input time limit."""


def _alarm(signum: int, frame: object) -> None:
    raise Hang


def mutate(text: str, rng: random.Random) -> str:
    """One to five random edits of ``text``."""
    for _ in range(rng.randint(1, 5)):
        op = rng.random()
        i = rng.randint(0, len(text))
        if op < 0.3 and text:  # flip one character
            i = min(i, len(text) - 1)
            ch = rng.choice(CHARS) if rng.random() < 0.7 else chr(rng.randint(1, 0x2FFFF))
            text = text[:i] + ch + text[i + 1:]
        elif op < 0.65:  # insert a fragment
            text = text[:i] + rng.choice(FRAGMENTS) + text[i:]
        elif op < 0.8:  # delete a few characters
            text = text[:i] + text[i + rng.randint(1, 3):]
        elif op < 0.9:  # duplicate a slice
            j = rng.randint(i, min(len(text), i + 12))
            text = text[:j] + text[i:j] + text[j:]
        else:  # truncate
            text = text[:i]
    return text


def mutate_bytes(text: str, rng: random.Random) -> bytes:
    data = mutate(text, rng).encode("utf-8", "surrogatepass")
    if rng.random() < 0.3:
        i = rng.randint(0, len(data))
        data = data[:i] + rng.choice(BAD_BYTES) + data[i:]
    return data


@dataclass
class Tally:
    name: str
    inputs: int = 0
    read: int = 0
    documented: int = 0
    undocumented: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    round_trip: int = 0
    hangs: int = 0
    hang_examples: list[str] = field(default_factory=list)
    slowest: float = 0.0

    def note(self, kind: str, sample: object) -> None:
        self.undocumented[kind] += 1
        shown = repr(sample)
        self.examples.setdefault(kind, [])
        if len(self.examples[kind]) < 3:
            self.examples[kind].append(shown if len(shown) < 160 else shown[:160] + "...")


SFENS = [
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "shogi"),
    ("rbsgk/4p/5/P4/KGSBR b - 1", "minishogi"),
    ("rbnsgk/5p/6/6/P5/KGSNBR b - 1", "judkins"),
    ("8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124", "shogi"),
    ("rb1gk/4p/5/P4/KG1BR w Ss 8", "minishogi"),
    ("k8/9/9/9/9/9/9/9/8K b 2R2B4G4S4N4L18P 1", "shogi"),
]


def fuzz_sfen(rng: random.Random) -> tuple[Callable[[], object], tuple[type[Exception], ...], object]:
    seed, variant = rng.choice(SFENS)
    text = mutate(seed, rng)

    def run() -> object:
        pos = Position.from_sfen(text, variant)
        again = Position.from_sfen(pos.sfen(), variant)
        if again != pos or again.sfen() != pos.sfen():
            raise AssertionError("round trip")
        pos.legal_moves()
        return pos

    return run, (InvalidPositionError,), text


MOVES = ["7g7f", "2b3c+", "P*5e", "5d5c", "1a1b", "S*2c", "8h2b+", "5e5d", "4e5d"]
_POSITIONS = [Position.from_sfen(s, v) for s, v in SFENS[:5]]


def fuzz_usi(rng: random.Random) -> tuple[Callable[[], object], tuple[type[Exception], ...], object]:
    text = mutate(rng.choice(MOVES), rng)
    pos = rng.choice(_POSITIONS)

    def run() -> object:
        move = Move.from_usi(text)
        if Move.from_usi(move.usi()) != move:
            raise AssertionError("round trip")
        before = pos.sfen()
        try:
            pos.push_usi(text)
        except IllegalMoveError:
            if pos.sfen() != before:
                raise AssertionError("position changed by a refused move") from None
            raise
        pos.pop()
        return move

    return run, (IllegalMoveError,), text


TOMLS = [v.to_toml() for v in BUILTIN.values()] + [
    (Path(__file__).parent.parent / "src" / "komaken" / "variants" / "shogi7x7.toml").read_text(encoding="utf-8")]
_SHM = "/dev/shm" if os.path.isdir("/dev/shm") else None  # files in memory: opening them stays cheap
_TMP = Path(tempfile.mkdtemp(prefix="komaken-fuzz-", dir=_SHM))


def fuzz_variant(rng: random.Random) -> tuple[Callable[[], object], tuple[type[Exception], ...], object]:
    data = mutate_bytes(rng.choice(TOMLS), rng)
    path = _TMP / "fuzz.toml"

    def run() -> object:
        path.write_bytes(data)
        variant = load_variant(path)
        if variant_from_toml(variant.to_toml()) != variant:
            raise AssertionError("round trip")
        Position.start(variant).legal_moves()
        return variant

    return run, (VariantError,), data


VALUES = [(Path(__file__).parent.parent / "examples" / "piece_values_5x5.toml").read_text(encoding="utf-8"),
          'P = 100\nR = 2000\n"+R" = 2200\n[hand]\nP = 120\n', "[values]\nB = 1500\nG = 1200\n"]


def fuzz_values(rng: random.Random) -> tuple[Callable[[], object], tuple[type[Exception], ...], object]:
    data = mutate_bytes(rng.choice(VALUES), rng)
    path = _TMP / "values.toml"

    def run() -> object:
        path.write_bytes(data)
        return PieceValues.from_toml(path, "minishogi").arrays()

    return run, (KomakenError,), data


REVERSI = [Reversi.start().to_text(), "f5d6c3d3c4", "f5 d6 pass c3 d3", "d3", "pass", "X" * 64 + " O",
           "黒" * 32 + "白" * 32 + " 白"]


def fuzz_reversi(rng: random.Random) -> tuple[Callable[[], object], tuple[type[Exception], ...], object]:
    text = mutate(rng.choice(REVERSI), rng)
    read = rng.choice([Reversi.from_text, Reversi.from_transcript, ReversiMove.parse, Reversi.start().push_text])

    def run() -> object:
        result = read(text)
        if isinstance(result, Reversi) and Reversi.from_text(result.to_text()) != result:
            raise AssertionError("round trip")
        return result

    return run, (InvalidPositionError, IllegalMoveError), text


TICTACTOE = ["X.O/.X./... O", "XOX/OXO/OX. X", "5", "7", ".........", "X........ O"]


def fuzz_tictactoe(rng: random.Random) -> tuple[Callable[[], object], tuple[type[Exception], ...], object]:
    text = mutate(rng.choice(TICTACTOE), rng)
    read = rng.choice([TicTacToe.from_text, TicTacToeMove.parse, TicTacToe.start().push_text])

    def run() -> object:
        result = read(text)
        if isinstance(result, TicTacToe) and TicTacToe.from_text(result.to_text()) != result:
            raise AssertionError("round trip")
        return result

    return run, (InvalidPositionError, IllegalMoveError), text


SURFACES = {"sfen": fuzz_sfen, "usi-move": fuzz_usi, "variant-toml": fuzz_variant, "piece-values": fuzz_values,
            "reversi": fuzz_reversi, "tictactoe": fuzz_tictactoe}


def run_surface(name: str, n: int, seed: int, limit: float) -> Tally:
    rng = random.Random(f"{seed}:{name}")
    tally = Tally(name)
    make = SURFACES[name]
    for _ in range(n):
        run, documented, sample = make(rng)
        tally.inputs += 1
        t = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            run()
            tally.read += 1
        except Hang:
            tally.hangs += 1
            if len(tally.hang_examples) < 3:
                tally.hang_examples.append(repr(sample)[:160])
        except AssertionError as exc:
            tally.round_trip += 1
            tally.note(f"broken {exc}", sample)
        except documented:
            tally.documented += 1
        except Exception as exc:  # noqa: BLE001 - counting what escapes is the point
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            where = f"{Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}" if tb else "?"
            tally.note(f"{type(exc).__name__} at {where}", sample)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - t
        tally.slowest = max(tally.slowest, elapsed)
        if elapsed > limit and tally.hangs == 0:  # an uninterruptible kernel ran over the limit
            tally.hangs += 1
            tally.hang_examples.append(repr(sample)[:160])
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="mutated inputs per surface")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=float, default=1.0, help="per-input time limit in seconds")
    ap.add_argument("--surface", action="append", choices=sorted(SURFACES), help="only these (repeatable)")
    args = ap.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    Position.start("minishogi").legal_moves()  # compile / load the kernels before timing anything
    print(f"{'surface':13} {'inputs':>8} {'read':>8} {'documented':>10} {'undocumented':>12} {'round trip':>10} "
          f"{'hangs':>5} {'slowest':>8} {'time':>7}")
    failures = 0
    for name in args.surface or list(SURFACES):
        t = time.perf_counter()
        tally = run_surface(name, args.n, args.seed, args.limit)
        bad = sum(tally.undocumented.values()) - tally.round_trip
        failures += bad + tally.round_trip + tally.hangs
        print(f"{name:13} {tally.inputs:8d} {tally.read:8d} {tally.documented:10d} {bad:12d} {tally.round_trip:10d} "
              f"{tally.hangs:5d} {tally.slowest:7.3f}s {time.perf_counter() - t:6.1f}s", flush=True)
        for kind, count in tally.undocumented.items():
            print(f"    {count} x {kind}: " + " | ".join(tally.examples[kind]))
        for example in tally.hang_examples:
            print(f"    hang: {example}")
    for p in _TMP.iterdir():
        os.unlink(p)
    _TMP.rmdir()
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
