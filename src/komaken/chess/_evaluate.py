"""A simple evaluation so the generic negamax of :mod:`komaken.search.generic` can play chess.

Material (pawn 100, knight 320, bishop 330, rook 500, queen 900) plus piece-square tables made
from a few plain rules: pawns gain as they advance and hold the centre, knights and bishops
like the middle, rooks the seventh rank, the queen stays near the centre, and the king hides
on its back rank while there are pieces to attack it but walks to the centre in the endgame
(the two king tables are blended by the material left).  Scores are centipawns from the side
to move's point of view, as negamax wants.

>>> from komaken.chess import Board, evaluate
>>> evaluate(Board())
0
>>> evaluate(Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 800
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.chess._board import Board
from komaken.chess._move import Move
from komaken.chess._tables import EMPTY, ST_SIDE, TO64, WALL
from komaken.search.generic import SearchResult
from komaken.search.generic import best_lines as _generic_best_lines
from komaken.search.generic import best_move as _generic_best_move

#: Centipawn values by piece type (index 1 pawn … 6 king).
PIECE_VALUES = np.array([0, 100, 320, 330, 500, 900, 0], dtype=np.int64)
_PHASE_WEIGHT = np.array([0, 0, 1, 1, 2, 4, 0], dtype=np.int64)  # 24 with all pieces on


def _tables() -> np.ndarray:
    """``PST[kind, square]`` for white (a1 = 0); row 7 is the endgame king, row 6 the middlegame one."""
    pst = np.zeros((8, 64), dtype=np.int64)
    for sq in range(64):
        f, r = sq % 8, sq // 8
        centre = max(abs(f - 3.5), abs(r - 3.5)) - 0.5  # 0 in the middle four squares … 3 on the rim
        centre_pawn = 10 if f in (3, 4) and r in (3, 4) else 0
        pst[1, sq] = 0 if r in (0, 7) else 5 * (r - 1) + centre_pawn + (20 if r == 6 else 0)
        pst[2, sq] = int(20 - 15 * centre)
        pst[3, sq] = int(10 - 7 * centre)
        pst[4, sq] = (10 if r == 6 else 0) + (5 if f in (3, 4) else 0)
        pst[5, sq] = int(5 - 3 * centre)
        pst[6, sq] = (20 if f in (0, 1, 2, 6, 7) else 0) if r == 0 else -10 * r
        pst[7, sq] = int(20 - 12 * centre)
    return pst


PST = _tables()


@njit(cache=True)
def evaluate_arrays(bd: np.ndarray, st: np.ndarray) -> int:
    """Material and piece-square score of a position (centipawns, side to move's view)."""
    mg = 0
    king_mg = 0
    king_eg = 0
    phase = 0
    for sq in range(21, 99):
        p = bd[sq]
        if p == EMPTY or p == WALL:
            continue
        kind = p & 7
        black = p >> 3
        s = TO64[sq] ^ (56 * black)  # black reads the table upside down
        sign = 1 - 2 * black
        phase += _PHASE_WEIGHT[kind]
        if kind == 6:
            king_mg += sign * PST[6, s]
            king_eg += sign * PST[7, s]
        else:
            mg += sign * (PIECE_VALUES[kind] + PST[kind, s])
    phase = min(phase, 24)
    score = mg + (king_mg * phase + king_eg * (24 - phase)) // 24
    return score if st[ST_SIDE] == 0 else -score


def evaluate(board: Board) -> int:
    """Centipawns for the side to move of a :class:`~komaken.chess.Board` (> 0: it stands better)."""
    return int(evaluate_arrays(board._bd, board._st))


def best_move(board: Board, depth: int = 2, seed: int | None = None,
              deadline: float | None = None) -> SearchResult[Move]:
    """The generic α-β negamax's choice at ``depth`` plies, scored by :func:`evaluate`
    (:class:`~komaken.search.generic.SearchTimeout` past ``deadline``, a perf_counter reading)."""
    return _generic_best_move(board.copy(), depth, evaluate=evaluate, seed=seed, deadline=deadline)


def best_lines(board: Board, depth: int, lines: int = 1, first: list[Move] | None = None) -> list[SearchResult[Move]]:
    """The ``lines`` best moves at ``depth`` plies with their exact scores and lines (MultiPV)."""
    return _generic_best_lines(board.copy(), depth, lines, evaluate=evaluate, first=first)
