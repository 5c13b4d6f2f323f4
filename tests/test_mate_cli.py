"""``komaken mate`` answers in USI and in Japanese."""

from __future__ import annotations

import json

from click.testing import CliRunner

from komaken.cli import main
from komaken.shogi import Position


def test_mate_prints_the_japanese_line() -> None:
    r = CliRunner().invoke(main, ["mate", "--variant", "shogi", "--sfen", "8k/9/9/9/9/9/9/9/K8 b RGG 1"])
    assert r.exit_code == 0, r.output
    usi, japanese = r.output.splitlines()[:2]
    assert usi.startswith("mate in 5: R*1c 1a2b G*2c 2b2a G*2b")
    assert japanese == "5手詰: ▲１三飛 △２二玉 ▲２三金 △２一玉 ▲２二金打"


def test_mate_json_carries_both() -> None:
    r = CliRunner().invoke(main, ["mate", "-v", "minishogi", "--sfen", "4k/5/4P/5/K4 b G 1", "--json"])
    doc = json.loads(r.output)
    assert doc["pv"] == ["G*1b"] and doc["pv_japanese"] == "▲１二金"  # KI2: 打 only if a board gold could go too


def test_variation_japanese_uses_同_and_leaves_the_position_alone() -> None:
    pos = Position.start()
    line = pos.variation_japanese(["7g7f", "3c3d", "8h2b+", "3a2b"])
    assert line == "▲７六歩 △３四歩 ▲２二角成 △同　銀"
    assert pos.ply == 0
