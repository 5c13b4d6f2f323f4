"""Reversi bitboard kernels (numba): bit-parallel move generation, flips, perft.

A board is two ``uint64``: the discs of the side to move (``own``) and of the other side
(``opp``).  Bit ``8 * rank + file`` is a square, counting from zero, so a1 is bit 0, h1 bit 7
and h8 bit 63.  (Seed 002 numbers the bits the other way round, a1 = bit 63; every mask
below is the same under that mirror, so the code is identical.)

Moves are found for all 64 squares at once, one direction at a time (seed 002): the
opponent's discs that have one of ours behind them in that direction are ``t``; six rounds of
``t |= masked_opp & shift(t)`` extend the runs, and one more shift lands on the empty squares
where a disc would close the run.  The edge mask stops a run from wrapping round from the h
file to the a file of the next rank: discs on the edge files can never be flipped sideways,
so masking them out of ``opp`` is enough.

Everything here takes and returns plain integers (``uint64`` / ``int64``) so the search and
the Python layer can call it with no objects in between.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

U64 = np.uint64
ZERO = U64(0)
ONE = U64(1)
FULL = U64(0xFFFFFFFFFFFFFFFF)

#: Opponent discs that can be flipped horizontally / vertically / diagonally (seed 002).
MASK_H = U64(0x7E7E7E7E7E7E7E7E)
MASK_V = U64(0x00FFFFFFFFFFFF00)
MASK_D = U64(0x007E7E7E7E7E7E00)

CORNERS = U64(0x8100000000000081)
EDGES = U64(0xFF818181818181FF)
RANKS_18 = U64(0xFF000000000000FF)
FILES_AH = U64(0x8181818181818181)
#: Squares diagonally next to a corner (X squares) and beside it on the edge (C squares).
X_SQUARES = U64(0x0042000000004200)
C_SQUARES = U64(0x4281000000008142)

S1 = U64(1)
S7 = U64(7)
S8 = U64(8)
S9 = U64(9)

#: The start position from black's point of view: black on d5 and e4, white on d4 and e5.
START_BLACK = (1 << 35) | (1 << 28)
START_WHITE = (1 << 27) | (1 << 36)

PASS = 64  # the "square" of a pass move in the kernels


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    """LLVM's population count for a 64-bit integer."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def _cttz(typingctx, x):  # type: ignore[no-untyped-def]
    """LLVM's count of trailing zeros (the index of the lowest set bit)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@njit(cache=True, inline="always")
def popcount(x: np.uint64):  # no return type: an int64 that numba types, which is no int to mypy
    # numba's stubs call an intrinsic with its typing function's signature (typingctx, x)
    return np.int64(_ctpop(x))  # type: ignore[call-arg]


@njit(cache=True, inline="always")
def lowest_square(x: np.uint64):  # no return type: as popcount
    return np.int64(_cttz(x))  # type: ignore[call-arg]  # as in popcount


@njit(cache=True, inline="always")
def _run_left(own: np.uint64, mo: np.uint64, s: np.uint64) -> np.uint64:
    """Opponent runs (masked by ``mo``) that end on one of ``own`` when walking left by ``s``."""
    t = mo & (own << s)
    t |= mo & (t << s)
    t |= mo & (t << s)
    t |= mo & (t << s)
    t |= mo & (t << s)
    t |= mo & (t << s)
    return t << s


@njit(cache=True, inline="always")
def _run_right(own: np.uint64, mo: np.uint64, s: np.uint64) -> np.uint64:
    t = mo & (own >> s)
    t |= mo & (t >> s)
    t |= mo & (t >> s)
    t |= mo & (t >> s)
    t |= mo & (t >> s)
    t |= mo & (t >> s)
    return t >> s


@njit(cache=True)
def legal_moves(own: np.uint64, opp: np.uint64) -> np.uint64:
    """Bitboard of the empty squares where the side owning ``own`` may play (seed 002)."""
    empty = ~(own | opp)
    oh = opp & MASK_H
    ov = opp & MASK_V
    od = opp & MASK_D
    m = _run_left(own, oh, S1) | _run_right(own, oh, S1)
    m |= _run_left(own, ov, S8) | _run_right(own, ov, S8)
    m |= _run_left(own, od, S7) | _run_right(own, od, S7)
    m |= _run_left(own, od, S9) | _run_right(own, od, S9)
    return m & empty


@njit(cache=True, inline="always")
def _flip_left(own: np.uint64, mo: np.uint64, move: np.uint64, s: np.uint64) -> np.uint64:
    """Discs flipped walking left by ``s`` from ``move``: a run of ``mo`` closed by ``own``."""
    t = mo & (move << s)
    t |= mo & (t << s)
    t |= mo & (t << s)
    t |= mo & (t << s)
    t |= mo & (t << s)
    t |= mo & (t << s)
    if (t << s) & own:
        return t
    return ZERO


@njit(cache=True, inline="always")
def _flip_right(own: np.uint64, mo: np.uint64, move: np.uint64, s: np.uint64) -> np.uint64:
    t = mo & (move >> s)
    t |= mo & (t >> s)
    t |= mo & (t >> s)
    t |= mo & (t >> s)
    t |= mo & (t >> s)
    t |= mo & (t >> s)
    if (t >> s) & own:
        return t
    return ZERO


@njit(cache=True)
def flips(own: np.uint64, opp: np.uint64, square: int) -> np.uint64:
    """Bitboard of the opponent discs that a disc on ``square`` turns over (0: not a move)."""
    move = ONE << U64(square)
    oh = opp & MASK_H
    ov = opp & MASK_V
    od = opp & MASK_D
    f = _flip_left(own, oh, move, S1) | _flip_right(own, oh, move, S1)
    f |= _flip_left(own, ov, move, S8) | _flip_right(own, ov, move, S8)
    f |= _flip_left(own, od, move, S7) | _flip_right(own, od, move, S7)
    f |= _flip_left(own, od, move, S9) | _flip_right(own, od, move, S9)
    return f


@njit("int64(uint64, uint64, int64)", cache=True)  # explicit: recursive and cached
def perft(own: np.uint64, opp: np.uint64, depth: int) -> int:
    """Leaf count ``depth`` plies ahead. A pass is a move; a finished game is one leaf.

    At the last ply the leaves are counted by a popcount of the move bitboard (bulk counting),
    so the positions there are never made.
    """
    moves = legal_moves(own, opp)
    if depth <= 1:
        if depth <= 0:
            return 1
        if moves:
            return popcount(moves)
        return 1  # a pass, or the finished game itself
    if not moves:
        if legal_moves(opp, own):
            return perft(opp, own, depth - 1)
        return 1  # the game is over: it counts as one leaf
    total = 0
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        f = flips(own, opp, sq)
        total += perft(opp & ~f, own | f | (ONE << U64(sq)), depth - 1)
    return total
