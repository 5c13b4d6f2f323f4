"""An external engine that stops answering loses on time, is killed and restarted; the run goes on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import DEADLINE, ENV
from komaken.games import find_game
from komaken.lab import ExperimentDB, load_experiment, run_experiment
from komaken.players.registry import PlayerSpec
from komaken.players.usi import UsiPlayer

FAKE = Path(__file__).with_name("lab_fake_usi.py")

EXPERIMENT = """
[experiment]
name = "silent"
game = "shogi"
games = {games}
seed = 5

[players.fake]
engine = "usi"
command = "{python} {fake} {silent_at}"
move_timeout = 0.5
timeout = 60

[players.rnd]
engine = "random"

[[pairings]]
a = "fake"
b = "rnd"
colors = "alternate"
"""


def experiment_file(tmp_path: Path, games: int, silent_at: int) -> Path:
    path = tmp_path / "silent.toml"
    path.write_text(EXPERIMENT.format(games=games, python=sys.executable, fake=FAKE, silent_at=silent_at),
                    encoding="utf-8")
    return path


def test_move_timeout_is_a_player_option_in_seconds() -> None:
    shogi = find_game("shogi")
    spec = PlayerSpec.from_table("x", {"engine": "usi", "command": f"{sys.executable} {FAKE} 0",
                                       "move_timeout": 2.5, "grace": 0.25, "timeout": 60}, shogi)
    player = spec.build(shogi)
    try:
        assert isinstance(player, UsiPlayer)
        assert player.move_deadline(0) == 2.5 and player.grace == 0.25 and player.timeout == 60
    finally:
        player.close()


def test_a_silent_engine_loses_on_time_and_the_run_goes_on(tmp_path: Path) -> None:
    # The fake engine resigns at each go but falls silent at the 2nd go of its life: one worker
    # plays the games in order, so every second game is lost on time, and each restart makes a
    # fresh engine whose next game is a resignation again.
    games = 6
    exp = load_experiment(experiment_file(tmp_path, games, silent_at=2))
    summary = run_experiment(exp, tmp_path / "s.db", workers=1)
    assert summary.played == games
    with ExperimentDB.open(tmp_path / "s.db") as db:
        rows = list(db.games())
    assert [r.termination for r in rows] == ["resignation", "time forfeit"] * (games // 2)
    assert all(r.result == "b" for r in rows)  # the fake loses every game, never the run
    for r in rows:
        if r.termination == "time forfeit":
            assert r.reason.startswith("timeout: ") and "no bestmove within 0.5 s" in r.reason
            assert r.outcome.termination.value == "time forfeit"


def test_komaken_play_reports_a_loss_on_time_not_a_hang(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "komaken", "play", "--sente", f"usi:{sys.executable} {FAKE} 1", "--gote", "random",
         "--quiet"],
        env=ENV, capture_output=True, text=True, timeout=DEADLINE, stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stderr
    assert "timeout: USI engine 'fake' gave no bestmove within 2 s at move 1" in out.stdout
    assert "切れ負け (time forfeit): gote (△) wins" in out.stdout
