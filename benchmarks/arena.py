"""komaken against Fairy-Stockfish on 9×9, driven by shogiarena (a USI tournament manager from PyPI).

    pip install shogiarena                                 # test/benchmark only, never a dependency
    python benchmarks/arena.py --games 10 --skill 10      # 9x9, byoyomi 300 ms
    python benchmarks/arena.py --games 20 --skill 20 --ponder

Many people will first meet komaken through such a manager, not through our own referee
(``benchmarks/strength.py``), so this runs the same kind of match through it: shogiarena starts
both engines, sets their options, sends ``usinewgame``/``isready``/``position``/``go``, keeps the
clocks and judges the games.  The openings are real games: the first ``--plies`` moves
(default 16) of distinct games of the record corpus (``/work/shared/corpus/records/truth.json``,
games from the normal start), drawn with ``--seed``, each played with both colours.  The time
control is byoyomi alone (``time_ms 0``) with an expiry margin of 50 ms, as our referee's.

Printed: komaken's W/L/D and score with its 95 % interval, and Fairy-Stockfish's, how each game
ended (time losses, illegal moves, other), how many times each engine process was started, and
the run directory (shogiarena's records, logs and results).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import shlex
import shutil
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = Path("/work/shared/corpus/records/truth.json")
STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -"


def corpus_openings(n: int, plies: int | list[int], seed: int, corpus: Path = CORPUS) -> list[list[str]]:
    """``n`` distinct prefixes of real games from the normal start (seeded), ``plies`` moves long
    (several lengths: drawn from the prefixes of every length; the corpus has only some 80 distinct
    9×9 games from the normal start, so a 200-game match needs two lengths)."""
    data = json.loads(corpus.read_text(encoding="utf-8"))
    lengths = [plies] if isinstance(plies, int) else plies
    lines = sorted({tuple(v["moves"][:p]) for p in lengths for v in data.values()
                    if str(v.get("sfen", "")).startswith(STARTPOS) and len(v.get("moves") or []) > p})
    if len(lines) < n:
        sys.exit(f"the corpus has {len(lines)} distinct {'/'.join(map(str, lengths))}-move openings, {n} asked for")
    return [list(x) for x in random.Random(seed).sample(lines, n)]


def _wrapper(run: Path, name: str, command: list[str], log_usi: bool) -> Path:
    """A script that starts ``command``, noting each start in ``<name>.starts`` (restarts show
    there) and, with ``log_usi``, what the manager sends in ``<name>.in``."""
    path = run / f"{name}.sh"
    # the engine is exec'd so that the manager's process is the engine itself (a pipeline would
    # keep a shell waiting on its first element after quit); filters run in process substitutions
    feed = f'< <(tee -a "{run}/{name}.in")' if log_usi else ""
    line = "exec " + shlex.join(command) + " " + feed
    if name == "fsf":
        # Fairy-Stockfish names its option Ponder; shogiarena reads only USI_Ponder and, not finding
        # it, sends go ponder whatever Ponder is set to.  Renamed both ways, USI_Ponder false holds.
        rename_in = "sed -u 's/^setoption name USI_Ponder /setoption name Ponder /'"
        source = f'tee -a "{run}/{name}.in" | {rename_in}' if log_usi else rename_in
        line = (f"exec {shlex.join(command)} < <({source}) "
                "> >(sed -u 's/^option name Ponder /option name USI_Ponder /')")
    path.write_text(f'#!/bin/bash\ndate +%s.%N >> "{run}/{name}.starts"\n{line}\n', encoding="utf-8")
    path.chmod(0o755)
    return path


def write_config(run: Path, games: int, skill: int, byoyomi: int, plies: int | list[int], seed: int, ponder: bool,
                 fsf: str, komaken: list[str], log_usi: bool = False) -> Path:
    """The engine files, the opening file and the tournament file shogiarena reads."""
    run.mkdir(parents=True, exist_ok=True)
    wrapper = _wrapper(run, "komaken", komaken, log_usi)  # shogiarena starts an executable without arguments
    fsf = str(_wrapper(run, "fsf", [fsf], log_usi))
    book = corpus_openings((games + 1) // 2, plies, seed)
    (run / "openings.txt").write_text("".join("startpos moves " + " ".join(m) + "\n" for m in book), encoding="utf-8")
    ponder_opt = "true" if ponder else "false"
    (run / "komaken.yaml").write_text(
        f'name: "komaken"\nengine_path: "{wrapper}"\nworking_directory: "{run}"\n'
        f'options:\n  USI_Ponder: {ponder_opt}\n  USI_Hash: 16\n', encoding="utf-8")
    (run / "fsf.yaml").write_text(
        f'name: "fairy-stockfish-skill{skill}"\nengine_path: "{fsf}"\nworking_directory: "{run}"\n'
        # Fairy-Stockfish names it Hash; shogiarena waits 120 s for an option the engine does not list
        f'options:\n  UCI_Variant: shogi\n  Skill Level: {skill}\n  Threads: 1\n  Hash: 16\n'
        f'  USI_Ponder: {ponder_opt}\n', encoding="utf-8")
    cfg = run / "tournament.yaml"
    cfg.write_text(f"""experiment_name: "komaken-vs-fsf-skill{skill}"
engines:
  - engine_path: "{run / 'komaken.yaml'}"
  - engine_path: "{run / 'fsf.yaml'}"
tournament:
  scheduler: "round_robin"
  games_per_pair: {games}
  num_parallel: 1
  seed: {seed}
rules:
  time_control:
    time_ms: 0
    byoyomi_ms: {byoyomi}
    expiry_margin_ms: 50
  adjudication:
    # shogiarena would send MaxMovesToDraw|Draw_Ply (= max_plies) and wait 120 s for an engine
    # that lists neither option (komaken and Fairy-Stockfish don't), then fail to start it
    sync_max_plies_with_engine: false
  initial_positions:
    type: "file"
    source: "{run / 'openings.txt'}"
    source_format: "usi_line"
    flip_policy: "pair_both"
    selection_policy: "without_replacement"
    sync_scope: "pair"
dashboard:
  enabled: false
""", encoding="utf-8")
    return cfg


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--skill", type=int, default=10, help="Fairy-Stockfish Skill Level")
    ap.add_argument("--byoyomi", type=float, default=0.3, help="seconds a move")
    ap.add_argument("--plies", type=int, nargs="+", default=[16],
                    help="moves of each real game to start from (several: prefixes of each length)")
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--ponder", action="store_true", help="USI_Ponder on for both engines")
    ap.add_argument("--log-usi", action="store_true",
                    help="keep what shogiarena sends each engine (<run>/<name>.in)")
    ap.add_argument("--run-dir", type=Path, default=None,
                    help="where shogiarena keeps the run (default: a new one in /tmp)")
    ap.add_argument("--debug", action="store_true", help="shogiarena's debug log on stderr")
    ap.add_argument("--komaken", default=None, metavar="COMMAND",
                    help="the command that starts komaken's USI engine (default: this Python's -m komaken usi); "
                         "a candidate build, e.g. 'env PYTHONPATH=/path/to/src python -m komaken usi' (shogiarena "
                         "starts engines without the caller's PYTHONPATH)")
    args = ap.parse_args()
    if args.debug:
        import logging

        logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(name)s %(message)s")
    try:
        from shogiarena.tournament import run_tournament
    except ImportError:
        sys.exit("shogiarena is not installed: pip install shogiarena (it is for benchmarks only)")
    fsf = shutil.which("fairy-stockfish") or shutil.which("fairy-stockfish", path="/usr/games")
    if fsf is None:
        sys.exit("fairy-stockfish not found: install Debian's package (apt-get install fairy-stockfish)")
    komaken = shlex.split(args.komaken) if args.komaken else [sys.executable, "-m", "komaken", "usi"]
    run = args.run_dir or Path(f"/tmp/komaken-arena-{time.strftime('%Y%m%d-%H%M%S')}")
    cfg = write_config(run, args.games, args.skill, round(args.byoyomi * 1000), args.plies, args.seed, args.ponder,
                       fsf, komaken, args.log_usi)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; shogiarena {_version()}", flush=True)
    print(f"9x9, byoyomi {args.byoyomi * 1000:.0f} ms, komaken vs Fairy-Stockfish Skill {args.skill}, "
          f"{args.games} games, openings: {'/'.join(map(str, args.plies))}-move prefixes of real games "
          f"(seed {args.seed}); "
          f"ponder {'on' if args.ponder else 'off'}", flush=True)
    t0 = time.perf_counter()
    result = asyncio.run(_tournament(run_tournament, str(cfg), str(run / "out")))
    print(f"finished in {time.perf_counter() - t0:.0f} s; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    report(run / "out", result)


async def _tournament(run_tournament: Any, cfg: str, out: str) -> object:
    """Run shogiarena's tournament, then close its engines' transports while the loop still runs.

    shogiarena keeps its engines' subprocess transports referenced after the tournament; closed
    only at interpreter exit, after ``asyncio.run`` has closed the loop, each one printed
    "Event loop is closed" tracebacks under the report.
    """
    from asyncio.base_subprocess import BaseSubprocessTransport

    result = await run_tournament(cfg, run_dir=out)
    for obj in gc.get_objects():
        if isinstance(obj, BaseSubprocessTransport) and not obj.is_closing():
            obj.close()
    await asyncio.sleep(0.1)
    return result


def _version() -> str:
    from importlib.metadata import version

    return version("shogiarena")


def report(out: Path, result: object) -> None:
    """Score, how games ended and engine starts, from shogiarena's saved results."""
    from komaken.lab.stats import wilson_interval

    games = _games(out)
    if not games:
        print(f"no game results found under {out}; shogiarena returned: {result!r}")
        return
    score = {"komaken": 0.0, "fsf": 0.0}
    wld = Counter()
    endings: Counter[str] = Counter()
    for g in games:
        who = g["winner"]
        if who is None:
            score["komaken"] += 0.5
            score["fsf"] += 0.5
            wld["draw"] += 1
        else:
            score[who] += 1
            wld[who] += 1
        endings[g["ending"]] += 1
    n = len(games)
    lo, hi = wilson_interval(score["komaken"], n)
    print(f"komaken  W/L/D {wld['komaken']}/{wld['fsf']}/{wld['draw']}  score {score['komaken']:g}/{n} "
          f"({100 * score['komaken'] / n:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}])")
    print(f"Fairy-SF W/L/D {wld['fsf']}/{wld['komaken']}/{wld['draw']}  score {score['fsf']:g}/{n} "
          f"({100 * score['fsf'] / n:.0f} %)")
    print("endings: " + ", ".join(f"{k} {v}" for k, v in endings.most_common()))
    longest = {who: max(g["longest"][who] for g in games) for who in ("komaken", "fsf")}
    print(f"longest reply (shogiarena's wall time): komaken {longest['komaken']} ms, Fairy-SF {longest['fsf']} ms")
    starts = {p.stem: len(p.read_text().splitlines()) for p in out.parent.glob("*.starts")}
    print("engine processes started: " + ", ".join(f"{k} {v}" for k, v in sorted(starts.items())))


def _games(out: Path) -> list[dict[str, Any]]:
    """Each finished game's winner (``komaken``/``fsf``/``None``), how it ended (shogiarena's
    result name) and each side's longest reply, read from the run's ``game.db``."""
    import sqlite3

    from rsshogi.record import GameResult

    dbs = sorted(out.rglob("game.db"))
    if not dbs:
        return []
    con = sqlite3.connect(dbs[-1])
    rows = con.execute("SELECT g.id, g.game_result, pb.player_name, pw.player_name, g.initial_position_sfen "
                       "FROM game g "
                       "JOIN player pb ON pb.id = g.black_player_id "
                       "JOIN player pw ON pw.id = g.white_player_id").fetchall()
    games = []
    for gid, raw, black, white, sfen in rows:
        white_first = len(sfen.split()) > 1 and sfen.split()[1] == "w"
        result = GameResult.from_str(str(raw)) if not str(raw).lstrip("-").isdigit() else _by_value(int(raw))
        names = {"black": "komaken" if black.startswith("komaken") else "fsf",
                 "white": "komaken" if white.startswith("komaken") else "fsf"}
        winner = names["black"] if result.is_black_win() else names["white"] if result.is_white_win() else None
        longest = {"komaken": 0, "fsf": 0}
        moves = con.execute("SELECT ply, wall_time_ms FROM game_move WHERE game_id = ?", (gid,)).fetchall()
        # shogiarena numbers plies from the game's start, opening moves included (the first move after a
        # 16-move opening is ply 16): the first recorded move is the initial position's side to move
        first = min((ply for ply, _ in moves), default=0)
        for ply, ms in moves:
            black_moves = ((ply - first) % 2 == 0) != white_first
            side = names["black"] if black_moves else names["white"]
            longest[side] = max(longest[side], ms or 0)
        games.append({"winner": winner, "ending": result.name, "longest": longest})
    return games


def _by_value(value: int) -> Any:
    from rsshogi.record import GameResult

    return next(getattr(GameResult, n) for n in dir(GameResult)
                if n.isupper() and getattr(getattr(GameResult, n), "value", None) == value)


if __name__ == "__main__":
    main()
