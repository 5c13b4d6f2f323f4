"""The experiment lab: AI-vs-AI tournaments with honest statistics.

An experiment file (TOML) names players and pairings; :func:`run_experiment` plays the games in
parallel into an SQLite database, one committed row per game, so a run can be killed and resumed
at any time; :mod:`komaken.lab.stats` and :mod:`komaken.lab.report` turn the results into scores
with confidence intervals, Elo, p-values and SPRT decisions.  See ``docs/lab.md``.
"""

from komaken.lab.config import Experiment, Pairing, PlayerSpec, experiment_from_dict, load_experiment
from komaken.lab.errors import ConfigError, ExperimentDBError, ExportError, RunError
from komaken.lab.match import MatchResult, play_game
from komaken.lab.players import RandomPlayer, build_player
from komaken.lab.runner import RunSummary, resume_experiment, run_experiment
from komaken.lab.stats import SPRT, PairingStats, pairing_stats
from komaken.lab.storage import ExperimentDB, GameRow

__all__ = [
    "ConfigError",
    "Experiment",
    "ExperimentDB",
    "ExperimentDBError",
    "ExportError",
    "GameRow",
    "MatchResult",
    "Pairing",
    "PairingStats",
    "PlayerSpec",
    "RandomPlayer",
    "RunError",
    "RunSummary",
    "SPRT",
    "build_player",
    "experiment_from_dict",
    "load_experiment",
    "pairing_stats",
    "play_game",
    "resume_experiment",
    "run_experiment",
]
