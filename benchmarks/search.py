"""Search benchmark: nps and time to depth on fixed 5×5 and 9×9 positions, then a match of the
engine (0.1 s a move) against the thesis replica on 5×5.

    python benchmarks/search.py [--games 200] [--movetime 0.1] [--workers N]

There is no peer search to time in the same run (cshogi has move generation but no search), so
the nps is shown next to our own perft speed on the same position (leaves per second; perft
counts the last ply's moves without playing them, so it is an upper bound, not a like-for-like
figure).
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

from komaken.game import Color
from komaken.players.base import RESIGN
from komaken.shogi import Position
from komaken.shogi.engine import Engine, Limits

POSITIONS = [
    ("minishogi", "startpos"),
    ("minishogi", "rb1gk/1s2p/5/P1S2/KG1BR b - 5"),
    ("shogi", "startpos"),
    ("shogi", "ln1g3nl/1r2g1sk1/p1sppp1pp/2p3p2/1p5P1/2P1P1P2/PPSP1PS1P/1KG4R1/LN1G3NL b Bb 27"),
]


def time_to_depth() -> None:
    print("position                                   depth  time(s)   nodes      nps  perft-leaves/s")
    for variant, sfen in POSITIONS:
        pos = Position.from_sfen(sfen, variant)
        engine = Engine(variant, hash_mb=64)
        engine.search(pos, Limits(depth=2))
        reached: list[tuple[int, float, int]] = []
        t0 = time.perf_counter()
        r = engine.search(pos, Limits(movetime=1.0 + engine.overhead),
                          info=lambda x, out=reached: out.append((x.depth, x.seconds, x.nodes)))
        t = time.perf_counter()
        leaves = pos.perft(3 if variant == "shogi" else 4)
        perft_nps = leaves / (time.perf_counter() - t)
        name = f"{variant} {sfen[:30]}"
        for d, secs, nodes in reached:
            if d == r.depth or d in (6, 8, 10):
                print(f"{name:42s} {d:5d} {secs:8.3f} {nodes:8d} {r.nps:8d} {perft_nps:11.0f}")
        print(f"{name:42s} best {r.move} after {(time.perf_counter() - t0):.2f}s: depth {r.depth} in 1 s")


def _game(args: tuple[int, float]) -> float:
    """Play one game; returns the engine's score (1 win, 0.5 draw, 0 loss)."""
    from komaken.players.engine import EnginePlayer
    from komaken.players.thesis import ThesisPlayer

    index, movetime = args
    engine = EnginePlayer("minishogi", movetime=movetime)  # seconds
    thesis = ThesisPlayer("minishogi", {}, seed=index)
    engine_color = Color(index % 2)
    players = [engine, thesis] if engine_color == Color.BLACK else [thesis, engine]
    for p in players:
        p.new_game(seed=index)
    pos = Position.start("minishogi")
    while True:
        outcome = pos.outcome()
        if outcome is not None:
            return 0.5 if outcome.winner is None else float(outcome.winner == engine_color)
        if pos.ply >= 400:
            return 0.5
        mv = players[int(pos.turn)].choose(pos)
        if mv is RESIGN:
            return float(pos.turn != engine_color)
        pos.push(mv)


def match(games: int, movetime: float, workers: int) -> None:
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        scores = list(pool.map(_game, [(i, movetime) for i in range(games)]))
    wins = scores.count(1.0)
    draws = scores.count(0.5)
    losses = scores.count(0.0)
    print(f"engine ({movetime:g} s/move) vs thesis replica (depth 4), {games} 5x5 games, colours alternating: "
          f"+{wins} ={draws} -{losses}, score {100 * sum(scores) / games:.1f}%  "
          f"({time.perf_counter() - t0:.0f} s, {workers} workers)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--movetime", type=float, default=0.1, help="seconds per move")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--skip-match", action="store_true")
    a = ap.parse_args()
    time_to_depth()
    if not a.skip_match:
        match(a.games, a.movetime, a.workers)
