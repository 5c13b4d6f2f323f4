"""Pondering under a match: how often komaken's ponder move is played, and what a hit buys.

    python benchmarks/ponder.py                        # 5x5, byoyomi 200 ms, 20 games vs Skill 20
    python benchmarks/ponder.py --size 9 --games 10    # 9x9, byoyomi 300 ms

The referee of ``benchmarks/strength.py`` (legality by an independent library, both colours,
quiet random 4-ply openings) drives the two engines as a GUI that ponders drives them: komaken
runs with ``USI_Ponder`` on, and after each ``bestmove M ponder P`` it is sent ``position …
M P`` and ``go ponder btime 0 wtime 0 byoyomi B`` while Fairy-Stockfish (which does not ponder)
thinks.  When Fairy-Stockfish plays P the referee sends ``ponderhit`` and times komaken's
answer from that line (the clock of that move starts there); otherwise it sends ``stop``, waits
for the pondered answer (thrown away), then sends the real position and a plain ``go``, timed
from the ``go``.  A reply later than byoyomi + 50 ms loses on time.

Printed: the hit rate (ponder moves played / ponder moves named), the reply time and the depth
of komaken's answer (its last ``info depth``) after a ponderhit, after a miss and in a plain
``go``, and Fairy-Stockfish's reply time and depth in the same run.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from komaken.usi.client import UsiProcess  # noqa: E402
from strength import BYOYOMI, KOMAKEN, VARIANT, Referee, machine, quiet_openings, start  # noqa: E402
from usi_rapidfire import start_load, stop_load  # noqa: E402


@dataclass
class Ponder:
    named: int = 0  # bestmove lines with a ponder move, followed by an opponent's move
    hits: int = 0
    replies: dict[str, list[tuple[float, int]]] = field(
        default_factory=lambda: {"hit": [], "miss": [], "plain": [], "fsf": []})  # (ms, depth)
    time_losses: dict[str, int] = field(default_factory=lambda: {"komaken": 0, "fsf": 0})
    illegal: dict[str, int] = field(default_factory=lambda: {"komaken": 0, "fsf": 0})
    wins: int = 0
    losses: int = 0
    draws: int = 0


def _answer(lines: list[tuple[float, str]]) -> tuple[float, list[str], int]:
    """When ``bestmove`` came, its words, and the deepest ``info depth`` before it."""
    depth = 0
    for _, line in lines:
        w = line.split()
        if w[:2] == ["info", "depth"] and len(w) > 2 and w[2].isdigit():
            depth = max(depth, int(w[2]))
    return lines[-1][0], lines[-1][1].split(), depth


def game(kom: UsiProcess, fsf: UsiProcess, komaken_first: bool, opening: list[str], size: int, byoyomi: int,
         margin: float, p: Ponder) -> float:
    """One game; komaken's score.  ``pending`` is the ponder move komaken is searching on, if any."""
    ref = Referee(size, opening)
    for eng in (kom, fsf):
        eng.send("usinewgame")
        eng.send("isready")
        eng.until("readyok", 60)
    go = f"go btime 0 wtime 0 byoyomi {byoyomi}"
    limit = byoyomi / 1000 + 10
    pending: str | None = None  # komaken is pondering on this reply
    while True:
        r = ref.result()
        komaken_to_move = (int(ref.pos.turn) == 0) == komaken_first
        if r is not None:
            if pending is not None:
                kom.send("stop")
                kom.until("bestmove", limit)
            return r if komaken_to_move else 1.0 - r
        moves = " ".join(ref.moves())
        if komaken_to_move:
            kind = "plain"
            if pending is not None and ref.moves()[-1] == pending:
                t0 = kom.send("ponderhit")
                kind = "hit"
            else:
                if pending is not None:
                    kom.send("stop")
                    kom.until("bestmove", limit)  # the pondered answer, thrown away
                    kind = "miss"
                kom.send(f"position startpos moves {moves}")
                t0 = kom.send(go)
            pending = None
            arrived, words, depth = _answer(kom.until_timed("bestmove", limit))
            mover = "komaken"
        else:
            fsf.send(f"position startpos moves {moves}")
            t0 = fsf.send(go)
            arrived, words, depth = _answer(fsf.until_timed("bestmove", limit))
            kind, mover = "fsf", "fsf"
            if pending is not None:
                p.named += 1
                p.hits += len(words) > 1 and words[1] == pending
        ms = (arrived - t0) * 1000
        p.replies[kind].append((ms, depth))
        if ms > byoyomi + margin:
            p.time_losses[mover] += 1
            print(f"    {mover} ({kind}) lost on time: {ms:.0f} ms", flush=True)
            if pending is not None:
                kom.send("stop")
                kom.until("bestmove", limit)
            return 0.0 if mover == "komaken" else 1.0
        word = words[1] if len(words) > 1 else "resign"
        if word in ("resign", "win"):
            if pending is not None:
                kom.send("stop")
                kom.until("bestmove", limit)
            won = word == "win" and ref.pos.can_declare()
            return float(won) if mover == "komaken" else 1.0 - float(won)
        if ref.push(word) is not None:
            p.illegal[mover] += 1
            return 0.0 if mover == "komaken" else 1.0
        if mover == "komaken" and len(words) >= 4 and words[2] == "ponder":
            pending = words[3]
            kom.send(f"position startpos moves {' '.join(ref.moves())} {pending}")
            kom.send(f"go ponder btime 0 wtime 0 byoyomi {byoyomi}")


def line(name: str, rs: list[tuple[float, int]]) -> str:
    if not rs:
        return f"  {name:22s} none"
    ms = sorted(r for r, _ in rs)
    depth = statistics.mean(d for _, d in rs)
    return (f"  {name:22s} n {len(rs):4d}  reply median {statistics.median(ms):6.1f}  "
            f"max {ms[-1]:6.1f} ms  depth mean {depth:5.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, choices=(5, 9), default=5)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--skill", type=int, default=20)
    ap.add_argument("--busy", type=int, default=0, help="busy-loop processes beside the engines")
    ap.add_argument("--seed", type=int, default=38, help="seed of the quiet opening set")
    ap.add_argument("--margin", type=float, default=0.05)
    args = ap.parse_args()
    fsf_cmd = shutil.which("fairy-stockfish") or shutil.which("fairy-stockfish", path="/usr/games")
    if fsf_cmd is None:
        sys.exit("fairy-stockfish not found: install Debian's package (apt-get install fairy-stockfish)")
    byoyomi, variant = BYOYOMI[args.size], VARIANT[args.size]
    print(machine(), flush=True)
    print(f"{args.size}x{args.size}, byoyomi {byoyomi} ms; komaken (USI_Ponder) vs Fairy-Stockfish Skill {args.skill}; "
          f"{args.games} games; {args.busy} busy process(es)", flush=True)
    book = quiet_openings(args.size, (args.games + 1) // 2, args.seed)
    kom = start(KOMAKEN, {"UCI_Variant": variant, "USI_Ponder": "true"}, "komaken")
    fsf = start([fsf_cmd], {"UCI_Variant": variant, "Skill Level": str(args.skill)}, "fairy-stockfish")
    load = start_load(args.busy)
    p = Ponder()
    t0 = time.perf_counter()
    try:
        for g in range(args.games):
            r = game(kom, fsf, g % 2 == 0, book[g // 2], args.size, byoyomi, args.margin * 1000, p)
            p.wins += r == 1.0
            p.losses += r == 0.0
            p.draws += r == 0.5
            print(f"  game {g + 1}: {({1.0: 'win', 0.0: 'loss', 0.5: 'draw'})[r]}; ponder hits {p.hits}/{p.named}",
                  flush=True)
    finally:
        stop_load(load)
        kom.close()
        fsf.close()
    print(f"{args.games} games in {time.perf_counter() - t0:.0f} s; komaken W/L/D {p.wins}/{p.losses}/{p.draws}; "
          f"losses on time komaken {p.time_losses['komaken']}, Fairy-SF {p.time_losses['fsf']}; "
          f"illegal komaken {p.illegal['komaken']}, Fairy-SF {p.illegal['fsf']}")
    rate = p.hits / p.named if p.named else 0.0
    print(f"  ponder move played: {p.hits} of {p.named} ({100 * rate:.0f} %)")
    print(line("komaken after ponderhit", p.replies["hit"]) + "   (timed from ponderhit)")
    print(line("komaken after a miss", p.replies["miss"]) + "   (timed from go, after stop)")
    print(line("komaken plain go", p.replies["plain"]))
    print(line("Fairy-SF", p.replies["fsf"]))
    hit, plain = p.replies["hit"], p.replies["miss"] + p.replies["plain"]
    if hit and plain:
        depth = statistics.mean(d for _, d in hit) / statistics.mean(d for _, d in plain)
        reply = statistics.median(r for r, _ in hit) / statistics.median(r for r, _ in plain)
        print(f"  depth after a hit / without: {depth:.2f};  reply after a hit / without: {reply:.2f}")
    print(f"  {machine()}")


if __name__ == "__main__":
    main()
