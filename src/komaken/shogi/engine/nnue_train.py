"""Training an NNUE network (numpy + numba, float32) and quantising it to a :class:`Network`.

**Data.** A :class:`Samples` set: for each position the active features of both perspectives
(side to move's first, as :func:`position_features` lists them — the same features
:func:`~komaken.shogi.engine._nnue.refresh` sums), a target ``t`` in [0, 1] (the side to move's
expected score), and the game it comes from (the held-out split keeps a game's positions
together).

**Model.** The float twin of the integer network: accumulator ``b + Σ W_eff[f]``, clipped ReLU
to [0, 1], 2H → n1 → n2 → 1 with clipped ReLU, output ``o`` in units of
:data:`~komaken.shogi.engine._nnue.OUT_SCALE` evaluation units; the prediction is ``σ(o)``
(``σ(score / 600)``, the scale the label targets use) and the loss the cross-entropy to ``t``.

**Factorised board features.** A board feature (king bucket, piece plane, square) has weight
``W[f] + F[plane, square]``: ``F`` is shared by every king bucket, so what a piece on a square is
worth whatever the king's square is learnt from every position, and the bucket rows only learn
how the king's square changes it.  With tens of thousands of positions most of the 9×9 table's
82 buckets see a handful of positions, and without ``F`` those rows would stay near their
random start.  On quantising, ``F`` is folded into every bucket's rows (the integer net has no
``F``), and the file keeps it apart again (:mod:`komaken.shogi.engine.nnue`).

**Material column.** One more column of ``W``/``F`` (``TrainConfig.psqt``, on by default) is
summed like the others but bypasses the layers: ``o += (acc_us − acc_them) / 2``.  It starts
from the linear evaluation's piece values (:func:`material_column`), so the net begins as a
material count and its layers learn the rest; the clipped layers alone represent a sum of many
piece values only roughly.

**Optimiser.** Adam, mini-batches, sparse: only the rows of the features active in a batch get
a gradient and an update (their Adam moments too), as only they moved the loss; the step size
falls linearly to a tenth over the epochs; weight decay pulls the king-bucket rows towards 0
(their feature towards its king-independent factor; the hand rows, which have no factor, are
not decayed).  Seeded: the
start weights and each epoch's order come from ``seed`` (the order of epoch ``e`` from
``(seed, e)``), so a run stopped after any epoch and resumed from its checkpoint ends with the
same weights as one run through.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError
from komaken.shogi._board import BLACK_BIT
from komaken.shogi._kernels import R_NSQ, R_SQUARES
from komaken.shogi.engine._nnue import (
    HAND_CAP,
    HAND_KINDS,
    OUT_SCALE,
    PLANES,
    QA,
    QB,
    n_features,
    square_index,
    threat_maps,
)
from komaken.shogi.engine._nnue_train import (
    active_features,
    game_features,
    integer_scores,
    position_features_into,
    predict,
    train_epoch,
    unit_hash,
)
from komaken.shogi.engine.nnue import DENSE, FEATURE_SET, THREAT_SET, Network
from komaken.shogi.position import Position
from komaken.shogi.variant import Variant, load_variant, shipped_id

#: active features per perspective at most: a piece on the board or in hand is one feature
MAX_ACTIVE = 64
_I16 = 32767


def feature_width(variant: str | Variant, threats: bool) -> int:
    """Room for one perspective's active features: :data:`MAX_ACTIVE`, or with the threat
    features three per piece of the variant (its one board or hand feature and at most two
    threats; captures move pieces to the hand, so the count never grows)."""
    if not threats:
        return MAX_ACTIVE
    s = Position.start(variant).kernel_state()
    nsq = int(s.rules[R_NSQ])
    pieces = int(np.count_nonzero(s.bd[s.rules[R_SQUARES:R_SQUARES + nsq]])) + int(s.hd.sum())
    return 3 * max(pieces, 1)


class TrainError(KomakenError):
    """Training data or a checkpoint that cannot be used (empty, another variant, another run)."""


def position_features(position: Position, threats: bool = False) -> np.ndarray:
    """``int32[2, width]``: the active features of ``position`` (with ``threats`` the threat
    features too), side to move's first, -1 padded to :func:`feature_width`."""
    s = position.kernel_state()
    out = np.full((2, feature_width(position.variant, threats)), -1, dtype=np.int32)
    position_features_into(s.bd, s.hd, s.st, s.rules, square_index(s.rules), threats, threat_maps(), out)
    return out


@dataclasses.dataclass
class Samples:
    """Positions to train on: ``feats`` int32 [n, 2, width] (side to move's perspective
    first, -1 padded), ``target`` float32 [n] (side to move's expected score), ``game`` int64 [n];
    ``threats``: whether ``feats`` hold the threat features."""

    variant: str
    board: tuple[int, int]
    feats: np.ndarray
    target: np.ndarray
    game: np.ndarray
    #: evaluation units per unit of logit: the net predicts ``σ(evaluation / scale)``
    scale: float = 600.0
    threats: bool = False

    def __len__(self) -> int:
        return int(self.target.shape[0])

    def take(self, rows: np.ndarray) -> Samples:
        return Samples(self.variant, self.board, self.feats[rows], self.target[rows], self.game[rows], self.scale,
                       self.threats)


def holdout_split(game: np.ndarray, seed: int, fraction: float = 0.1) -> np.ndarray:
    """``True`` for the rows of the held-out games: about ``fraction`` of the games, a game's
    positions all on one side.  Whether a game is held out depends only on ``seed`` and its index
    (a hash of the two), not on which other games are present, so nets trained on different
    samples of one study — the first ``--games``, every ``--label-every``-th position, other
    labels with other mates left out — hold out the same games, and one can be judged on
    positions the others never saw."""
    ids = np.unique(game)
    held = ids[unit_hash(ids, np.uint64((seed * 0x9E3779B97F4A7C15 + 0x4E4E) % (1 << 64))) < fraction]
    if len(held) == 0 and len(ids) > 1:
        held = ids[:1]
    return np.isin(game, held)


# ---- the float model -----------------------------------------------------------------------------
_PARAMS = ("W", "F", "B", "L1", "b1", "L2", "b2", "O", "ob")


def init_params(nsq: int, width: int, dense: tuple[int, int], seed: int,
                material: tuple[np.ndarray, np.ndarray] | None = None, psqt: bool = True,
                threats: bool = False) -> dict[str, np.ndarray]:
    """Start weights: bucket rows 0 (the factor ``F`` carries a feature's first weight), small
    random ``F``, the dense layers scaled to their fan-in, the output near 0.

    With ``psqt``, the feature weights have one more column, the material column (see
    :func:`~komaken.shogi.engine._nnue.forward`), which starts at ``material`` — ``(bval,
    hval)`` piece values of the board and the hand, as :meth:`PieceValues.arrays
    <komaken.shogi.engine.values.PieceValues.arrays>` gives them — so training starts from a
    material count instead of from nothing.  With ``threats`` the table has the threat
    features' rows (no factor and no material, as the hand rows)."""
    rng = np.random.default_rng([seed, 0x1417])
    n1, n2 = dense
    f32 = np.float32
    cols = width + (1 if psqt else 0)
    W = np.zeros((n_features(nsq, threats), cols), dtype=f32)
    F = np.zeros((PLANES * nsq, cols), dtype=f32)
    F[:, :width] = rng.normal(0, 0.05, (PLANES * nsq, width))
    if psqt and material is not None:
        rows, F[:, width] = material_column(nsq, *material)
        W[:len(rows), width] = rows
    return {"W": W, "F": F,
            "B": np.concatenate([np.full(width, 0.3), np.zeros(cols - width)]).astype(f32),
            "L1": rng.normal(0, 1 / math.sqrt(2 * width), (n1, 2 * width)).astype(f32),
            "b1": np.full(n1, 0.1, dtype=f32),
            "L2": rng.normal(0, 1 / math.sqrt(n1), (n2, n1)).astype(f32),
            "b2": np.full(n2, 0.1, dtype=f32),
            "O": rng.normal(0, 0.1, n2).astype(f32),
            "ob": np.zeros(1, dtype=f32)}


def material_column(nsq: int, bval: np.ndarray, hval: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The material column's start, in network output units (``OUT_SCALE`` evaluation units):
    ``(hand rows over all features, factor rows)``.  A piece of the perspective's own colour
    counts its value, an opponent's minus it, so ``(us − them) / 2`` is the material balance
    from the side to move's view; the ``k``-th piece of a kind in hand counts the hand value."""
    cells = PLANES * nsq
    factor = np.zeros(cells, dtype=np.float64)
    for plane in range(PLANES):
        kind = plane % 16
        v = float(bval[kind | BLACK_BIT]) * (1.0 if plane < 16 else -1.0)
        factor[plane * nsq:(plane + 1) * nsq] = v / OUT_SCALE
    rows = np.zeros(n_features(nsq), dtype=np.float64)
    first = (nsq + 1) * cells
    for rel in range(2):
        for kind in range(1, HAND_KINDS):
            v = float(hval[0, kind]) * (1.0 if rel == 0 else -1.0)
            at = first + (rel * HAND_KINDS + kind) * HAND_CAP
            rows[at:at + HAND_CAP] = v / OUT_SCALE
    return rows, factor


def cross_entropy(o: np.ndarray, t: np.ndarray) -> float:
    """Mean cross-entropy of predictions ``σ(o)`` to targets ``t``."""
    p = np.clip(1 / (1 + np.exp(-np.asarray(o, dtype=np.float64))), 1e-7, 1 - 1e-7)
    return float(np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p))))


# ---- a training run ------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class TrainConfig:
    width: int = 32
    epochs: int = 30
    batch: int = 256
    lr: float = 2e-3
    decay: float = 1e-2
    seed: int = 0
    holdout: float = 0.1
    #: a material column (PSQT) beside the layers, started from the piece values
    psqt: bool = True
    #: king buckets trained as one: squares in blocks of this many files and ranks share their
    #: rows (1: every square its own; the board's size or more: one bucket for every square)
    king_region: int = 1

    def check(self) -> None:
        for key, val, lo, hi in (("width", self.width, 1, 1024), ("epochs", self.epochs, 1, 100_000),
                                 ("batch", self.batch, 1, 1 << 20), ("king_region", self.king_region, 1, 1 << 10)):
            if not lo <= val <= hi:
                raise TrainError(f"{key} must be in {lo}..{hi}, not {val}")
        if not (0 < self.lr < 1 and 0 <= self.decay < 1 and 0 < self.holdout < 1):
            raise TrainError("lr and holdout must be in (0, 1), decay in [0, 1)")


@dataclasses.dataclass
class EpochReport:
    epoch: int
    train_loss: float
    holdout_loss: float


@dataclasses.dataclass
class TrainResult:
    network: Network
    params: dict[str, np.ndarray]
    epochs: list[EpochReport]
    holdout_float: float
    holdout_int: float
    #: mean and largest |integer − float| evaluation on the held-out positions (evaluation units)
    quant_mean: float
    quant_max: float
    train_positions: int
    holdout_positions: int
    holdout_rows: np.ndarray


def _fingerprint(samples: Samples, config: TrainConfig) -> str:
    h = np.uint64(len(samples)) ^ np.uint64(int(samples.feats.astype(np.int64).sum()) & 0xFFFFFFFFFFFF)
    return (f"{samples.variant}/{samples.board[0]}x{samples.board[1]}/{int(h)}/{float(samples.target.sum()):.6f}/"
            f"k{samples.scale:.6g}/w{config.width}/b{config.batch}/lr{config.lr:g}/d{config.decay:g}/s{config.seed}/h{config.holdout:g}"
            f"/p{int(config.psqt)}" + (f"/r{config.king_region}" if config.king_region > 1 else "")
            + ("/threats" if samples.threats else ""))


def learning_rate(config: TrainConfig, epoch: int) -> float:
    """The step size of ``epoch`` (1-based): ``config.lr`` falling linearly to a tenth of it at
    the last epoch, so the last epochs settle instead of jumping around the minimum."""
    frac = (epoch - 1) / max(1, config.epochs - 1)
    return config.lr * (1.0 - 0.9 * frac)


def train(samples: Samples, config: TrainConfig, *, checkpoint: Path | None = None,
          on_epoch: Callable[[EpochReport], None] | None = None,
          on_batch: Callable[[int, int], None] | None = None,
          provenance: dict[str, str] | None = None,
          material: tuple[np.ndarray, np.ndarray] | None = None) -> TrainResult:
    """Train on ``samples`` (a seeded tenth of the games held out), quantise, and check the
    integer net against the float one on the held-out positions.  With ``checkpoint``, the
    state after each epoch is written there and a run with the same data and settings resumes
    from it (its epochs count towards ``config.epochs``).  ``material``: the piece values the
    material column starts from (``config.psqt``; none: it starts at zero)."""
    config.check()
    if len(samples) == 0:
        raise TrainError("no positions to train on")
    nsq = samples.board[0] * samples.board[1]
    cells = PLANES * nsq
    nboard = (nsq + 1) * cells
    held = holdout_split(samples.game, config.seed, config.holdout)
    if held.all() or not held.any():
        raise TrainError(f"need positions from at least two games to hold some out; got {len(np.unique(samples.game))}")
    rep = king_buckets(samples.board, config.king_region)
    tr, ho = (tie_buckets(samples.take(np.flatnonzero(h)), rep, cells) for h in (~held, held))
    key = _fingerprint(samples, config)
    params = init_params(nsq, config.width, DENSE, config.seed, material, config.psqt, samples.threats)
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    done: list[EpochReport] = []
    step = 0
    if checkpoint is not None and checkpoint.exists():
        params, moments, done, step = _load_checkpoint(checkpoint, key, params)
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    nf = params["W"].shape[0]
    buffers = (tuple(params[k] for k in _PARAMS), tuple(grads[k] for k in _PARAMS),
               tuple(moments[k][0] for k in _PARAMS), tuple(moments[k][1] for k in _PARAMS),
               np.zeros(nf, dtype=np.int64), np.zeros(cells, dtype=np.int64), np.zeros(nf, dtype=np.int8),
               np.zeros(cells, dtype=np.int8))
    ks = OUT_SCALE / samples.scale
    for epoch in range(len(done) + 1, config.epochs + 1):
        losses, step = _epoch(tr, config, epoch, step, ks, nboard, cells, buffers, on_batch)
        for name in _PARAMS:
            if not np.isfinite(params[name]).all():
                raise TrainError(f"training diverged at epoch {epoch} ({name} not finite); try a smaller --lr")
        report = EpochReport(epoch, losses / len(tr),
                             cross_entropy(ks * _predict(ho, params, nboard, cells), ho.target))
        done.append(report)
        if checkpoint is not None:
            _save_checkpoint(checkpoint, key, params, moments, done, step)
        if on_epoch is not None:
            on_epoch(report)
    net = quantise(params, samples.variant, samples.board, provenance or {}, rep, samples.threats)
    o_float = _predict(ho, params, nboard, cells)
    o_int = integer_outputs(net, ho.feats)
    diff = np.abs(o_int - o_float * OUT_SCALE)
    return TrainResult(net, params, done, cross_entropy(ks * o_float, ho.target),
                       cross_entropy(o_int / samples.scale, ho.target), float(diff.mean()), float(diff.max()), len(tr),
                       len(ho), np.flatnonzero(held))


def _epoch(tr: Samples, config: TrainConfig, epoch: int, step: int, ks: float, nboard: int, cells: int,
           buffers: tuple[Any, ...], on_batch: Callable[[int, int], None] | None) -> tuple[float, int]:
    """One epoch (its order and step size from ``config``), in chunks of batches so that the
    progress bar moves within it; returns the summed loss and the Adam step count after it."""
    order = np.random.default_rng([config.seed, epoch]).permutation(len(tr))
    lr = learning_rate(config, epoch)
    per_epoch = -(-len(tr) // config.batch)
    chunk = config.batch * max(1, per_epoch // 20)
    losses = 0.0
    for c0 in range(0, len(order), chunk):
        part = order[c0:c0 + chunk]
        losses += train_epoch(tr.feats, tr.target, part, config.batch, lr, config.decay, ks, step, nboard, cells,
                              *buffers)
        step += -(-len(part) // config.batch)
        if on_batch is not None:
            on_batch(-(-len(part) // config.batch), per_epoch * config.epochs)
    return losses, step


def _predict(s: Samples, p: dict[str, np.ndarray], nboard: int, cells: int) -> np.ndarray:
    out: np.ndarray = predict(s.feats, p["W"], p["F"], p["B"], p["L1"], p["b1"], p["L2"], p["b2"], p["O"], p["ob"],
                              nboard, cells)
    return out


def king_buckets(board: tuple[int, int], region: int) -> np.ndarray:
    """``[king bucket]`` -> the bucket whose rows it shares when the king's squares are tied in
    blocks of ``region`` files by ``region`` ranks (a bucket is its own king's square, numbered
    file by file from the perspective's side, and ``N`` for no king, which stays alone)."""
    width, height = board
    nsq = width * height
    rep = np.arange(nsq + 1, dtype=np.int64)
    s = np.arange(nsq)
    f, r = s // height, s % height
    rep[:nsq] = (f - f % region) * height + (r - r % region)
    return rep


def tie_buckets(samples: Samples, rep: np.ndarray, cells: int) -> Samples:
    """``samples`` with each board feature moved to the rows of its bucket's representative
    (:func:`king_buckets`), so tied buckets train one set of rows; unchanged when none are tied."""
    if (rep == np.arange(len(rep))).all():
        return samples
    f = samples.feats.astype(np.int64)
    board = (f >= 0) & (f < len(rep) * cells)
    fb = np.where(board, f, 0)
    tied = np.where(board, rep[fb // cells] * cells + fb % cells, f).astype(samples.feats.dtype)
    return dataclasses.replace(samples, feats=tied)


def quantise(params: dict[str, np.ndarray], variant: str, board: tuple[int, int],
             provenance: dict[str, str], rep: np.ndarray | None = None, threats: bool = False) -> Network:
    """The integer :class:`Network` of float ``params`` (each king bucket's board rows copied from
    its representative's, ``rep`` of :func:`king_buckets`, and the factor ``F`` folded into
    every bucket), clipped to the integer types."""
    nsq = board[0] * board[1]
    cells = PLANES * nsq
    w = params["W"].astype(np.float64).copy()
    if rep is not None:
        rows = (rep[:, None] * cells + np.arange(cells)).reshape(-1)
        w[:(nsq + 1) * cells] = w[rows]
    w[:(nsq + 1) * cells] += np.tile(params["F"].astype(np.float64), (nsq + 1, 1))
    h = params["L1"].shape[1] // 2

    def q(x: np.ndarray, scale: float, lim: int, dtype: type[np.generic]) -> np.ndarray:
        return np.clip(np.round(np.asarray(x, dtype=np.float64) * scale), -lim, lim).astype(dtype)

    i32 = 2**31 - 1
    ft = q(w, QA, _I16, np.int16)
    bias = q(params["B"], QA, i32, np.int32)
    if w.shape[1] > h:  # the material column is in evaluation units; its bias cancels out
        ft[:, h] = q(w[:, h], OUT_SCALE, _I16, np.int16)
        bias[h] = 0
    return Network(variant, board, ft, bias,
                   q(params["L1"], QB, _I16, np.int16), q(params["b1"], QA * QB, i32, np.int32),
                   q(params["L2"], QB, _I16, np.int16), q(params["b2"], QA * QB, i32, np.int32),
                   q(params["O"], QB, _I16, np.int16), int(q(params["ob"], QA * QB, i32, np.int32)[0]),
                   THREAT_SET if threats else FEATURE_SET, provenance=dict(provenance))


def integer_outputs(net: Network, feats: np.ndarray) -> np.ndarray:
    """The integer net's evaluation (side to move's, evaluation units) of each row of ``feats``."""
    return integer_scores(feats, net.w, net.b, *net.dense()).astype(np.float64)  # type: ignore[no-any-return]


def _save_checkpoint(path: Path, key: str, params: dict[str, np.ndarray],
                     moments: dict[str, tuple[np.ndarray, np.ndarray]], done: list[EpochReport], step: int) -> None:
    arrays: dict[str, Any] = {f"p_{k}": v for k, v in params.items()}
    arrays |= {f"m_{k}": v[0] for k, v in moments.items()} | {f"v_{k}": v[1] for k, v in moments.items()}
    arrays["epochs"] = np.array([[r.epoch, r.train_loss, r.holdout_loss] for r in done], dtype=np.float64)
    arrays["key"] = np.frombuffer(key.encode(), dtype=np.uint8)
    arrays["step"] = np.array([step], dtype=np.int64)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as fh:
        np.savez(fh, **arrays)
    tmp.replace(path)  # a run killed while writing keeps the previous epoch's checkpoint


def _load_checkpoint(path: Path, key: str, like: dict[str, np.ndarray]) -> tuple[
        dict[str, np.ndarray], dict[str, tuple[np.ndarray, np.ndarray]], list[EpochReport], int]:
    try:
        with np.load(path, allow_pickle=False) as z:
            got = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError) as e:
        raise TrainError(f"{path}: not a readable checkpoint ({e}); delete it to start afresh") from None
    if "key" not in got or got["key"].tobytes().decode(errors="replace") != key:
        raise TrainError(f"{path}: a checkpoint of another run (other data or settings); delete it or give "
                         "another --checkpoint")
    params, moments = {}, {}
    for k, v in like.items():
        for prefix in "pmv":
            a = got.get(f"{prefix}_{k}")
            if a is None or a.shape != v.shape or not np.isfinite(a).all():
                raise TrainError(f"{path}: {prefix}_{k} is missing, misshapen or not finite")
        params[k] = got[f"p_{k}"].astype(np.float32)
        moments[k] = (got[f"m_{k}"].astype(np.float32), got[f"v_{k}"].astype(np.float32))
    done = [EpochReport(int(e), float(a), float(b)) for e, a, b in got["epochs"].reshape(-1, 3)]
    return params, moments, done, int(got["step"][0])


def variant_id(variant: str | Variant) -> tuple[str, tuple[int, int]]:
    """The name a net is stored under (the shipped id, else the variant's name) and its board."""
    v = load_variant(variant)
    return shipped_id(v) or v.name, (v.width, v.height)


__all__ = ["MAX_ACTIVE", "Samples", "TrainConfig", "TrainError", "TrainResult", "active_features", "cross_entropy",
           "feature_width", "game_features", "holdout_split", "init_params", "integer_outputs", "king_buckets",
           "material_column", "position_features", "quantise", "tie_buckets", "train"]
