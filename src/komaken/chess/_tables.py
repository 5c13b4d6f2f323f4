"""The 10×12 mailbox board of seed 004 and the constant tables the kernels read.

The 8×8 board sits inside a 10-wide, 12-high array.  Column 0 and column 9 are wall, and so
are the two rows below rank 1 and the two rows above rank 8: a knight jumps up to two rows, so
one row of wall would not stop it (seed 004: 壁を二重にしておく).  Every step a piece can take
from a real square lands on the board or on a wall, never outside the array, so the move
loops need no bounds checks — they stop on the wall like they stop on a piece::

    index = 21 + file + 10 * rank        a1 = 21, h1 = 28, a8 = 91, h8 = 98

Steps are single numbers: +10 is one rank up, +1 one file right, +21 a knight's jump.

Pieces are small ints: 1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king (the numbers
python-chess uses), plus 8 for black.  0 is an empty square, 32 the wall.
"""

from __future__ import annotations

import numpy as np

EMPTY = 0
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
BLACK_BIT = 8
WALL = 32
SIZE = 120

#: Internal side numbers: white moves first and is side 0 inside the kernels.
WHITE_SIDE, BLACK_SIDE = 0, 1

# --- move codes: from | to << 7 | promotion << 14 | flag << 17 -------------------------------
FLAG_NONE, FLAG_DOUBLE, FLAG_EP, FLAG_CASTLE = 0, 1, 2, 3
MAX_MOVES = 256

# --- state vector ``st`` -------------------------------------------------------------------
ST_SIDE, ST_CASTLE, ST_EP, ST_HALF, ST_FULL, ST_KING, ST_PLY = 0, 1, 2, 3, 4, 5, 7
ST_SIZE = 8  # ST_KING + 0 is the white king's square, ST_KING + 1 the black one's

# --- castling rights bits ------------------------------------------------------------------
WK_CASTLE, WQ_CASTLE, BK_CASTLE, BQ_CASTLE = 1, 2, 4, 8


def mailbox(square: int) -> int:
    """0..63 (a1 = 0, h8 = 63, python-chess numbering) → mailbox index."""
    return 21 + (square & 7) + 10 * (square >> 3)


#: mailbox index → 0..63, -1 on the wall.
TO64 = np.full(SIZE, -1, dtype=np.int64)
TO120 = np.array([mailbox(s) for s in range(64)], dtype=np.int64)
TO64[TO120] = np.arange(64)

KNIGHT_STEPS = np.array([-21, -19, -12, -8, 8, 12, 19, 21], dtype=np.int64)
KING_STEPS = np.array([-11, -10, -9, -1, 1, 9, 10, 11], dtype=np.int64)
BISHOP_STEPS = np.array([-11, -9, 9, 11], dtype=np.int64)
ROOK_STEPS = np.array([-10, -1, 1, 10], dtype=np.int64)

#: Which castling rights survive a move from or to a square (rook and king home squares).
CASTLE_MASK = np.full(SIZE, 15, dtype=np.int64)
CASTLE_MASK[mailbox(0)] = 15 & ~WQ_CASTLE  # a1
CASTLE_MASK[mailbox(7)] = 15 & ~WK_CASTLE  # h1
CASTLE_MASK[mailbox(4)] = 15 & ~(WK_CASTLE | WQ_CASTLE)  # e1
CASTLE_MASK[mailbox(56)] = 15 & ~BQ_CASTLE  # a8
CASTLE_MASK[mailbox(63)] = 15 & ~BK_CASTLE  # h8
CASTLE_MASK[mailbox(60)] = 15 & ~(BK_CASTLE | BQ_CASTLE)  # e8

#: ``ALIGNED[a - b + 77]`` is 1 when a and b share a rank, file or diagonal.  A move from a
#: square not aligned with its own king cannot uncover a check, so it needs no test.
ALIGNED = np.zeros(155, dtype=np.int64)
for _step in (1, 9, 10, 11):
    for _k in range(1, 8):
        ALIGNED[77 + _k * _step] = ALIGNED[77 - _k * _step] = 1


def _random_keys(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Uniform 64-bit keys (two draws: numpy's integers stop below 2**63 for uint64 bounds)."""
    high = rng.integers(0, 2**63, size=shape, dtype=np.uint64) * np.uint64(2)
    return np.asarray(high + rng.integers(0, 2, size=shape, dtype=np.uint64), dtype=np.uint64)


def _zobrist() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fixed random keys (a fixed seed, so keys are the same in every run)."""
    rng = np.random.default_rng(20240004)
    pieces = _random_keys(rng, 16, SIZE)
    castle_bits = _random_keys(rng, 4)
    castle = np.zeros(16, dtype=np.uint64)
    for rights in range(16):
        for bit in range(4):
            if rights >> bit & 1:
                castle[rights] ^= castle_bits[bit]
    ep = _random_keys(rng, SIZE)
    side = _random_keys(rng, 1)
    return pieces, castle, ep, side


Z_PIECE, Z_CASTLE, Z_EP, Z_SIDE = _zobrist()
