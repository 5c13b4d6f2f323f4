"""Exported KIF and CSA records read back to the stored games, move for move."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from komaken import records
from komaken.lab import ExperimentDB, load_experiment, run_experiment
from komaken.lab.export import export

EXPERIMENT = """
[experiment]
name = "random-minishogi"
variant = "minishogi"
games = 6
seed = 3
max_plies = 60

[players.r1]
engine = "random"

[players.r2]
engine = "random"

[[pairings]]
a = "r1"
b = "r2"
colors = "alternate"
"""


@pytest.mark.parametrize("fmt", ["kif", "csa"])
def test_exported_records_read_back(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(EXPERIMENT)
    run_experiment(load_experiment(path), tmp_path / "exp.db", workers=1)
    out = io.StringIO()
    with ExperimentDB.open(tmp_path / "exp.db") as db:
        assert export(db, fmt, out) == 6
        stored = [row.moves.split() for row in db.games()]
    # one file: CSA separates the games by '/' lines, KIF games follow one another from their headers
    games = records.parse_all(out.getvalue(), fmt)  # type: ignore[arg-type]
    assert [[m.usi() for m in g.moves] for g in games] == stored
    assert all(g.variant.name == "minishogi" for g in games)
