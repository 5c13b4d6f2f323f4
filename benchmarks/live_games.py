"""What publishing the games in flight (``komaken.lab.live``) costs a run: the same seeded games
played by the one game loop with and without a publisher, best of ``--rounds``.

    python benchmarks/live_games.py [--games 200] [--rounds 5]

Two pairings: random against random in minishogi (the fastest player there is, so the loop's own
cost per move is all there is: the worst case for a per-move observer) and the shogi engine at
depth 2 against itself (a cheap real engine).  Printed: seconds per game, the ratio published /
bare, and the per-move overhead in microseconds.  There is no peer program: the bare loop is the
reference.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from komaken.games import find_game
from komaken.lab import live
from komaken.match import play_game
from komaken.players.random import RandomPlayer
from komaken.players.registry import make_player


def play(spec: Any, variant: Any, players: tuple[Any, Any], games: int, folder: Path | None) -> tuple[float, int]:
    plies = 0
    t = time.perf_counter()
    for i in range(games):
        pub = None if folder is None else live.Publisher(folder, {"pairing": "p", "game_index": i, "start": ""},
                                                         spec.move_text)
        res = play_game(spec.start(variant), players, pub, game=spec, seeds=(i, i + 1), max_plies=200)
        plies += res.plies
    return time.perf_counter() - t, plies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    shogi = find_game("shogi")
    variant = shogi.variant("minishogi")
    pairs = {
        "random vs random": (RandomPlayer(), RandomPlayer()),
        "engine depth 2 vs itself": (make_player("engine:depth=2", shogi, variant),
                                     make_player("engine:depth=2", shogi, variant)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        live.clear(db, make=True)
        folder = live.folder_of(db)
        print(f"{'players':<26} {'bare s/game':>12} {'published':>12} {'ratio':>7} {'µs/move':>8}  (plies)")
        for name, players in pairs.items():
            games = args.games if "random" in name else max(10, args.games // 10)
            play(shogi, variant, players, 2, None)  # compile and warm up
            bare, pub = [], []
            for _ in range(args.rounds):
                bare.append(play(shogi, variant, players, games, None))
                pub.append(play(shogi, variant, players, games, folder))
            b, p = min(t for t, _ in bare), min(t for t, _ in pub)
            plies = bare[0][1]
            per_move = (p - b) / plies * 1e6
            print(f"{name:<26} {b / games:12.5f} {p / games:12.5f} {p / b:7.3f} {per_move:8.2f}  ({plies})")


if __name__ == "__main__":
    main()
