"""Compile the package's big numba kernels once, before the test workers start.

Without this, on a fresh clone every xdist worker, and every ``komaken`` subprocess a test
starts before the cache is written, compiles the same search kernels at the same time: minutes of
duplicated work on two cores.  ``conftest.pytest_configure`` runs the groups below on the xdist
controller, two processes at a time (:func:`schedule`), one per group; with a warm cache each
takes a few seconds.

``.ci/run`` runs them all (``python tests/warm_kernels.py all``) while the system packages
install, so that on a clean clone the compiles overlap the downloads and the suite's own warm-up
finds them cached.

The schedule (:func:`schedule`) keeps any kernel from being compiled twice at once: numba loads a
kernel from its cache only if the cache holds it when a process first needs it.  So the move
generator, which every search calls, is compiled first; the two searches (linear evaluation,
network) after it; and self-play, which calls the linear search, once that search is cached.

Run by hand: ``python tests/warm_kernels.py movegen`` (or any group name below, or ``all``).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def movegen() -> None:
    """The shogi move generator and perft.  Every caller (the searches, self-play,
    :class:`~komaken.shogi.Position`, the tests) passes the same types, so these two compiles are
    the only ones."""
    import numpy as np

    from komaken.shogi import Position
    from komaken.shogi import _kernels as K

    start = Position.start("minishogi")
    start.perft(2)
    start.legal_moves()
    s = start.kernel_state()
    K.gen_captures_into(s.bd, s.hd, s.st, s.geo, s.rules, np.zeros(K.MAX_MOVES, dtype=np.int64), 0,
                        np.zeros(K.SCRATCH_SIZE, dtype=np.int16))


def other_games() -> None:
    """Chess's and reversi's kernels and analysis, and the network trainer's: nothing the shogi
    searches share."""
    import numpy as np

    from komaken.analysis import GameAnalysis
    from komaken.games import find_game
    from komaken.shogi import Position
    from komaken.shogi.engine.nnue_train import Samples, TrainConfig, position_features, train

    for name, moves in (("chess", ["e4", "e5"]), ("reversi", ["f5", "d6"])):
        game = find_game(name)
        GameAnalysis(game, game.start(None), moves, seconds=0.05, multipv=2).run()
        game.start(None).perft(1)
    # the start position as 40 one-position games: no legal moves asked for, so this group does not
    # compile the move generator beside the movegen group
    feats = np.stack([position_features(Position.start("minishogi"))] * 40)
    samples = Samples("minishogi", (5, 5), feats, np.full(40, 0.5, dtype=np.float32), np.arange(40))
    train(samples, TrainConfig(width=8, epochs=1, batch=16, seed=0))


def search() -> None:
    """The shogi search with the linear evaluation (the longest single compile)."""
    from komaken.shogi import Position
    from komaken.shogi.engine import Engine, Limits

    engine = Engine("minishogi", net=None)
    engine.search(Position.start("minishogi"), Limits(depth=3), multipv=2)
    engine.search(Position.start("minishogi"), Limits(movetime=0.05))  # by time: keeps and ages the history


def net() -> None:
    """The shogi search with a network (minishogi's default evaluation)."""
    from komaken.shogi import Position
    from komaken.shogi.engine import Engine, Limits
    from komaken.shogi.engine.nnue import evaluate, find_network

    # the shipped net; a random test net has its dtypes, so this one compile serves both
    Engine("minishogi").search(Position.start("minishogi"), Limits(depth=2))
    net = find_network("minishogi")
    assert net is not None
    evaluate(net, Position.start("minishogi"))  # the full refresh Python calls (the layers, threats)


def stats() -> None:
    """The SPRT's simulations behind the lab's corrected Elo and the pentanomial fit: a compile
    of several seconds in every process that meets them first."""
    from komaken.lab.sprt_elo import sprt_elo
    from komaken.lab.stats import SPRT

    # one call compiles them all: the simulation, and the fit each of its hypotheses calls
    sprt_elo(SPRT(0, 10, model="pentanomial"), [10, 100, 300, 150, 20], cap=1000, runs=4)


def data() -> None:
    """Self-play (the value study's kernel, around the linear search) and the features of its
    positions as the network's training data is read."""
    from komaken.lab.nnue_data import read_study
    from komaken.lab.valuestudy.selfplay import run_selfplay, study_config

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "warm.sqlite"
        run_selfplay(study_config("minishogi", games=2, nodes=200, seed=0), db, workers=1)
        every_ply = {game: dict.fromkeys(range(400), 0) for game in range(2)}  # a score of 0 for every position
        read_study(db, every_ply, "minishogi", blend=0.5, scale=600.0)


def solvers() -> None:
    """The thesis player and the mate solver: searches of their own on the move generator.  And
    the rules every game loop asks from Python (a move read from USI, its legality, the game's
    end, repetition, the impasse count): small kernels on the move generator too, but each
    process that needs one before it is cached compiles it.  Here, not in ``movegen``, because
    the searches wait for that group."""
    from komaken.game import Color
    from komaken.shogi import Move, Position
    from komaken.shogi.engine.mate import solve
    from komaken.shogi.engine.thesis import ThesisSearch

    start = Position.start("minishogi")
    start.is_legal(Move.from_usi("5e4d"))
    start.is_legal(Move.from_usi("P*3c"))
    start.outcome()
    start.repetition_count()
    start.impasse_points(Color.BLACK)
    ThesisSearch("minishogi", depth=2).best(start)
    solve(Position.from_sfen("8k/9/9/9/9/9/9/9/K8 b RGG 1", "shogi"), max_plies=3, nodes=10_000)


def mypy() -> None:
    """Not a kernel: mypy over ``src/komaken`` as ``test_types`` runs it, so that its cache
    (``.mypy_cache``) is in place and the test's own run checks only what changed (seconds,
    not half a minute).  It fills a core the compiles leave idle."""
    import subprocess

    subprocess.run([sys.executable, "-m", "mypy", "src/komaken"], cwd=Path(__file__).resolve().parents[1],
                   capture_output=True, check=False)


GROUPS = {"movegen": movegen, "other_games": other_games, "mypy": mypy, "search": search, "net": net,
          "data": data, "solvers": solvers, "stats": stats}
#: what a group needs cached before it starts (numba loads a kernel from the cache only if the
#: cache holds it when a process first needs it: started earlier, the group would compile it again)
NEEDS = {"search": ("movegen",), "net": ("movegen",), "solvers": ("movegen",), "data": ("search",)}
#: at most this many groups at once (the CI machine's cores)
SLOTS = 2


def schedule(finished: set[str], running: set[str]) -> list[str]:
    """The groups to start now, in :data:`GROUPS`' order: those not yet started whose needs
    have finished, as many as free slots allow.  On a clean cache this runs the move generator
    beside the other games and then mypy, the two searches once the generator is cached, then
    self-play and the solvers: about 130 s on two cores, mypy included (fixed waves of two took
    138 s without it)."""
    ready = [g for g in GROUPS if g not in finished and g not in running
             and all(n in finished for n in NEEDS.get(g, ()))]
    return ready[:max(0, SLOTS - len(running))]


def warm_all(failed: Callable[[str, str], None]) -> None:
    """Run every group, each in its own process, as :func:`schedule` allows; ``failed(group,
    last line of its stderr)`` for each that exits non-zero."""
    finished: set[str] = set()
    running: dict[str, tuple[subprocess.Popen[bytes], Any]] = {}
    while True:
        for group in schedule(finished, set(running)):
            err = tempfile.TemporaryFile()
            running[group] = (subprocess.Popen([sys.executable, __file__, group], stdout=subprocess.DEVNULL,
                                               stderr=err), err)
        if not running:
            return
        time.sleep(0.1)
        for group, (proc, err) in list(running.items()):
            if proc.poll() is None:
                continue
            del running[group]
            finished.add(group)
            err.seek(0)
            tail = err.read().decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
            err.close()
            if proc.returncode != 0:
                failed(group, tail[0])


if __name__ == "__main__":
    if sys.argv[1] == "all":  # .ci/run: while the system packages install
        warm_all(lambda group, message: print(f"kernel warm-up {group} failed: {message}", file=sys.stderr))
    else:
        GROUPS[sys.argv[1]]()
