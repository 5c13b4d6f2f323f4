"""Labelling self-play positions with a USI engine's search scores (``komaken.lab.label``) and
tuning on them (``komaken tune linear --label-engine``), with ``komaken usi`` itself as the labelling
engine, driven through a real pipe."""

from __future__ import annotations

import shlex
import shutil
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

from cli_support import komaken_in_process
from komaken.lab.label import MATE_CP, LabelError, label_study, load_labels, score_of
from komaken.lab.valuestudy.games import open_study, study_games
from komaken.lab.valuestudy.positions import read_games
from komaken.lab.valuestudy.selfplay import run_selfplay, study_config
from komaken.shogi import Position
from komaken.shogi.engine._selfplay import COL_FLAGS, FLAG_CHECK, FLAG_QS_CAP, FLAG_QS_GAIN, NF
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.tune import LABEL_CAP
from komaken.shogi.variant import load_variant
from label_fake_usi import fake_label_engine

USI = [sys.executable, "-m", "komaken", "usi"]


def test_score_of_reads_the_last_score_and_mates() -> None:
    assert score_of(["info depth 1 score cp 12 pv 7g7f", "info depth 2 score cp -30 nodes 9", "bestmove 7g7f"]) == -30
    assert score_of(["info depth 5 score mate 3 pv x"]) == MATE_CP
    assert score_of(["info depth 5 score mate -2 pv x"]) == -MATE_CP
    assert score_of(["info string no score here", "bestmove resign"]) is None


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("label") / "games.db"
    run_selfplay(study_config(load_variant("minishogi"), games=3, nodes=100, seed=4, noise=10.0, random_plies=2),
                 db, workers=1)
    return db


@pytest.fixture(scope="module")
def labelled(study: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The study labelled by one ``komaken usi`` process at 200 nodes, and how many labels that made.
    The tests only read it; one that could write (a refusal that failed) works on a copy."""
    labels = tmp_path_factory.mktemp("labelled") / "one.sqlite"
    return labels, label_study(study, labels, USI, nodes=200)


def _copy(src: Path, dst: Path) -> Path:
    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    try:
        a.backup(b)
    finally:
        a.close()
        b.close()
    return dst


def _quiet_plies(db: Path) -> dict[int, set[int]]:
    with open_study(db) as s:
        out = {}
        for g in study_games(s):
            flags = g.feature_array(NF)[:, COL_FLAGS]
            quiet = (flags & (FLAG_CHECK | FLAG_QS_GAIN | FLAG_QS_CAP)) == 0
            out[g.game_index] = {g.opening_plies + int(i) for i in np.flatnonzero(quiet)}
    return out


def test_every_quiet_position_gets_the_engines_score_in_blacks_view_and_a_rerun_adds_nothing(
        study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    labels = tmp_path / "l.sqlite"
    made = label_study(study, labels, USI, nodes=300)
    got = load_labels(labels, study)
    assert {g: set(p) for g, p in got.items()} == _quiet_plies(study)
    assert made == sum(len(p) for p in got.values()) > 20
    # black's view: the scores follow the material balance counted for black (the engine's own
    # scores are the side to move's; a sign slip would turn this correlation negative)
    values = EvalParams.default("minishogi").values.board
    balance, label = [], []
    with open_study(study) as s:
        for game in study_games(s):
            pos = Position.start("minishogi")
            for ply, code in enumerate(game.move_codes().tolist()):
                if ply in got[game.game_index] and abs(got[game.game_index][ply]) < LABEL_CAP:
                    material = sum(values.get(p.kind, 0) * (1 if int(p.color) == 0 else -1) for _, p in pos.pieces())
                    balance.append(material)
                    label.append(got[game.game_index][ply])
                pos.push(next(m for m in pos.legal_moves() if m.code == code))
    assert np.corrcoef(balance, label)[0, 1] > 0.3
    assert label_study(study, labels, USI, nodes=300) == 0  # every game is labelled already
    with pytest.raises(LabelError, match="another nodes"):
        label_study(study, labels, USI, nodes=400)
    # komaken's own engine is recorded by name, not by this interpreter's path: another virtual
    # environment goes on with the same file
    with sqlite3.connect(labels) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'command'").fetchone()[0] == '["komaken", "usi"]'
    other = tmp_path / "venv" / "bin" / "python"
    other.parent.mkdir(parents=True)
    other.symlink_to(sys.executable)
    with monkeypatch.context() as m:
        m.setattr(sys, "executable", str(other))
        assert label_study(study, labels, [str(other), "-m", "komaken", "usi"], nodes=300) == 0
    with sqlite3.connect(labels) as conn:
        assert conn.execute("SELECT COUNT(*) FROM labels").fetchone()[0] == made  # nothing was altered


def test_two_labelling_engines_give_the_scores_of_one(study: Path, labelled: tuple[Path, int],
                                                      tmp_path: Path) -> None:
    """Games labelled side by side by two engine processes (komaken's search starts afresh at
    ``usinewgame``) get exactly the scores one process gives (the ``labelled`` fixture), each game once."""
    (one, made), two = labelled, tmp_path / "two.sqlite"
    seen: list[tuple[int, int]] = []
    assert label_study(study, two, USI, nodes=200, workers=2, progress=lambda n, of: seen.append((n, of))) == made
    assert load_labels(two, study) == load_labels(one, study)
    assert seen == [(1, 3), (2, 3), (3, 3)]
    with sqlite3.connect(two) as conn:
        assert sorted(r[0] for r in conn.execute("SELECT game_index FROM labelled")) == sorted(load_labels(one, study))
    with pytest.raises(LabelError, match="workers must be a positive integer, not 0"):
        label_study(study, tmp_path / "x.sqlite", USI, nodes=200, workers=0)


def test_each_game_is_labelled_as_by_a_fresh_process(study: Path, tmp_path: Path) -> None:
    """An engine that keeps state across ``usinewgame`` until its ``Threads`` option is set again
    (as Fairy-Stockfish does) gives every game the scores of a fresh process: one process and two
    side by side write the same labels, each game's searches counted from its start.  The option
    is sent with the value given, else the engine's default, before every game."""
    log = tmp_path / "log"
    engine = fake_label_engine(tmp_path, "stateful", log)
    one, two = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    label_study(study, one, engine, nodes=1, workers=1)
    label_study(study, two, engine, nodes=1, workers=2, options={"Threads": "3"})
    scores = load_labels(one, study)
    assert scores == load_labels(two, study)
    for game in scores.values():
        assert all(abs(s) % 1000 == ply for ply, s in game.items())  # the moves played, in black's view
        assert sorted(abs(s) // 1000 for s in game.values()) == list(range(len(game)))
    sent = log.with_suffix(".options").read_text().splitlines()
    assert sent.count("setoption name Threads value 1") == len(scores)
    assert sent.count("setoption name Threads value 3") == 2 + len(scores)  # each engine's start, then each game


def test_fairy_stockfish_labels_a_game_alike_in_any_process(study: Path, tmp_path: Path) -> None:
    """Fairy-Stockfish 11.1 keeps tables across ``usinewgame`` and ``Clear Hash``: without
    ``Threads`` set again before each game, a game labelled after others got other scores than
    in a fresh process (2 of 30 positions).  One process and two side by side give one file."""
    fsf = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"
    if not Path(fsf).exists():
        pytest.skip("no Fairy-Stockfish")
    files = [tmp_path / f"{n}.sqlite" for n in (1, 2)]
    for workers, labels in enumerate(files, 1):
        label_study(study, labels, [fsf], nodes=3000, workers=workers)
    assert load_labels(files[0], study) == load_labels(files[1], study)


def test_a_killed_labelling_keeps_the_finished_games_and_continues(study: Path, tmp_path: Path) -> None:
    labels = tmp_path / "l.sqlite"
    calls = []

    def stop_after_one(done: int, of: int) -> None:
        calls.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        label_study(study, labels, USI, nodes=200, progress=stop_after_one)
    assert len(load_labels(labels, study)) == 1 and calls == [1]
    label_study(study, labels, USI, nodes=200)
    assert {g: set(p) for g, p in load_labels(labels, study).items()} == _quiet_plies(study)


def test_the_targets_are_the_squashed_scores_of_the_labelled_positions(study: Path,
                                                                      labelled: tuple[Path, int]) -> None:
    scores = load_labels(labelled[0], study)
    _, by_result = read_games(study)
    _, data = read_games(study, labels=scores, scale=500.0)
    kept = sorted(s for g in scores.values() for s in g.values() if abs(s) < LABEL_CAP)
    assert len(data.y) == len(kept) <= len(by_result.y)
    assert np.allclose(np.sort(data.y), 1 / (1 + np.exp(-np.array(kept) / 500.0)))
    assert set(np.unique(by_result.y)) <= {0.0, 0.5, 1.0}


def test_labels_of_another_study_or_setup_are_refused(study: Path, labelled: tuple[Path, int], tmp_path: Path) -> None:
    labels = _copy(labelled[0], tmp_path / "l.sqlite")  # the study's labels, at 200 nodes
    other = tmp_path / "other.db"
    run_selfplay(study_config(load_variant("minishogi"), games=1, nodes=100, seed=5, noise=10.0, random_plies=2),
                 other, workers=1)
    with pytest.raises(LabelError, match="another study"):
        load_labels(labels, other)
    with pytest.raises(LabelError, match="another study"):
        label_study(other, labels, USI, nodes=200)
    before = labels.read_bytes()
    with pytest.raises(LabelError, match=r'another options \(the file: \{\}; asked: \{"Threads": "1"\}\): use another'):
        label_study(study, labels, USI, nodes=200, options={"Threads": "1"})
    assert labels.read_bytes() == before


def test_tune_with_a_label_engine_end_to_end(study: Path, tmp_path: Path) -> None:
    out, labels = tmp_path / "t.toml", tmp_path / "l.sqlite"
    # the tune command in this process (tests/cli_support.py); its labelling engine is a real
    # `komaken usi` process.  The real console script's exit status: test_eval_params's tune tests
    cmd = [sys.executable, "-m", "komaken", "tune", "linear", "-v", "minishogi", "--games", "0", "--db", str(study),
           "--label-engine", shlex.join(USI), "--label-nodes", "150", "--labels", str(labels), "--out", str(out),
           "--l2", "1e-3"]
    r = komaken_in_process(*cmd[3:])
    assert r.returncode == 0, r.stderr
    assert "targets: search scores in l.sqlite" in out.read_text(encoding="utf-8")
    tuned = EvalParams.load(out, "minishogi")
    assert tuned.values.board != EvalParams.default("minishogi").values.board
    # bad input: labels with records, and a label file of another node count: one line, exit 2
    r = komaken_in_process(*cmd[3:7], "--records", str(tmp_path), "--labels", str(labels), "--out", str(out))
    assert r.returncode == 2 and "give --db, not --records" in r.stderr
    r = komaken_in_process(*cmd[3:11], "--label-engine", shlex.join(USI), "--label-nodes", "151", "--labels",
                           str(labels), "--out", str(out))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "labels of another nodes (the file: 150; asked: 151)" in r.stderr, r.stderr



@pytest.mark.parametrize("mode", ["none", "some", "resign"])
def test_positions_without_a_score_stay_unlabelled_and_a_silent_engine_is_an_error(
        study: Path, tmp_path: Path, mode: str) -> None:
    """komaken plays a single legal move at once, unscored, and answers a finished game's last
    position with an unscored ``bestmove resign``: such positions do not stop the labelling (the
    second is a loss for the side to move), but an engine that scores nothing is an error."""
    command = fake_label_engine(tmp_path, mode)
    labels = tmp_path / "l.sqlite"
    if mode == "none":
        with pytest.raises(LabelError, match="no score for any of the"):
            label_study(study, labels, command, nodes=10)
        return
    made = label_study(study, labels, command, nodes=10)
    got = load_labels(labels, study)
    scores = [s for g in got.values() for s in g.values()]
    quiet = sum(len(p) for p in _quiet_plies(study).values())
    if mode == "resign":
        assert made == quiet and {abs(s) for s in scores} == {MATE_CP}
    else:
        assert 0 < made < quiet and {abs(s) for s in scores} == {7, MATE_CP}
