"""Does komaken keep its clock under load?  Refereed games against Fairy-Stockfish beside a busy process.

    python benchmarks/clock_load.py                        # 5x5, byoyomi 200 ms, until 5000 komaken replies
    python benchmarks/clock_load.py --size 9 --replies 1000   # 9x9, byoyomi 300 ms
    python benchmarks/clock_load.py --busy 0 --replies 300    # the same without the busy process

The games are those of ``benchmarks/strength.py`` (its referee, engine start-up and game loop):
``komaken usi`` against ``fairy-stockfish`` (``--skill``, default 20), ``go btime 0 wtime 0
byoyomi B`` every move, each opening played with both colours.  The openings are quiet random
4-ply lines (nothing captured; at the end the side to move is neither in check nor able to
capture), drawn afresh from ``--seed``.  Besides the two engines the script starts ``--busy``
pure-Python spin loops (default 1) and stops them when it ends, so the two cores carry two
engines, one busy process and whatever else the machine runs.

Every reply is timed by the referee, from writing ``go`` to reading ``bestmove``.  Printed for
both engines: how many replies, the median, p99 and longest reply, and how many came later than
byoyomi + 50 ms (the referee's limit: such a reply loses the game on time); and the load average
through the run (sampled before each game).  ``--log FILE`` writes every reply as CSV
(``engine,ply,ms,load1``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from komaken.usi.client import EngineError, UsiProcess  # noqa: E402
from strength import BYOYOMI, KOMAKEN, VARIANT, Tally, machine, play, quiet_openings, start  # noqa: E402
from usi_rapidfire import start_load, stop_load  # noqa: E402

NAMES = {"komaken": "komaken", "peer": "Fairy-SF"}


def figures(replies: list[float], limit: float) -> str:
    """``n 5012  median 152.3  p99 171.0  max 190.2 ms  over 250 ms: 0``."""
    if not replies:
        return "no replies"
    s = sorted(replies)
    p99 = s[min(len(s) - 1, int(0.99 * len(s)))]
    over = sum(r > limit for r in s)
    return (f"n {len(s):5d}  median {statistics.median(s):6.1f}  p99 {p99:6.1f}  max {s[-1]:6.1f} ms  "
            f"over {limit:.0f} ms: {over}")


def run(fsf: str, size: int, skill: int, want: int, byoyomi: int, margin: float, busy: int, seed: int,
        log: Path | None, komaken_options: dict[str, str], openings: int = 50) -> tuple[Tally, list[float]]:
    variant = VARIANT[size]

    def new_komaken() -> UsiProcess:
        return start(KOMAKEN, {"UCI_Variant": variant, **komaken_options}, "komaken")

    def new_fsf() -> UsiProcess:
        return start([fsf], {"UCI_Variant": variant, "Skill Level": str(skill)}, "fairy-stockfish")

    restart = {"komaken": new_komaken, "peer": new_fsf}
    engines = {"komaken": new_komaken(), "peer": new_fsf()}
    t = Tally()
    loads: list[float] = []
    book = quiet_openings(size, openings, seed)  # cycled: a long run replays them, the games soon part
    load = start_load(busy)
    began = time.perf_counter()
    try:
        g = 0
        while len(t.replies["komaken"]) < want:
            loads.append(os.getloadavg()[0])
            sente = "komaken" if g % 2 == 0 else "peer"
            r = play(engines, restart, sente, book[(g // 2) % len(book)], size, byoyomi, margin, t)
            t.wins += r == 1.0
            t.losses += r == 0.0
            t.draws += r == 0.5
            g += 1
            if g % 10 == 0:
                k, f = t.replies["komaken"], t.replies["peer"]
                print(f"  {g} games, {time.perf_counter() - began:.0f} s, load {loads[-1]:.2f}: komaken "
                      f"{len(k)} replies (max {max(k, default=0):.0f} ms), Fairy-SF {len(f)} "
                      f"(max {max(f, default=0):.0f} ms); time losses {t.time_losses}", flush=True)
    except EngineError as exc:
        print(f"  stopped: {exc}")
    finally:
        stop_load(load)
        for eng in engines.values():
            eng.close()
    if log is not None:
        with log.open("w", encoding="utf-8") as f:
            f.write("engine,index,ms,sent\n")
            for who, rs in t.replies.items():
                rows = enumerate(zip(rs, t.sent[who], strict=True))
                f.writelines(f"{who},{i},{r:.2f},{s:.6f}\n" for i, (r, s) in rows)
    return t, loads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, choices=(5, 9), default=5)
    ap.add_argument("--replies", type=int, default=5000, help="play games until komaken has made this many replies")
    ap.add_argument("--skill", type=int, default=20, help="Fairy-Stockfish Skill Level")
    ap.add_argument("--byoyomi", type=float, default=None, help="seconds a move (default 0.2 on 5x5, 0.3 on 9x9)")
    ap.add_argument("--margin", type=float, default=0.05, help="seconds past byoyomi before a reply loses on time")
    ap.add_argument("--busy", type=int, default=1, help="busy-loop processes the script runs beside the engines")
    ap.add_argument("--seed", type=int, default=37, help="seed of the quiet opening set")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a USI option for komaken")
    ap.add_argument("--command", default=None, help="komaken's command line (default: this Python's -m komaken usi)")
    ap.add_argument("--log", type=Path, default=None, help="write every reply time to this CSV file")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))  # the busy process and engines are stopped
    options = dict(item.split("=", 1) for item in args.option)
    if args.command:
        KOMAKEN[:] = shlex.split(args.command)
    fsf = shutil.which("fairy-stockfish") or shutil.which("fairy-stockfish", path="/usr/games")
    if fsf is None:
        sys.exit("fairy-stockfish not found: install Debian's package (apt-get install fairy-stockfish)")
    byoyomi = round(args.byoyomi * 1000) if args.byoyomi else BYOYOMI[args.size]
    limit = byoyomi + args.margin * 1000
    print(machine(), flush=True)
    print(f"{args.size}x{args.size}, byoyomi {byoyomi} ms, limit {limit:.0f} ms; komaken vs Fairy-Stockfish Skill "
          f"{args.skill}; {args.busy} busy process(es); until {args.replies} komaken replies", flush=True)
    t0 = time.perf_counter()
    t, loads = run(fsf, args.size, args.skill, args.replies, byoyomi, args.margin * 1000, args.busy, args.seed,
                   args.log, options)
    games = t.wins + t.losses + t.draws
    print(f"{games} games in {time.perf_counter() - t0:.0f} s, komaken W/L/D {t.wins}/{t.losses}/{t.draws}; "
          f"illegal moves komaken {t.illegal['komaken']}, Fairy-SF {t.illegal['peer']}; "
          f"losses on time komaken {t.time_losses['komaken']}, Fairy-SF {t.time_losses['peer']}")
    for who in ("komaken", "peer"):
        print(f"  {NAMES[who]:9s} {figures(t.replies[who], limit)}")
    k, f = t.replies["komaken"], t.replies["peer"]
    if k and f:
        print(f"  longest reply komaken / Fairy-SF: {max(k) / max(f):.2f}")
    if loads:
        print(f"  load average (1 min, before each game): min {min(loads):.2f}  mean {statistics.mean(loads):.2f}  "
              f"max {max(loads):.2f};  at the end {machine()}")


if __name__ == "__main__":
    main()
