"""Tic-tac-toe (三目並べ) as in seed 004: keypad squares, line sums and リーチ detection.

>>> from komaken.tictactoe import TicTacToe
>>> TicTacToe.start().perft(9)
127872

Perfect play comes from the generic negamax of :mod:`komaken.search`; see
:func:`best_move` and ``docs/games.md``.
"""

from __future__ import annotations

from komaken.game import Color
from komaken.search.generic import SearchResult, negamax
from komaken.search.generic import best_move as _generic_best_move
from komaken.tictactoe._position import LINES, ROWS, TicTacToe, TicTacToeMove, mark


def best_move(position: TicTacToe, seed: int | None = None) -> SearchResult[TicTacToeMove]:
    """A perfect move (exact negamax with a transposition table); ``seed`` picks among equals."""
    return _generic_best_move(position, seed=seed)


def value(position: TicTacToe) -> float:
    """The game-theoretic value for the side to move: > 0 win, 0 draw, < 0 loss."""
    return negamax(position)


__all__ = ["Color", "LINES", "ROWS", "TicTacToe", "TicTacToeMove", "best_move", "mark", "value"]
