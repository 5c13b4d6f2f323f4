"""Starting positions: the game's start, a seeded random opening, or an SFEN from a list."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game
from komaken.lab.config import Experiment, Pairing
from komaken.lab.errors import ConfigError


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the parts (experiment seed, pairing, game index, ...).

    Hash-based, so a game's seed depends only on what it is, never on scheduling.
    """
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def start_factory(experiment: Experiment, variant: Any = None) -> Callable[[], Game[Any]]:
    """A function returning a fresh start position of the experiment's game."""
    game = experiment.spec
    try:
        game.start(variant)  # load it now: a broken game fails before any game runs
    except (ImportError, AttributeError, KomakenError) as exc:
        raise ConfigError(f"{experiment.source}: experiment.game: cannot load {experiment.game!r}: {exc}") from None
    return lambda: game.start(variant)


def opening(
    experiment: Experiment,
    pairing: Pairing,
    game_index: int,
    new_position: Callable[[], Game[Any]],
    variant: Any = None,
) -> tuple[Game[Any], list[str], str]:
    """The position game ``game_index`` starts from, the opening moves played, and the start text.

    Alternating pairings play each opening twice, once with each player as sente.
    """
    k = pairing.opening_index(game_index)
    ops = experiment.openings
    game = experiment.spec
    if ops.sfens:
        sfen = ops.sfens[k % len(ops.sfens)]
        return game.from_text(sfen, variant), [], sfen
    if ops.random_plies <= 0:
        return new_position(), [], ""
    for attempt in range(1000):
        rng = random.Random(derive_seed(experiment.seed, pairing.name, "opening", k, attempt))
        pos = new_position()
        moves: list[str] = []
        for _ in range(ops.random_plies):
            legal = list(pos.legal_moves())
            if pos.outcome() is not None or not legal:
                break
            move = rng.choice(legal)
            pos.push(move)
            moves.append(game.move_text(move))
        if len(moves) == ops.random_plies and pos.outcome() is None:
            return pos, moves, ""
    raise ConfigError(
        f"{experiment.source}: openings.random_plies: no unfinished position after {ops.random_plies} random plies"
    )
