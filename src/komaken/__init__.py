"""komaken (駒研): shogi-family game AI — rules for any board size, an engine, records and an
experiment lab for piece-value research."""

from komaken.errors import IllegalMoveError, InvalidPositionError, KomakenError, VariantError
from komaken.game import GOTE, SENTE, Color, Game, Outcome, Termination

__version__ = "0.1.0"

__all__ = [
    "Color",
    "Game",
    "GOTE",
    "IllegalMoveError",
    "InvalidPositionError",
    "KomakenError",
    "Outcome",
    "SENTE",
    "Termination",
    "VariantError",
]
