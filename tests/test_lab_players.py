"""The lab builds thesis players with both tables, as the published program evaluated."""

from __future__ import annotations

from pathlib import Path

from komaken.lab import load_experiment
from komaken.lab.players import build_player

CONFIG = """
[experiment]
name = "quirk"
variant = "minishogi"
games = 2

[players.low]
engine = "thesis"
hand_quirk = true
values = { P = 100, S = 1000, G = 1200, B = 1000, R = 1200, "+P" = 1200, "+S" = 1200, "+B" = 1000, "+R" = 1200 }

[players.standard]
engine = "thesis"
hand_quirk = true
values = { P = 100, S = 1000, G = 1200, B = 1800, R = 2000, "+P" = 1200, "+S" = 1200, "+B" = 2000, "+R" = 2200 }

[[pairings]]
a = "low"
b = "standard"
"""


def test_thesis_player_gets_the_opponents_table(tmp_path: Path) -> None:
    path = tmp_path / "quirk.toml"
    path.write_text(CONFIG)
    exp = load_experiment(path)
    variant = exp.load_variant()
    low = build_player(exp.players["low"], exp, variant, opponent=exp.players["standard"])
    assert low.values.as_dict()["B"] == 1000  # type: ignore[attr-defined]
    assert low.opponent_values.as_dict()["B"] == 1800  # type: ignore[attr-defined]
    # with the quirk, a bishop in hand is worth both tables together: 1000 + 1800
    tables = low._tables[0][1]  # type: ignore[attr-defined]
    assert int(tables[0, 0, 6]) == 2800
    alone = build_player(exp.players["low"], exp, variant)
    assert alone.opponent_values.as_dict()["B"] == 1000  # type: ignore[attr-defined]
