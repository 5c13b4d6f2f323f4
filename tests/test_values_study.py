"""The piece-values study: the self-play kernel, storage, the fit, odds starts, the CLI."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.errors import KomakenError
from komaken.lab.errors import ExperimentDBError
from komaken.lab.valuestudy.fit import FitError, Positions, fit_positions, fit_study, write_values_toml
from komaken.lab.valuestudy.games import SelfPlayGame, create_study, insert, open_study, study_games
from komaken.lab.valuestudy.odds import OddsError, odds_openings, odds_start, parse_pieces
from komaken.lab.valuestudy.selfplay import _Context, run_selfplay, study_config
from komaken.match import play_game as python_play_game
from komaken.players.engine import EnginePlayer
from komaken.shogi import Position
from komaken.shogi.engine import PieceValues
from komaken.shogi.engine.evalparams import EvalParams, pad_tables
from komaken.shogi.engine.selfplay import COL_FLAGS, COL_SIDE, FLAG_CHECK, NF
from komaken.shogi.position import Move
from komaken.shogi.variant import load_variant

CLI = [sys.executable, "-m", "komaken", "values"]


def _rows(db: Path) -> list[tuple]:
    with open_study(db) as study:
        return [(g.game_index, g.seed, g.score, g.termination, g.plies, g.moves, g.features)
                for g in study_games(study)]


def _count(db: Path) -> int:
    try:
        conn = sqlite3.connect(db, timeout=5)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return 0


# --- the kernel -------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["minishogi", "ctrl6"])
def test_kernel_games_equal_the_python_game_loop(variant: str) -> None:
    """The kernel plays, move for move, what komaken.match.play_game plays with two EnginePlayers."""
    config = study_config(variant, games=2, nodes=300, noise=10)
    ctx = _Context(config)
    v = load_variant(variant)
    for index in range(2):
        game = ctx.play(index)
        moves = [Move(int(m)).usi() for m in game.move_codes()]
        pos = Position.start(v)
        for m in moves[:2]:
            pos.push_usi(m)
        seed = game.seed & 0x7FFFFFFFFFFFFFFF
        # the study plays with the built-in evaluation (its tables and the seed's values), whatever
        # parameter file the variant ships
        legacy = EvalParams.legacy(v)
        players = [EnginePlayer(v, nodes=300, hash_mb=1, seed=seed, noise=10, params=legacy) for _ in range(2)]
        res = python_play_game(pos, (players[0], players[1]), max_plies=config["max_plies"], moves_before=moves[:2])
        assert res.moves == moves
        expected = 0.5 if res.winner is None else 1.0 - int(res.winner)
        assert game.score == expected


@pytest.mark.parametrize("variant", ["minishogi", "judkins"])
def test_kernel_games_with_a_parameter_file_equal_the_python_game_loop(variant: str) -> None:
    """Given parameters (here the variant's tuned file), the kernel plays them, as EnginePlayer does;
    without them the configuration has no tables and the study keeps its earlier evaluation."""
    tuned = EvalParams.default(variant)
    config = study_config(variant, games=2, nodes=300, noise=10, params=tuned)
    plain = study_config(variant, games=2, nodes=300, noise=10)
    assert "tables" not in plain
    assert list(pad_tables(config["tables"])) == [float(x) for x in tuned.tables]
    assert study_config(variant, games=2, nodes=300, noise=10, params=EvalParams.load(
        Path(__file__).parent.parent / f"src/komaken/shogi/engine/params/{variant}.toml", variant)) == config
    ctx, legacy_ctx = _Context(config), _Context(plain)
    v = load_variant(variant)
    differ = False
    for index in range(2):
        game = ctx.play(index)
        moves = [Move(int(m)).usi() for m in game.move_codes()]
        differ |= game.moves != legacy_ctx.play(index).moves
        pos = Position.start(v)
        for m in moves[:2]:
            pos.push_usi(m)
        seed = game.seed & 0x7FFFFFFFFFFFFFFF
        players = [EnginePlayer(v, nodes=300, hash_mb=1, seed=seed, noise=10, params=tuned) for _ in range(2)]
        res = python_play_game(pos, (players[0], players[1]), max_plies=config["max_plies"], moves_before=moves[:2])
        assert res.moves == moves
    assert differ  # the tuned evaluation plays other games than the built-in one
    with pytest.raises(KomakenError, match="not both"):
        study_config(variant, games=2, params=tuned, values={"P": 90})
    with pytest.raises(KomakenError, match="not shogi"):
        study_config("shogi", games=2, params=tuned)


def _material(pos: Position) -> np.ndarray:
    """The features a position should have, computed through the public Position API."""
    row = np.zeros(NF, dtype=np.int64)
    order = ("P", "L", "N", "S", "G", "B", "R")
    promoted = ("+P", "+L", "+N", "+S", "+B", "+R")
    for _sq, piece in pos.pieces():
        if piece.kind == "K":
            continue
        base = 20 * int(piece.color)
        row[base + (order.index(piece.kind) if piece.kind in order else 7 + promoted.index(piece.kind))] += 1
    for color in (0, 1):
        for letter, n in pos.hand(color).items():  # type: ignore[arg-type]
            row[20 * color + 13 + order.index(letter)] = n
    row[COL_SIDE] = int(pos.turn)
    return row


@pytest.mark.parametrize("variant", ["minishogi", "judkins", "ctrl8"])
def test_features_are_the_material_of_every_position(variant: str) -> None:
    ctx = _Context(study_config(variant, games=3, nodes=200))
    v = load_variant(variant)
    for index in range(3):
        game = ctx.play(index)
        feat = game.feature_array(NF)
        moves = game.move_codes()
        assert len(feat) == game.plies - game.opening_plies + 1
        pos = Position.start(v)
        for m in moves[: game.opening_plies]:
            pos.push(Move(int(m)))
        for i, row in enumerate(feat):
            assert np.array_equal(row[:COL_FLAGS].astype(np.int64), _material(pos)[:COL_FLAGS]), i
            assert bool(row[COL_FLAGS] & FLAG_CHECK) == pos.is_check()
            if i + game.opening_plies < game.plies:
                pos.push(Move(int(moves[i + game.opening_plies])))


def test_games_are_reproducible_and_differ() -> None:
    a = _Context(study_config("minishogi", games=4, nodes=200))
    b = _Context(study_config("minishogi", games=4, nodes=200))
    games = [a.play(i) for i in range(4)]
    assert [g.moves for g in games] == [b.play(i).moves for i in range(4)]
    assert len({g.moves for g in games}) == 4


# --- the fit ----------------------------------------------------------------------------------
TRUE = {"P": 0.3, "S": 0.8, "G": 1.0, "B": 1.2, "R": 1.5}
LETTERS = tuple(TRUE)


def _synthetic(games: int, rng: np.random.Generator, scale: float = 1.2) -> Positions:
    """Games whose material stays fixed; the result is drawn from the logistic model."""
    xs, ys, gs = [], [], []
    beta = np.array([TRUE[x] for x in LETTERS]) * scale
    for g in range(games):
        d = rng.integers(-1, 2, size=len(LETTERS))
        p = 1 / (1 + np.exp(-(0.1 + d @ beta)))
        y = float(rng.random() < p)
        k = int(rng.integers(3, 12))
        xs.append(np.tile(np.append(d, 1), (k, 1)))
        ys.append(np.full(k, y))
        gs.append(np.full(k, g))
    return Positions(LETTERS, np.concatenate(xs).astype(np.int16), np.concatenate(ys), np.concatenate(gs), games,
                     sum(len(y) for y in ys))


def test_fit_recovers_known_values() -> None:
    p = _synthetic(20000, np.random.default_rng(1))
    coef, boot, dropped = fit_positions(p, bootstrap=30, seed=1)
    assert dropped == ()
    gold = coef[LETTERS.index("G")]
    for i, x in enumerate(LETTERS):
        assert abs(coef[i] / gold - TRUE[x]) < 0.08, x


def test_whole_game_bootstrap_covers_the_truth_at_about_the_nominal_rate() -> None:
    covered = 0
    reps = 30
    for rep in range(reps):
        p = _synthetic(600, np.random.default_rng(100 + rep))
        coef, boot, _ = fit_positions(p, bootstrap=100, seed=rep)
        ratio = boot[:, LETTERS.index("B")] / boot[:, LETTERS.index("G")]
        lo, hi = np.nanquantile(ratio, [0.025, 0.975])
        covered += lo <= TRUE["B"] <= hi
    assert 0.8 <= covered / reps <= 1.0  # 95 % nominal; P(below 0.8) < 0.5 % with 30 repetitions


def _synthetic_db(path: Path, games: int, rng: np.random.Generator) -> None:
    """Synthetic games stored as a minishogi study: black's material advantage decides."""
    config = study_config("minishogi", games=games)
    with create_study(path, config) as db:
        base = np.zeros(NF, dtype=np.int8)
        for i, c in enumerate((0, 3, 4, 5, 6)):  # P S G B R on the board, one each
            base[c] = base[20 + c] = 1
            del i
        for g in range(games):
            row = base.copy()
            give = int(rng.integers(0, 5))
            side = int(rng.integers(0, 2))
            col = (0, 3, 4, 5, 6)[give]
            row[20 * side + col] = 0
            row[20 * (1 - side) + 13 + col] = 1  # captured: in the other side's hand
            score = float(rng.random() < (0.25 if side == 0 else 0.75))
            feat = np.tile(row, (5, 1))
            insert(db, SelfPlayGame(g, g, score, "checkmate", 10, 2, 5, b"", feat.tobytes(), 0.0, 0.0))


def test_fit_study_writes_values_the_engine_reads(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _synthetic_db(db, 400, np.random.default_rng(3))
    r = fit_study(db, bootstrap=30, min_games=100)
    assert r.games == 400 and "G" in r.letters
    out = write_values_toml(r, tmp_path / "v.toml")
    values = PieceValues.from_toml(out, "minishogi")
    assert values.board["G"] == 1200


def test_too_few_games_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _synthetic_db(db, 30, np.random.default_rng(4))
    with pytest.raises(FitError, match="30 games .* needs at least 200"):
        fit_study(db)
    res = CliRunner().invoke(main, ["values", "fit", "--db", str(db)])
    assert res.exit_code == 2 and "needs at least 200" in res.output


# --- odds -------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["minishogi", "judkins", "shogi", "shogi7x7", "ctrl9"])
def test_odds_starts_are_legal_positions_missing_one_piece(variant: str) -> None:
    v = load_variant(variant)
    full = Position.start(v)
    letters = parse_pieces("B,R,S", v)
    assert letters == ("B", "R", "S", "G")
    for letter in letters:
        for color in (0, 1):
            pos = Position.from_sfen(odds_start(v, letter, color), v)
            assert pos.legal_moves() and pos.outcome() is None
            counts = lambda p, c: sorted(x.kind for _, x in p.pieces() if int(x.color) == c)  # noqa: E731
            mine, theirs = counts(pos, color), counts(full, color)
            assert len(mine) == len(theirs) - 1 and theirs.count(letter) - mine.count(letter) == 1
            assert counts(pos, 1 - color) == counts(full, 1 - color)
    for sfen in odds_openings(v, letters, 8, seed=1):
        pos = Position.from_sfen(sfen, v)
        assert pos.outcome() is None and pos.legal_moves()


@pytest.mark.parametrize(("pieces", "message"), [
    ("B,X", "unknown piece letter 'X'"), ("K", "king cannot be removed"), ("N", "minishogi has no N"),
    ("+R", "no promoted pieces"), (",", "no piece given"),
])
def test_odds_bad_input(tmp_path: Path, pieces: str, message: str) -> None:
    with pytest.raises(OddsError, match=message):
        parse_pieces(pieces, load_variant("minishogi"))
    db = tmp_path / "odds.db"
    res = CliRunner().invoke(main, ["values", "odds", "--variant", "minishogi", "--pieces", pieces, "--games", "4",
                                    "--db", str(db)])
    assert res.exit_code == 2 and message.split("'")[0] in res.output and res.output.count("\n") == 1
    assert not db.exists()


# --- storage, kill safety, Dask ---------------------------------------------------------------
def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_database_of_another_study_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    run_selfplay(study_config("minishogi", games=3, nodes=100), db)
    before = _digest(db)
    for config in (study_config("judkins", games=3, nodes=100), study_config("minishogi", games=3, nodes=200)):
        with pytest.raises(ExperimentDBError, match="another study"):
            run_selfplay(config, db)
    assert _digest(db) == before
    lab = tmp_path / "lab.db"
    lab.write_bytes(b"")
    conn = sqlite3.connect(lab)
    conn.executescript("CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE games (x); "
                       "INSERT INTO meta VALUES ('experiment', 'x');")
    conn.close()
    before = _digest(lab)
    res = CliRunner().invoke(main, ["values", "selfplay", "--variant", "minishogi", "--games", "2", "--db", str(lab)])
    assert res.exit_code == 2 and "not a komaken piece-values study database" in res.output
    assert _digest(lab) == before


def test_sigkill_mid_run_then_resume_gives_exact_count(tmp_path: Path) -> None:
    """A real run with two worker processes (games may be stored out of order) is SIGKILLed mid-run;
    a second run of the same command (here in-process, one worker) plays exactly the missing games,
    and they are the games an uninterrupted run plays."""
    games, db = 120, tmp_path / "k.db"
    args = ["selfplay", "--variant", "minishogi", "--games", str(games), "--nodes", "200", "--db", str(db), "-q"]
    proc = subprocess.Popen([*CLI, *args, "--workers", "2"], start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while _count(db) < 15 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert proc.returncode == -signal.SIGKILL
    stored = _count(db)
    assert 15 <= stored < games, "the kill should land mid-run"
    out = CliRunner().invoke(main, ["values", *args, "--workers", "1"])
    assert out.exit_code == 0, out.output
    assert f"played {games - stored} games" in out.stdout
    rows = _rows(db)
    assert [r[0] for r in rows] == list(range(games))
    ctx = _Context(study_config("minishogi", games=games, nodes=200))
    for r in rows[:: games // 8]:  # the same games an uninterrupted run plays
        g = ctx.play(r[0])
        assert (g.seed, g.score, g.moves, g.features) == (r[1], r[2], r[5], r[6])


def test_dask_tasks_carry_about_half_a_second_of_games_local_tasks_one() -> None:
    """A Dask task costs a round trip through the scheduler: games go in tasks of ~0.5 s (at least
    one, at most 64); a local pool gets one game per task; before any game is back, one."""
    from komaken.lab.valuestudy.selfplay import MAX_BATCH, SELFPLAY_WORK, batch_size

    assert SELFPLAY_WORK.batch is batch_size
    assert batch_size(True, 0.0) == 1 and batch_size(True, 0.035) == 14 and batch_size(True, 2.0) == 1
    assert batch_size(True, 1e-4) == MAX_BATCH == 64
    assert batch_size(False, 0.035) == 1


def test_dask_loopback_cluster_gives_identical_rows(tmp_path: Path, dask_cluster: str) -> None:
    config = study_config("judkins", games=12, nodes=200)
    remote = run_selfplay(config, tmp_path / "dask.db", dask=dask_cluster)
    local = run_selfplay(config, tmp_path / "local.db", workers=1)
    assert remote.played == local.played == 12
    assert _rows(tmp_path / "dask.db") == _rows(tmp_path / "local.db")


def test_cli_bad_variant_is_one_line_exit_2(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["values", "selfplay", "--variant", "nosuch", "--games", "2", "--db",
                                    str(tmp_path / "x.db")])
    assert res.exit_code == 2 and res.output.startswith("komaken: error: unknown variant 'nosuch'")
    assert not (tmp_path / "x.db").exists()


def test_fitted_table_is_accepted_by_play_specs_experiments_and_usi(tmp_path: Path) -> None:
    import tomllib

    from komaken.games import find_game
    from komaken.lab import experiment_from_dict
    from komaken.players.registry import make_player

    db = tmp_path / "s.db"
    _synthetic_db(db, 300, np.random.default_rng(5))
    out = write_values_toml(fit_study(db, bootstrap=20, min_games=100), tmp_path / "v.toml")
    table = PieceValues.from_toml(out, "minishogi")
    player = make_player(f"engine:nodes=100,values={out}", find_game("shogi"), load_variant("minishogi"))
    assert player.engine.values == table
    text = out.read_text(encoding="utf-8")
    inline = next(line for line in text.splitlines() if line.startswith("# experiment files: "))
    values = tomllib.loads(inline.removeprefix("# experiment files: "))["values"]
    exp = experiment_from_dict({"experiment": {"name": "x", "variant": "minishogi"},
                                "players": {"fit": {"engine": "engine", "nodes": 100, "values": values}},
                                "pairings": [{"a": "fit", "b": "fit"}]})
    assert exp.players["fit"].settings["values"]["B"] == table.board["B"]
    usi = next(line for line in text.splitlines() if line.startswith("# komaken usi: "))
    assert f"setoption name Value_R value {table.board['R']}" in usi


def test_report_writes_tables_plots_and_hypotheses(tmp_path: Path) -> None:
    from komaken.lab.valuestudy.report import build, load

    db = tmp_path / "mini.db"
    _synthetic_db(db, 300, np.random.default_rng(6))
    paths = build(load([db], bootstrap=20)).write(tmp_path / "rep")
    assert {p.name for p in paths} == {"report.md", "report.html", "report.json", "values_vs_n.png",
                                       "values_vs_n.svg"}
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "| minishogi | 5 | 1000 nodes | 300 |" in md
    assert "H1: not tested" in md or "not tested: no ctrl9" in md
    assert "data:image/svg+xml;base64," in (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")


def test_saturation_law_recovers_its_parameters_and_tells_a_bad_fit() -> None:
    """c − d·q^(n−5) fitted to values made by it (half-widths 0.04) returns c, d, q and χ²/dof ≈ 0;
    a straight line fits those values badly; a straight line or a step is no saturation (q at a
    bound) and three sizes are too few for three parameters: no law."""
    from komaken.lab.valuestudy.laws import linear_law, saturation_law

    c, d, q = 2.1, 0.95, 0.4
    pts = [(n, c - d * q ** (n - 5), c - d * q ** (n - 5) - 0.04, c - d * q ** (n - 5) + 0.04) for n in range(5, 10)]
    law = saturation_law(pts)
    assert law is not None and law["points"] == 5
    assert abs(law["c"] - c) < 1e-3 and abs(law["d"] - d) < 1e-3 and abs(law["q"] - q) < 1e-3
    assert law["chi2_dof"] < 1e-6 and 0 < law["se_c"] < 0.1
    line = linear_law(pts)
    assert line is not None and line["chi2_dof"] > 10  # the saturation is far from a straight line
    straight = [(n, 1 + 0.2 * n, 0.96 + 0.2 * n, 1.04 + 0.2 * n) for n in range(5, 10)]
    assert linear_law(straight)["chi2_dof"] < 1e-6  # type: ignore[index]
    assert saturation_law(straight) is None  # no ceiling within reach: q runs to its bound 1
    step = [(n, 1.0 if n == 5 else 1.5, 0.96 if n == 5 else 1.46, 1.04 if n == 5 else 1.54) for n in range(5, 10)]
    assert saturation_law(step) is None  # all of it in one step: q runs to 0
    assert saturation_law(pts[:3]) is None


def test_hill_law_fits_the_same_points_and_extrapolates_otherwise() -> None:
    """The Hill curve c·n^h/(k^h+n^h) recovers its own parameters; fitted to saturation-made values
    it fits as well as the saturation inside 5..9 but predicts another 4×4 value, and each law's
    prediction interval covers the law that made the points (the ctrl4 pre-registration's tool)."""
    from komaken.lab.valuestudy.fit import FitError
    from komaken.lab.valuestudy.laws import extrapolate, hill_law, law_value, saturation_law

    c, k, h = 2.0, 5.0, 6.0
    pts = [(n, c * n**h / (k**h + n**h), c * n**h / (k**h + n**h) - 0.04, c * n**h / (k**h + n**h) + 0.04)
           for n in range(5, 10)]
    law = hill_law(pts)
    assert law is not None and abs(law["c"] - c) < 1e-3 and abs(law["k"] - k) < 1e-3 and abs(law["h"] - h) < 1e-2
    assert abs(law_value("hill", law, 4) - c * 4**h / (k**h + 4**h)) < 1e-3
    sat = [(n, 2.1 - 0.95 * 0.4 ** (n - 5), 2.06 - 0.95 * 0.4 ** (n - 5), 2.14 - 0.95 * 0.4 ** (n - 5))
           for n in range(5, 10)]
    s_law, h_law = saturation_law(sat), hill_law(sat)
    assert s_law is not None and h_law is not None and h_law["chi2_dof"] < 1  # both describe 5..9
    truth = 2.1 - 0.95 / 0.4
    pred, lo, hi, failed = extrapolate(sat, "saturation", 4, draws=100)
    assert abs(pred - truth) < 1e-3 and lo < truth < hi and failed < 10
    h_pred, h_lo, h_hi, _ = extrapolate(sat, "hill", 4, draws=100)
    assert h_lo <= h_pred <= h_hi and h_lo > hi  # the two laws part company off the fitted sizes
    with pytest.raises(FitError, match="'cubic' law"):
        extrapolate(sat, "cubic", 4)
    assert hill_law(pts[:3]) is None


def test_unique_rows_are_numpys_unique_rows() -> None:
    from komaken.lab.valuestudy.fit import unique_rows

    a = np.random.default_rng(3).integers(-2, 3, size=(5000, 6)).astype(np.int16)
    uniq, inverse = unique_rows(a)
    want, want_inverse = np.unique(a, axis=0, return_inverse=True)
    assert np.array_equal(uniq, want) and np.array_equal(inverse, want_inverse.ravel())


def test_bootstrap_refits_equal_statsmodels() -> None:
    from komaken.lab.valuestudy.fit import _glm, newton

    p = _synthetic(800, np.random.default_rng(9))
    rng = np.random.default_rng(2)
    w = rng.multinomial(p.games, np.full(p.games, 1 / p.games))[p.game].astype(float)
    # fit_positions drops the side-to-move column when it never varies (here it is always 1): kept,
    # it duplicates the intercept, and statsmodels' IRLS on that singular design diverges
    x, y = p.x[:, :-1].astype(float), p.y
    want = _glm(x, y, w)
    got = newton(x, y, w, _glm(x, y, np.ones(len(y))))
    assert np.allclose(got, want, atol=1e-6)


@pytest.mark.parametrize("games", ["6", "2"])
def test_odds_games_come_in_fours(tmp_path: Path, games: str) -> None:
    """With 2 games per piece the lab would play only the first piece's starts: refused, nothing written."""
    db = tmp_path / "odds.db"
    res = CliRunner().invoke(main, ["values", "odds", "--variant", "minishogi", "--pieces", "B,G", "--games", games,
                                    "--db", str(db)])
    assert res.exit_code == 2 and "multiple of 4" in res.output and res.output.count("\n") == 1
    assert not db.exists() and not (tmp_path / "odds.db.odds").exists()


def test_the_figure_legend_stays_inside_the_figure() -> None:
    """The report's figure draws up to a dozen series (two methods, two families, three laws, FSF's
    points); its legend must fit in the figure, not run off both sides."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from komaken.lab.valuestudy.report import figure_legend

    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    for i, ax in enumerate(axes.ravel()):
        for j in range(12):
            ax.plot([5, 9], [i, j], label=f"c − d·q^(n−5), series number {j}")
    figure_legend(fig, axes.ravel())
    fig.canvas.draw()
    box = fig.legends[0].get_window_extent()
    width, height = fig.canvas.get_width_height()
    assert len(fig.legends[0].get_texts()) == 12
    assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height
    panels = min(ax.get_window_extent().y0 for ax in axes.ravel())
    assert panels > box.y1 - 1  # the panels sit above the legend
    plt.close(fig)
    fig, axes = plt.subplots(2, 3)
    figure_legend(fig, axes.ravel())  # nothing drawn: no legend, no error
    assert not fig.legends
    plt.close(fig)


def test_fsf_values_are_what_the_fairy_stockfish_binary_evaluates(tmp_path: Path) -> None:
    """The 11.1 formula (slider scale (n+4)/12, saturation v·7000/(7000+v), halved) against the
    installed Fairy-Stockfish 11.1's own evaluation trace: eight pieces in hand add 8·(value + 45)
    in the middle game and 8·(value + 10) in the end game, printed in units of 213 (its pawn)."""
    import re
    import shutil

    from komaken.lab.valuestudy.laws import fsf_ratio, fsf_value

    fsf = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"
    if not Path(fsf).exists():
        pytest.skip("no Fairy-Stockfish")
    ini = tmp_path / "variants.ini"
    ini.write_text("[ctrl7:minishogi]\nmaxRank = 7\nmaxFile = g\nstartFen = 2rbsgk/6p/7/7/7/P6/KGSBR2[-] w 0 1\n")
    starts = {5: ("minishogi", "rbsgk/4p/5/P4/KGSBR"), 7: ("ctrl7", "2rbsgk/6p/7/7/7/P6/KGSBR2")}

    def material(n: int, hand: str) -> tuple[float, float]:
        name, board = starts[n]
        script = (f"uci\nsetoption name VariantPath value {ini}\nsetoption name UCI_Variant value {name}\n"
                  f"position fen {board}[{hand}] w - - 0 1\neval\nquit\n")
        out = subprocess.run([fsf], input=script, capture_output=True, text=True, timeout=30).stdout
        m = re.search(r"Material \|.*\|\s*(-?[\d.]+)\s+(-?[\d.]+)\s*$", out, re.M)
        assert m is not None, out
        return float(m.group(1)), float(m.group(2))

    if "11.1" not in subprocess.run([fsf], input="uci\nquit\n", capture_output=True, text=True, timeout=30).stdout:
        pytest.skip("the formula is checked against Fairy-Stockfish 11.1")
    for n in (5, 7):
        base = material(n, "")
        for letter in "BRG":
            mg, eg = (a - b for a, b in zip(material(n, letter * 8), base, strict=True))
            assert mg == pytest.approx(8 * (fsf_value(letter, n, "11.1", 0) + 45) / 213, abs=0.011), (letter, n)
            assert eg == pytest.approx(8 * (fsf_value(letter, n, "11.1", 1) + 10) / 213, abs=0.011), (letter, n)
    # the master branch's (n+3)/12 before the saturation: 1.16 rook/gold on 5x5, 0.69-0.70 of 9x9 there
    assert round(fsf_value("R", 5) / fsf_value("G", 5), 2) == 1.16
    assert 0.68 < fsf_ratio("B", 5) < 0.70 and 0.92 < fsf_ratio("R", 8) < 0.93


def test_h1_counts_the_rejections_against_fairy_stockfish_as_it_computes() -> None:
    """The published controlled-family values (B, R per size, relative spread ≈ the studies'):
    all 8 comparisons reject the pre-registered (n+3)/12; against Fairy-Stockfish's values as it
    computes them (scale, then saturation), the 6×6 rook is inside for both versions: 7 of 8."""
    from komaken.lab.valuestudy.fit import FitResult
    from komaken.lab.valuestudy.hypotheses import h1

    published = {5: (0.969, 1.160), 6: (1.376, 1.712), 7: (1.552, 2.001), 8: (1.618, 2.106), 9: (1.639, 2.105)}
    rng = np.random.default_rng(7)
    fits = []
    for n, (b, r) in published.items():
        coef = np.array([1.0, b, r, 0.0, 0.0])
        boot = coef * (1 + 0.012 * rng.standard_normal((4000, 5)))
        boot[:, 0] = 1.0
        fits.append(FitResult(f"ctrl{n}", n, {"nodes": 1000}, ("G", "B", "R"), coef, boot, 1000, 1, 1))
    text = "\n".join(h1(fits))
    assert "H1: **rejected** (8 of 8 comparisons available)" in text
    assert "master 7 of 8 outside, 11.1 7 of 8 outside" in text
    r6 = next(line for line in text.splitlines() if line.startswith("- R: v(ctrl6)"))
    assert "FSF master 0.779–0.781 inside" in r6 and "FSF 11.1 0.799–0.802 inside" in r6
