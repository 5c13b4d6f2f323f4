"""Fuzz the record readers with mutated real records (not part of the test suite).

Each input is a real file of the corpus (``../shared/corpus/records`` next to the repository;
USI inputs are the corpus games written as USI lines), mutated a few times: byte flips, line
drops, duplications and swaps, random Unicode put in, truncation.  It goes through
:func:`komaken.records.decode` and the format's reader, and, when it is accepted, is written back
in every format and read again.  The run prints, per format: inputs, accepted, documented errors
(:class:`RecordError`), undocumented exceptions (with examples), round trips that changed the
game, and hangs (inputs over the per-input time limit).

    python benchmarks/fuzz_records.py                    # 100 000 inputs per format, 2 workers
    python benchmarks/fuzz_records.py -n 2000 --workers 1 --formats kif csa
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import signal
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "records"
SUFFIXES = {"kif": (".kif", ".kifu"), "ki2": (".ki2", ".ki2u"), "csa": (".csa",)}
ALPHABET = ("0123456789+-*/%$:'PINTV ,\n()（）▲△▽☗同成不打投了まで手：|・v"
            "歩香桂銀金角飛玉王と杏圭全馬龍竜一二三四五六七八九十〇１２３４５６７８９\ufeff²①")


class Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


_SEEDS: dict[str, list[tuple[str, bytes]]] = {}
MAX_LINES = 120  # long games are cut (the headers, start and first moves are where readers differ)


def seeds(fmt: str) -> list[tuple[str, bytes]]:
    """(file name, bytes) of the corpus files of a format (USI: the corpus games as USI lines),
    each cut to its first ``MAX_LINES`` lines."""
    from komaken.records import FORMATS, dumps, read

    assert fmt in FORMATS
    if fmt in _SEEDS:
        return _SEEDS[fmt]
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file())
    if fmt != "usi":
        out = [(p.name, b"\n".join(p.read_bytes().split(b"\n")[:MAX_LINES]))
               for p in files if p.suffix.lower() in SUFFIXES[fmt]]
    else:
        out = []
        for p in files:
            try:
                rec = read(p)
            except Exception:
                continue
            out.append((p.stem + ".usi", dumps(rec, "usi").encode()))
    _SEEDS[fmt] = out
    return out


def mutate(rng: random.Random, data: bytes) -> bytes:
    """A few random edits: byte flips, line drops/duplications/swaps, Unicode put in, a cut."""
    if rng.random() < 0.3:
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    text = data.decode("utf-8", errors="surrogateescape")
    lines = text.split("\n")
    for _ in range(rng.randint(1, 5)):
        op = rng.randrange(7)
        i = rng.randrange(len(lines)) if lines else 0
        if not lines:
            lines = [""]
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op in (3, 4):
            line = lines[i]
            k = rng.randrange(len(line) + 1)
            junk = "".join(rng.choice(ALPHABET) if rng.random() < 0.8 else chr(rng.randrange(0x20, 0x3000))
                           for _ in range(rng.randint(1, 4)))
            lines[i] = line[:k] + junk + line[k + (rng.randint(0, 3) if op == 4 else 0):]
        elif op == 5:
            lines = lines[: i + 1]
        else:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        if not lines:
            lines = [""]
    return "\n".join(lines).encode("utf-8", errors="surrogateescape")


def one(fmt: str, name: str, data: bytes) -> str:
    """'ok', 'error' (documented) or 'roundtrip: …'; other exceptions propagate."""
    from komaken.records import RecordError, decode, dumps, parse

    try:
        text = decode(data, name)
        rec = parse(text, fmt, file=name)  # type: ignore[arg-type]
    except RecordError:
        return "error"
    for out in ("kif", "ki2", "csa", "usi"):
        try:
            again = parse(dumps(rec, out), out)  # type: ignore[arg-type]
        except RecordError as exc:
            return f"roundtrip: {out}: {exc}"
        if again.moves != rec.moves or again.initial_sfen.split()[:3] != rec.initial_sfen.split()[:3]:
            return f"roundtrip: {out}: a different game"
    return "ok"


def worker(args: tuple[str, int, int, float]) -> tuple[Counter[str], list[str]]:
    fmt, seed, count, limit = args
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(seed)
    pool = seeds(fmt)
    one(fmt, *pool[0])  # warm-up: the first parse loads or compiles the numba kernels, not a hang
    counts: Counter[str] = Counter()
    examples: list[str] = []
    for _ in range(count):
        name, data = rng.choice(pool)
        data = mutate(rng, data)
        counts["inputs"] += 1
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            verdict = one(fmt, name, data)
        except Hang:
            verdict = "hang"
            examples.append(f"hang ({limit}s): {name}: {data[:200]!r}")
        except Exception as exc:
            verdict = "undocumented"
            if len(examples) < 10:
                where = traceback.extract_tb(exc.__traceback__)[-1]
                examples.append(f"{type(exc).__name__}: {exc} at {Path(where.filename).name}:{where.lineno}"
                                f" — {name}: {data[:200]!r}")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if verdict.startswith("roundtrip"):
            counts["roundtrip"] += 1
            if len(examples) < 10:
                examples.append(f"{verdict} — {name}: {data[:200]!r}")
        else:
            counts[verdict] += 1
    return counts, examples


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=100_000, help="inputs per format")
    ap.add_argument("--formats", nargs="+", default=["kif", "ki2", "csa", "usi"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=float, default=5.0, help="seconds per input before it counts as a hang")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not CORPUS.is_dir():
        raise SystemExit(f"no corpus at {CORPUS}")
    chunk = 500
    print(f"{'format':6} {'inputs':>8} {'accepted':>9} {'RecordError':>12} {'undocumented':>13} "
          f"{'roundtrip':>10} {'hangs':>6} {'seconds':>8}")
    with mp.get_context("fork").Pool(args.workers) as pool:
        for fmt in args.formats:
            t0 = time.perf_counter()
            jobs = [(fmt, args.seed * 1_000_003 + i, min(chunk, args.n - i * chunk), args.limit)
                    for i in range((args.n + chunk - 1) // chunk)]
            total: Counter[str] = Counter()
            examples: list[str] = []
            for counts, ex in pool.imap_unordered(worker, jobs):
                total.update(counts)
                examples += ex
            print(f"{fmt:6} {total['inputs']:>8} {total['ok']:>9} {total['error']:>12} {total['undocumented']:>13} "
                  f"{total['roundtrip']:>10} {total['hang']:>6} {time.perf_counter() - t0:>8.0f}", flush=True)
            for e in examples[:10]:
                print("    " + e[:400], flush=True)


if __name__ == "__main__":
    main()
