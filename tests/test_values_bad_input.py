"""Issue 11's bad input for ``komaken values``: one line naming what and where, exit 2, and
nothing already stored altered — an illegal odds start, a database of another study, too few
games to fit."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.lab.valuestudy.games import create_study
from komaken.lab.valuestudy.odds import OddsError, run_odds, write_odds_experiment
from komaken.lab.valuestudy.selfplay import study_config

# Removing white's gold opens the file between black's rook and white's king with black to move.
EXPOSED_KING = """name = "exposed5"
width = 5
height = 5
promotion_zone = 1
start = "k4/g4/5/4G/R3K b - 1"

[rules]
repetition = "draw"
"""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(folder: Path) -> dict[str, str]:
    return {p.name: _digest(p) for p in sorted(folder.iterdir())}


def _odds(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["values", "odds", *args])
    return res.exit_code, res.output


def test_an_odds_start_that_leaves_a_king_in_check_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    variant = tmp_path / "exposed5.toml"
    variant.write_text(EXPOSED_KING, encoding="utf-8")
    db = tmp_path / "odds.db"
    with pytest.raises(OddsError, match="removing G leaves an illegal start .*white.* is in check"):
        write_odds_experiment(str(variant), "G", games=4, db=db)
    code, out = _odds("--variant", str(variant), "--pieces", "G", "--games", "4", "--db", str(db))
    assert code == 2 and out.count("\n") == 1 and "exposed5: removing G leaves an illegal start" in out
    assert not db.exists() and not Path(str(db) + ".odds").exists()


def test_odds_into_a_selfplay_study_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "study.db"
    create_study(db, study_config("minishogi", games=10)).close()
    before = _digest(db)
    code, out = _odds("--variant", "minishogi", "--pieces", "B", "--games", "4", "--db", str(db))
    assert code == 2 and out.count("\n") == 1
    assert "holds a `komaken values selfplay` study, not odds games" in out
    assert _digest(db) == before and not Path(str(db) + ".odds").exists()


def test_odds_into_another_odds_study_is_refused_and_its_files_kept(tmp_path: Path) -> None:
    db = tmp_path / "odds.db"
    run_odds("minishogi", "B", games=4, db=db, nodes=30, workers=1)
    folder = Path(str(db) + ".odds")
    before, files = _digest(db), _files(folder)
    for args, message in (
        (["--variant", "judkins", "--pieces", "B"], "holds experiment 'values-odds:minishogi:B,G'"),
        (["--variant", "minishogi", "--pieces", "B,R"], "holds experiment 'values-odds:minishogi:B,G'"),
        (["--variant", "minishogi", "--pieces", "B", "--nodes", "40"], "holds other settings of this study"),
    ):
        code, out = _odds(*args, "--games", "4", "--db", str(db))
        assert code == 2 and out.count("\n") == 1 and message in out, out
        assert _digest(db) == before and _files(folder) == files
    # the same study is continued, not refused: more games are played into it
    summary = run_odds("minishogi", "B", games=4, db=db, nodes=30, workers=1)
    assert summary.stored == 8 and _files(folder)["odds.sfen"] == files["odds.sfen"]


def test_too_few_games_to_fit_is_one_line_saying_how_many_and_alters_nothing(tmp_path: Path) -> None:
    db = tmp_path / "study.db"
    create_study(db, study_config("ctrl6", games=10)).close()
    before = _digest(db)
    res = CliRunner().invoke(main, ["values", "fit", "--db", str(db), "--out", str(tmp_path / "v.toml")])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "0 games with quiet positions stored; the fit needs at least 200" in res.output
    assert _digest(db) == before and not (tmp_path / "v.toml").exists()


def test_report_refuses_a_file_that_is_no_study_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    db.write_bytes(b"not a database at all, but a file someone keeps")
    before = _digest(db)
    res = CliRunner().invoke(main, ["values", "report", "--db", str(db), "--out", str(tmp_path / "report")])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "other.db: neither a self-play study nor an odds database" in res.output
    assert _digest(db) == before and not (tmp_path / "report").exists()


def test_an_odds_study_stored_with_the_old_player_type_name_continues(tmp_path: Path) -> None:
    import warnings

    from komaken.lab import load_experiment, run_experiment

    db = tmp_path / "odds.db"
    path = write_odds_experiment("minishogi", "B", games=4, db=db, nodes=30)
    assert 'engine = "engine"' in path.read_text(encoding="utf-8")  # what `komaken values odds` writes
    path.write_text(path.read_text(encoding="utf-8").replace('engine = "engine"', 'engine = "komaken"'),
                    encoding="utf-8")  # as a stored study may hold the odds player
    with pytest.warns(FutureWarning, match="'komaken' is deprecated"):
        run_experiment(load_experiment(path, games=3), db, workers=1)  # stopped after 3 of its 8 games
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        summary = run_odds("minishogi", "B", games=4, db=db, nodes=30, workers=1)
    assert summary.stored == 8 and 'engine = "komaken"' in path.read_text(encoding="utf-8")


def test_a_new_odds_study_runs_without_a_deprecation_warning(tmp_path: Path) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        summary = run_odds("minishogi", "B", games=4, db=tmp_path / "odds.db", nodes=30, workers=1)
    assert summary.stored == 8
