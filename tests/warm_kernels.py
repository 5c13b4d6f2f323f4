"""Compile the package's big numba kernels once, before the test workers start.

Without this, on a fresh clone every xdist worker, and every ``komaken`` subprocess a test
starts before the cache is written, compiles the same search kernels at the same time: minutes of
duplicated work on two cores.  ``conftest.pytest_configure`` runs the groups below on the xdist
controller, wave by wave (:data:`WAVES`), one process per group of a wave; with a warm cache each
takes a few seconds.

The waves keep any kernel from being compiled twice at once: numba loads a kernel from its cache
only if the cache holds it when a process first needs it.  So the move generator, which every
search calls, is compiled first; the two searches (linear evaluation, network) next, beside each
other; and self-play, which calls the linear search, last, once that search is cached.

Run by hand: ``python tests/warm_kernels.py movegen`` (or any group name below).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path


def movegen() -> None:
    """The shogi move generator as the searches call it (into their move buffers) and as
    :class:`~komaken.shogi.Position` calls it, and perft."""
    from komaken.shogi import Position

    start = Position.start("minishogi")
    start.perft(2)
    start.legal_moves()


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
    # the start position as 40 one-position games: no legal moves asked for, so this group does not
    # compile the move generator beside the movegen group
    feats = np.stack([position_features(Position.start("minishogi"))] * 40)
    samples = Samples("minishogi", (5, 5), feats, np.full(40, 0.5, dtype=np.float32), np.arange(40))
    train(samples, TrainConfig(width=8, epochs=1, batch=16, seed=0))


def search() -> None:
    """The shogi search with the linear evaluation (the longest single compile)."""
    from komaken.shogi import Position
    from komaken.shogi.engine import Engine, Limits

    Engine("minishogi", net=None).search(Position.start("minishogi"), Limits(depth=3), multipv=2)


def net() -> None:
    """The shogi search with a network (minishogi's default evaluation)."""
    from komaken.shogi import Position
    from komaken.shogi.engine import Engine, Limits

    # the shipped net; a random test net has its dtypes, so this one compile serves both
    Engine("minishogi").search(Position.start("minishogi"), Limits(depth=2))


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
    """The thesis player and the mate solver: searches of their own on the move generator."""
    from komaken.shogi import Position
    from komaken.shogi.engine.mate import solve
    from komaken.shogi.engine.thesis import ThesisSearch

    ThesisSearch("minishogi", depth=2).best(Position.start("minishogi"))
    solve(Position.from_sfen("8k/9/9/9/9/9/9/9/K8 b RGG 1", "shogi"), max_plies=3, nodes=10_000)


GROUPS = {"movegen": movegen, "other_games": other_games, "search": search, "net": net, "data": data,
          "solvers": solvers}
#: the order: the groups of a wave run at once (one process each), a wave after the one before
WAVES = (("movegen", "other_games"), ("search", "net"), ("data", "solvers"))

if __name__ == "__main__":
    GROUPS[sys.argv[1]]()
