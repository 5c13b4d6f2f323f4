"""Chess on komaken's game framework: a 10×12 mailbox with a double wall (seed 004), numba kernels.

>>> from komaken.chess import Board
>>> board = Board()
>>> board.perft(3)
8902
>>> board.push_san("e4")
Move(from_square=12, to_square=28, promotion=None)
>>> board.fen()
'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'

The public surface, for callers that treat every game alike:

* start position: :meth:`Board.start` (``Board()``); from text: :meth:`Board.from_fen`
  (also ``from_text``); to text: :meth:`Board.fen` (also ``to_text``);
* moves: :meth:`Board.parse_move` reads UCI or SAN, :meth:`Board.move_text` / :meth:`Board.san` /
  :meth:`Move.uci` write them; :meth:`Board.legal_moves`, ``push``, ``pop``, ``outcome``;
* :meth:`Board.perft`, :meth:`Board.board_text`, :meth:`Board.svg` (``_repr_svg_``);
* :func:`evaluate` for :mod:`komaken.search.generic`, and :func:`best_move` using it;
* :data:`komaken.chess.game.GAME`, its entry in the game registry.

See ``docs/games.md``.
"""

from komaken.chess._board import Board
from komaken.chess._evaluate import PIECE_VALUES, best_move, evaluate
from komaken.chess._fen import STARTING_FEN
from komaken.chess._move import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    SQUARE_NAMES,
    Move,
    Piece,
    parse_square,
    square_name,
)

__all__ = [
    "BISHOP",
    "Board",
    "KING",
    "KNIGHT",
    "Move",
    "PAWN",
    "PIECE_VALUES",
    "Piece",
    "QUEEN",
    "ROOK",
    "SQUARE_NAMES",
    "STARTING_FEN",
    "best_move",
    "evaluate",
    "parse_square",
    "square_name",
]
