"""Issue 35: hostile numbers, statistics that do not overclaim, one way to write a figure.

Every bad number is one line naming the key (file and line) or the option and the allowed range,
exit 2, with nothing stored altered; a huge game count costs no memory before play; a small
sample is "too few games to tell" and its p-value exact; status and the report print the same
digits.
"""

from __future__ import annotations

import hashlib
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.lab import ExperimentDB, GameRow, load_experiment
from komaken.lab.document import Report
from komaken.lab.report import status_json
from komaken.lab.report_text import document
from komaken.lab.results import collect, settings, title
from komaken.lab.runner import _plan

TOY = """[experiment]
name = "hostile"
game = "tictactoe"
games = {games}
{openings}
[players.r]
engine = "random"

[players.s]
engine = "random"
seed = 7

[[pairings]]
a = "r"
b = "s"
colors = "fixed"

[[pairings]]
a = "s"
b = "r"
colors = "fixed"
"""


def _toml(tmp_path: Path, games: str = "4", openings: str = "", name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(TOY.format(games=games, openings=openings), encoding="utf-8")
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _db(tmp_path: Path) -> Path:
    """A database that exists (the experiment of :data:`TOY`, no games)."""
    db = tmp_path / "kept.db"
    ExperimentDB.create(db, load_experiment(_toml(tmp_path, name="kept.toml"))).close()
    return db


def _cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output


def test_a_huge_game_count_in_a_file_is_one_line_and_the_database_untouched(tmp_path: Path) -> None:
    db = _db(tmp_path)
    before = _digest(db)
    path = _toml(tmp_path, games=str(10**18))
    code, out = _cli("experiment", "run", str(path), "--db", str(db), "-q")
    assert code == 2 and out.count("\n") == 1, out
    assert out == (f"komaken: error: {path}:4: experiment.games: out of range: {10**18} "
                   "(allowed: 1..100000000)\n")
    assert _digest(db) == before


@pytest.mark.parametrize(("args", "option", "allowed"), [
    (["experiment", "run", "{toml}", "--db", "{db}", "--games", str(10**18)], "--games", "1<=x<=100000000"),
    (["experiment", "run", "{toml}", "--db", "{db}", "--workers", "100000"], "--workers", "1<=x<=1024"),
    (["experiment", "run", "{toml}", "--db", "{db}", "--progress-every", "nan"], "--progress-every", "0<=x<=86400"),
    (["values", "selfplay", "-v", "minishogi", "--games", str(10**18), "--db", "{db}"], "--games",
     "0<=x<=100000000"),
    (["values", "selfplay", "-v", "minishogi", "--games", "2", "--max-plies", str(10**9), "--db", "{db}"],
     "--max-plies", "1<=x<=100000"),
    (["values", "selfplay", "-v", "minishogi", "--games", "2", "--imbalance", "-3", "--db", "{db}"], "--imbalance",
     "0<=x<=1000"),
    (["values", "odds", "-v", "minishogi", "--pieces", "B", "--games", "4", "--seed", "-1", "--db", "{db}"],
     "--seed", "0<=x<=9223372036854775807"),
    (["values", "odds", "-v", "minishogi", "--pieces", "B", "--games", str(10**18), "--db", "{db}"], "--games",
     "1<=x<=100000"),
    (["tune", "linear", "-v", "minishogi", "--games", "0", "--db", "{db}", "--out", "{db}.toml", "--l2", "inf"], "--l2",
     "0<=x<=1000000"),
])  # fmt: skip
def test_command_line_numbers_are_bounded(tmp_path: Path, args: list[str], option: str, allowed: str) -> None:
    db = _db(tmp_path)
    before = _digest(db)
    code, out = _cli(*(a.format(toml=_toml(tmp_path), db=db) for a in args))
    assert code == 2 and out.count("\n") == 1, out
    assert f"Invalid value for '{option}'" in out and allowed in out, out
    assert _digest(db) == before and not Path(f"{db}.toml").exists()


def test_a_huge_pairing_is_planned_without_memory_in_proportion(tmp_path: Path) -> None:
    # The list of every missing index was 2.6 GB at 10**18 games; 10**8 (the limit) would be 4 GB.
    exp = load_experiment(_toml(tmp_path, games=str(10**8)))
    with ExperimentDB.create(tmp_path / "big.db", exp) as db:
        db.insert(GameRow("r-vs-s", 1, "r", "s", "a", "win", "a", "", 0, 0, "", 0.0, 1, 0.0))
        tracemalloc.start()
        try:
            _, queue, jobs, decided = _plan(db, exp)
            first = [next(queue) for _ in range(6)]
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert jobs == 2 * 10**8 - 1 and not decided
    # round robin over the pairings, the stored game 1 of r-vs-s skipped
    assert first == [("r-vs-s", 0), ("s-vs-r", 0), ("r-vs-s", 2), ("s-vs-r", 1), ("r-vs-s", 3), ("s-vs-r", 2)]
    assert peak < 2_000_000, peak


def test_an_openings_file_that_is_not_utf8_names_file_line_and_byte(tmp_path: Path) -> None:
    sfens = tmp_path / "open.sfen"
    sfens.write_bytes("# 定跡\n".encode("shift_jis") + b"x\n")
    path = _toml(tmp_path, openings='\n[openings]\nfile = "open.sfen"\n')
    db = _db(tmp_path)
    before = _digest(db)
    code, out = _cli("experiment", "run", str(path), "--db", str(db), "-q")
    assert code == 2 and out.count("\n") == 1, out
    assert out.startswith(f"komaken: error: {path}:7: openings.file: {sfens}:1: not UTF-8 (byte 3: "), out
    assert _digest(db) == before


def test_an_experiment_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "sjis.toml"
    data = TOY.format(games=4, openings="# 五五将棋\n").encode("shift_jis")
    path.write_bytes(data)
    byte = data.index("五".encode("shift_jis")) + 1  # counted from 1, as the variant loader counts
    code, out = _cli("experiment", "run", str(path), "--db", str(tmp_path / "new.db"), "-q")
    assert code == 2 and out == f"komaken: error: {path}:5: not UTF-8 (byte {byte}: invalid start byte); save the " \
                                "file as UTF-8\n", out
    assert not (tmp_path / "new.db").exists()


def _report(db: ExperimentDB) -> tuple[str, str]:
    """report.md and report.html as the report writes them, without drawing the figures."""
    exp, stats = collect(db)
    rep = Report(title(exp), document(exp, stats, settings(db, exp), []))
    return rep.markdown(), rep.html()


def _fill(db: ExperimentDB, pairing: str, a: str, b: str, results: str) -> None:
    for i, r in enumerate(results):
        result = {"W": "a", "L": "b", "D": "draw"}[r]
        db.insert(GameRow(pairing, i, a, b, result, "checkmate", "a", "", 0, 0, "", 0.0, i, 0.0))


def test_four_lost_games_are_too_few_to_tell_and_status_prints_the_reports_digits(tmp_path: Path) -> None:
    exp = load_experiment(_toml(tmp_path))
    with ExperimentDB.create(tmp_path / "x.db", exp) as db:
        _fill(db, "r-vs-s", "r", "s", "LLLL")
        _fill(db, "s-vs-r", "s", "r", "LLLL")
        doc = status_json(db)
        md, _ = _report(db)
    # the normal approximation gave p = 0.0455 and "2 of 2 settings score significantly below"
    assert "significantly" not in md.split("## Setup")[0]
    assert "have too few games to tell (fewer than 6 decisive games" in md
    assert doc["pairings"][0]["p_value"] == 0.125 and doc["pairings"][0]["text"]["p"] == "0.125"
    code, out = _cli("experiment", "status", "--db", str(tmp_path / "x.db"))
    assert code == 0 and "p 0.125  (too few games to tell)" in out, out
    assert "| 4 | 0 | 4 | 0 | 0.0% | 0.0–49.0% | −∞ | −∞ … −7 | 0.125 |" in md


def test_status_and_report_round_a_p_value_alike(tmp_path: Path) -> None:
    # status printed p from the JSON's 6-digit rounding (0.0455 → "0.045") and the report from the
    # number itself ("0.046"); now both, and the web page, print stats.display's text.
    exp = load_experiment(_toml(tmp_path, games="140"))
    with ExperimentDB.create(tmp_path / "x.db", exp) as db:
        _fill(db, "r-vs-s", "r", "s", "W" * 80 + "L" * 59 + "D")
        _fill(db, "s-vs-r", "s", "r", "W" + "L" * 16)  # p = 0.000274658…, rounded for JSON 0.000275
        doc = status_json(db)
        md, html = _report(db)
    code, out = _cli("experiment", "status", "--db", str(tmp_path / "x.db"))
    for p in doc["pairings"]:
        t = p["text"]
        assert f"score {t['score']} ({t['score_ci95']})  Elo {t['elo']}  p {t['p']}" in out
        assert f"| {t['score']} | {t['score_ci95']} | {t['elo']} | {t['elo_ci95']} | {t['p']} |" in md
        assert f"<td>{t['p']}</td>" in html
    assert [p["text"]["p"] for p in doc["pairings"]] == ["0.089", "2.7e−04"]
    assert doc["pairings"][1]["p_value"] == 0.000275
    assert "p 2.7e−04" in out  # formatted from the JSON's rounded number it read 2.8e−04


def test_the_python_api_refuses_a_worker_count_before_opening_anything(tmp_path: Path) -> None:
    from komaken.lab import RunError, run_experiment
    from komaken.lab.valuestudy.selfplay import run_selfplay, study_config

    with pytest.raises(RunError, match=r"workers: out of range: 5000 \(allowed: 1\.\.1024\)"):
        run_experiment(load_experiment(_toml(tmp_path)), tmp_path / "new.db", workers=5000)
    with pytest.raises(RunError, match="workers: out of range: 0"):
        run_selfplay(study_config("minishogi", games=2), tmp_path / "study.db", workers=0)
    assert not (tmp_path / "new.db").exists() and not (tmp_path / "study.db").exists()
