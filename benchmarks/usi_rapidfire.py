"""Rapid-fire USI: back-to-back searches the way a GUI drives an engine, with the cores loaded.

    python benchmarks/usi_rapidfire.py                    # 1000 searches, 5x5, byoyomi 20 ms
    python benchmarks/usi_rapidfire.py --variant shogi --byoyomi 100 --searches 300

The client sends the next ``position``/``go`` the moment it reads ``bestmove`` (a GUI playing
an engine against itself), while ``--load`` busy-loop processes keep the cores busy, as an
opponent engine and a GUI do.  Every 50th search is a ``go infinite`` followed at once by
``stop``, or a ``go ponder`` followed at once by ``ponderhit``.  Printed: how many ``go`` got
no ``bestmove`` within ``byoyomi + --deadline`` (dropped), illegal answers, and reply times
(the moment ``bestmove`` arrived minus the moment ``go`` was written) over the byoyomi.  The
same run is made against Fairy-Stockfish when ``fairy-stockfish`` is on the PATH, as the peer.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import time

from komaken.shogi import Position
from komaken.usi.client import EngineError, UsiProcess

BUSY = [sys.executable, "-c", "while True: pass"]


def start_load(n: int) -> list[subprocess.Popen[bytes]]:
    """``n`` busy-loop processes (kill them with :func:`stop_load`)."""
    return [subprocess.Popen(BUSY) for _ in range(n)]


def stop_load(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        p.kill()
        p.wait()


def handshake(eng: UsiProcess, variant: str, timeout: float = 120.0) -> None:
    eng.handshake({} if variant == "shogi" else {"UCI_Variant": variant}, timeout)
    eng.send("usinewgame")


def rapid_fire(eng: UsiProcess, variant: str, searches: int, byoyomi: int, deadline: float,
               seed: int = 1) -> dict[str, float]:
    """Play games move after move; returns counts and reply times (ms over byoyomi)."""
    rng = random.Random(seed)
    pos = Position.start(variant)
    dropped = illegal = 0
    over: list[float] = []
    for i in range(searches):
        if pos.outcome() is not None or pos.ply >= 160:
            pos = Position.start(variant)
            eng.send("usinewgame")
        moves = _moves(pos)
        eng.send("position startpos" + (f" moves {moves}" if moves else ""))
        special = i % 50 == 49
        if special and i % 100 == 49:
            t0 = eng.send("go infinite")
            eng.send("stop")
        elif special:
            t0 = eng.send(f"go ponder btime 0 wtime 0 byoyomi {byoyomi}")
            eng.send("ponderhit")
        else:
            t0 = eng.send(f"go btime 0 wtime 0 byoyomi {byoyomi}")
        try:
            t, line = eng.until_timed("bestmove", byoyomi / 1000 + deadline)[-1]
        except EngineError:
            dropped += 1
            if not eng.alive():
                raise
            continue
        if not special:
            over.append((t - t0) * 1000 - byoyomi)
        word = line.split()[1]
        legal = {m.usi(): m for m in pos.legal_moves()}
        if word in legal:
            pos.push(legal[word])
        elif word not in ("resign", "win"):
            illegal += 1
            pos = Position.start(variant)
        else:
            pos = Position.start(variant)
        if rng.random() < 0.02:  # now and then a new game, as a GUI does
            pos = Position.start(variant)
    return {"dropped": dropped, "illegal": illegal, "timed": len(over), "max_over": max(over),
            "median_over": statistics.median(over), "p99_over": sorted(over)[int(0.99 * (len(over) - 1))]}


def _moves(pos: Position) -> str:
    first = pos.copy()
    out = []
    while first.ply:
        out.append(first.pop().usi())
    return " ".join(reversed(out))


def run_one(command: list[str], variant: str, args: argparse.Namespace, name: str) -> dict[str, float] | None:
    eng = UsiProcess(command, name=name, kill_on_timeout=False)
    try:
        handshake(eng, variant)
        return rapid_fire(eng, variant, args.searches, args.byoyomi, args.deadline)
    except EngineError as exc:
        print(f"{name}: {exc}")
        return None
    finally:
        eng.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--searches", type=int, default=1000)
    ap.add_argument("--byoyomi", type=int, default=20, help="ms per move")
    ap.add_argument("--variant", default="minishogi")
    ap.add_argument("--load", type=int, default=2, help="busy-loop processes beside the engine")
    ap.add_argument("--deadline", type=float, default=5.0, help="seconds past byoyomi before a go counts as dropped")
    ap.add_argument("--no-peer", action="store_true", help="skip Fairy-Stockfish")
    args = ap.parse_args()
    engines = [("komaken", [sys.executable, "-m", "komaken", "usi"])]
    fsf = shutil.which("fairy-stockfish") or shutil.which("fairy-stockfish", path="/usr/games")
    if fsf and not args.no_peer:
        engines.append(("fairy-stockfish", [fsf]))
    elif not args.no_peer:
        print("fairy-stockfish not found (apt-get install fairy-stockfish): no peer figures")
    load = start_load(args.load)
    try:
        print(f"{args.searches} searches, {args.variant}, byoyomi {args.byoyomi} ms, {args.load} busy processes "
              f"on {_cores()} cores")
        for name, cmd in engines:
            t = time.perf_counter()
            r = run_one(cmd, args.variant, args, name)
            if r is None:
                continue
            print(f"{name:16s} dropped {r['dropped']:.0f}  illegal {r['illegal']:.0f}  reply over byoyomi (ms): "
                  f"median {r['median_over']:+.1f}  p99 {r['p99_over']:+.1f}  max {r['max_over']:+.1f}  "
                  f"({r['timed']:.0f} timed, {time.perf_counter() - t:.1f} s)")
    finally:
        stop_load(load)


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0))


if __name__ == "__main__":
    main()
