"""The lab runs reversi and tic-tac-toe through the same machinery as shogi."""

from __future__ import annotations

from pathlib import Path

from komaken.lab import ExperimentDB, load_experiment, run_experiment


def test_reversi_experiment_runs_and_stores_transcripts(tmp_path: Path) -> None:
    exp = load_experiment("examples/reversi_depth.toml", games=4)
    summary = run_experiment(exp, tmp_path / "r.db", workers=1)
    assert summary.played == 4
    with ExperimentDB.open(tmp_path / "r.db") as db:
        rows = list(db.games())
    assert len(rows) == 4 and all(r.reason == "game over" for r in rows)
    assert all(len(r.moves.split()) >= 20 for r in rows)


def test_tictactoe_perfect_players_always_draw(tmp_path: Path) -> None:
    path = tmp_path / "ttt.toml"
    path.write_text(
        '[experiment]\nname = "ttt"\ngame = "tictactoe"\ngames = 6\nseed = 2\n'
        '[openings]\nrandom_plies = 1\n'
        '[players.p1]\nengine = "boardgame"\nspec = "perfect"\n'
        '[players.p2]\nengine = "boardgame"\nspec = "perfect"\n'
        '[[pairings]]\na = "p1"\nb = "p2"\n'
    )
    run_experiment(load_experiment(path), tmp_path / "t.db", workers=1)
    with ExperimentDB.open(tmp_path / "t.db") as db:
        assert [r.result for r in db.games()] == ["draw"] * 6
