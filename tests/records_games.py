"""Seeded random games for the record tests (9×9 and 5×5, standard and other starts)."""

from __future__ import annotations

import random
from datetime import datetime

from komaken.game import Color, Outcome, Termination
from komaken.records import GameRecord
from komaken.shogi import Position

HANDICAP = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"


def random_start(rng: random.Random, variant: str) -> Position:
    """The variant's start, a handicap, or a position some random moves in (hands filled)."""
    choice = rng.random()
    if variant == "shogi" and choice < 0.15:
        return Position.from_sfen(HANDICAP)
    pos = Position.start(variant)
    if choice < 0.5:
        return pos
    for _ in range(rng.randrange(10, 60)):
        moves = pos.legal_moves()
        if not moves or pos.outcome():
            break
        captures = [m for m in moves if not m.drop and pos.piece_at(m.to_square)]
        pos.push(rng.choice(captures) if captures and rng.random() < 0.7 else rng.choice(moves))
    return Position.from_sfen(pos.sfen(), variant) if not pos.outcome() else Position.start(variant)


def random_game(seed: int, variant: str = "shogi", max_plies: int = 120, extras: bool = True) -> GameRecord:
    """A game of random moves (captures preferred, so hands fill and 同 happens)."""
    rng = random.Random(seed)
    pos = random_start(rng, variant)
    start = pos.sfen()
    moves = []
    for _ in range(rng.randrange(0, max_plies)):
        legal = pos.legal_moves()
        if not legal or pos.outcome():
            break
        recapture = [m for m in legal if pos.peek() and m.to_square == pos.peek().to_square]
        if recapture and rng.random() < 0.5:
            move = rng.choice(recapture)
        else:
            move = rng.choice(legal)
        pos.push(move)
        moves.append(move)
    rec = GameRecord(variant=pos.variant, initial_sfen=start, moves=moves)
    if extras:
        rec.black, rec.white = f"black{seed}", f"white{seed}"
        rec.start_time = datetime(2024, 1 + seed % 12, 1 + seed % 28, 10, 0, seed % 60)
        if rng.random() < 0.7:
            rec.times = [rng.randrange(0, 300) for _ in moves]
        rec.comments = [f"note {i}" if rng.random() < 0.05 else None for i in range(len(moves))]
        if rng.random() < 0.3:
            rec.comment = "a game comment"
        mover = pos.turn
        if pos.is_checkmate():
            rec.result = Outcome(Termination.CHECKMATE, mover.other)
        else:
            rec.result = rng.choice([
                Outcome(Termination.RESIGNATION, mover.other),
                Outcome(Termination.REPETITION, None),
                Outcome(Termination.TIME_FORFEIT, mover.other),
                Outcome(Termination.ILLEGAL_MOVE, mover),
                Outcome(Termination.ABORTED, None),
                None,
            ])
    rec.pad()
    return rec


def same_start(a: GameRecord, b: GameRecord) -> bool:
    return a.variant == b.variant and a.initial_sfen.split()[:3] == b.initial_sfen.split()[:3]


__all__ = ["Color", "random_game", "same_start"]
