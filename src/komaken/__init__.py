"""komaken (駒研): shogi-family game AI — rules for any board size, an engine, records and an
experiment lab for piece-value research."""

from komaken._kernel_cache import refresh as _refresh_kernel_caches
from komaken.errors import IllegalMoveError, InvalidPositionError, KomakenError, VariantError
from komaken.game import GOTE, SENTE, Color, Game, Outcome, Termination

_refresh_kernel_caches()  # before any kernel loads a cache that a changed module made stale

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
