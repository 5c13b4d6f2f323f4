"""Model uncertainty of method A: the fit under other modelling choices, and the specifications
the data cannot identify (one line naming the piece or stratum and the games needed)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.errors import KomakenError
from komaken.lab.valuestudy.fit import FitError, fit_study
from komaken.lab.valuestudy.games import SelfPlayGame, create_study, insert
from komaken.lab.valuestudy.robust import UnidentifiedError, format_designs, load_rows, robustness
from komaken.lab.valuestudy.selfplay import study_config
from komaken.shogi.engine.selfplay import COL_SIDE, NF

# feature columns of black (white's are +20): on the board P 0, S 3, G 4, B 5, R 6; in hand +13
TRUE = {"G": 1.0, "B": 1.5, "B*": 0.8, "R": 1.8, "R*": 1.8, "G*": 1.0}  # logit per piece of difference


def _study(path: Path, games: int, seed: int, *, plies: int = 6, rook_in_hand: bool = True,
           variant: str = "minishogi") -> None:
    """A minishogi study of synthetic games: each game's material difference is fixed, drawn at
    random, and its result drawn from a logistic law in which a bishop in hand is worth less than
    one on the board."""
    rng = np.random.default_rng(seed)
    with create_study(path, study_config(variant, games=games)) as db:
        for g in range(games):
            row = np.zeros(NF, np.int8)
            row[[0, 3, 20, 23]] = 1  # a pawn and a silver each, never traded
            logit = 0.0
            for col, key in ((4, "G"), (5, "B"), (6, "R"), (17, "G*"), (18, "B*"), (19, "R*")):
                if key == "R*" and not rook_in_hand:
                    continue
                side = int(rng.integers(0, 3))  # 0 none, 1 black has it, 2 white has it
                if side:
                    row[col + 20 * (side - 1)] = 1
                    logit += TRUE[key] * (1 if side == 1 else -1)
            score = float(rng.random() < 1 / (1 + np.exp(-logit)))
            feat = np.tile(row, (plies, 1))
            feat[1::2, COL_SIDE] = 1  # sides to move alternate
            insert(db, SelfPlayGame(g, g, score, "checkmate", plies + 2, 2, plies, b"", feat.tobytes(), 0.0, 0.0))


def _other_variant(tmp_path: Path) -> Path:
    db = tmp_path / "ctrl5.db"
    _study(db, 300, 9, variant="ctrl5")
    return db


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_specifications_recover_what_the_games_were_made_with(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _study(db, 4000, 1)
    r = robustness(str(db), ("B", "R"), bootstrap=40)
    rows = {f.spec.name.split(":")[0]: f for f in r.fits}
    paper = rows["paper"]
    ref = fit_study(db, bootstrap=40)
    assert paper.values["B"][0] == pytest.approx(ref.value("B")[0], abs=1e-9)  # the paper's fit, unchanged
    assert paper.values["R"][0] == pytest.approx(ref.value("R")[0], abs=1e-9)
    # every game has six positions: weighting each game once changes no estimate
    assert rows["each game once"].values["B"][0] == pytest.approx(paper.values["B"][0], abs=1e-6)
    # the material never changes within a game: each third sees the same law, on a third of the rows
    for name in ("first third of each game", "middle third of each game", "last third of each game"):
        assert rows[name].positions == 4000 * 2
        assert abs(rows[name].values["R"][0] - paper.values["R"][0]) < 0.2
    split = rows["board/hand split"].values
    assert abs(split["B"][0] - 1.5) < 0.2 and abs(split["B*"][0] - 0.8) < 0.2  # board and hand apart
    assert split["B*"][2] < split["B"][1]  # and told apart by their intervals
    assert split["G*"][1] < 1.0 < split["G*"][2]  # a gold in hand is the gold on the board here
    # the headline interval spans every pooled specification's interval
    lo, hi = r.headline["B"][1:]
    assert all(lo <= f.values["B"][1] and f.values["B"][2] <= hi for f in r.fits if f.spec.whole_game)
    assert 0.8 < paper.values["B"][0] < 1.5  # pooled: between the hand and the board value
    # start only: one position a game, all of them (the material never changes, so the same law)
    start = rows["start only"]
    assert start.positions == start.games == 4000 and abs(start.values["R"][0] - paper.values["R"][0]) < 0.25
    assert r.design == "level"
    table = format_designs([r, r])
    assert "| level | 4000 |" in table and "over 2 start designs" in table
    other = robustness(str(_other_variant(tmp_path)), ("B",), bootstrap=20, min_games=50)
    with pytest.raises(FitError, match="one variant: got ctrl5, minishogi"):
        format_designs([r, other])


def test_thirds_are_taken_by_position_within_each_game(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _study(db, 3, 2, plies=7)
    _, rows = load_rows(str(db))
    assert rows.third.tolist() == [0, 0, 0, 1, 1, 2, 2] * 3
    assert rows.games == 3 and rows.quiet.all()


def test_a_piece_never_in_hand_is_one_line_naming_it_and_nothing_changes(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _study(db, 600, 3, rook_in_hand=False)
    before = _sha(db)
    with pytest.raises(UnidentifiedError, match=r"\(board/hand split\): a difference in R in hand in none of 600 "
                                                r"games; the fit needs 50: at least 10000 games") as err:
        robustness(str(db), ("B", "R"), bootstrap=20)
    assert isinstance(err.value, KomakenError) and isinstance(err.value, ValueError)
    res = CliRunner().invoke(main, ["values", "robust", "--db", str(db), "--pieces", "B,R", "--bootstrap", "20"])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert res.output.startswith("komaken: error: ") and "R in hand in none of 600 games" in res.output
    assert _sha(db) == before


def test_a_stratum_with_too_few_games_names_it_and_the_games_needed(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _study(db, 300, 4, plies=2)  # two positions a game: the last third of every game is empty
    before = _sha(db)
    res = CliRunner().invoke(main, ["values", "robust", "--db", str(db), "--pieces", "B", "--bootstrap", "20"])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "(last third of each game): positions (quiet) in none of 300 games; the fit needs 200: at least " \
           "20000 games (rule of three)" in res.output
    res = CliRunner().invoke(main, ["values", "robust", "--db", str(db), "--pieces", "B,Q"])
    assert res.exit_code == 2 and "minishogi has no Q" in res.output
    res = CliRunner().invoke(main, ["values", "robust", "--db", str(db), "--specs", "first,thirds"])
    assert res.exit_code == 2 and "--specs: unknown thirds (choose from paper, all, game" in res.output
    # leaving the empty stratum out, the rest fits: the paper's row and the first third only
    res = CliRunner().invoke(main, ["values", "robust", "--db", str(db), "--pieces", "B", "--specs", "first",
                                    "--bootstrap", "20"])
    assert res.exit_code == 0, res.output
    rows = [line.split(" | ")[0] for line in res.output.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows == ["| specification", "| paper: quiet positions, each position once, board and hand pooled",
                    "| first third of each game"]
    assert _sha(db) == before


def test_a_prefix_of_a_study_fits_as_the_study_of_that_many_games(tmp_path: Path) -> None:
    """``games=N`` reads the study's first N game indexes: a 600-game study cut at 300 gives what the
    300-game study of the same seed gives, and `values robust --games` says so on the CLI."""
    big, small = tmp_path / "big.db", tmp_path / "small.db"
    _study(big, 600, 4)
    _study(small, 300, 4)
    cut, whole = robustness(str(big), ("B", "R"), bootstrap=20, games=300), robustness(str(small), ("B", "R"),
                                                                                        bootstrap=20)
    assert cut.games == whole.games == 300
    assert [f.values for f in cut.fits] == [f.values for f in whole.fits]
    assert robustness(str(big), ("B", "R"), bootstrap=20).fits[0].values != whole.fits[0].values
    out = CliRunner().invoke(main, ["values", "robust", "--db", str(big), "--pieces", "B,R", "--bootstrap", "20",
                                    "--games", "300"])
    assert out.exit_code == 0, out.output
    assert "300 games" in out.output and "600 games" not in out.output


def test_one_blas_thread_unless_the_user_sets_it() -> None:
    """komaken's fits multiply tall, narrow matrices in processes that already fill the cores:
    importing it asks numpy's BLAS for one thread, and leaves a value the user set alone."""
    import os
    import subprocess
    import sys

    code = "import komaken, os; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "1", out.stderr
    out = subprocess.run([sys.executable, "-c", code], env={**env, "OPENBLAS_NUM_THREADS": "3"},
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "3", out.stderr
