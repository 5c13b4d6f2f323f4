"""The designed A-vs-B experiment (odds starts in the study kernel, both methods off the same
games) and strength-matched values (one design at several search limits)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cli_support import komaken_in_process
from komaken.lab.valuestudy.designed import ab_experiment, format_ab
from komaken.lab.valuestudy.fit import FitError, design
from komaken.lab.valuestudy.games import SelfPlayGame, create_study, insert, open_study, study_games
from komaken.lab.valuestudy.imbalance import OddsError, odds_start
from komaken.lab.valuestudy.odds import elo_deficit
from komaken.lab.valuestudy.robust import UnidentifiedError
from komaken.lab.valuestudy.selfplay import odds_game, run_selfplay, study_config
from komaken.lab.valuestudy.strength import format_strength, strength_trend
from komaken.shogi import Position
from komaken.shogi.engine.selfplay import COL_SIDE, NF
from komaken.shogi.variant import load_variant

CLI = [sys.executable, "-m", "komaken", "values"]
LETTERS = ("P", "S", "G", "B", "R")
COLUMN = {"P": 0, "S": 3, "G": 4, "B": 5, "R": 6}  # black's board columns; hand +13, white's +20


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_odds_starts_remove_or_transfer_one_piece_of_one_colour() -> None:
    v = load_variant("minishogi")
    full = Position.start(v)
    for letter in ("B", "R", "S", "G"):
        for color in (0, 1):
            removed = Position.from_sfen(odds_start(v, letter, color), v)
            moved = Position.from_sfen(odds_start(v, letter, color, "transfer"), v)
            assert removed.sfen().split()[0] == moved.sfen().split()[0] != full.sfen().split()[0]
            assert not removed.hand(0) and not removed.hand(1)
            assert Counter(moved.hand(1 - color)) == Counter({letter: 1}) and not moved.hand(color)
    with pytest.raises(OddsError, match="odds_mode: 'swap'"):
        odds_start(v, "B", 0, "swap")


def test_an_illegal_odds_start_is_refused_before_a_game_is_played(tmp_path: Path) -> None:
    # minishogi: without white's pawn its king on 1a faces black's rook on 1e
    db = tmp_path / "o.db"
    out = subprocess.run([*CLI, "selfplay", "--variant", "minishogi", "--games", "4", "--odds", "B,P",
                          "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert out.stderr.startswith("komaken: error: minishogi: removing P leaves an illegal start")
    assert not db.exists()
    # the real console script's exit status and error line are checked above: in-process from here
    out = komaken_in_process("values", "selfplay", "--variant", "minishogi", "--games", "4", "--odds", "B",
                             "--imbalance", "2", "--db", str(db))
    assert out.returncode == 2 and "give --odds or --imbalance, not both" in out.stderr and not db.exists()


def test_odds_games_of_the_kernel_start_from_their_odds_start(tmp_path: Path) -> None:
    config = study_config("minishogi", games=8, nodes=60, random_plies=0, odds="B,R", odds_mode="transfer")
    assert config["odds"] == ["B", "R", "G"] and config["odds_mode"] == "transfer"
    assert study_config("minishogi", games=8, nodes=60, odds="B,R")["odds_mode"] == "remove"
    db = tmp_path / "k.db"
    assert run_selfplay(config, db).stored == 8
    with open_study(db) as store:
        games = list(study_games(store))
    seen = set()
    for g in games:
        letter, color = odds_game(config, g.game_index)
        seen.add((letter, color))
        first = design(g.feature_array(NF)[:1], LETTERS)[0, :-1]  # black − white, per letter
        want = np.zeros(len(LETTERS), np.int16)
        want[LETTERS.index(letter)] = -2 if color == 0 else 2  # transfer: one fewer, the other one more
        assert (first == want).all(), (g.game_index, letter, color, first)
    # games 2k, 2k+1: piece k mod 3 of (B, R, G), the handicap on black then white
    assert seen == {("B", 0), ("B", 1), ("R", 0), ("R", 1), ("G", 0), ("G", 1)}
    assert [odds_game(config, i)[0] for i in range(8)] == ["B", "B", "R", "R", "G", "G", "B", "B"]


TRUE = {"G": 1.0, "B": 1.5, "P": 0.3}  # logit per piece of difference


def _odds_study(path: Path, games: int, seed: int, *, later_gold: bool = False) -> dict:
    """A synthetic odds study (B and G removed): the result drawn from a logistic law of the
    start's material; with ``later_gold`` the side without the bishop also loses its gold halfway
    through (a deficit that grows during the game)."""
    config = study_config("minishogi", games=games, odds="B")
    rng = np.random.default_rng(seed)
    with create_study(path, config) as db:
        for g in range(games):
            letter, color = odds_game(config, g)
            row = np.zeros(NF, np.int8)
            for x in ("P", "S", "G", "B", "R"):
                row[[COLUMN[x], COLUMN[x] + 20]] = 1
            row[COLUMN[letter] + 20 * color] = 0
            black_logit = TRUE[letter] * (-1 if color == 0 else 1)
            score = float(rng.random() < 1 / (1 + np.exp(-black_logit)))
            feat = np.tile(row, (8, 1))
            feat[1::2, COL_SIDE] = 1
            if later_gold and letter == "B":
                feat[4:, COLUMN["G"] + 20 * color] = 0
            insert(db, SelfPlayGame(g, g, score, "checkmate", 10, 2, 8, b"", feat.tobytes(), 0.0, 0.0))
    return config


def test_both_methods_recover_the_value_the_odds_games_were_made_with(tmp_path: Path) -> None:
    db = tmp_path / "ab.db"
    _odds_study(db, 4000, 1)
    r = ab_experiment(str(db), bootstrap=100)
    b, g = r.pieces
    assert (b.letter, g.letter, b.games, g.games) == ("B", "G", 2000, 2000) and r.mode == "remove"
    for est in (b.odds, b.start_only, b.whole_game):
        assert est is not None and est[1] < 1.5 < est[2] and est[2] - est[1] < 0.6
    # method B is the ratio of the Elo deficits of the handicapped sides' scores
    assert b.odds is not None
    assert b.odds[0] == pytest.approx(elo_deficit(np.array([b.score[0]]))[0] / elo_deficit(np.array([g.score[0]]))[0])
    assert b.elo == pytest.approx(-400 * np.log10(b.score[0] / (1 - b.score[0])))
    assert b.score[0] == pytest.approx(1 / (1 + np.exp(1.5)), abs=0.03)
    assert b.deficit_start == pytest.approx(b.whole_game[0]) and g.deficit_start == pytest.approx(1.0)
    assert "| minishogi remove (1000 nodes) | B | 2000 |" in format_ab([r])


def test_a_deficit_that_grows_during_the_game_is_seen(tmp_path: Path) -> None:
    db = tmp_path / "grow.db"
    _odds_study(db, 2000, 2, later_gold=True)
    b = ab_experiment(str(db), bootstrap=20).pieces[0]
    # the gold lost halfway adds about half a gold to the deficit over the game
    assert b.deficit_game - b.deficit_start == pytest.approx(0.5, abs=0.15)  # in golds


def test_ab_with_too_few_games_of_a_piece_is_one_line_and_reads_only(tmp_path: Path) -> None:
    db = tmp_path / "few.db"
    _odds_study(db, 60, 3)
    before = _sha(db)
    with pytest.raises(UnidentifiedError, match=r"odds games without B in 30 of 60 games; the fit needs 50: "
                                                r"about 100 games"):
        ab_experiment(str(db))
    out = komaken_in_process("values", "ab", "--db", str(db))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "odds games without B" in out.stderr
    assert _sha(db) == before
    plain = tmp_path / "plain.db"
    with create_study(plain, study_config("minishogi", games=1)):
        pass
    with pytest.raises(FitError, match="not an odds study"):
        ab_experiment(str(plain))


def _depth_study(path: Path, depth: int | None, bishop: float, rng_seed: int, games: int = 1500,
                 **extra: object) -> None:
    """A synthetic exchange-like study at a search limit: B and G differences drawn at random,
    the result from a logistic law with the bishop worth ``bishop`` golds."""
    config = study_config("minishogi", games=games, nodes=None if depth else 1000, depth=depth, **extra)  # type: ignore[arg-type]
    rng = np.random.default_rng(rng_seed)
    with create_study(path, config) as db:
        for g in range(games):
            row = np.zeros(NF, np.int8)
            row[[0, 3, 6, 20, 23, 26]] = 1
            logit = 0.0
            for x, value in (("G", 1.0), ("B", bishop)):
                side = int(rng.integers(0, 3))
                if side:
                    row[COLUMN[x] + 20 * (side - 1)] = 1
                    logit += value * (1 if side == 1 else -1)
            score = float(rng.random() < 1 / (1 + np.exp(-logit)))
            feat = np.tile(row, (6, 1))
            feat[1::2, COL_SIDE] = 1
            insert(db, SelfPlayGame(g, g, score, "checkmate", 8, 2, 6, b"", feat.tobytes(), 0.0, 0.0))


def test_strength_trend_orders_by_depth_and_measures_the_change(tmp_path: Path) -> None:
    shallow, deep = tmp_path / "d1.db", tmp_path / "d3.db"
    _depth_study(deep, 3, 1.6, 1)
    _depth_study(shallow, 1, 0.9, 2)
    (row,) = strength_trend([deep, shallow], ("B",), bootstrap=100)
    assert row.strengths == ["depth 1", "depth 3"] and row.games == [1500, 1500]
    est, lo, hi = row.change["B"]
    assert est == pytest.approx(row.values["B"][1][0] - row.values["B"][0][0])
    assert lo < 0.7 < hi and lo > 0.3
    assert "| minishogi (5×5) | depth 3 − depth 1 |  | +0." in format_strength([row])


def test_strength_refuses_mixed_designs_twins_and_unpriced_pieces(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "c.db"
    _depth_study(a, 1, 1.0, 1, games=400)
    _depth_study(b, 2, 1.0, 2, games=400, imbalance=2, imbalance_mode="exchange")
    _depth_study(c, 1, 1.0, 3, games=400, seed=5)
    before = [_sha(p) for p in (a, b, c)]
    with pytest.raises(FitError, match="minishogi: studies of 2 designs"):
        strength_trend([a, b], ("B",))
    with pytest.raises(FitError, match="two studies at depth 1"):
        strength_trend([a, c], ("B",))
    with pytest.raises(FitError, match=r"a\.db: S never varies in its quiet positions; no value at depth 1"):
        strength_trend([a], ("B", "S"))
    out = komaken_in_process("values", "strength", "--db", str(a), "--db", str(b), "--pieces", "B")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "studies of 2 designs" in out.stderr
    assert [_sha(p) for p in (a, b, c)] == before


def test_a_side_to_move_that_never_varies_leaves_the_fit() -> None:
    # every game's first position has black to move: the side term would be the intercept again
    from komaken.lab.valuestudy.fit import Positions, fit_positions

    rng = np.random.default_rng(4)
    n = 3000
    diff = rng.choice([-2, 2], size=(n, 2)) * (rng.random((n, 2)) < 0.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-(diff @ np.array([1.0, 1.5]) - 0.3)))).astype(float)
    x = np.column_stack([diff, np.ones(n)]).astype(np.int16)
    coef, boot, dropped = fit_positions(Positions(("G", "B"), x, y, np.arange(n), n, n), bootstrap=100)
    assert dropped == () and coef[2] == 0 and (boot[:, 2] == 0).all()  # the layout kept: G, B, side, intercept
    ratio = boot[:, 1] / boot[:, 0]
    assert np.isfinite(ratio).all() and np.quantile(ratio, 0.025) < 1.5 < np.quantile(ratio, 0.975)
    assert np.quantile(ratio, 0.975) - np.quantile(ratio, 0.025) < 0.5
    assert coef[3] == pytest.approx(-0.3, abs=0.15)


def test_an_odds_study_is_named_as_its_design_not_as_level(tmp_path: Path) -> None:
    from komaken.lab.valuestudy.fit import fit_study, format_fit, start_design
    from komaken.lab.valuestudy.laws import primary
    from komaken.lab.valuestudy.robust import robustness

    db = tmp_path / "named.db"
    config = _odds_study(db, 600, 5)
    assert start_design(config) == "odds B,G remove"
    fit = fit_study(db, bootstrap=20)
    assert fit.design == "odds B,G remove" and not fit.level
    assert "odds B,G remove starts" in format_fit(fit)
    assert primary([fit], "minishogi") is None  # an odds study is no study of the laws
    assert robustness(str(db), ("B",), specs=(), bootstrap=20).design == "odds B,G remove"
