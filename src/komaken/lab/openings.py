"""Starting positions: the game's start, a seeded random opening, or an SFEN from a list."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any

from komaken.game import Game
from komaken.lab.config import Experiment, Pairing
from komaken.lab.errors import ConfigError
from komaken.lab.match import move_text


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the parts (experiment seed, pairing, game index, ...).

    Hash-based, so a game's seed depends only on what it is, never on scheduling.
    """
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def start_factory(experiment: Experiment, variant: Any = None) -> Callable[[], Game[Any]]:
    """A function returning a fresh start position of the experiment's game."""
    game = experiment.game
    if game == "shogi":
        from komaken.shogi import Position

        return lambda: Position.start(variant)
    try:
        if game == "reversi":
            from komaken.reversi import Reversi

            return Reversi.start
        if game == "tictactoe":
            from komaken.tictactoe import TicTacToe

            return TicTacToe.start
        from komaken.lab.players import import_object

        return import_object(game)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{experiment.source}: experiment.game: cannot load {game!r}: {exc}") from None


def opening(
    experiment: Experiment,
    pairing: Pairing,
    game_index: int,
    new_position: Callable[[], Game[Any]],
    variant: Any = None,
) -> tuple[Game[Any], list[str], str]:
    """The position game ``game_index`` starts from, the opening moves played, and the start SFEN.

    Alternating pairings play each opening twice, once with each player as sente.
    """
    k = pairing.opening_index(game_index)
    ops = experiment.openings
    if ops.sfens:
        from komaken.shogi import Position

        sfen = ops.sfens[k % len(ops.sfens)]
        return Position.from_sfen(sfen, variant=variant), [], sfen
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
            moves.append(move_text(move))
        if len(moves) == ops.random_plies and pos.outcome() is None:
            return pos, moves, ""
    raise ConfigError(
        f"{experiment.source}: openings.random_plies: no unfinished position after {ops.random_plies} random plies"
    )
