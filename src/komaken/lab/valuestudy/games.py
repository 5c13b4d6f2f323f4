"""A piece-values self-play study in the lab's one results database (:mod:`komaken.lab.storage`).

A study is an experiment of kind ``selfplay``: its configuration (:func:`~komaken.lab.valuestudy.selfplay.study_config`)
is the stored ``config``, and every game is a row of its one pairing, ``selfplay``, where player
``a`` plays black — so the result is black's (``a`` won: 1, ``b`` won: 0, a draw: ½) — with the
moves as ``int32`` codes and the positions' features (``int8[rows, NF]``, see
:mod:`komaken.shogi.engine._selfplay`) kept beside it in ``positions``.  Like every lab database:
WAL journal, one transaction per finished game, ``(pairing, game_index)`` unique, a database of
another study (another variant, node budget, seed, ...) or of other work refused before anything is
written.  A study database written before studies were experiments is converted in place when it is
first opened (:mod:`komaken.lab.migrate`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError
from komaken.game import Termination
from komaken.lab.migrate import SELFPLAY
from komaken.lab.storage import ExperimentDB, GameRow, Positions, kind_of
from komaken.shogi.engine.selfplay import COL_FLAGS, NF, NOT_QUIET

_RESULT = {1.0: "a", 0.0: "b", 0.5: "draw"}
_SCORE = {v: k for k, v in _RESULT.items()}
_TERMINATIONS = {t.value for t in Termination}


class StudyError(KomakenError):
    """A study database that cannot be used: missing, or holding something other than a study."""


@dataclass(frozen=True, slots=True)
class SelfPlayGame:
    """One finished self-play game as a worker sends it back."""

    game_index: int
    seed: int
    score: float  # black's: 1 black won, 0 white won, ½ a draw
    termination: str
    plies: int
    opening_plies: int
    positions: int
    moves: bytes
    features: bytes
    seconds: float
    finished_at: float

    def feature_array(self, nf: int) -> np.ndarray:
        """The positions' features as ``int8[positions, nf]``."""
        return np.frombuffer(self.features, dtype=np.int8).reshape(self.positions, nf)

    def move_codes(self) -> np.ndarray:
        return np.frombuffer(self.moves, dtype=np.int32)

    def quiet(self, every: int = 1) -> np.ndarray:
        """Which positions are quiet (not in check, no capture sequence that gains material), a
        ``bool[positions]`` mask; with ``every`` > 1 only the 1st, (``every`` + 1)-th, ... of the
        quiet ones, a sample spread over the whole game.  Positions of one game are alike, so a
        training set learns more from a few positions of many games than from every position of
        few: the labeller and the NNUE reader take the sample through this one rule."""
        quiet = (self.feature_array(NF)[:, COL_FLAGS] & NOT_QUIET) == 0
        if every > 1:
            at = np.flatnonzero(quiet)
            quiet[at[np.arange(len(at)) % every != 0]] = False
        return quiet

    def stored(self) -> tuple[GameRow, Positions]:
        """The game as the results database keeps it."""
        row = GameRow(pairing=SELFPLAY, game_index=self.game_index, a="engine", b="engine",
                      result=_RESULT[self.score], reason=self.termination, sente="a", moves="", plies=self.plies,
                      opening_plies=self.opening_plies, start="", seconds=self.seconds, seed=self.seed,
                      finished_at=self.finished_at,
                      termination=self.termination if self.termination in _TERMINATIONS else "")
        return row, Positions(self.positions, self.moves, self.features)

    @classmethod
    def from_stored(cls, row: GameRow, positions: Positions) -> SelfPlayGame:
        return cls(row.game_index, row.seed, _SCORE[row.result], row.reason, row.plies, row.opening_plies,
                   positions.count, positions.codes, positions.features, row.seconds, row.finished_at)


def create_study(path: str | Path, config: dict[str, Any]) -> ExperimentDB:
    """Open ``path`` for the study ``config``, creating it if needed; an existing database must hold
    the same study (everything but the target game count, which is updated)."""
    path = Path(path)
    if path.exists() and path.stat().st_size > 0:
        _refuse_other(path)
    return ExperimentDB.create_work(path, SELFPLAY, f"{SELFPLAY}:{config['variant']}", config)


def open_study(path: str | Path) -> ExperimentDB:
    """Open an existing study database, refusing (read-only check first) anything else."""
    path = Path(path)
    if not path.exists():
        raise StudyError(f"{path}: no such study database")
    _refuse_other(path)
    return ExperimentDB.open(path)


def _refuse_other(path: Path) -> None:
    kind = kind_of(path)
    if kind != SELFPLAY:
        what = " (a lab experiment database)" if kind is not None else ""
        raise StudyError(f"{path}: not a komaken piece-values study database{what}")


def study_games(db: ExperimentDB, games: int | None = None) -> Iterator[SelfPlayGame]:
    """The stored games of a study, by game index (only the first ``games`` indexes, when given)."""
    for row, positions in db.games_with_positions(SELFPLAY):
        if games is not None and row.game_index >= games:
            return
        yield SelfPlayGame.from_stored(row, positions)


def insert(db: ExperimentDB, game: SelfPlayGame) -> bool:
    """Store one game in its own transaction; ``False`` if its index was already stored."""
    return db.insert(*game.stored())


def identity(config: dict[str, Any]) -> str:
    """What makes two configurations the same study: everything but the target game count."""
    return json.dumps({k: v for k, v in config.items() if k != "games"}, sort_keys=True)


__all__ = ["SelfPlayGame", "StudyError", "create_study", "identity", "insert", "open_study", "study_games"]
