"""Shogi-family rules for any board size from 3×3 to 9×9.

>>> from komaken.shogi import Position
>>> Position.start("minishogi").perft(3)
2512
"""

from komaken.shogi.position import Move, Piece, Position, Square
from komaken.shogi.variant import BUILTIN, JUDKINS, MINISHOGI, SHOGI, Variant, load_variant

__all__ = [
    "BUILTIN", "JUDKINS", "MINISHOGI", "Move", "Piece", "Position", "SHOGI", "Square", "Variant",
    "load_variant",
]
