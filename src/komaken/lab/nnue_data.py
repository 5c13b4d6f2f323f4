"""The training positions of an NNUE net: the quiet positions of self-play games, each labelled
with a deeper search's score (:mod:`komaken.lab.label`) blended with its game's result.

Target of a position, side to move's view: ``t = blend · σ(score / scale) + (1 − blend) · result``
(``result`` 1 won, ½ drawn, 0 lost).  ``scale`` is fitted to the data unless given: the one that
makes ``σ(score / scale)`` predict the games' results best (Texel's ``K``, ``scale = 1/K``), so a
score means the same winning chance in the target as in the games.  Positions the search found a
mate in are left out.

Beside each position comes the linear evaluation's score of it (the shipped parameters, side to
move's view): the same held-out positions then measure both evaluations.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
from scipy.special import expit

from komaken.errors import KomakenError
from komaken.lab.label import MATE_CP
from komaken.lab.valuestudy.games import SelfPlayGame, open_study, study_games
from komaken.lab.valuestudy.selfplay import start_position
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.nnue_train import Samples, feature_width, game_features, variant_id
from komaken.shogi.engine.tune import fit_k, quiet_rows, theta_of
from komaken.shogi.position import Position
from komaken.shogi.variant import Variant, load_variant, variant_from_dict

#: weight of the search score in the target (the rest: the game's result)
BLEND = 0.75


@dataclasses.dataclass
class NnueData:
    samples: Samples
    #: the linear evaluation of each position (shipped parameters; side to move's view, evaluation units)
    linear: np.ndarray
    games: int


def read_study(db: str | Path, labels: Mapping[int, Mapping[int, int]], variant: str | Variant,
               blend: float = BLEND, scale: float | None = None,
               progress: Callable[[int, int], None] | None = None, games: int | None = None,
               every: int = 1, threats: bool = False) -> NnueData:
    """The labelled quiet positions of the self-play study ``db`` (``labels``: ``{game: {ply:
    score}}`` in black's view, from :func:`komaken.lab.label.load_labels`); of its first ``games``
    game indexes only, when given (on a study played that far, the sample
    :func:`~komaken.lab.label.label_study` labels), and of each game every ``every``-th quiet
    position (:meth:`~komaken.lab.valuestudy.games.SelfPlayGame.quiet`, the positions
    ``label_study(..., every=every)`` labels); with ``threats``, each position's threat
    features too."""
    if not 0.0 <= blend <= 1.0:
        raise KomakenError(f"blend must be in [0, 1], not {blend}")
    if every < 1:
        raise KomakenError(f"every must be a positive integer, not {every}")
    want = load_variant(variant)
    name, board = variant_id(want)
    theta = theta_of(EvalParams.default(want))
    width = feature_width(want, threats)
    feats, score_of, result_of, game, linear = [], [], [], [], []
    with open_study(db) as study:
        config = study.config()
        v = variant_from_dict(tomllib.loads(config["variant_toml"]), source=str(db))
        if (v.name, v.width, v.height) != (want.name, want.width, want.height):
            raise KomakenError(f"{db}: the games are of {v.name} ({v.width}x{v.height}), not {want.name}; "
                               f"train on a self-play study of {want.name}")
        stored = list(study_games(study, games))
    for n, g in enumerate(stored):
        keep = g.quiet(every)
        scores = labels.get(g.game_index, {})
        plies = g.opening_plies + np.arange(len(keep))
        score = np.array([scores.get(int(p), MATE_CP) for p in plies], dtype=np.float64)
        keep &= np.abs(score) < MATE_CP  # unlabelled positions read MATE_CP: left out too
        if keep.any():
            f, side, x = _replay(g, keep, start_position(config, v, g.game_index), width, threats, db)
            sign = np.where(side == 0, 1.0, -1.0)
            result = np.where(side == 0, g.score, 1.0 - g.score)
            feats.append(f)
            score_of.append(score[keep] * sign)
            result_of.append(result)
            game.append(np.full(len(side), g.game_index, dtype=np.int64))
            linear.append((x @ theta) * sign)
        if progress is not None:
            progress(n + 1, len(stored))
    if not feats:
        raise KomakenError(f"{db}: no labelled quiet positions; training needs self-play games of {want.name} "
                           "whose positions were labelled (give --games, and --label-nodes or --label-engine)")
    s_, r_ = np.concatenate(score_of), np.concatenate(result_of)
    if scale is None:
        scale = 1.0 / fit_k(s_, r_)
    target = (blend * expit(s_ / scale) + (1.0 - blend) * r_).astype(np.float32)
    samples = Samples(name, board, np.concatenate(feats), target, np.concatenate(game), float(scale), threats)
    return NnueData(samples, np.concatenate(linear), len(stored))


def _replay(g: SelfPlayGame, keep: np.ndarray, start: Position, width: int, threats: bool,
            db: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Game ``g`` replayed from ``start``: of the positions ``keep`` marks, the features (``width``
    a perspective; the threat features too with ``threats``), the side to move, and the linear
    evaluation's rows."""
    moves = g.move_codes().astype(np.int64)
    s = start.kernel_state(len(moves) + 8)
    k = int(keep.sum())
    f = np.full((k, 2, width), -1, dtype=np.int32)
    side = np.zeros(k, dtype=np.int64)
    got = game_features(s.bd, s.hd, s.st, s.hh, s.hist, s.rules, moves, g.opening_plies, keep, f, side, threats)
    x = quiet_rows(start, moves, g.opening_plies, keep)
    if got != k or len(x) != k:
        raise KomakenError(f"{db}: game {g.game_index} does not replay ({got} of {k} positions)")
    return f, side, x


__all__ = ["BLEND", "NnueData", "read_study"]
