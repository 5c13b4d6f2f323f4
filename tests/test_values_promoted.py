"""Promoted minors under location and lifetime controls: the replay that places them agrees with
what the games stored, the splits fit, and a split the games cannot identify is one line."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.errors import KomakenError
from komaken.lab.valuestudy.fit import FitError
from komaken.lab.valuestudy.promoted import (
    OUTSIDE,
    format_controls,
    format_reference,
    placements,
    promoted_controls,
    reference_tables,
)
from komaken.lab.valuestudy.robust import UnidentifiedError, load_rows
from komaken.lab.valuestudy.selfplay import run_selfplay, study_config

# feature columns of black (white's +20): +P 7, +S 10
COLS = {"+P": 7, "+S": 10}


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("promoted") / "mini.db"
    run_selfplay(study_config("minishogi", games=80, nodes=150, seed=3, imbalance=2, imbalance_mode="exchange"), db)
    return db


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_replay_places_exactly_the_promoted_pieces_the_games_stored(study: Path) -> None:
    _, rows = load_rows(str(study))
    _, p = placements(str(study), horizon=4)
    seen = 0
    for x, col in COLS.items():
        stored = rows.feat[:, col].astype(int) - rows.feat[:, col + 20].astype(int)
        assert np.array_equal(p.camp[x] + p.out[x], stored)  # every promoted piece, in the camp or not
        assert np.array_equal(p.stays[x] + p.gone[x], stored)  # and either still there 4 plies on, or not
        seen += int(np.count_nonzero(stored))
        # the unpromoted piece in the camp is among those on the board (P 0, S 3)
        board = rows.feat[:, col - 7].astype(int) + rows.feat[:, col + 13].astype(int)
        assert np.all(np.abs(p.camp[x[1:]]) <= board)
    assert seen > 0  # the games did promote
    assert not p.camp["P"].any()  # a minishogi pawn cannot stand on the last rank unpromoted
    # a pawn or silver promoted in the camp is there: most promoted pieces stand in the camp
    assert np.abs(p.camp["+S"]).sum() + np.abs(p.camp["+P"]).sum() > 0


def test_the_splits_fit_beside_the_pooled_fit_and_the_outside_tables(study: Path) -> None:
    r = promoted_controls(str(study), ("+S",), horizon=4, bootstrap=20, min_games=50, min_term_games=3)
    assert [f.name for f in r.fits] == ["paper: pooled", "location", "lifetime"]
    pooled, loc, life = (f.values for f in r.fits)
    assert {"+S in the enemy camp", "+S elsewhere"} <= set(loc) and "+S" not in loc
    assert {"+S still on the board 4 plies later", "+S gone within 4 plies"} <= set(life)
    assert pooled["G"] == (1.0, 1.0, 1.0) and all(f.values["B"][1] <= f.values["B"][0] <= f.values["B"][2]
                                                  for f in r.fits)
    # the pieces that are not split are fitted as in the pooled fit (same terms but one)
    assert abs(loc["B"][0] - pooled["B"][0]) < 0.25
    table = format_controls(r)
    assert "| location | " in table and "+S in the enemy camp" in table
    ref = format_reference(r)
    assert "Kaufman 2002" in ref and "Bonanza 6.0" in ref and "Fairy-Stockfish master (5×5" in ref


def test_outside_tables_are_the_sources_numbers_in_golds() -> None:
    t = reference_tables(5)
    assert t["Bonanza 6.0 (9×9)"]["+P"] == pytest.approx(534 / 444)
    assert t["Kaufman 2002 (9×9)"]["+P"] == 1.25 and OUTSIDE["Kaufman 2002 (9×9)"]["G"] == 8
    fsf = t["Fairy-Stockfish master (5×5, as computed)"]
    assert fsf["+S"] == fsf["+P"] == 1.0  # promoted minors are golds in Fairy-Stockfish
    # slider scale and saturation as it computes them: the 5×5 rook ((1276·8//12)·7000//7850)//2 over the gold's
    assert fsf["R"] == pytest.approx(((1276 * 8 // 12) * 7000 // (7000 + 1276 * 8 // 12)) // 2
                                     / ((720 * 7000 // 7720) // 2))


def test_a_split_the_games_cannot_identify_is_one_line_and_nothing_changes(study: Path) -> None:
    before = _sha(study)
    _, rows = load_rows(str(study))
    _, p = placements(str(study))
    quiet_game = rows.game[rows.quiet]
    have = len(np.unique(quiet_game[(rows.feat[rows.quiet, 10] - rows.feat[rows.quiet, 30]) != 0]))
    in_camp = len(np.unique(quiet_game[p.camp["+S"][rows.quiet] != 0]))
    assert 0 < in_camp < have  # enough games for the pooled +S, too few for the one in the camp
    pattern = (rf"\(location split\): a difference in \+S in the enemy camp in {in_camp} of \d+ games; "
               rf"the fit needs {have}: about \d+ games")
    with pytest.raises(UnidentifiedError, match=pattern) as err:
        promoted_controls(str(study), ("+S",), bootstrap=5, min_games=50, min_term_games=have, splits=("location",))
    assert isinstance(err.value, KomakenError) and isinstance(err.value, ValueError)
    res = CliRunner().invoke(main, ["values", "promoted", "--db", str(study), "--pieces", "+S", "--bootstrap", "20",
                                    "--min-games", "50"])
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    assert res.output.startswith("komaken: error: ") and "+S" in res.output and "games" in res.output
    for args, message in ((["--pieces", "+B"], "+B: not a promoted minor of minishogi (its promoted minors: +P, "
                                               "+S)"),
                          (["--splits", "rank"], "--splits: unknown rank (choose from location, lifetime)"),
                          (["--horizon", "0"], "--horizon")):
        res = CliRunner().invoke(main, ["values", "promoted", "--db", str(study), *args])
        assert res.exit_code == 2 and res.output.count("\n") == 1 and message in res.output, res.output
    with pytest.raises(FitError, match="horizon: must be at least 1"):
        placements(str(study), horizon=0)
    assert _sha(study) == before


def test_the_camp_is_each_owners_promotion_zone() -> None:
    from komaken.lab.valuestudy.promoted import _board_counts
    from komaken.shogi import Position
    from komaken.shogi.variant import load_variant

    v = load_variant("minishogi")
    # black: +S on rank 1 (its camp), +P on rank 3; white: +P on rank 5 (its camp), +S on rank 2
    pos = Position.from_sfen("+S3k/3+s1/2+P2/5/K3+p b - 1", v)
    kinds = {"+P": 9, "+S": 12, "S": 4}
    c = _board_counts(np.array([pos.kernel_state().bd]), v, kinds)[0]
    assert c[0, 0].tolist() == [0, 1] and c[0, 1].tolist() == [1, 0]  # black: +P elsewhere, +S in the camp
    assert c[1, 0].tolist() == [1, 0] and c[1, 1].tolist() == [0, 1]  # white: +P in the camp, +S elsewhere
    assert not c[:, 2].any()


def test_a_prefix_of_the_study_is_the_study_of_that_many_games(study: Path, tmp_path: Path) -> None:
    """Games are a function of seed and index, so the first 50 games of the 80-game study are the
    50-game study's: ``games=50`` must fit exactly what that study fits."""
    short = tmp_path / "short.db"
    run_selfplay(study_config("minishogi", games=50, nodes=150, seed=3, imbalance=2, imbalance_mode="exchange"),
                 short)
    kw = {"horizon": 4, "bootstrap": 10, "min_games": 20, "min_term_games": 3}
    cut, whole = promoted_controls(str(study), ("+S",), games=50, **kw), promoted_controls(str(short), ("+S",), **kw)
    assert cut.games == whole.games == 50
    assert [f.values for f in cut.fits] == [f.values for f in whole.fits]
