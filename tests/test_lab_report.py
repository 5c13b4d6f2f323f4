"""The Table 6 experiment file and its report, fed with the thesis's own published counts."""

from __future__ import annotations

import base64
import math
import re
from pathlib import Path
from typing import Any

import pytest

from komaken.lab import ExperimentDB, GameRow, load_experiment
from komaken.lab.report import build, status_json

TABLE6 = Path(__file__).parents[1] / "examples" / "thesis_table6.toml"


def test_table6_file_matches_the_thesis() -> None:
    exp = load_experiment(TABLE6)
    assert len(exp.pairings) == 39 and exp.total_games == 3900
    assert all(p.colors == "fixed" and p.b == "standard" and p.published for p in exp.pairings)
    first = exp.pairings[0]
    assert dict(first.published or {}) == {"wins": 48, "losses": 48, "draws": 4, "rate": "50%"}
    values = exp.players[first.a].settings["values"]
    assert (values["B"], values["+B"], values["R"], values["+R"]) == (2500, 2500, 2500, 2500)
    assert exp.load_variant().repetition == "draw"
    assert load_experiment(TABLE6, games=1000).total_games == 39_000


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[Path], Path]:
    """Table 6 stored with the thesis's published counts: its status, and its report's files and
    folder, made once for the tests that read them."""
    tmp_path = tmp_path_factory.mktemp("table6")
    exp = load_experiment(TABLE6)
    with ExperimentDB.create(tmp_path / "t6.db", exp) as db:
        for p in exp.pairings:
            pub = p.published or {}
            results = ["a"] * pub["wins"] + ["b"] * pub["losses"] + ["draw"] * pub["draws"]
            for i, r in enumerate(results):
                db.insert(GameRow(p.name, i, p.a, p.b, r, "checkmate", "a", "", 0, 0, "", 0.0, i, 0.0))
        doc = status_json(db)
        files = build(db).write(tmp_path / "out")
    return doc, files, tmp_path / "out"


def test_report_of_the_published_counts(published: tuple[dict[str, Any], list[Path], Path]) -> None:
    doc, files, out = published
    row1 = doc["pairings"][0]
    assert (row1["a_wins"], row1["b_wins"], row1["draws"], row1["a_score"]) == (48, 48, 4, 0.5)
    # 53-37-10 (row 4, the thesis's best): 58 %, and 50 % is still inside the 95 % interval.
    row4 = doc["pairings"][3]
    assert row4["a_score"] == 0.58 and row4["a_score_ci95"][0] < 0.5 < row4["a_score_ci95"][1]
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| setting | games | 勝 W | 負 L | 分 D | 勝率 score | 95% CI | Elo |" in md and "published W-L-D" in md
    # rows are named by their setting (a promoted piece only when it differs), the pairing is a reference
    assert "| 角2500 飛2500 | 100 | 48 | 48 | 4 | 50.0% | 40.4–59.6% |" in md
    assert "| 角1800 馬2000 飛2000 龍2200 (control: a = b) | 100 | 47 | 51 | 2 | 48.0% |" in md
    assert "| 角5000 飛5000 (run 2) | 100 | 48 | 38 | 14 |" in md
    names = {f.name for f in files}
    assert {"score_ci.svg", "score_vs_B.png", "score_vs_R.svg"} <= names
    assert "score_vs_promoted_R.svg" not in names  # 龍 moves with 飛: no figure of its own
    # settings run several times are pooled: rows 7-9 (B 1000, R 1200) give 124-156-20
    assert "## Every setting, its runs pooled" in md
    assert "| 角1000 飛1200 | 3 | 300 | 124 | 156 | 20 | 44.7% |" in md
    assert "p same as published" in md


def test_report_reads_like_a_paper(published: tuple[dict[str, Any], list[Path], Path]) -> None:
    out = published[2]
    md = (out / "report.md").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", md, flags=re.M)
    assert headings[:3] == ["Summary", "Setup", "Results by setting"]
    assert "Figures" in headings and "How to read the numbers" in headings
    assert all(re.fullmatch(r"[A-Z][A-Za-z ,()-]+", h) for h in headings)  # words, not file names
    assert md.startswith("# Seed 003, Table 6: sente's bishop and rook values (minishogi, depth 4)\n")
    # the summary: the question, the answer with the key numbers
    summary = md.split("## Setup")[0]
    assert "**Question.** How does the score of player a against standard depend on the values" in summary
    assert ("**Answer.** Best setting **角5000 飛5000**: **56.5%** (95% CI 49.6–63.2%, Elo +45) over 200 games"
            in summary)
    assert "Worst **角1000 飛1300**: **40.2%**" in summary
    assert "ours agree with them (p ≥ 0.05) in **20 of 20** settings" in summary
    # one file carries everything: every figure is embedded, none is linked
    figures = re.findall(r"<figure id='(\w+)'><img alt='Figure \d+: [^']+' src='data:image/svg\+xml;base64,([^']+)'",
                         page)
    assert [name for name, _ in figures] == ["score_ci", "score_vs_B", "score_vs_R"]
    for _, data in figures:
        assert base64.b64decode(data).decode("utf-8").startswith("<svg")
    assert "src='score" not in page and ".svg'" not in page
    assert "<h2>Summary</h2><div class='summary'>" in page.replace("\n", "")
    assert "<td>角1000 飛1200 (run 2)</td>" in page and "<td class='ref'>row08</td>" in page
    assert "white-space:nowrap" in page  # interval cells never wrap


def test_value_figures_vary_one_thing_at_a_time() -> None:
    from komaken.lab.plots import _series
    from komaken.lab.results import Setting
    from komaken.lab.stats import pairing_stats

    exp = load_experiment(TABLE6)
    letters = ["B", "+B", "R", "+R"]
    found = []
    for p in exp.pairings:
        values = {x: exp.players[p.a].settings["values"][x] for x in letters}
        stats = pairing_stats(p.name, p.a, p.b, [("a", "a")])
        found.append(Setting("", "", [p.name], p.a, p.b, p.colors, values, stats, None))
    for letter, twin in (("B", "+B"), ("R", "+R")):
        series = _series(found, letter, letters)
        assert series
        for pts in series.values():
            assert len({v for v, _ in pts}) >= 2
            others = {tuple(s.values[x] for x in letters if x not in (letter, twin)) for _, s in pts}
            assert len(others) == 1  # everything but the plotted value is the same along a line
            assert len({s.values[twin] - s.values[letter] for _, s in pts}) == 1
    assert "R1200" in _series(found, "B", letters)


def test_status_and_report_say_the_same_for_a_perfect_score(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from komaken.cli import main

    exp = load_experiment(TABLE6, games=5)
    with ExperimentDB.create(tmp_path / "p.db", exp) as db:
        first = exp.pairings[0]
        for i in range(5):
            db.insert(GameRow(first.name, i, first.a, first.b, "a", "checkmate", "a", "", 0, 0, "", 0.0, i, 0.0))
        build(db).write(tmp_path / "out")
    status = CliRunner().invoke(main, ["experiment", "status", "--db", str(tmp_path / "p.db")]).output
    line = next(x for x in status.splitlines() if "[row01]" in x)
    assert "角2500 飛2500 [row01]: 5/5" in line and "score 100.0% (56.6–100.0%)" in line and "Elo +∞" in line
    assert "n/a" not in status
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| 角2500 飛2500 | 5 | 5 | 0 | 0 | 100.0% | 56.6–100.0% | +∞ | +46 … +∞ |" in md
    assert "Partial: 5 of 195 games played so far." in md


def test_plots_draw_a_perfect_score_of_ten_games(tmp_path: Path) -> None:
    # 10 of 10 has a Wilson upper bound that rounds below 1.0; matplotlib refused the error bar
    from komaken.lab.results import collect

    exp = load_experiment(TABLE6, games=10)
    with ExperimentDB.create(tmp_path / "p.db", exp) as db:
        for p, result in zip(exp.pairings[:3], ("a", "b", "a"), strict=True):
            for i in range(10):
                db.insert(GameRow(p.name, i, p.a, p.b, result, "checkmate", "a", "", 0, 0, "", 0.0, i, 0.0))
        exp, stats = collect(db)
        files = build(db).write(tmp_path / "out")
    assert stats[0].a_score_ci95[1] == 1.0 and stats[1].a_score_ci95[0] == 0.0
    assert tmp_path / "out" / "score_ci.svg" in files
    assert (tmp_path / "out" / "score_ci.svg").read_bytes().startswith(b"<?xml")


def test_one_table_against_several_changed_ones_names_each_change() -> None:
    # the perturbation design: player a is the same table in every pairing, player b changes one value
    from komaken.lab.results import row_labels

    exp = load_experiment(Path(__file__).parents[1] / "examples" / "values" / "sprt-perturb-minishogi.toml")
    labels = row_labels(exp)
    assert [label.split(" vs ")[1] for label in labels] == ["角1376", "角896", "飛1637", "飛1157", "と1200 全1200"]
    assert all(label.startswith("角1136 飛1397 と694 全434 vs") and "(run" not in label for label in labels)


def test_title_is_derived_from_the_name_without_report_title() -> None:
    from dataclasses import replace

    from komaken.lab.results import title

    exp = load_experiment(TABLE6)
    assert title(replace(exp, report={})) == "Thesis table 6"
    assert title(replace(exp, name="piece_values-5x5", report={})) == "Piece values 5x5"


def test_same_distribution_test() -> None:
    from scipy.stats import fisher_exact, multivariate_hypergeom  # here: seconds of import for every collecting worker

    from komaken.lab.results import same_distribution

    assert same_distribution((48, 48, 4), (48, 48, 4)) == 1.0
    # 2x2 (draws absent): Fisher's exact test, as scipy computes it
    assert same_distribution((7, 2, 0), (3, 8, 0)) == pytest.approx(fisher_exact([[7, 2], [3, 8]]).pvalue, rel=1e-9)
    # 2x3, 100 games a side: the exact sum by brute force over every first row (χ² said exp(-10) = 4.54e-05)
    ours, theirs = (60, 30, 10), (30, 60, 10)
    totals = [a + b for a, b in zip(ours, theirs, strict=True)]
    pmf = [multivariate_hypergeom.pmf([w, l, 100 - w - l], totals, 100)
           for w in range(91) for l in range(91) if 0 <= 100 - w - l <= 20]
    observed = multivariate_hypergeom.pmf(list(ours), totals, 100)
    exact = sum(p for p in pmf if p <= observed * (1 + 1e-7))
    assert same_distribution(ours, theirs) == pytest.approx(exact, rel=1e-9) and exact == pytest.approx(4.17e-5, 1e-3)
    # above 500 games a side: χ² (the same table scaled by 20 → chi2 = 400 on 2 dof)
    assert same_distribution((1200, 600, 200), (600, 1200, 200)) == pytest.approx(math.exp(-200), rel=1e-6)


def test_a_report_is_data_the_page_and_the_files_share(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """build() makes the figures in memory and writes nothing; its JSON blocks, Markdown and HTML
    say the same thing, and write() puts exactly the figures it holds beside them."""
    exp = load_experiment(TABLE6)
    with ExperimentDB.create(tmp_path / "t6.db", exp) as db:
        for p in exp.pairings[:8]:
            pub = p.published or {}
            results = ["a"] * pub["wins"] + ["b"] * pub["losses"] + ["draw"] * pub["draws"]
            for i, r in enumerate(results):
                db.insert(GameRow(p.name, i, p.a, p.b, r, "checkmate", "a", "", 0, 0, "", 0.0, i, 0.0))
        monkeypatch.chdir(tmp_path)
        rep = build(db)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["t6.db"]  # nothing drawn to disk
    blocks = rep.json_blocks()
    table = next(b for b in blocks if b["kind"] == "table")
    assert table["header"][0] == "setting" and len(table["rows"]) == 39
    assert table["rows"][6][:5] == ["角1000 飛1200", "100", "47", "49", "4"]
    figures = [b["name"] for b in blocks if b["kind"] == "figure"]
    assert figures == [f.name for f in rep.figures] and figures[0] == "score_ci"
    assert all(f.svg.startswith("<svg") and f.png.startswith(b"\x89PNG") for f in rep.figures)
    assert (rep.svg("score_ci") or b"").startswith(b"<?xml") and rep.svg("nothing") is None
    files = rep.write(tmp_path / "out")
    drawn = {f"{n}.{ext}" for n in figures for ext in ("png", "svg")}
    assert {f.name for f in files} == {"report.md", "report.html"} | drawn
    assert (tmp_path / "out" / "report.md").read_text(encoding="utf-8") == rep.markdown()
