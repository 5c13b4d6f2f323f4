"""NNUE training: the features it trains on are the ones the kernels sum, a seeded run is
repeatable and resumes to the same weights, it learns, the integer net follows the float one, and
`komaken tune nnue` refuses empty or foreign data in one line."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest

from cli_support import komaken_in_process, komaken_process
from komaken.errors import EvalError
from komaken.shogi import Position
from komaken.shogi._board import BLACK_BIT
from komaken.shogi._kernels import R_NSQ, R_SQUARES, ST_SIDE, attacked
from komaken.shogi.engine._nnue import OUT_SCALE, n_features, refresh, square_index
from komaken.shogi.engine._nnue_train import predict
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.nnue import DENSE, Network, evaluate, find_network
from komaken.shogi.engine.nnue_train import (
    EpochReport,
    Samples,
    TrainConfig,
    TrainError,
    holdout_split,
    init_params,
    integer_outputs,
    king_buckets,
    position_features,
    quantise,
    train,
)
from komaken.shogi.engine.values import PieceValues
from komaken.shogi.variant import load_variant

VALUE = {"P": 1, "S": 5, "G": 6, "B": 8, "R": 10, "K": 0}


def _random_positions(variant: str, n: int, seed: int) -> list[Position]:
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = Position.start(variant)
        for _ in range(int(rng.integers(4, 40))):
            moves = list(pos.legal_moves())
            if not moves or pos.is_game_over():
                break
            pos.push(moves[int(rng.integers(len(moves)))])
        out.append(pos)
    return out


def _material(pos: Position) -> float:
    """Side to move's material (board and hand), unpromoted values."""
    total = 0.0
    sfen = pos.sfen().split()
    board, hand = sfen[0], sfen[2]
    for ch in board:
        if ch.upper() in VALUE:
            total += VALUE[ch.upper()] * (1 if ch.isupper() else -1)
    count = 1
    for ch in hand if hand != "-" else "":
        if ch.isdigit():
            count = int(ch)
            continue
        total += VALUE[ch.upper()] * count * (1 if ch.isupper() else -1)
        count = 1
    return total if sfen[1] == "b" else -total


def _samples(n: int = 600, seed: int = 0) -> Samples:
    positions = _random_positions("minishogi", n, seed)
    feats = np.stack([position_features(p) for p in positions])
    target = (1 / (1 + np.exp(-np.array([_material(p) for p in positions]) / 4))).astype(np.float32)
    game = np.arange(n) // 3
    return Samples("minishogi", (5, 5), feats, target, game, 600.0)


@pytest.fixture(scope="module")
def samples() -> Samples:
    return _samples()


@pytest.mark.parametrize("threats", [False, True])
def test_the_features_trained_on_are_the_ones_the_kernels_sum(threats: bool) -> None:
    net = Network.random("judkins", width=8, seed=4, threats=threats)
    for pos in _random_positions("judkins", 30, 1):
        feats = position_features(pos, threats)
        s = pos.kernel_state()
        acc = np.zeros(8, dtype=np.int32)
        us = int(s.st[ST_SIDE])
        refresh(s.bd, s.hd, s.st, s.rules, square_index(s.rules), net.w, net.b, us, acc)
        rows = feats[0][feats[0] >= 0]
        board = rows[rows < n_features(pos.variant.width * pos.variant.height)]
        assert (net.b + net.w[board].astype(np.int32).sum(axis=0) == acc).all()
        assert integer_outputs(net, feats[None])[0] == evaluate(net, pos)
        assert (len(rows) > len(board)) == threats  # the walks leave pieces attacked or defended


def test_a_seeded_run_repeats_and_a_resumed_one_ends_the_same(samples: Samples, tmp_path: Path) -> None:
    cfg = TrainConfig(width=8, epochs=4, batch=32, seed=5)
    a = train(samples, cfg)
    b = train(samples, cfg)
    assert all((a.params[k] == b.params[k]).all() for k in a.params)
    ck = tmp_path / "run.ckpt.npz"

    class Stop(Exception):
        pass

    def stop_after_two(r: EpochReport) -> None:
        if r.epoch == 2:
            raise Stop  # as a kill after the second epoch's checkpoint

    with pytest.raises(Stop):
        train(samples, cfg, checkpoint=ck, on_epoch=stop_after_two)
    assert ck.exists()
    seen: list[int] = []
    resumed = train(samples, cfg, checkpoint=ck, on_epoch=lambda r: seen.append(r.epoch))
    assert seen == [3, 4] and [r.epoch for r in resumed.epochs] == [1, 2, 3, 4]
    assert all((a.params[k] == resumed.params[k]).all() for k in a.params)
    assert [r.holdout_loss for r in a.epochs] == [r.holdout_loss for r in resumed.epochs]
    other = train(samples, TrainConfig(width=8, epochs=2, batch=32, seed=6))
    assert not (other.params["L1"] == a.params["L1"]).all()
    with pytest.raises(TrainError, match="another run"):
        train(samples, TrainConfig(width=16, epochs=5, batch=32, seed=5), checkpoint=ck)


def test_training_learns_and_the_integer_net_follows_the_float_one(samples: Samples) -> None:
    r = train(samples, TrainConfig(width=16, epochs=25, batch=32, lr=5e-3, seed=1))
    y = samples.target[r.holdout_rows]
    prior = float(y.mean())
    constant = float(np.mean(-(y * np.log(prior) + (1 - y) * np.log(1 - prior))))
    assert r.epochs[-1].holdout_loss < r.epochs[0].holdout_loss
    assert r.holdout_float < constant - 0.02, (r.holdout_float, constant)
    # quantised: within a few percent of the output scale, and the same loss to 3 decimals
    assert r.quant_mean < 0.03 * OUT_SCALE and abs(r.holdout_int - r.holdout_float) < 5e-3, r
    net = r.network
    assert net.w.dtype == np.int16 and net.widths == (16, 16, 16)


def test_king_buckets_tie_the_squares_of_a_block() -> None:
    assert (king_buckets((5, 5), 1) == np.arange(26)).all()
    one = king_buckets((9, 9), 9)
    assert (one[:81] == 0).all() and one[81] == 81  # no king stays alone
    rep = king_buckets((9, 9), 3)
    assert len(set(rep[:81].tolist())) == 9
    for s in range(81):  # squares are numbered file by file, 9 ranks a file
        f, r = divmod(s, 9)
        assert divmod(int(rep[s]), 9) == (f - f % 3, r - r % 3)
    assert len(set(king_buckets((3, 4), 2)[:12].tolist())) == 4  # 2 file blocks by 2 rank blocks


def test_tied_king_buckets_train_one_set_of_rows_and_the_net_keeps_it(samples: Samples) -> None:
    from komaken.shogi.engine._nnue import PLANES

    cells = PLANES * 25
    r = train(samples, TrainConfig(width=8, epochs=3, batch=32, seed=2, king_region=5))
    w = r.network.w[:25 * cells].reshape(25, cells, -1)
    assert (w == w[0]).all()  # every king square reads the rows its block trained
    assert abs(r.holdout_int - r.holdout_float) < 5e-3
    plain = train(samples, TrainConfig(width=8, epochs=3, batch=32, seed=2)).network.w[:25 * cells]
    assert not (plain.reshape(25, cells, -1) == plain.reshape(25, cells, -1)[0]).all()


def test_the_holdout_keeps_games_whole() -> None:
    game = np.repeat(np.arange(200), 7)
    held = holdout_split(game, seed=3)
    assert 0.04 < held.mean() < 0.2
    for g in range(200):
        assert len(set(held[game == g])) == 1
    # a game's side does not depend on which other games are present
    rng = np.random.default_rng(5)
    for _ in range(5):
        present = rng.random(len(game)) < 0.5
        assert (holdout_split(game[present], seed=3) == held[present]).all()
    assert not (holdout_split(game, seed=4) == held).all()
    with pytest.raises(TrainError, match="at least two games"):
        train(Samples("minishogi", (5, 5), np.full((3, 2, 64), -1, np.int32), np.full(3, 0.5, np.float32),
                      np.zeros(3, np.int64)), TrainConfig(width=8, epochs=1))


def test_tune_nnue_refuses_empty_and_foreign_data_in_one_line(tmp_path: Path) -> None:
    missing = komaken_in_process("tune", "nnue", "-v", "minishogi", "--games", "0", "--db", str(tmp_path / "none.db"),
                                 "--out", str(tmp_path / "x.nnue"))
    assert missing.returncode == 2 and "needs an existing --db" in missing.stderr
    empty = tmp_path / "empty.db"
    from komaken.lab.valuestudy.selfplay import run_selfplay, study_config

    run_selfplay(study_config("minishogi", games=0), empty)
    r = komaken_in_process("tune", "nnue", "-v", "minishogi", "--games", "0", "--db", str(empty), "--out",
                           str(tmp_path / "x.nnue"), "-q")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().count("\n") == 0 and "no labelled quiet positions" in r.stderr, r.stderr
    foreign = komaken_in_process("tune", "nnue", "-v", "judkins", "--games", "0", "--db", str(empty), "--out",
                                 str(tmp_path / "x.nnue"), "-q")
    assert foreign.returncode == 2 and "Traceback" not in foreign.stderr
    assert "minishogi" in foreign.stderr and "judkins" in foreign.stderr, foreign.stderr
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    bad = komaken_process("tune", "nnue", "-v", "minishogi", "--games", "0", "--db", str(junk), "--out",
                          str(tmp_path / "x.nnue"), "-q")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.startswith("komaken: error:")
    assert not (tmp_path / "x.nnue").exists()


def test_tune_nnue_end_to_end_writes_a_net_with_provenance(tmp_path: Path) -> None:
    out = tmp_path / "tiny.nnue"
    r = komaken_in_process("tune", "nnue", "-v", "minishogi", "--games", "6", "--db", str(tmp_path / "t.db"),
                           "--nodes", "60", "--label-nodes", "100", "--epochs", "2", "--width", "8", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "epoch 2/2" in r.stderr and "held-out loss" in r.stderr and "linear evaluation" in r.stdout
    net = Network.load(out, "minishogi")
    assert net.width == 8 and net.provenance["command"].startswith("komaken tune nnue --variant minishogi")
    assert {"commit", "data", "target", "holdout_loss", "holdout_loss_linear"} <= set(net.provenance)
    # the recorded command is one the command line takes, naming the label file it read
    from komaken.cli.tune_nnue import nnue as nnue_command

    given = nnue_command.make_context("nnue", shlex.split(net.provenance["command"])[3:]).params
    assert given["labels"].name == "t.labels.sqlite" and given["psqt"] is True
    assert (given["epochs"], given["width"], given["label_nodes"]) == (2, 8, 100)
    assert not (tmp_path / "tiny.nnue.ckpt.npz").exists()
    with pytest.raises(EvalError):
        Network.load(out, "judkins")
    assert not net.threats and given["threats"] is False
    # the same games and labels again, with the threat features
    r = komaken_in_process("tune", "nnue", "-v", "minishogi", "--games", "0", "--db", str(tmp_path / "t.db"),
                           "--label-nodes", "100", "--epochs", "1", "--width", "8", "--threats", "--out",
                           str(tmp_path / "thr.nnue"))
    assert r.returncode == 0, r.stderr
    thr = Network.load(tmp_path / "thr.nnue", "minishogi")
    assert thr.threats and thr.feature_set == "halfkp-drop+threats" and " --threats " in thr.provenance["command"]


def test_tune_nnue_on_a_study_holding_more_games_labels_and_trains_on_its_first_games(tmp_path: Path) -> None:
    from komaken.lab.label import load_labels
    from komaken.lab.valuestudy.selfplay import run_selfplay, study_config

    db = tmp_path / "t.db"
    run_selfplay(study_config("minishogi", games=6, nodes=60, seed=0, noise=10.0, random_plies=6), db)
    r = komaken_in_process("tune", "nnue", "-v", "minishogi", "--games", "4", "--db", str(db), "--nodes", "60",
                           "--label-nodes", "100", "--epochs", "1", "--width", "8", "--out", str(tmp_path / "n.nnue"))
    assert r.returncode == 0, r.stderr
    assert "labelled 4/4 games" in r.stderr and "from 4 games" in r.stderr, r.stderr
    assert set(load_labels(tmp_path / "t.labels.sqlite", db)) == {0, 1, 2, 3}
    assert Network.load(tmp_path / "n.nnue", "minishogi").provenance["data"].startswith("4 self-play games")


def test_tune_nnue_label_every_labels_and_trains_on_every_kth_quiet_position(tmp_path: Path) -> None:
    from komaken.lab.label import load_labels
    from komaken.lab.nnue_data import read_study
    from komaken.lab.valuestudy.games import open_study, study_games
    from komaken.lab.valuestudy.selfplay import run_selfplay, study_config

    db = tmp_path / "t.db"
    run_selfplay(study_config("minishogi", games=3, nodes=60, seed=0, noise=10.0, random_plies=6), db)
    with open_study(db) as study:
        stored = list(study_games(study))
    for g in stored:
        quiet, third = np.flatnonzero(g.quiet()), np.flatnonzero(g.quiet(3))
        assert len(quiet) > 1 and (third == quiet[::3]).all()
    r = komaken_in_process("tune", "nnue", "-v", "minishogi", "--games", "3", "--db", str(db), "--nodes", "60",
                           "--label-nodes", "100", "--label-every", "3", "--epochs", "1", "--width", "8",
                           "--out", str(tmp_path / "n.nnue"))
    assert r.returncode == 0, r.stderr
    labels = load_labels(tmp_path / "t.labels.sqlite", db)
    for g in stored:  # exactly the sample's plies were asked (a mate found there is stored too)
        assert set(labels[g.game_index]) == {g.opening_plies + int(i) for i in np.flatnonzero(g.quiet(3))}
    data = read_study(db, labels, "minishogi", every=3)
    assert f"{len(data.samples)} positions from 3 games" in r.stderr
    assert len(data.samples) <= sum(int(g.quiet(3).sum()) for g in stored)
    provenance = Network.load(tmp_path / "n.nnue", "minishogi").provenance
    assert "--label-every 3" in provenance["command"] and "(one in 3 of each game's)" in provenance["data"]


@pytest.mark.parametrize("variant", ["minishogi", "judkins", "shogi"])
def test_the_shipped_nets_load_for_their_variants(variant: str) -> None:
    net = find_network(variant)
    assert net is not None and net.variant == variant
    assert {"command", "commit", "data", "holdout_loss", "holdout_loss_linear"} <= set(net.provenance)
    assert net.provenance["command"].startswith(f"komaken tune nnue --variant {variant}")
    score = evaluate(net, Position.start(variant))
    assert abs(score) < 2000  # the start is about level


def _linear_material(pos: Position, params: EvalParams) -> int:
    """Side to move's material by the linear evaluation's piece values, read off the SFEN."""
    board, turn, hand = pos.sfen().split()[:3]
    total, promoted = 0, False
    for ch in board:
        if ch == "+":
            promoted = True
            continue
        if ch.isalpha():
            letter = ("+" if promoted else "") + ch.upper()
            total += params.values.board.get(letter, 0) * (1 if ch.isupper() else -1)
        promoted = False
    digits = ""
    for ch in hand if hand != "-" else "":
        if ch.isdigit():
            digits += ch
            continue
        total += params.values.hand.get(ch.upper(), 0) * int(digits or 1) * (1 if ch.isupper() else -1)
        digits = ""
    return total if turn == "b" else -total


@pytest.mark.parametrize("variant", ["minishogi", "judkins", "shogi"])
def test_the_material_column_alone_scores_the_material_balance(variant: str) -> None:
    """A net whose layers say nothing scores exactly the linear evaluation's material, in the
    integer net and (in network units) in the float one: the column starts as a material count."""
    v = load_variant(variant)
    params = EvalParams.default(v)
    nsq = v.width * v.height
    p = init_params(nsq, 8, DENSE, 0, params.arrays())
    p["O"][:] = 0.0
    p["ob"][:] = 0.0
    net = quantise(p, variant, (v.width, v.height), {})
    assert net.psqt == 1 and net.width == 8
    positions = _random_positions(variant, 40, 7)
    want = np.array([_linear_material(pos, params) for pos in positions])
    assert np.abs(want).max() > 0  # the walks win and lose material
    got = np.array([evaluate(net, pos) for pos in positions])
    assert (got == want).all()
    feats = np.stack([position_features(pos) for pos in positions])
    cells = 32 * nsq
    o = predict(feats, p["W"], p["F"], p["B"], p["L1"], p["b1"], p["L2"], p["b2"], p["O"], p["ob"],
                (nsq + 1) * cells, cells)
    assert np.allclose(o * OUT_SCALE, want, atol=0.5)


def test_the_material_column_learns_faster_than_the_layers_alone(samples: Samples) -> None:
    """On targets that are a material count, the net with the column started from piece values
    predicts better after one epoch than the net without it."""
    v = load_variant("minishogi")
    # the targets' material in evaluation units: σ(material / 4) at 600 units per logit
    units = {"P": 150, "S": 750, "G": 900, "B": 1200, "R": 1500}
    promoted = {"+" + k: x for k, x in units.items() if k != "G"}
    material = PieceValues.from_mapping({**units, **promoted, "hand": units}, "minishogi").arrays()
    losses = {}
    for psqt in (False, True):
        r = train(samples, TrainConfig(width=8, epochs=1, seed=1, psqt=psqt), material=material)
        losses[psqt] = r.epochs[-1].holdout_loss
        assert r.network.psqt == int(psqt)
    assert v.name == "minishogi" and losses[True] < losses[False] - 0.01


def _hanging(pos: Position) -> int:
    """How many of the side not to move's pieces stand attacked and undefended."""
    s = pos.kernel_state()
    them = 1 - int(s.st[ST_SIDE])
    count = 0
    for i in range(int(s.rules[R_NSQ])):
        sq = int(s.rules[R_SQUARES + i])
        p = int(s.bd[sq])
        if p and (0 if p & BLACK_BIT else 1) == them and attacked(s.bd, sq, 1 - them, s.rules) \
                and not attacked(s.bd, sq, them, s.rules):
            count += 1
    return count


def test_threat_features_learn_what_hangs_and_the_integer_net_is_the_engines() -> None:
    """Targets that depend on which pieces hang (attacked and undefended) are learnt better with
    the threat features than without, and the quantised net with them evaluates each position as
    :func:`evaluate` (the engine's reference) does."""
    positions = _random_positions("minishogi", 1500, 3)
    target = np.array([0.8 if _hanging(p) else 0.35 for p in positions], dtype=np.float32)
    game = np.arange(len(positions)) // 3
    losses = {}
    for threats in (False, True):
        feats = np.stack([position_features(p, threats) for p in positions])
        r = train(Samples("minishogi", (5, 5), feats, target, game, 600.0, threats),
                  TrainConfig(width=16, epochs=8, batch=32, lr=5e-3, seed=1))
        losses[threats] = r.holdout_float
        assert r.network.threats == threats and r.network.w.shape[0] == n_features(25, threats)
        rows = r.holdout_rows[:40]
        assert (integer_outputs(r.network, feats[rows]) == [evaluate(r.network, positions[i]) for i in rows]).all()
    assert losses[True] < losses[False] - 0.01, losses
