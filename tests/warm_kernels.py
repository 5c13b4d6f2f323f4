"""Compile the package's big numba kernels once, before the test workers start.

Without this, on a fresh clone every xdist worker, and every ``komaken`` subprocess a test
starts before the cache is written, compiles the same search kernels at the same time: minutes of
duplicated work on two cores.  ``conftest.pytest_configure`` runs the groups below in one
process each on the xdist controller; with a warm cache each takes a few seconds.

Run by hand: ``python tests/warm_kernels.py search`` (or ``net``, ``data``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path


def search() -> None:
    """The shogi search with the linear evaluation (about 115 s to compile), the thesis player,
    the mate solver."""
    from komaken.shogi import Position
    from komaken.shogi.engine import Engine, Limits
    from komaken.shogi.engine.mate import solve
    from komaken.shogi.engine.thesis import ThesisSearch

    start = Position.start("minishogi")
    Engine("minishogi", net=None).search(start, Limits(depth=3), multipv=2)
    ThesisSearch("minishogi", depth=2).best(start)
    solve(Position.from_sfen("8k/9/9/9/9/9/9/9/K8 b RGG 1", "shogi"), max_plies=3, nodes=10_000)


def net() -> None:
    """The shogi search with a network (minishogi's default evaluation; about 40 s once the move
    generator is compiled, which every group compiles at once), perft, the other games' engines:
    together about as long as the linear search alone."""
    from komaken.analysis import GameAnalysis
    from komaken.games import find_game
    from komaken.shogi import Position
    from komaken.shogi.engine import Engine, Limits

    start = Position.start("minishogi")
    Engine("minishogi").search(start, Limits(depth=2))  # the shipped net: a random one has its dtypes
    start.perft(2)
    for name, moves in (("chess", ["e4", "e5"]), ("reversi", ["f5", "d6"])):
        game = find_game(name)
        GameAnalysis(game, game.start(None), moves, seconds=0.05, multipv=2).run()


def data() -> None:
    """Self-play (the value study's kernel), the features of its positions and network training."""
    from komaken.lab.nnue_data import read_study
    from komaken.lab.valuestudy.selfplay import run_selfplay, study_config
    from komaken.shogi.engine.nnue_train import TrainConfig, train

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "warm.sqlite"
        run_selfplay(study_config("minishogi", games=2, nodes=200, seed=0), db, workers=1)
        every_ply = {game: dict.fromkeys(range(400), 0) for game in range(2)}  # a score of 0 for every position
        samples = read_study(db, every_ply, "minishogi", blend=0.5, scale=600.0).samples
        train(samples, TrainConfig(width=8, epochs=1, batch=16, seed=0))

GROUPS = {"search": search, "net": net, "data": data}

if __name__ == "__main__":
    GROUPS[sys.argv[1]]()
