"""Reversi search kernels (numba): evaluation, depth-limited α-β and the exact endgame solver.

All functions see the board from the side to move: ``own`` and ``opp`` bitboards, scores
positive when the side to move is better.  Two scales are used:

* the exact solver returns the final disc difference (own − opp, empty squares counted for
  nobody), a number in −64..64;
* the depth-limited search returns evaluation units; a finished game inside it scores
  ``±WIN`` plus the disc difference, so any win beats any evaluation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.reversi._bitboard import (
    CORNERS,
    FILES_AH,
    ONE,
    PASS,
    RANKS_18,
    U64,
    X_SQUARES,
    ZERO,
    flips,
    legal_moves,
    lowest_square,
    popcount,
)

WIN = 10_000
INF = 1_000_000

_NOT_FILE_A = U64(0xFEFEFEFEFEFEFEFE)
_NOT_FILE_H = U64(0x7F7F7F7F7F7F7F7F)
_S1 = U64(1)
_S8 = U64(8)

# Evaluation weights (units: roughly a hundredth of a disc).
W_MOBILITY = 12
W_CORNER = 90
W_X_SQUARE = 45
W_STABLE = 30
W_PARITY = 15
W_DISC = 2


@njit(cache=True)
def edge_stable(discs: np.uint64) -> np.uint64:
    """Edge discs that can never be flipped: unbroken runs along an edge from an owned corner."""
    s = discs & CORNERS
    for _ in range(6):
        s |= discs & RANKS_18 & (((s << _S1) & _NOT_FILE_A) | ((s >> _S1) & _NOT_FILE_H))
        s |= discs & FILES_AH & ((s << _S8) | (s >> _S8))
    return s


@njit(cache=True)
def evaluate(own: np.uint64, opp: np.uint64) -> int:
    """Static evaluation from the side to move: mobility, corners, stability, parity."""
    my_moves = popcount(legal_moves(own, opp))
    op_moves = popcount(legal_moves(opp, own))
    score = W_MOBILITY * (my_moves - op_moves)
    score += W_CORNER * (popcount(own & CORNERS) - popcount(opp & CORNERS))
    # An X square (b2, g2, b7, g7) next to an empty corner hands that corner over.
    empty = ~(own | opp)
    empty_corners = empty & CORNERS
    risky = ZERO
    if empty_corners & U64(0x1):
        risky |= U64(1) << U64(9)
    if empty_corners & U64(0x80):
        risky |= U64(1) << U64(14)
    if empty_corners & (U64(1) << U64(56)):
        risky |= U64(1) << U64(49)
    if empty_corners & (U64(1) << U64(63)):
        risky |= U64(1) << U64(54)
    risky &= X_SQUARES
    score -= W_X_SQUARE * (popcount(own & risky) - popcount(opp & risky))
    score += W_STABLE * (popcount(edge_stable(own)) - popcount(edge_stable(opp)))
    # Parity: with an odd number of empties the side to move expects the last move.
    empties = popcount(empty)
    if empties & 1:
        score += W_PARITY
    else:
        score -= W_PARITY
    if empties < 20:
        score += W_DISC * (20 - empties) * (popcount(own) - popcount(opp))
    return score


@njit(cache=True, inline="always")
def _final(own: np.uint64, opp: np.uint64) -> int:
    return popcount(own) - popcount(opp)


@njit(cache=True)
def _ordered(own: np.uint64, opp: np.uint64, moves: np.uint64) -> np.ndarray:
    """Moves sorted fastest-first: fewest replies for the opponent, corners first."""
    n = popcount(moves)
    squares = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    i = 0
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        bit = ONE << U64(sq)
        f = flips(own, opp, sq)
        key = popcount(legal_moves(opp & ~f, own | f | bit)) * 4
        if bit & CORNERS:
            key -= 8
        if bit & X_SQUARES:
            key += 6
        # insertion sort, smallest key first
        j = i
        while j > 0 and keys[j - 1] > key:
            keys[j] = keys[j - 1]
            squares[j] = squares[j - 1]
            j -= 1
        keys[j] = key
        squares[j] = sq
        i += 1
    return squares


# Recursive kernels get explicit signatures: one compiled version each, so numba's cache
# never holds a recursive call into a specialisation it did not save.
@njit("int64(uint64, uint64, int64, int64, int64[::1])", cache=True)
def solve(own: np.uint64, opp: np.uint64, alpha: int, beta: int, nodes: np.ndarray) -> int:
    """Exact final disc difference with α-β (fail-hard inside ``[alpha, beta]``)."""
    nodes[0] += 1
    moves = legal_moves(own, opp)
    if not moves:
        if not legal_moves(opp, own):
            return _final(own, opp)
        return -solve(opp, own, -beta, -alpha, nodes)
    empties = popcount(~(own | opp))
    if empties > 6:
        order = _ordered(own, opp, moves)
        for k in range(order.shape[0]):
            sq = order[k]
            f = flips(own, opp, sq)
            v = -solve(opp & ~f, own | f | (ONE << U64(sq)), -beta, -alpha, nodes)
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    return alpha
        return alpha
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        f = flips(own, opp, sq)
        v = -solve(opp & ~f, own | f | (ONE << U64(sq)), -beta, -alpha, nodes)
        if v > alpha:
            alpha = v
            if alpha >= beta:
                return alpha
    return alpha


@njit("int64(uint64, uint64)", cache=True)
def solve_plain(own: np.uint64, opp: np.uint64) -> int:
    """Exact final disc difference by full-width negamax, no pruning (a reference for tests)."""
    moves = legal_moves(own, opp)
    if not moves:
        if not legal_moves(opp, own):
            return _final(own, opp)
        return -solve_plain(opp, own)
    best = -INF
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        f = flips(own, opp, sq)
        v = -solve_plain(opp & ~f, own | f | (ONE << U64(sq)))
        if v > best:
            best = v
    return best


@njit("int64(uint64, uint64, int64, int64, int64, int64[::1])", cache=True)
def negamax(own: np.uint64, opp: np.uint64, depth: int, alpha: int, beta: int, nodes: np.ndarray) -> int:
    """Depth-limited α-β; ``evaluate`` at the horizon, ``±WIN + discs`` when the game ends."""
    nodes[0] += 1
    moves = legal_moves(own, opp)
    if not moves:
        if not legal_moves(opp, own):
            d = _final(own, opp)
            if d > 0:
                return WIN + d
            if d < 0:
                return -WIN + d
            return 0
        return -negamax(opp, own, depth, -beta, -alpha, nodes)  # a pass costs no depth
    if depth <= 0:
        return evaluate(own, opp)
    if depth >= 3:
        order = _ordered(own, opp, moves)
        for k in range(order.shape[0]):
            sq = order[k]
            f = flips(own, opp, sq)
            v = -negamax(opp & ~f, own | f | (ONE << U64(sq)), depth - 1, -beta, -alpha, nodes)
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    return alpha
        return alpha
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        f = flips(own, opp, sq)
        v = -negamax(opp & ~f, own | f | (ONE << U64(sq)), depth - 1, -beta, -alpha, nodes)
        if v > alpha:
            alpha = v
            if alpha >= beta:
                return alpha
    return alpha


@njit(cache=True)
def search_root(
    own: np.uint64, opp: np.uint64, order: np.ndarray, depth: int, exact: bool, nodes: np.ndarray
) -> tuple[int, int]:
    """Search the root moves in the given ``order``; return ``(score, best square)``.

    ``exact`` selects the endgame solver (disc difference) instead of the depth-limited
    search.  The first move reaching the best score wins ties, so the caller decides the
    tie-break by the order it passes.  With no legal move the best square is ``PASS``.
    """
    if order.shape[0] == 0:
        if exact:
            return -solve(opp, own, -INF, INF, nodes), PASS
        return -negamax(opp, own, depth, -INF, INF, nodes), PASS
    alpha = -INF
    best = order[0]
    for k in range(order.shape[0]):
        sq = order[k]
        f = flips(own, opp, sq)
        no = opp & ~f
        nw = own | f | (ONE << U64(sq))
        if exact:
            v = -solve(no, nw, -INF, -alpha, nodes)
        else:
            v = -negamax(no, nw, depth - 1, -INF, -alpha, nodes)
        if v > alpha:
            alpha = v
            best = sq
    return alpha, best
