"""USI as a state machine, at scale: random command sequences over every state against real
``komaken usi`` processes on loaded cores, and ``isready`` during a search against Fairy-Stockfish.

    python benchmarks/usi_states.py                          # 20 000 sequences, 2 busy loops
    python benchmarks/usi_states.py --sequences 2000 --probes 100 --workers 1

Each sequence is drawn by ``random_walk`` in ``tests/usi_states.py`` (up to ``--steps`` commands:
``go`` of every kind with millisecond limits, ``isready``, ``position``, ``stop``, ``ponderhit``,
refused ``go`` lines, ``gameover``, ``usinewgame``, ``USI_Ponder``, variant switches that load
and that fail, ``usi``, now and then ``quit``) and checked there: every ``isready`` answered
``readyok``, every accepted ``go`` exactly one legal ``bestmove`` in order, refused ones never,
``quit`` ends the process; each read waits at most ``--deadline`` seconds.  ``--workers``
engines run side by side, each driven from a process of its own, while ``--load`` busy-loop
processes (ended after ``--max-minutes`` whatever happens) keep the cores busy.

Printed: sequences, commands, ``go`` accepted / answered legally / refused, hangs (a read past
its deadline), deaths, other breaches; ``isready`` → ``readyok`` latency (median, p99, max) over
all and over those sent with a search under way.  Then the peer figure from the same run:
``--probes`` times ``go infinite``, a pause of 5-50 ms, ``isready``, ``stop`` — the same
probe against ``komaken usi`` and against ``/usr/games/fairy-stockfish`` (shogi).  Beside the
engines, for ``--floor-seconds``, a line goes through ``cat`` and back every 10 ms: the part of
any answer's time that is the loaded machine's, not the engine's.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from komaken.usi.client import EngineError, UsiProcess  # noqa: E402
from usi_states import Breach, Stats, Subprocess, UsiModel, random_walk  # noqa: E402
from usi_support import CMD  # noqa: E402

FSF = "/usr/games/fairy-stockfish"


def start_load(n: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    """``n`` busy loops that end by themselves after ``seconds``."""
    code = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]


def stop_load(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        p.kill()
        p.wait()


class Tally:
    """What one worker saw: its counters, and the sequences that broke a rule, by kind."""

    def __init__(self) -> None:
        self.stats = Stats()
        self.hangs = self.deaths = self.other = 0
        self.problems: list[str] = []

    def breach(self, exc: Breach) -> None:
        text = str(exc)
        if "no answer within" in text or "did not end" in text:
            self.hangs += 1
        elif "died" in text or "went away" in text:
            self.deaths += 1
        else:
            self.other += 1
        if len(self.problems) < 10:
            self.problems.append(text)


def worker(seed: int, sequences: int, steps: int, deadline: float, stop_at: float) -> Tally:
    """One engine driven through ``sequences`` random walks, in a process of its own: a worker's
    legality checks then never hold another worker's reader thread off the interpreter, so
    the time a line arrives is the engine's, not the harness's."""
    rng = random.Random(seed)
    tally = Tally()
    model = UsiModel(Subprocess, deadline, tally.stats)
    done = 0
    while done < sequences and time.time() < stop_at:
        try:
            random_walk(model, rng, steps)
        except Breach as exc:
            tally.breach(exc)
            if model.transport is not None:  # start afresh: what the broken one owed is unknown
                model.transport.proc.kill()
                model.transport = None
                model.pending.clear()
                model.refusals = 0
        done += 1
    if model.transport is not None:
        model.quit()
    return tally


def pipe_floor(seconds: float, interval: float = 0.01) -> list[float]:
    """Round trips of a line through ``cat`` for ``seconds``, one every ``interval``: what the
    loaded machine's scheduler and pipes add to any answer, with no engine in the way."""
    cat = UsiProcess(["cat"], name="cat", kill_on_timeout=False)
    out: list[float] = []
    end = time.time() + seconds
    try:
        while time.time() < end:
            t0 = cat.send("isready")
            t, _ = cat.until_timed("isready", 10.0)[-1]
            out.append(t - t0)
            time.sleep(interval)
    finally:
        cat.close()
    return out


def probe(command: list[str], options: dict[str, str], probes: int, seed: int) -> tuple[list[float], int]:
    """``isready`` latencies (seconds) while ``go infinite`` searches; and how many went unanswered."""
    rng = random.Random(seed)
    eng = UsiProcess(command, name=command[0], kill_on_timeout=False)
    out: list[float] = []
    missed = 0
    try:
        eng.handshake(options, timeout=120)
        for _ in range(probes):
            eng.send("position startpos moves 7g7f 3c3d")
            eng.send("go infinite")
            time.sleep(rng.uniform(0.005, 0.05))
            t0 = eng.send("isready")
            try:
                t, _ = eng.until_timed("readyok", 10.0)[-1]
                out.append(t - t0)
            except EngineError:
                missed += 1
            eng.send("stop")
            eng.until("bestmove", 10.0)
    finally:
        eng.close()
    return out, missed


def _ms(xs: list[float]) -> str:
    if not xs:
        return "none"
    xs = sorted(xs)
    p99 = xs[min(len(xs) - 1, int(0.99 * len(xs)))]
    return (f"n {len(xs)}, median {statistics.median(xs) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
            f"max {xs[-1] * 1e3:.2f} ms, within 100 ms {sum(x <= 0.1 for x in xs)}")


def report(tallies: list[Tally], seconds: float) -> None:
    s = Stats()
    for t in tallies:
        w = t.stats
        for k in ("sequences", "commands", "gos", "answered", "refused", "isready", "quits"):
            setattr(s, k, getattr(s, k) + getattr(w, k))
        s.latencies += w.latencies
        s.busy_latencies += w.busy_latencies
        s.setup_latencies += w.setup_latencies
    print(f"komaken usi: {s.sequences} sequences, {s.commands} commands in {seconds:.0f} s; "
          f"{s.gos} go: {s.answered} answered with a legal move, {s.refused} refused; {s.quits} quit")
    print(f"  hangs {sum(t.hangs for t in tallies)}, deaths {sum(t.deaths for t in tallies)}, "
          f"other breaches {sum(t.other for t in tallies)}")
    for t in tallies:
        for p in t.problems:
            print("  ", p[:300])
    print(f"  isready -> readyok, search pending:      {_ms(s.busy_latencies)}")
    print(f"  isready -> readyok, idle:                {_ms(s.latencies)}")
    print(f"  isready -> readyok, after a new variant: {_ms(s.setup_latencies)} (warms the new engine up)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sequences", type=int, default=20_000)
    ap.add_argument("--steps", type=int, default=8, help="at most this many commands per sequence")
    ap.add_argument("--workers", type=int, default=2, help="engines run side by side")
    ap.add_argument("--load", type=int, default=2, help="busy-loop processes")
    ap.add_argument("--deadline", type=float, default=10.0, help="seconds any answer may take")
    ap.add_argument("--probes", type=int, default=300, help="isready-during-search probes per engine")
    ap.add_argument("--max-minutes", type=float, default=90.0)
    ap.add_argument("--floor-seconds", type=float, default=300.0,
                    help="how long a line goes through cat and back beside the engines")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    stop_at = time.time() + args.max_minutes * 60
    load = start_load(args.load, args.max_minutes * 60 + 600)
    try:
        t0 = time.perf_counter()
        per = -(-args.sequences // args.workers)
        with ProcessPoolExecutor(args.workers + 1, mp_context=multiprocessing.get_context("spawn")) as pool:
            jobs = [pool.submit(worker, args.seed + k, per, args.steps, args.deadline, stop_at)
                    for k in range(args.workers)]
            floor = pool.submit(pipe_floor, args.floor_seconds)
            tallies = [j.result() for j in jobs]
            print(f"the same load, a line through cat and back ({args.floor_seconds:.0f} s while the engines ran): "
                  f"{_ms(floor.result())}")
        report(tallies, time.perf_counter() - t0)
        print(f"isready during go infinite ({args.probes} probes each, same load, one engine at a time):")
        ours, missed = probe(CMD, {}, args.probes, args.seed)
        print(f"  komaken usi:       {_ms(ours)}, unanswered {missed}")
        fsf = FSF if Path(FSF).exists() else shutil.which("fairy-stockfish")
        if fsf is None:
            print("  fairy-stockfish not found: no peer figure")
        else:
            theirs, missed = probe([fsf], {"UCI_Variant": "shogi"}, args.probes, args.seed)
            print(f"  fairy-stockfish:   {_ms(theirs)}, unanswered {missed}")
    finally:
        stop_load(load)


if __name__ == "__main__":
    main()
