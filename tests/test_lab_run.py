"""Running experiments for real: processes, SIGKILL + resume, a loopback Dask cluster, the CLI."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from conftest import ENV, toy_toml
from komaken.cli import _Group
from komaken.cli.experiment import experiment
from komaken.lab import ExperimentDB, load_experiment, resume_experiment, run_experiment
from komaken.lab.report import build

pytestmark = pytest.mark.usefixtures("toy_on_path")


def toy(tmp_path: Path, games: int, delay: float = 0.0, name: str = "toy.toml") -> Path:
    path = tmp_path / name
    path.write_text(toy_toml(games, delay=delay, random_plies=1, fixed=True), encoding="utf-8")
    return path


def rows(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(
            "SELECT pairing, game_index, result, reason, sente, moves, seed FROM games ORDER BY pairing, game_index"
        ).fetchall()
    finally:
        conn.close()


def count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return 0


def test_results_do_not_depend_on_workers(tmp_path: Path) -> None:
    exp = load_experiment(toy(tmp_path, 24))
    one = run_experiment(exp, tmp_path / "one.db", workers=1)
    two = run_experiment(exp, tmp_path / "two.db", workers=2)
    assert one.played == two.played == 48
    assert rows(tmp_path / "one.db") == rows(tmp_path / "two.db")
    again = resume_experiment(tmp_path / "two.db", workers=2)
    assert again.played == 0 and again.stored == 48


def test_sigkill_mid_run_then_resume(tmp_path: Path, cli: click.Group) -> None:
    """A real run with two worker processes (games may be stored out of order) is SIGKILLed
    mid-run; the resume (in-process, one worker) plays exactly the missing games."""
    games = 100
    path, db = toy(tmp_path, games, delay=0.004), tmp_path / "killed.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "komaken", "experiment", "run", str(path), "--db", str(db), "--workers", "2", "--quiet"],
        env=ENV,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while count(db) < 10 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the orphaned workers of the killed run
        except ProcessLookupError:
            pass
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
    stored = count(db)
    assert 10 <= stored < 2 * games, "the kill should land mid-run"

    out = CliRunner().invoke(cli, ["experiment", "resume", "--db", str(db), "--workers", "1", "--quiet"])
    assert out.exit_code == 0, out.output
    assert f"played {2 * games - stored} games" in out.stdout
    got = rows(db)
    assert len(got) == 2 * games
    assert sorted((r[0], r[1]) for r in got) == sorted(
        (p, i) for p in ("r1-vs-r2", "fixed") for i in range(games)
    )  # every index once: none lost, none twice
    # And the same games as an uninterrupted run (seeds depend only on the game's identity).
    ref = tmp_path / "ref.db"
    run_experiment(load_experiment(toy(tmp_path, games, name="ref.toml")), ref, workers=1)
    assert rows(ref) == got


def test_dask_loopback_cluster_matches_local(tmp_path: Path, dask_cluster: str) -> None:
    exp = load_experiment(toy(tmp_path, 20))
    remote = run_experiment(exp, tmp_path / "dask.db", dask=dask_cluster)
    local = run_experiment(exp, tmp_path / "local.db", workers=1)  # 1 vs 2 workers: the first test
    assert remote.played == local.played == 40
    assert rows(tmp_path / "dask.db") == rows(tmp_path / "local.db")


@pytest.fixture
def cli() -> click.Group:
    @click.group(cls=_Group)
    def main() -> None:
        pass

    main.add_command(experiment)
    return main


def test_cli_status_report_export(tmp_path: Path, cli: click.Group) -> None:
    runner = CliRunner()
    db = tmp_path / "c.db"
    res = runner.invoke(cli, ["experiment", "run", str(toy(tmp_path, 10)), "--db", str(db), "-j", "1"])
    assert res.exit_code == 0, res.output
    assert "played 20 games" in res.output

    res = runner.invoke(cli, ["experiment", "status", "--db", str(db), "--json"])
    doc = json.loads(res.output)
    assert doc["games"] == 20 and len(doc["pairings"]) == 2
    keys = {"a", "b", "games", "a_wins", "b_wins", "draws", "a_score", "a_score_ci95", "elo", "elo_ci95", "p_value"}
    for p in doc["pairings"]:
        assert keys <= set(p)
        assert p["a_wins"] + p["b_wins"] + p["draws"] == p["games"] == 10
        assert len(p["a_score_ci95"]) == 2 and len(p["elo_ci95"]) == 2

    res = runner.invoke(cli, ["experiment", "report", "--db", str(db), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    for name in ("report.md", "report.html", "score_ci.png", "score_ci.svg"):
        assert (tmp_path / "rep" / name).stat().st_size > 0
    assert "| 勝 W | 負 L | 分 D |" in (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")

    res = runner.invoke(cli, ["experiment", "export", "--db", str(db), "--format", "csv"])
    lines = res.output.splitlines()
    assert lines[0].startswith("pairing,game_index,a,b,result,reason,sente,moves") and len(lines) == 21


#: games per pairing of the SPRT tests: their SPRTs decide after 81 (trinomial) and 50 (pentanomial)
#: games, well short of it; the other pairing plays them all
SPRT_GAMES = 400


def test_sprt_stops_a_pairing_early(tmp_path: Path) -> None:
    text = toy_toml(SPRT_GAMES, delay=0, random_plies=1, fixed=True).replace(
        'colors = "fixed"', 'colors = "fixed"\nsprt = { elo0 = 0, elo1 = 40, alpha = 0.05, beta = 0.05 }'
    )
    (tmp_path / "s.toml").write_text(text, encoding="utf-8")
    summary = run_experiment(load_experiment(tmp_path / "s.toml"), tmp_path / "s.db", workers=1)
    fixed = next(c for c in summary.counts if c.name == "fixed")
    assert fixed.sprt == "H1" and fixed.games < SPRT_GAMES  # sente (a) wins tic-tac-toe far more often
    with ExperimentDB.open(tmp_path / "s.db") as db:
        assert db.count("r1-vs-r2") == SPRT_GAMES


def test_an_sprt_decision_stands_when_games_in_flight_are_stored_after_it(tmp_path: Path, cli: click.Group) -> None:
    """With several workers, games still being played when the LLR crosses a bound are stored after
    the decision and can pull the LLR back inside the bounds.  The decision stays what the run saw:
    status and report say H1 (with the games it was taken at), and a resumed run plays no more."""
    from komaken.lab.results import collect
    from komaken.lab.stats import sprt_state
    from komaken.lab.storage import GameRow

    text = toy_toml(SPRT_GAMES, delay=0, random_plies=1, fixed=True).replace(
        'colors = "fixed"', 'colors = "fixed"\nsprt = { elo0 = 0, elo1 = 40, alpha = 0.05, beta = 0.05 }'
    )
    (tmp_path / "s.toml").write_text(text, encoding="utf-8")
    exp = load_experiment(tmp_path / "s.toml")
    summary = run_experiment(exp, tmp_path / "s.db", workers=1)
    fixed = next(c for c in summary.counts if c.name == "fixed")
    assert fixed.sprt == "H1" and fixed.games < SPRT_GAMES
    with ExperimentDB.open(tmp_path / "s.db") as db:
        decision = db.decision("fixed")
        assert decision is not None and decision["state"] == "H1" and decision["games"] == fixed.games
        assert decision["llr"] >= decision["upper"] and db.decision("r1-vs-r2") is None
        # the games in flight: b wins them, and the LLR of all stored games falls back inside the bounds
        first = max(db.done_indexes("fixed")) + 1
        for i in range(first, first + 6):
            db.insert(GameRow("fixed", i, "r2", "r1", "b", "checkmate", "a", "", 0, 0, "", 0.0, i, 0.0))
        results = db.results("fixed")
        wins, losses = sum(r == "a" for r, _ in results), sum(r == "b" for r, _ in results)
        test = exp.pairing("fixed").sprt
        assert test is not None
        assert sprt_state(wins, losses, len(results) - wins - losses, test)["state"] == "continue"
        _, stats = collect(db)
        s = next(x for x in stats if x.name == "fixed")
        assert s.games == fixed.games + 6 and s.sprt is not None and s.sprt["state"] == "H1"
        assert s.sprt["games"] == fixed.games
    res = CliRunner().invoke(cli, ["experiment", "status", "--db", str(tmp_path / "s.db")])
    assert res.exit_code == 0, res.output
    assert f"SPRT trinomial H1 (LLR {decision['llr']:.2f} after {fixed.games} games)" in res.output
    # the bias-corrected Elo comes from the counts the decision was taken on, not from the games after it
    from komaken.lab.sprt_elo import sprt_elo
    expected = sprt_elo(test, [decision["losses"], decision["draws"], decision["wins"]], SPRT_GAMES)
    assert decision["wins"] + decision["losses"] + decision["draws"] == fixed.games
    res = CliRunner().invoke(cli, ["experiment", "status", "--db", str(tmp_path / "s.db"), "--corrected"])
    assert res.exit_code == 0, res.output
    assert f"Elo corrected {expected.elo:+.1f} [{expected.lo:+.1f}, {expected.hi:+.1f}]" in res.output
    assert expected.elo < expected.mle  # stopped early at H1: the plain Elo overstates
    again = resume_experiment(tmp_path / "s.db", workers=1)
    assert again.played == 0
    with ExperimentDB.open(tmp_path / "s.db") as db:
        assert db.count("fixed") == fixed.games + 6


def test_pentanomial_sprt_stops_on_pairs(tmp_path: Path, cli: click.Group) -> None:
    # r1 and r2 both play at random: a pentanomial test of 0 against +200 Elo accepts H0 early.
    text = toy_toml(SPRT_GAMES, delay=0, random_plies=1, fixed=True).replace(
        'colors = "alternate"', 'colors = "alternate"\nsprt = { elo0 = 0, elo1 = 200, model = "pentanomial" }'
    )
    (tmp_path / "p.toml").write_text(text, encoding="utf-8")
    summary = run_experiment(load_experiment(tmp_path / "p.toml"), tmp_path / "p.db", workers=1)
    alt = next(c for c in summary.counts if c.name == "r1-vs-r2")
    assert alt.sprt == "H0" and alt.games < SPRT_GAMES
    res = CliRunner().invoke(cli, ["experiment", "status", "--db", str(tmp_path / "p.db")])
    assert res.exit_code == 0, res.output
    assert "SPRT pentanomial H0" in res.output and "pairs [" in res.output
    res = CliRunner().invoke(cli, ["experiment", "status", "--db", str(tmp_path / "p.db"), "--json"])
    t = next(p for p in json.loads(res.output)["pairings"] if p["name"] == "r1-vs-r2")["sprt"]
    assert t["model"] == "pentanomial" and sum(t["pentanomial"]) == t["pairs"] >= alt.games // 2 - 1
    assert "elo_corrected" not in t  # simulated only when asked for
    res = CliRunner().invoke(cli, ["experiment", "status", "--db", str(tmp_path / "p.db"), "--json", "--corrected"])
    c = next(p for p in json.loads(res.output)["pairings"] if p["name"] == "r1-vs-r2")["sprt"]["elo_corrected"]
    assert c["lo"] < c["elo"] < c["hi"] and c["runs"] == 2000


def test_an_sprt_that_uses_all_its_games_says_so_and_is_still_corrected(tmp_path: Path, cli: click.Group) -> None:
    # random against random over 20 games cannot tell 0 from +1 Elo: the test ends with its games
    text = toy_toml(20, delay=0, random_plies=1).replace(
        'colors = "alternate"', 'colors = "alternate"\nsprt = { elo0 = 0, elo1 = 1, model = "pentanomial" }'
    )
    (tmp_path / "c.toml").write_text(text, encoding="utf-8")
    summary = run_experiment(load_experiment(tmp_path / "c.toml"), tmp_path / "c.db", workers=1)
    assert summary.counts[0].sprt == "continue" and summary.counts[0].games == 20
    res = CliRunner().invoke(cli, ["experiment", "status", "--db", str(tmp_path / "c.db"), "--corrected"])
    assert res.exit_code == 0, res.output
    assert "SPRT pentanomial no decision" in res.output and "Elo corrected" in res.output
    with ExperimentDB.open(tmp_path / "c.db") as db:
        md = build(db).markdown()
    assert "| none in 20 games |" in md


def test_bad_database_is_one_line_error(tmp_path: Path, cli: click.Group) -> None:
    # in-process: the real console script's exit 2 and one-line error are test_lab_dbfaults's
    (tmp_path / "x.db").write_text("not sqlite" * 50)
    res = CliRunner().invoke(cli, ["experiment", "status", "--db", str(tmp_path / "x.db")])
    assert res.exit_code == 2
    assert res.stderr.strip().count("\n") == 0 and "not a komaken experiment database" in res.stderr
