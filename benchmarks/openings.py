"""Write an opening file (one SFEN a line, as an experiment's ``[openings] file`` reads it).

    python benchmarks/openings.py --size 5 --plies 6 --lines 1000 --count 400 --seed 1205 --out quiet6.sfen
    python benchmarks/openings.py --size 5 --plies 6 --lines 600 --count 100 --seed 2026 \\
        --exclude quiet6-1204.sfen --out minishogi-quiet6.sfen
    python benchmarks/openings.py --size 6 --plies 6 --lines 1000 --count 400 --seed 1212 --out judkins-quiet6.sfen
    python benchmarks/openings.py --size 9 --real 12 20 --lines 100 --count 96 --seed 1202 --out real9.sfen

Quiet openings are the first ``--count`` distinct positions (by board, hands and side to move; the
move number aside) of ``quiet_openings(size, lines, seed, plies)`` of ``benchmarks/strength.py``:
random lines with no capture in them and none available at their end, the side to move not in
check.  On 5×5 many lines end in one position (223 quiet 4-ply lines end in 93 positions, 42 276
6-ply ones in 3 475), so a match on "200 openings" drawn as lines is a match on far fewer
positions; this script counts positions.  ``--exclude`` leaves out the positions of other opening
files: a fresh set for a new match.  ``--real`` takes distinct prefixes of the record corpus's 9×9
games instead (``corpus_openings(lines, plies, seed)`` of ``benchmarks/arena.py``; two prefixes
can end in one position, so 100 prefixes of 12 or 20 moves at seed 1202 are 96 positions).  The
file's first lines say how it was drawn, so the set can be made again.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from komaken.shogi import Position

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arena import corpus_openings  # noqa: E402
from strength import VARIANT, quiet_openings  # noqa: E402


def position_key(sfen: str) -> str:
    """An SFEN without its move number: positions that differ only by it are one opening."""
    return " ".join(sfen.split()[:3])


def read_sfens(path: Path) -> list[str]:
    """The SFEN lines of an opening file, in order (comment and blank lines skipped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [x.strip() for x in lines if x.strip() and not x.lstrip().startswith("#")]


def read_keys(path: Path) -> set[str]:
    """The positions of an opening file."""
    return {position_key(x) for x in read_sfens(path)}


def distinct_positions(lines: list[list[str]], size: int, count: int, exclude: set[str]) -> list[str]:
    """The SFENs at the ends of ``lines`` (USI moves from the start), each position once and none
    of ``exclude``, in the lines' order, until ``count``."""
    out: list[str] = []
    seen = set(exclude)
    for line in lines:
        pos = Position.start(VARIANT[size])
        for move in line:
            pos.push_usi(move)
        sfen = pos.sfen()
        if position_key(sfen) not in seen:
            seen.add(position_key(sfen))
            out.append(sfen)
            if len(out) == count:
                break
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, choices=sorted(VARIANT), default=5)
    ap.add_argument("--count", type=int, required=True, help="positions to write")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plies", type=int, default=4, help="quiet openings: the lines' length")
    ap.add_argument("--lines", type=int, default=None,
                    help="lines drawn (default: 4 x --count quiet lines, --count real prefixes)")
    ap.add_argument("--real", type=int, nargs="+", metavar="PLIES", help="9×9: real-game prefixes this long")
    ap.add_argument("--exclude", type=Path, nargs="+", action="extend", default=[],
                    help="opening files whose positions to leave out (the flag may be given again)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    for path in args.exclude:
        if not path.is_file():
            ap.error(f"--exclude {path}: no such file")
    exclude = set().union(*(read_keys(p) for p in args.exclude))
    if args.real:
        if args.size != 9:
            sys.exit("--real takes prefixes of 9x9 games: give --size 9")
        n = args.lines or args.count
        drawn = f"corpus_openings({n}, {args.real}, {args.seed}) of benchmarks/arena.py"
        lines = corpus_openings(n, args.real, args.seed)
    else:
        n = args.lines or 4 * args.count
        drawn = f"quiet_openings({args.size}, {n}, seed={args.seed}, plies={args.plies}) of benchmarks/strength.py"
        lines = quiet_openings(args.size, n, args.seed, args.plies)
    got = distinct_positions(lines, args.size, args.count, exclude)
    if len(got) < args.count:
        sys.exit(f"only {len(got)} distinct positions in {drawn}; draw more lines (--lines) or ask fewer")
    head = [f"# the first {len(got)} distinct positions of {drawn}"]
    if args.exclude:
        head.append("# none of them in " + ", ".join(p.name for p in args.exclude))
    head.append("# made by: python benchmarks/openings.py " + shlex.join(sys.argv[1:]))
    args.out.write_text("\n".join(head + got) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(got)} positions")


if __name__ == "__main__":
    main()
