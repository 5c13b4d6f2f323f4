"""Build players from ``[players.NAME]`` tables: the lab's door to :mod:`komaken.players.registry`.

=========== ============================================================================
engine      what it builds
=========== ============================================================================
engine      the game's engine — shogi: ``EnginePlayer`` (``depth`` / ``nodes`` /
            ``movetime`` in seconds, ``values``, ``eval = { term = weight }``); reversi:
            ``ReversiEnginePlayer`` (``depth``, ``empties``, ``movetime``); tic-tac-toe: perfect
komaken     the old name of shogi's ``engine``: ``movetime`` in **milliseconds**, with a warning
thesis      ``komaken.players.thesis.ThesisPlayer`` — the replica of seed 003's AI
            (``depth``, ``values``, ``hand_quirk``)
usi         ``komaken.players.usi.UsiPlayer`` — an external engine (``command``, ``options``)
random      :class:`RandomPlayer` — a uniformly random legal move, any game
perfect     exact negamax (tic-tac-toe)
boardgame   a command-line spec in ``spec`` (``spec = "engine:depth=4"``)
python      any ``"module:callable"`` (``factory``) called with ``options`` as keywords
=========== ============================================================================
"""

from __future__ import annotations

from typing import Any

from komaken.errors import KomakenError
from komaken.games import import_object
from komaken.lab.config import Experiment
from komaken.lab.errors import ConfigError
from komaken.players.base import Player
from komaken.players.random import RandomPlayer
from komaken.players.registry import PlayerSpec


def build_player(spec: PlayerSpec, experiment: Experiment, variant: Any = None,
                 opponent: PlayerSpec | None = None) -> Player:
    """A fresh player for ``spec`` (``variant``: the experiment's variant, if its game has them).

    ``opponent`` is the spec it will play against: the thesis replica evaluates with both
    players' piece-value tables, as the published program did (it held both in one process).
    """
    where = f"{experiment.source}: players.{spec.name}"
    try:
        return spec.build(experiment.spec, variant, opponent)
    except ImportError as exc:
        raise ConfigError(f"{where}.engine: engine {spec.kind!r} is not available: {exc}") from None
    except (KomakenError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{where}: cannot build the player: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot start the engine: {exc}") from None


def check_players(experiment: Experiment, variant: Any = None) -> None:
    """Build and close every player once, so a bad engine setting fails before any game runs."""
    used = {p.a for p in experiment.pairings} | {p.b for p in experiment.pairings}
    for name in sorted(used):
        player = build_player(experiment.players[name], experiment, variant)
        try:
            player.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass


__all__ = ["RandomPlayer", "build_player", "check_players", "import_object"]
