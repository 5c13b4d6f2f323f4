"""Play every database docs/piece-values-by-board-size.md is built from, into one directory.

    python examples/values/play.py out/            # all of it, cheapest first; resumable
    python examples/values/play.py out/ --list     # the commands, with the CPU each took here
    python examples/values/play.py out/ --only ctrl7-ex2-s1,ctrl7-fsf

Each step is one ``komaken`` command (a study, a method-B run, an experiment or a label file).
Every command continues its database, so a stopped run picks up where it was: run the same line
again.  A step whose database is complete takes a second.  Every game is a function of the build,
the variant, the seed and the game's index (not of the worker count), so one build plays the same
databases on any machine; ``played.tsv`` in the directory records, per step, the commit that ran
it, its wall and CPU seconds.

Design (the paper's §2 and §6): the published studies at seed 0, one exchange-start study per
board at the size the pre-registered ±0.05 gold rule reached, which the report reads; then the
fresh studies at seed 1 (10,000 games a board, the start designs, fixed depth, ``ctrl4``, the
odds starts) that model uncertainty, promotion, search strength and the labels read.  The build
of 2026-11-30 plays the published games exactly (minishogi's 10,000 published games: every
value and interval to the last digit).  Then ``python examples/values/reproduce.py out/ --out
out/paper`` builds every table and figure.  The whole set is about 25 CPU-hours on this
machine's two cores (the 9×9 study 6 of them).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
FSF = "/usr/games/fairy-stockfish"


@dataclass(frozen=True)
class Step:
    name: str  #: the database or label file it makes, without suffix
    args: tuple[str, ...]  #: the komaken command, ``{out}`` standing for the directory
    cpu: float  #: CPU seconds it took on the 2-core machine (for ordering and for --list)


def _study(name: str, variant: str, games: int, cpu: float, *extra: str, design: str = "exchange",
           seed: int = 1) -> Step:
    imbalance = ("--odds-mode", design) if "--odds" in extra else ("--imbalance", "2", "--imbalance-mode", design)
    return Step(name, ("values", "selfplay", "--variant", variant, "--games", str(games), *imbalance, *extra,
                       "--seed", str(seed), "--db", f"{{out}}/{name}.db", "-q"), cpu)


def _label(name: str, study: str, games: int, cpu: float, engine: str = FSF, nodes: int = 5000,
           *options: str) -> Step:
    opts = [x for o in options for x in ("--option", o)]
    return Step(name, ("values", "label", "--db", f"{{out}}/{study}.db", "--engine", engine, "--nodes", str(nodes),
                       "--games", str(games), *opts, "--labels", f"{{out}}/{name}.sqlite", "-q"), cpu)


def _experiment(name: str, toml: str, cpu: float, *extra: str) -> Step:
    return Step(name, ("experiment", "run", str(HERE / toml) if "/" not in toml else toml,
                       "--db", f"{{out}}/{name}.db", *extra, "-q"), cpu)


CTRL_INI = f"VariantPath={HERE / 'fsf-ctrl.ini'}"

#: The published studies (seed 0): method A at the size where each board's values reached ±0.05 gold.
HEADLINE = {"minishogi": (10000, 270), "ctrl5": (10000, 280), "ctrl6": (42000, 1350), "judkins": (47000, 1430),
            "ctrl7": (84628, 3560), "ctrl8": (121160, 5200), "shogi7x7": (56000, 5000), "ctrl9": (200000, 5550),
            "shogi": (262000, 21750)}
#: The fresh studies (seed 1, 10,000 games) that model uncertainty, promotion and labels read.
FRESH = {"minishogi": 275, "ctrl5": 280, "ctrl6": 630, "judkins": 630, "ctrl7": 675, "ctrl8": 630, "ctrl9": 490,
         "shogi7x7": 1680, "shogi": 1870}

STEPS: list[Step] = [
    *(_study(f"{v}-ex2", v, n, cpu, seed=0) for v, (n, cpu) in HEADLINE.items()),
    _study("minishogi-n10000-ex2", "minishogi", 4000, 940, "--nodes", "10000", seed=0),  # §3.7, 10⁴ nodes
    *(_study(f"{v}-ex2-s1", v, 10000, cpu) for v, cpu in FRESH.items()),
    _study("ctrl4-ex2-s1", "ctrl4", 20000, 275),  # §3.3, the out-of-sample test
    _study("minishogi-remove-s1", "minishogi", 10000, 300, design="remove"),  # §3.2 start designs
    _study("minishogi-transfer-s1", "minishogi", 10000, 230, design="transfer"),
    _study("minishogi-odds-remove-s1", "minishogi", 6000, 210, "--odds", "B,R,S", design="remove"),  # §3.5
    _study("minishogi-odds-transfer-s1", "minishogi", 6000, 160, "--odds", "B,R,S", design="transfer"),
    # §3.7 search strength: fixed depth on every board, and 10⁴ nodes
    _study("minishogi-ex2-d2-s1", "minishogi", 1500, 25, "--depth", "2"),
    _study("minishogi-ex2-d3-s1", "minishogi", 1500, 105, "--depth", "3"),
    _study("judkins-ex2-d2-s1", "judkins", 1500, 45, "--depth", "2"),
    _study("judkins-ex2-d3-s1", "judkins", 1200, 190, "--depth", "3"),
    _study("shogi7x7-ex2-d2-s1", "shogi7x7", 1200, 170, "--depth", "2"),
    _study("shogi7x7-ex2-d3-s1", "shogi7x7", 1200, 935, "--depth", "3"),
    _study("shogi-ex2-d2-s1", "shogi", 1200, 456, "--depth", "2"),
    _study("shogi-ex2-d3-s1", "shogi", 1000, 2135, "--depth", "3"),
    *(_study(f"ctrl{n}-ex2-d{d}-s1", f"ctrl{n}", 1200, cpu, "--depth", str(d))
      for n, cpus in ((5, (40, 110)), (6, (50, 200)), (7, (60, 260)), (8, (70, 500)), (9, (70, 380)))
      for d, cpu in zip((2, 3), cpus, strict=True)),
    _study("ctrl9-ex2-d4-s1", "ctrl9", 1200, 1700, "--depth", "4"),  # the pre-registered depth-4 test
    _study("shogi-ex2-n10000-s1", "shogi", 1000, 1980, "--nodes", "10000"),
    # method B: material odds through the lab
    *(Step(f"odds-{v}", ("values", "odds", "--variant", v, "--pieces", "B,R,S,G", "--games", "2000", "--seed", "0",
                         "--db", f"{{out}}/odds-{v}.db"), cpu)
      for v, cpu in (("minishogi", 515), ("judkins", 505), ("shogi", 1920))),
    # §3.6: the fitted tables against the seed's, the perturbations, and Figure 4's sweep
    _experiment("sprt-minishogi", "sprt-minishogi.toml", 90),
    _experiment("sprt-judkins", "sprt-judkins.toml", 420),
    _experiment("sprt-shogi7x7", "sprt-shogi7x7.toml", 170),
    _experiment("sprt-shogi", "sprt-shogi.toml", 1380),
    # the published fixed-length column: 2,000 games a pairing, half the file's designed 4,000
    _experiment("perturb-minishogi", "perturb-minishogi.toml", 780, "--games", "2000"),
    _experiment("perturb-shogi7x7", "perturb-shogi7x7.toml", 3500),
    _experiment("sprt-perturb-minishogi", "sprt-perturb-minishogi.toml", 1730),
    _experiment("sprt-perturb-shogi7x7", "sprt-perturb-shogi7x7.toml", 6430),
    _experiment("values5x5", str(HERE.parent / "piece_values_5x5.toml"), 2200),
    # §3.8 strong labels: Fairy-Stockfish at 5000 nodes (and komaken at 10⁴ on 7×7) on each study's first games
    *(_label(f"ctrl{n}-ex2-s1.fsf", f"ctrl{n}-ex2-s1", 500, 600, FSF, 5000, CTRL_INI) for n in range(5, 10)),
    _label("minishogi-ex2-s1.fsf", "minishogi-ex2-s1", 1000, 480),
    _label("judkins-ex2-s1.fsf", "judkins-ex2-s1", 1000, 720),
    _label("shogi-ex2-s1.fsf", "shogi-ex2-s1", 600, 1560),
    _label("shogi7x7-ex2-s1.fsf", "shogi7x7-ex2-s1", 600, 875, FSF, 5000, CTRL_INI),
    _label("shogi7x7-ex2-s1.komaken", "shogi7x7-ex2-s1", 600, 1700, "komaken usi", 10000),
]


def order(steps: list[Step]) -> list[Step]:
    """Cheapest first, but a label file after the study it labels."""
    studies = {s.name: s for s in steps}
    key = {s.name: s.cpu + (studies[s.name.split(".")[0]].cpu if "." in s.name else 0) for s in steps}
    return sorted(steps, key=lambda s: key[s.name])


def command(step: Step, folder: Path, workers: int) -> list[str]:
    """The step's ``komaken`` arguments.  An experiment whose database exists is resumed with the
    configuration stored in it (what was played, whatever the file says now), except a step that
    sets its games per pairing: ``resume`` plays the stored count, so that step is run again."""
    argv = [a.format(out=folder) for a in step.args]
    if argv[:2] == ["experiment", "run"] and Path(argv[argv.index("--db") + 1]).exists() and "--games" not in argv:
        argv = ["experiment", "resume", *argv[argv.index("--db"):]]
    return [*argv, "--workers", str(workers)]


def commit() -> str:
    """The build that plays: the checkout's commit, ``+dirty`` if the package source differs."""
    try:
        out = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(HERE.parent.parent), "status", "--porcelain",
                                "--untracked-files=no", "--", "src"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out + ("+dirty" if dirty else "")


def background() -> None:
    """Make ``nice`` hold against the other sessions of the machine.  Linux's autogroup scheduler
    shares the CPU between sessions first and applies a process's niceness only within its own
    session, so ``nice -n 19 play.py`` started from a shell still took its session's full share
    from an engine match started in another (each USI engine runs in a session of its own), and
    the match's engines answered up to 120 ms late.  Started niced, the script starts a session
    of its own and gives that session its niceness; its commands inherit both."""
    niceness = os.nice(0)
    autogroup = Path("/proc/self/autogroup")
    if niceness <= 0 or not autogroup.exists():
        return
    with contextlib.suppress(OSError):
        os.setsid()  # fails only for a session leader, which has its own autogroup already
    with contextlib.suppress(OSError):
        autogroup.write_text(str(niceness), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("-j", "--workers", type=int, default=2, help="worker processes of each command")
    ap.add_argument("--only", help="comma-separated step names (default: every step)")
    ap.add_argument("--list", action="store_true", help="print the steps and stop")
    args = ap.parse_args()
    steps = order(STEPS)
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - {s.name for s in steps})
        if unknown:
            sys.exit(f"play.py: no step named {', '.join(unknown)} (--list shows them)")
        steps = [s for s in steps if s.name in wanted]
    komaken = [sys.executable, "-m", "komaken"]
    if args.list:
        for s in steps:
            print(f"{s.cpu / 60:7.1f} CPU-min  komaken {' '.join(s.args).format(out=args.folder)}")
        print(f"{sum(s.cpu for s in steps) / 3600:.1f} CPU-hours in all")
        return
    background()
    args.folder.mkdir(parents=True, exist_ok=True)
    log = args.folder / "played.tsv"
    if not log.exists():
        log.write_text("step\tcommit\tstarted\twall_s\tcpu_s\texit\tcommand\n", encoding="utf-8")
    build = commit()
    for s in steps:
        argv = command(s, args.folder, args.workers)
        print(f"[{time.strftime('%H:%M:%S')}] {s.name}: komaken {' '.join(argv)}", flush=True)
        started = time.strftime("%Y-%m-%dT%H:%M:%S")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        code = subprocess.run([*komaken, *argv], env=os.environ.copy()).returncode
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        with log.open("a", encoding="utf-8") as f:
            f.write(f"{s.name}\t{build}\t{started}\t{wall:.1f}\t{cpu:.1f}\t{code}\t"
                    f"komaken {' '.join(argv)}\n")
        print(f"  {wall:.0f} s wall, {cpu:.0f} CPU-s, exit {code}", flush=True)
        if code != 0:
            sys.exit(code)


if __name__ == "__main__":
    main()
