"""The positions of a value study's games, as a data set the Texel tuner fits
(:func:`komaken.shogi.engine.tune.tune`): every quiet position of every game, labelled with its
game's result or with a stronger engine's score of it (:mod:`komaken.lab.label`)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import numpy as np

from komaken.errors import KomakenError
from komaken.lab.label import label_targets
from komaken.lab.valuestudy.games import open_study, study_games
from komaken.lab.valuestudy.selfplay import start_position
from komaken.shogi.engine.tune import LABEL_SCALE, Dataset, collect_positions, quiet_rows
from komaken.shogi.variant import Variant, variant_from_dict


def read_games(db: str | Path, variant: Variant | None = None,
               progress: Callable[[int], None] | None = None,
               labels: Mapping[int, Mapping[int, int]] | None = None,
               scale: float = LABEL_SCALE) -> tuple[Variant, Dataset]:
    """The quiet positions of every game in a study database, each labelled with its game's
    result — or, given ``labels`` (``{game: {ply: score}}``, black's view, from
    :func:`komaken.lab.label.load_labels`), only the labelled positions, each with
    ``σ(score / scale)``; a score beyond ±:data:`~komaken.shogi.engine.tune.LABEL_CAP` (a decided
    position) is left out."""
    with open_study(db) as study:
        config = study.config()
        v = variant_from_dict(tomllib.loads(config["variant_toml"]), source=str(db))
        if variant is not None and (variant.name, variant.width, variant.height) != (v.name, v.width, v.height):
            raise KomakenError(f"{db}: the games are of {v.name}, not {variant.name}")

        def rows() -> Iterator[tuple[np.ndarray, float | np.ndarray]]:
            for game in study_games(study):
                start = start_position(config, v, game.game_index)
                keep = game.quiet()
                moves = game.move_codes()
                if labels is None:
                    yield quiet_rows(start, moves, game.opening_plies, keep), game.score
                    continue
                scores = labels.get(game.game_index, {})
                plies = game.opening_plies + np.flatnonzero(keep)
                scored, targets = label_targets(scores, plies, scale)
                keep[np.flatnonzero(keep)] = scored
                yield quiet_rows(start, moves, game.opening_plies, keep), targets

        return v, collect_positions(rows(), progress, f"{db}: no games with quiet positions to tune on")
