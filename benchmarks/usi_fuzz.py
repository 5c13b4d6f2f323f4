"""Junk-line fuzz of ``komaken usi``: many sessions of junk mixed with valid commands.

    python benchmarks/usi_fuzz.py                     # 110 sessions x 100 lines
    python benchmarks/usi_fuzz.py --sessions 20 --lines 300 --seed 1000

Each session is a fresh ``komaken usi`` process (see ``tests/usi_fuzzing.py`` for the junk and
the checks).  Printed: sessions, lines, ``go`` commands, checked ``go`` on legal positions,
deaths, unanswered ``go`` and illegal answers, and the first problems found.  With
``--peer`` the same sessions are also run against Fairy-Stockfish (``fairy-stockfish``, Debian
package), which ignores the options it does not know.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from usi_fuzzing import Report, session  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=110)
    ap.add_argument("--lines", type=int, default=100, help="lines per session")
    ap.add_argument("--seed", type=int, default=0, help="first session's seed")
    ap.add_argument("--peer", action="store_true", help="also fuzz Fairy-Stockfish")
    args = ap.parse_args()
    run("komaken usi", None, args)
    if args.peer:
        fsf = shutil.which("fairy-stockfish") or shutil.which("fairy-stockfish", path="/usr/games")
        if fsf is None:
            print("fairy-stockfish not found (apt-get install fairy-stockfish): no peer figures")
        else:
            run("fairy-stockfish", [fsf], args)


def run(name: str, command: list[str] | None, args: argparse.Namespace) -> None:
    total = Report()
    t0 = time.perf_counter()
    for k in range(args.sessions):
        rep = session(args.seed + k, lines=args.lines, command=command)
        for key in ("lines", "gos", "checked", "deaths", "unanswered", "illegal"):
            setattr(total, key, getattr(total, key) + getattr(rep, key))
        total.problems += rep.problems
        if (k + 1) % 10 == 0:
            print(f"  {k + 1} sessions, {total.lines} lines, {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"{name}: {args.sessions} sessions, {total.lines} lines, {total.gos} go ({total.checked} checked on "
          f"legal positions): deaths {total.deaths}, unanswered go {total.unanswered}, illegal moves {total.illegal}")
    for p in total.problems[:20]:
        print("  " + p)


if __name__ == "__main__":
    main()
