"""Build players from ``[players.NAME]`` tables.

========== ============================================================================
engine     what it builds
========== ============================================================================
thesis     ``komaken.players.thesis.ThesisPlayer`` — the replica of seed 003's AI
           (``depth``, ``values``, ``hand_quirk``)
komaken    ``komaken.players.engine.EnginePlayer`` (``depth`` / ``nodes`` / ``movetime``,
           ``values``, ``eval = { term = weight }``)
usi        ``komaken.players.usi.UsiPlayer`` — an external engine (``command``, ``options``)
random     :class:`RandomPlayer` — a uniformly random legal move, any game
boardgame  ``komaken.players.boardgames.make_player(game, spec)`` for reversi / tic-tac-toe
python     any ``"module:callable"`` (``factory``) called with ``options`` as keywords
========== ============================================================================
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game
from komaken.lab.config import Experiment, PlayerSpec
from komaken.lab.errors import ConfigError
from komaken.players.base import Player


class RandomPlayer:
    """Plays a uniformly random legal move; reseeded for every game by the lab."""

    def __init__(self, name: str = "random", seed: int = 0) -> None:
        self.name = name
        self._rng = random.Random(seed)

    def new_game(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)

    def choose(self, position: Game[Any]) -> Any:
        return self._rng.choice(list(position.legal_moves()))

    def close(self) -> None:
        pass


def import_object(spec: str) -> Any:
    """``"package.module:attr"`` → the object (``ImportError``/``AttributeError`` if missing)."""
    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def build_player(spec: PlayerSpec, experiment: Experiment, variant: Any = None,
                 opponent: PlayerSpec | None = None) -> Player:
    """A fresh player for ``spec`` (``variant``: the experiment's shogi variant, if shogi).

    ``opponent`` is the spec it will play against: the thesis replica evaluates with both
    players' piece-value tables, as the published program did (it held both in one process).
    """
    s = spec.settings
    where = f"{experiment.source}: players.{spec.name}"
    try:
        if spec.engine == "random":
            return RandomPlayer(spec.label)
        if spec.engine == "thesis":
            from komaken.players.thesis import ThesisPlayer

            theirs = opponent.settings.get("values") if opponent is not None else None
            return ThesisPlayer(
                variant,
                dict(s["values"]),
                depth=s.get("depth", 4),
                seed=0,
                hand_quirk=s.get("hand_quirk", False),
                opponent_values=dict(theirs) if theirs is not None else None,
            )
        if spec.engine == "komaken":
            from komaken.players.engine import EnginePlayer

            values = dict(s["values"]) if "values" in s else None
            return EnginePlayer(
                variant,
                depth=s.get("depth"),
                nodes=s.get("nodes"),
                movetime=s.get("movetime"),
                values=values,
                seed=0,
                **dict(s.get("eval", {})),
            )
        if spec.engine == "usi":
            from komaken.players.usi import UsiPlayer

            return UsiPlayer(s["command"], dict(s.get("options", {})))
        if spec.engine == "boardgame":
            from komaken.players.boardgames import make_player

            return make_player(experiment.game, s["spec"])
        if spec.engine == "python":
            factory: Callable[..., Player] = import_object(s["factory"])
            return factory(**dict(s.get("options", {})))
    except ImportError as exc:
        raise ConfigError(f"{where}.engine: engine {spec.engine!r} is not available: {exc}") from None
    except (KomakenError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{where}: cannot build the player: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot start the engine: {exc}") from None
    raise ConfigError(f"{where}.engine: unknown engine {spec.engine!r}")


def check_players(experiment: Experiment, variant: Any = None) -> None:
    """Build and close every player once, so a bad engine setting fails before any game runs."""
    used = {p.a for p in experiment.pairings} | {p.b for p in experiment.pairings}
    for name in sorted(used):
        player = build_player(experiment.players[name], experiment, variant)
        try:
            player.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass
