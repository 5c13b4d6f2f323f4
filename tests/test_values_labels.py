"""Piece values fitted to a stronger engine's scores (``komaken values label`` / ``fit --labels``):
studies whose games start from a changed army are labelled and replayed from each game's own
start, and the labelled fit reads the values the labels imply."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from cli_support import komaken_in_process
from komaken.game import Color
from komaken.lab.label import LabelError, describe_labels, engine_command, label_study, load_labels
from komaken.lab.nnue_data import read_study
from komaken.lab.valuestudy.fit import FitError, Positions, fit_positions, fit_study, load_positions
from komaken.lab.valuestudy.games import open_study, study_games
from komaken.lab.valuestudy.labelled import describe_targets, format_labels, label_comparison
from komaken.lab.valuestudy.positions import read_games
from komaken.lab.valuestudy.selfplay import game_start, run_selfplay, study_config
from komaken.shogi import Position
from komaken.shogi.engine._features import O_BOARD
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.selfplay import COL_FLAGS, NF, NOT_QUIET
from komaken.shogi.engine.tune import theta_of
from komaken.shogi.variant import load_variant
from label_fake_usi import fake_label_engine

# A USI engine that logs every `position` it is sent and scores each with the number of moves in it



@pytest.fixture(scope="module")
def exchange_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three minishogi games, each from a start with one piece of each side exchanged away."""
    db = tmp_path_factory.mktemp("exchange") / "ex.db"
    run_selfplay(study_config(load_variant("minishogi"), games=3, nodes=100, seed=4, noise=10.0, random_plies=2,
                              imbalance=2, imbalance_mode="exchange"), db, workers=1)
    return db


def _logging_engine(tmp_path: Path) -> tuple[list[str], Path]:
    log = tmp_path / "positions.log"
    return fake_label_engine(tmp_path, "log", log), log


def test_each_game_is_labelled_from_its_own_start_and_a_sample_grows(exchange_study: Path, tmp_path: Path) -> None:
    command, log = _logging_engine(tmp_path)
    labels = tmp_path / "l.sqlite"
    assert label_study(exchange_study, labels, command, nodes=10, games=2, options={"VariantPath": "v.ini"}) > 0
    # the variant is named after the option that may define it (Fairy-Stockfish ignores a name it
    # does not know yet, and would score another game)
    assert Path(f"{log}.options").read_text().splitlines() == ["setoption name VariantPath value v.ini",
                                                               "setoption name UCI_Variant value minishogi"]
    assert sorted(load_labels(labels, exchange_study)) == [0, 1]  # the first two games only
    label_study(exchange_study, labels, command, nodes=10, games=3, options={"VariantPath": "v.ini"})
    got = load_labels(labels, exchange_study)
    assert sorted(got) == [0, 1, 2]
    v = load_variant("minishogi")
    with open_study(exchange_study) as s:
        config, games = s.config(), {g.game_index: g for g in study_games(s)}
    starts = {game_start(config, v, i) for i in games}
    assert None not in starts and len(starts) > 1  # every game from a changed army, not all the same
    sent = log.read_text().splitlines()
    assert len(sent) == sum(len(p) for p in got.values())
    for line in sent:
        head, _, moves = line.removeprefix("position ").partition(" moves ")
        assert head.startswith("sfen ") and head[5:] in starts
        pos = Position.from_sfen(head[5:], v)
        for usi in moves.split():  # the stored moves are legal from that start
            pos.push_usi(usi)
    for index in games:  # each position's score is its ply count: ply = score, black's view
        assert all(score == (ply if ply % 2 == 0 else -ply) for ply, score in got[index].items())


def test_read_games_replays_each_game_from_its_own_start(exchange_study: Path) -> None:
    """The tuner's rows of an exchange study carry the material of the army each game started
    with: their material balance (the default values) is the one a replay from that start counts."""
    params = EvalParams.default("minishogi")
    theta = theta_of(params)[O_BOARD:]
    v, data = read_games(exchange_study)
    material = data.X[:, O_BOARD:] @ theta
    board, hand = params.values.board, params.values.hand
    expected = []
    with open_study(exchange_study) as s:
        config = s.config()
        for game in study_games(s):
            pos = Position.from_sfen(game_start(config, v, game.game_index), v)
            quiet = (game.feature_array(NF)[:, COL_FLAGS] & NOT_QUIET) == 0
            for ply, code in enumerate(game.move_codes().tolist()):
                i = ply - game.opening_plies
                if i >= 0 and quiet[i]:
                    sign = {Color.BLACK: 1, Color.WHITE: -1}
                    expected.append(sum(board.get(p.kind, 0) * sign[p.color] for _, p in pos.pieces())
                                    + sum(hand[k] * n * sign[c] for c in sign for k, n in pos.hand(c).items()))
                pos.push(next(m for m in pos.legal_moves() if m.code == code))
    assert len(expected) == len(material)
    assert np.array_equal(material, np.array(expected, dtype=np.float64))
    assert len(set(expected)) > 1


def _synthetic(scored: bool, rng: np.random.Generator) -> Positions:
    """Positions whose targets follow known values: B 2, R 3 per gold 1 (a logit per unit)."""
    n_games, per = 400, 30
    x = rng.integers(-2, 3, size=(n_games * per, 4)).astype(np.int16)  # G, B, R, side to move
    x[:, 3] = rng.integers(0, 2, size=len(x))
    eta = 0.3 * (x[:, 0] * 1.0 + x[:, 1] * 2.0 + x[:, 2] * 3.0) + 0.1 * x[:, 3]
    p = 1 / (1 + np.exp(-eta))
    y = p if scored else rng.binomial(1, p).astype(np.float64)
    return Positions(("G", "B", "R"), x, y, np.repeat(np.arange(n_games), per), n_games, len(x), scored)


@pytest.mark.parametrize("scored", [True, False])
def test_the_fit_recovers_known_values_from_scores_and_from_results(scored: bool) -> None:
    coef, boot, dropped = fit_positions(_synthetic(scored, np.random.default_rng(7)), bootstrap=40, seed=1)
    b, r = coef[1] / coef[0], coef[2] / coef[0]
    tol = 0.01 if scored else 0.25  # squashed scores carry far more than one result a position
    assert abs(b - 2.0) < tol and abs(r - 3.0) < tol and dropped == ()
    spread = np.quantile(boot[:, 2] / boot[:, 0], [0.025, 0.975])
    assert spread[0] < 3.0 < spread[1] or scored  # exact scores: the interval is ~0 wide
    assert spread[1] - spread[0] < (0.05 if scored else 1.5)


def test_labelled_fit_end_to_end_and_bad_input(exchange_study: Path, tmp_path: Path) -> None:
    labels = tmp_path / "k.sqlite"
    r = komaken_in_process("values", "label", "--db", str(exchange_study), "--engine", "komaken usi", "--labels",
                           str(labels), "--nodes", "150", "-q")
    assert r.returncode == 0, r.stderr
    assert "positions labelled now (komaken usi at 150 nodes)" in r.stdout
    assert describe_labels(labels) == "komaken usi at 150 nodes"
    with open_study(exchange_study) as s:
        by_result = load_positions(s)
        scored = load_positions(s, labels=load_labels(labels, exchange_study), scale=300.0)
    assert scored.scored and not by_result.scored and 0 < len(scored.y) <= len(by_result.y)
    assert np.all((scored.y > 0) & (scored.y < 1))
    # three games are below any floor: the refusal names the label file and how to label more
    with pytest.raises(FitError, match="labelled games with quiet positions; the fit needs at least 200"):
        fit_study(exchange_study, labels=labels)
    fitted = fit_study(exchange_study, labels=labels, min_games=1, bootstrap=5, scale=300.0)
    assert fitted.targets == "komaken usi at 150 nodes" and fitted.games == 3
    r = komaken_in_process("values", "fit", "--db", str(exchange_study), "--labels", str(labels), "--min-games", "1",
                           "--bootstrap", "20", "--label-scale", "300")
    assert r.returncode == 0 and "targets: komaken usi at 150 nodes's scores" in r.stdout, r.stderr
    # bad input: one line, exit 2
    for args, words in [(["--labels", str(tmp_path / "none.sqlite")], "label file not found"),
                        (["--option", "novalue"], "give NAME=VALUE")]:
        cmd = ("values", "label", "--db", str(exchange_study), "--engine", "komaken usi", *args) \
            if "--option" in args else ("values", "fit", "--db", str(exchange_study), *args)
        r = komaken_in_process(*cmd)
        assert r.returncode == 2 and words in r.stderr and r.stderr.count("\n") == 1, r.stderr
    with pytest.raises(LabelError, match="engine command is empty"):
        engine_command("  ")
    with pytest.raises(LabelError, match="games must be a positive integer, not 0"):
        label_study(exchange_study, tmp_path / "x.sqlite", engine_command("komaken usi"), games=0)


def test_nnue_positions_of_an_exchange_study_are_the_tuners(exchange_study: Path, tmp_path: Path) -> None:
    """The net's training rows replay each game from its own start too: their linear evaluation is
    the one of the tuner's rows (checked against a replay above), up to the side to move's sign."""
    command, _ = _logging_engine(tmp_path)
    labels = tmp_path / "l.sqlite"
    label_study(exchange_study, labels, command, nodes=10)
    data = read_study(exchange_study, load_labels(labels, exchange_study), "minishogi")
    _, rows = read_games(exchange_study)
    expected = rows.X @ theta_of(EvalParams.default("minishogi"))
    assert len(data.linear) == len(expected) > 20
    assert np.allclose(np.abs(data.linear), np.abs(expected))


def test_label_comparison_fits_results_and_scores_on_the_same_games(exchange_study: Path, tmp_path: Path) -> None:
    """Two label files, one of them from an engine called fairy-stockfish: the comparison fits the
    games both labelled, and sets Fairy-Stockfish 11.1's own table (as it computes 5×5) beside it."""
    fake = fake_label_engine(tmp_path, "log", tmp_path / "positions.log", name="fairy-stockfish")[1]
    one, two = tmp_path / "fsf.sqlite", tmp_path / "k.sqlite"
    label_study(exchange_study, one, [fake], nodes=10, games=2)
    label_study(exchange_study, two, engine_command("komaken usi"), nodes=120)
    with pytest.raises(FitError, match="needs at least 200"):
        label_comparison(exchange_study, [one, two])
    c = label_comparison(exchange_study, [one, two], min_games=1, bootstrap=20)
    assert c.games == 2 and [f.games for f in c.fits] == [2, 2, 2]
    assert [describe_targets(f) for f in c.fits] == ["results (komaken at 100 nodes)", "fairy-stockfish at 10 nodes",
                                                    "komaken usi at 120 nodes"]
    assert len({len(f.boot) for f in c.fits}) == 1
    table = format_labels([c]).splitlines()
    assert len(table) == 2 + 3 + 1 and table[-1].startswith("| minishogi 5×5 | Fairy-Stockfish 11.1's own table |")
    assert "| 1.00 | 1.00 |" in table[-1]  # its tokin and promoted silver are golds
    with pytest.raises(LabelError, match="no label file to compare with"):
        label_comparison(exchange_study, [])


def test_reading_labels_never_writes_to_a_file_that_is_not_one(exchange_study: Path, tmp_path: Path) -> None:
    """Another SQLite database given as a label file (the study itself, by mistake) is refused
    without a table added to it: the reproduction script tries every ``*.sqlite`` of a folder."""
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x TEXT)")
    conn.close()
    for path in (other, exchange_study):
        before = path.read_bytes()
        with pytest.raises(LabelError, match="not a label file"):
            load_labels(path, exchange_study)
        with pytest.raises(LabelError, match="not a label file"):
            describe_labels(path)
        assert path.read_bytes() == before


def _fsf_usi(move: str, n: int) -> str:
    """A pyffish move on an n×n board (``e1e7+``, ``P@b2``) as komaken's USI: pyffish counts files
    a.. from sente's left and ranks 1.. from sente's side."""
    def sq(t: str) -> str:
        return f"{n - (ord(t[0]) - ord('a'))}{chr(ord('a') + n - int(t[1:]))}"

    body = move.rstrip("+")
    if "@" in body:
        return f"{body[0].upper()}*{sq(body[2:])}"
    return sq(body[:2]) + sq(body[2:]) + ("+" if move.endswith("+") else "")


@pytest.mark.parametrize(("name", "n"), [("ctrl5", 5), ("ctrl6", 6), ("ctrl7", 7), ("ctrl8", 8), ("ctrl9", 9),
                                       ("shogi7x7", 7)])
def test_the_fairy_stockfish_file_of_the_research_boards_plays_komakens_rules(name: str, n: int) -> None:
    """examples/values/fsf-ctrl.ini (what Fairy-Stockfish labels ctrl and 7×7 studies with) gives
    every position of random games the legal moves komaken gives, promotions and drops included —
    except the pawn-drop mates (打ち歩詰め) Fairy-Stockfish wrongly allows: an extra move of its
    must be a pawn drop that checks and leaves no reply (one proved by hand below)."""
    sf = pytest.importorskip("pyffish")
    sf.load_variant_config((Path(__file__).parent.parent / "examples/values/fsf-ctrl.ini").read_text())
    start = sf.start_fen(name)
    assert start.split("[")[0] == Position.start(name).sfen().split()[0]
    seen = {"drop": 0, "promotion": 0}
    for seed in range(4):
        rng = random.Random(seed)
        pos, moves = Position.start(name), []
        for _ in range(60):
            theirs = sf.legal_moves(name, start, moves)
            mapped = {_fsf_usi(m, n): m for m in theirs}
            ours = {m.usi() for m in pos.legal_moves()}
            assert ours <= set(mapped), pos.sfen()
            for extra in set(mapped) - ours:
                after = moves + [mapped[extra]]
                assert extra.startswith("P*") and sf.gives_check(name, start, after), (pos.sfen(), extra)
                assert not sf.legal_moves(name, start, after), (pos.sfen(), extra)
            if not theirs or pos.outcome() is not None:
                break
            seen["drop"] += any("@" in m for m in theirs)
            seen["promotion"] += any(m.endswith("+") for m in theirs)
            m = rng.choice(theirs)
            moves.append(m)
            pos.push_usi(_fsf_usi(m, n))
    assert seen["drop"] > 0 and seen["promotion"] > 0


def test_fairy_stockfish_allows_a_pawn_drop_mate_on_7x7_that_komaken_forbids() -> None:
    """Found by walking 150 random 7×7 games through pyffish (17,371 positions: every other move
    list agreed).  Gote to move drops a pawn on 4d, in front of sente's king on 4e:

    * no nifu: gote's pawns stand on files 7, 6, 3 and 1;
    * it checks (a gote pawn attacks the square below it) and cannot be interposed;
    * the king cannot take it: 4d is guarded by gote's silver on 4c and, through 6f and 5e, by
      gote's horse on 7g; no other sente piece reaches 4d (the horse on 2c is blocked by sente's
      own pawn on 3d, the silver on 6e moves to 5d or 7d);
    * the king cannot step away: 3d, 4f, 5f hold its own pieces; 5d is next to gote's king; 5e
      is on the horse's diagonal; 3e (a gote pawn) and 3f are covered by gote's rook on 3g.

    So the drop mates: 打ち歩詰め, illegal.  komaken refuses it; Fairy-Stockfish 11.1 lists it."""
    sf = pytest.importorskip("pyffish")
    sf.load_variant_config((Path(__file__).parent.parent / "examples/values/fsf-ctrl.ini").read_text())
    v = load_variant("shogi7x7")
    sfen = "r3g2/1sg3+P/ppks1+B1/1P2PP1/PS1Kp1P/2GG1Sp/+b3r2 w P3p 62"
    pos = Position.from_sfen(sfen, variant=v)
    assert "P*4d" not in {m.usi() for m in pos.legal_moves()}
    # the position after the drop, built without the drop rule: sente is in check with no move
    mated = Position.from_sfen("r3g2/1sg3+P/ppks1+B1/1P1pPP1/PS1Kp1P/2GG1Sp/+b3r2 b P2p 63", variant=v)
    assert mated.is_check() and not mated.legal_moves()
    # Fairy-Stockfish's FEN of the same position (its first player, sente, is "w"): it lists the drop
    assert "P@d4" in sf.legal_moves("shogi7x7", "r3g2/1sg3+P/ppks1+B1/1P2PP1/PS1Kp1P/2GG1Sp/+b3r2[Pppp] b 0 62", [])
