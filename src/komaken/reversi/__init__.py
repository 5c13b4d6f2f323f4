"""Reversi (Othello) on 64-bit bitboards, with a numba search and an exact endgame solver.

>>> from komaken.reversi import Reversi
>>> p = Reversi.from_transcript("f5d6c3d3c4")
>>> p.perft(3)
358

See ``docs/games.md`` for the notation and the engine.
"""

from komaken.reversi._position import PASS, Reversi, ReversiMove, parse_square, square_name
from komaken.reversi.engine import SearchResult, evaluate, search, solve

__all__ = [
    "PASS",
    "Reversi",
    "ReversiMove",
    "SearchResult",
    "evaluate",
    "parse_square",
    "search",
    "solve",
    "square_name",
]
