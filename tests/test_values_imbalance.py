"""``komaken values selfplay --imbalance N``: games from random material-imbalance starts."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.lab.valuestudy.fit import design, letter_columns
from komaken.lab.valuestudy.games import create_study, identity, insert, open_study, study_games
from komaken.lab.valuestudy.imbalance import (
    ImbalanceError,
    check_imbalance,
    imbalance_seed,
    imbalanced_start,
    removable,
)
from komaken.lab.valuestudy.selfplay import _Context, run_selfplay, study_config
from komaken.shogi import Position
from komaken.shogi.engine.selfplay import NF
from komaken.shogi.variant import load_variant

CLI = [sys.executable, "-m", "komaken", "values"]


def _army(pos: Position, color: int) -> Counter[str]:
    return Counter(p.kind for _, p in pos.pieces() if int(p.color) == color)


@pytest.mark.parametrize("variant", ["minishogi", "judkins", "shogi", "shogi7x7", "ctrl9"])
def test_imbalanced_starts_are_legal_and_miss_exactly_n_pieces(variant: str) -> None:
    v = load_variant(variant)
    full = Position.start(v)
    before = _army(full, 0) + _army(full, 1)
    kinds: Counter[str] = Counter()
    for n in (1, 2, 3):
        for seed in range(40):
            sfen = imbalanced_start(v, n, seed)
            assert sfen == imbalanced_start(v, n, seed)  # reproducible from the seed
            pos = Position.from_sfen(sfen, v)
            assert pos.outcome() is None and pos.legal_moves()
            after = _army(pos, 0) + _army(pos, 1)
            gone = before - after
            assert sum(gone.values()) == n and "K" not in gone and not after - before
            assert not pos.hand(0) and not pos.hand(1)
            kinds.update(gone)
    # every kind of the army is drawn, not only the most numerous one
    assert set(kinds) == {k for k in before if k != "K"}


@pytest.mark.parametrize("variant", ["minishogi", "judkins", "shogi"])
def test_transfer_and_exchange_starts_keep_the_material_pool(variant: str) -> None:
    v = load_variant(variant)
    full = Position.start(v)
    pool = _army(full, 0) + _army(full, 1)
    for mode in ("transfer", "exchange"):
        for seed in range(30):
            pos = Position.from_sfen(imbalanced_start(v, 2, seed, mode), v)
            assert pos.outcome() is None and pos.legal_moves()
            hands = [Counter(pos.hand(c)) for c in (0, 1)]
            assert sum(hands[0].values()) + sum(hands[1].values()) == 2
            assert _army(pos, 0) + _army(pos, 1) + hands[0] + hands[1] == pool
            if mode == "exchange":
                # one piece from each side: both keep as many pieces as they started with
                assert sum(hands[0].values()) == sum(hands[1].values()) == 1
    assert imbalanced_start(v, 2, 5, "transfer") != imbalanced_start(v, 2, 5, "remove")


def test_a_removal_that_would_leave_a_side_in_check_is_redrawn() -> None:
    # minishogi: white's pawn on 1b shields its king on 1a from black's rook on 1e
    v = load_variant("minishogi")
    for seed in range(300):
        pos = Position.from_sfen(imbalanced_start(v, 1, seed), v)
        assert not (pos.piece_at("1b") is None and pos.piece_at("1e") is not None)


@pytest.mark.parametrize("bad", [-1, 9, 10, 2.5, True])
def test_bad_imbalance_names_the_key(bad: object) -> None:
    v = load_variant("minishogi")
    assert removable(v) == 10
    with pytest.raises(ImbalanceError, match="^imbalance: "):
        check_imbalance(v, bad)  # type: ignore[arg-type]
    with pytest.raises(ImbalanceError, match="^imbalance: "):
        study_config("minishogi", games=2, nodes=100, imbalance=bad)  # type: ignore[arg-type]


def test_bad_imbalance_mode_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ImbalanceError, match="^imbalance_mode: 'swap' is not one of remove, transfer, exchange"):
        study_config("minishogi", games=2, nodes=100, imbalance=1, imbalance_mode="swap")
    res = CliRunner().invoke(main, ["values", "selfplay", "--variant", "minishogi", "--games", "2", "--imbalance", "1",
                                    "--imbalance-mode", "swap", "--db", str(tmp_path / "x.db")])
    assert res.exit_code == 2 and "--imbalance-mode" in res.output and not (tmp_path / "x.db").exists()


def test_cli_bad_imbalance_is_one_line_exit_2_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    out = subprocess.run([*CLI, "selfplay", "--variant", "minishogi", "--games", "2", "--imbalance", "12",
                          "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "imbalance: 12 is more than minishogi allows (8" in out.stderr
    assert not db.exists()


def test_level_start_keeps_the_preregistered_identity() -> None:
    plain = study_config("minishogi", games=5, nodes=100)
    assert "imbalance" not in plain and "imbalance_mode" not in plain
    assert plain == study_config("minishogi", games=5, nodes=100, imbalance=0, imbalance_mode="exchange")
    other = study_config("minishogi", games=5, nodes=100, imbalance=2)
    assert other["imbalance"] == 2 and identity(other) != identity(plain)
    assert identity(other) != identity(study_config("minishogi", games=5, nodes=100, imbalance=2,
                                                    imbalance_mode="transfer"))


def test_imbalanced_games_start_from_their_start_and_resume(tmp_path: Path) -> None:
    config = study_config("minishogi", games=6, nodes=150, imbalance=2, random_plies=0, imbalance_mode="exchange")
    v = load_variant("minishogi")
    db = tmp_path / "i.db"
    run_selfplay({**config, "games": 3}, db)
    s = run_selfplay(config, db)
    assert s.played == 3 and s.stored == 6
    with open_study(db) as store:
        games = list(study_games(store))
    assert [g.game_index for g in games] == list(range(6))
    letters = ("P", "S", "G", "B", "R")
    for g in games:
        start = Position.from_sfen(imbalanced_start(v, 2, imbalance_seed(0, "minishogi", g.game_index), "exchange"), v)
        feat = g.feature_array(NF)
        # no random plies: the first stored row is the imbalanced start itself
        first = design(feat[:1], letters)[0, :-1]
        count = [_army(start, c) + Counter(start.hand(c)) for c in (0, 1)]
        assert (first == np.array([count[0][x] - count[1][x] for x in letters])).all()
        assert feat[0, [c for x in letters for c in letter_columns(x)]].sum() == 5
        assert feat[0, [c + 20 for x in letters for c in letter_columns(x)]].sum() == 5
    again = _Context(config).play(4)
    assert again.moves == games[4].moves and again.features == games[4].features


def test_cli_imbalance_runs_and_the_fit_reads_it(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    # in-process: the real console script's exit status is test_cli_bad_imbalance_is_one_line_exit_2_...'s
    out = CliRunner().invoke(main, ["values", "selfplay", "--variant", "ctrl5", "--games", "4", "--nodes", "100",
                                    "--imbalance", "1", "--db", str(db), "-q"])
    assert out.exit_code == 0, out.output
    assert "4/4 stored" in out.stdout
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 4
    finally:
        conn.close()
    with open_study(db) as store:
        assert store.config()["imbalance"] == 1
    res = CliRunner().invoke(main, ["values", "fit", "--db", str(db), "--min-games", "200"])
    assert res.exit_code == 2 and "needs at least 200" in res.output


@pytest.mark.parametrize("name", ["minishogi", "judkins", "shogi7x7", "shogi"])
def test_sprt_validation_files_load(name: str) -> None:
    """examples/values/sprt-*.toml: fitted values against the seed table, SPRT [0, 10] (issue 11 §5)."""
    import warnings

    from komaken.lab.config import load_experiment

    path = Path(__file__).parent.parent / "examples" / "values" / f"sprt-{name}.toml"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exp = load_experiment(path)
    assert exp.load_variant().name == name
    (pairing,) = exp.pairings
    assert (pairing.sprt.elo0, pairing.sprt.elo1, pairing.sprt.alpha, pairing.sprt.beta) == (0, 10, 0.05, 0.05)
    fitted = exp.players[pairing.a]
    assert fitted.options["values"]["G"] == 1200 and exp.players[pairing.b].options.get("values") is None


def _synthetic(path: Path, games: int, seed: int, **kw: object) -> None:
    """Synthetic minishogi games: one piece captured, the side ahead wins 3 games in 4."""
    from komaken.lab.valuestudy.games import SelfPlayGame

    rng = np.random.default_rng(seed)
    with create_study(path, study_config("minishogi", games=games, **kw)) as db:  # type: ignore[arg-type]
        base = np.zeros(NF, dtype=np.int8)
        for c in (0, 3, 4, 5, 6):
            base[c] = base[20 + c] = 1
        for g in range(games):
            row = base.copy()
            col, side = (0, 3, 4, 5, 6)[int(rng.integers(0, 5))], int(rng.integers(0, 2))
            row[20 * side + col] = 0
            row[20 * (1 - side) + 13 + col] = 1
            score = float(rng.random() < (0.25 if side == 0 else 0.75))
            insert(db, SelfPlayGame(g, g, score, "checkmate", 10, 2, 5, b"", np.tile(row, (5, 1)).tobytes(), 0.5, 0.0))


def test_report_tells_the_designs_apart_and_compares_them(tmp_path: Path) -> None:
    from komaken.lab.valuestudy.fit import fit_study, format_fit
    from komaken.lab.valuestudy.laws import primary
    from komaken.lab.valuestudy.report import build, load

    level, ex = tmp_path / "level.db", tmp_path / "ex.db"
    _synthetic(level, 300, 1)
    _synthetic(ex, 400, 2, imbalance=2, imbalance_mode="exchange")
    fits = [fit_study(level, bootstrap=20, min_games=50), fit_study(ex, bootstrap=20, min_games=50)]
    assert [f.design for f in fits] == ["level", "exchange 2"]
    assert primary(fits, "minishogi") is fits[1] and primary(fits[:1], "minishogi") is fits[0]
    assert "2 pieces exchanged" in format_fit(fits[1]) and fits[1].seconds == 200.0
    build(load([level, ex], bootstrap=20)).write(tmp_path / "rep")
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "| minishogi | 5 | 1000 nodes | 300 |" in md and "| minishogi | 5 | 1000 nodes, exchange 2 | 400 |" in md
    assert "| minishogi | 1000 | exchange 2 | 400 | 200 |" in md and "| minishogi | 1000 | level | 300 | 150 |" in md
    assert "* minishogi B: exchange 2 " in md and " − level " in md
    assert "not tested: no variant has studies of one design at two node budgets" in md


def test_report_compares_node_budgets_of_one_design(tmp_path: Path) -> None:
    """Search strength (issue 11 §6): a 10⁴-node study against the 10³-node one of the same start
    design, piece by piece; a study of another design is not paired with either."""
    from komaken.lab.valuestudy.fit import fit_study
    from komaken.lab.valuestudy.hypotheses import budgets

    weak, strong, other = tmp_path / "n1000.db", tmp_path / "n10000.db", tmp_path / "level.db"
    _synthetic(weak, 300, 1, imbalance=2, imbalance_mode="exchange")
    _synthetic(strong, 300, 2, imbalance=2, imbalance_mode="exchange", nodes=10000)
    _synthetic(other, 300, 3, nodes=10000)
    fits = [fit_study(db, bootstrap=20, min_games=50) for db in (weak, strong, other)]
    lines = budgets(fits)
    assert lines and all(line.startswith("- minishogi ") for line in lines)
    assert all(": 10000 nodes, exchange 2 " in line and " − 1000 nodes " in line for line in lines)
    b = next(line for line in lines if line.startswith("- minishogi B:"))
    est = fits[1].value("B")[0] - fits[0].value("B")[0]
    assert f"= {est:+.3f} (" in b and (b.endswith("consistent") or b.endswith("**differ**"))
    assert budgets(fits[::2]) == ["not tested: no variant has studies of one design at two node budgets"]


@pytest.mark.parametrize(("name", "kinds"), [("minishogi", 9), ("shogi7x7", 9), ("shogi", 13)])
def test_shipped_fitted_tables_are_the_ones_their_sprt_files_play(name: str, kinds: int) -> None:
    """examples/values/VARIANT-fitted.toml (written by `komaken values fit`) loads as the variant's
    PieceValues, and the SPRT file's fitted player plays exactly those values."""
    from komaken.lab.config import load_experiment
    from komaken.shogi.engine.values import PieceValues

    root = Path(__file__).parent.parent / "examples" / "values"
    exp = load_experiment(root / f"sprt-{name}.toml")
    table = PieceValues.from_toml(root / f"{name}-fitted.toml", exp.load_variant())
    played = exp.players[exp.pairings[0].a].options["values"]
    assert played == {k: table.board[k] for k in played} and len(played) == kinds


@pytest.mark.parametrize("name", ["minishogi", "shogi7x7"])
def test_perturbation_file_moves_one_number_per_player(name: str) -> None:
    """examples/values/perturb-*.toml: the fitted table against itself with B or R moved by
    0.2 gold (240 at gold 1200) either way, or +P and +S set to a gold; fixed-length, no SPRT.
    7×7's fitted table is the shipped one (examples/values/shogi7x7-fitted.toml)."""
    import warnings

    from komaken.lab.config import load_experiment
    from komaken.shogi.engine.values import PieceValues

    root = Path(__file__).parent.parent / "examples" / "values"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exp = load_experiment(root / f"perturb-{name}.toml")
    assert exp.load_variant().name == name and len(exp.pairings) == 5
    fitted = exp.players["fitted"].options["values"]
    if name == "shogi7x7":
        table = PieceValues.from_toml(root / f"{name}-fitted.toml", exp.load_variant())
        assert fitted == {k: table.board[k] for k in fitted} and len(fitted) == 9
    moved = {}
    for pairing in exp.pairings:
        assert pairing.a == "fitted" and pairing.sprt is None
        other = exp.players[pairing.b].options["values"]
        moved[pairing.b] = {k: other[k] - fitted[k] for k in fitted if other[k] != fitted[k]}
    assert moved == {"b-plus": {"B": 240}, "b-minus": {"B": -240}, "r-plus": {"R": 240}, "r-minus": {"R": -240},
                     "minors-gold": {"+P": 1200 - fitted["+P"], "+S": 1200 - fitted["+S"]}}
