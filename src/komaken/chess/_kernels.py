"""numba kernels: attacks, legal moves, make/unmake, perft and the game-end test.

A position is a tuple of plain numpy arrays (see :mod:`komaken.chess._tables` for the board):

``bd``  int8[120]     the mailbox board, walls included
``st``  int64[8]      side to move, castling rights, en-passant square, clocks, king squares, ply
``zk``  uint64[N + 1] Zobrist key after each ply (``zk[st[ST_PLY]]`` is the current one)
``und`` int64[N]      per ply, what :func:`unmake` needs: the move, the captured piece and the
                      castling rights, en-passant square and halfmove clock before the move

Moves are ints ``from | to << 7 | promotion << 14 | flag << 17`` on mailbox squares; the flag
marks double pawn steps, en-passant captures and castling.

Legality: generate the pseudo-legal moves (each piece's moves, ignoring the own king), then
keep a move only if the own king is not attacked after it.  Most moves need no test: when the
king is not in check, a move by another piece from a square off the king's lines cannot expose
it (``ALIGNED``).  Castling is checked while it is generated (no passing through check).

The en-passant square is stored only when an en-passant capture is really legal, as FEN
writers and repetition rules (python-chess's ``ep_square`` for ``fen()`` and its
transposition key) expect, so equal positions get equal keys.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.chess._tables import (
    ALIGNED,
    BISHOP,
    BISHOP_STEPS,
    BLACK_BIT,
    CASTLE_MASK,
    EMPTY,
    FLAG_CASTLE,
    FLAG_DOUBLE,
    FLAG_EP,
    KING,
    KING_STEPS,
    KNIGHT,
    KNIGHT_STEPS,
    MAX_MOVES,
    PAWN,
    QUEEN,
    ROOK,
    ROOK_STEPS,
    ST_CASTLE,
    ST_EP,
    ST_FULL,
    ST_HALF,
    ST_KING,
    ST_PLY,
    ST_SIDE,
    WALL,
    Z_CASTLE,
    Z_EP,
    Z_PIECE,
    Z_SIDE,
)

ZS = Z_SIDE[0]


@njit(cache=True)
def encode(frm: int, to: int, promo: int, flag: int) -> int:
    return frm | to << 7 | promo << 14 | flag << 17


@njit(cache=True)
def attacked(bd: np.ndarray, sq: int, by: int) -> bool:
    """Whether side ``by`` attacks mailbox square ``sq``."""
    bb = by << 3
    if by == 0:
        if bd[sq - 9] == PAWN or bd[sq - 11] == PAWN:
            return True
    elif bd[sq + 9] == PAWN | BLACK_BIT or bd[sq + 11] == PAWN | BLACK_BIT:
        return True
    for i in range(8):
        if bd[sq + KNIGHT_STEPS[i]] == KNIGHT | bb or bd[sq + KING_STEPS[i]] == KING | bb:
            return True
    for i in range(4):
        d = BISHOP_STEPS[i]
        t = sq + d
        while bd[t] == EMPTY:
            t += d
        if bd[t] == BISHOP | bb or bd[t] == QUEEN | bb:
            return True
        d = ROOK_STEPS[i]
        t = sq + d
        while bd[t] == EMPTY:
            t += d
        if bd[t] == ROOK | bb or bd[t] == QUEEN | bb:
            return True
    return False


@njit(cache=True)
def in_check(bd: np.ndarray, st: np.ndarray) -> bool:
    side = st[ST_SIDE]
    return attacked(bd, st[ST_KING + side], 1 - side)


@njit(cache=True)
def _add_pawn(out: np.ndarray, n: int, frm: int, to: int, promote: bool) -> int:
    if promote:
        for promo in (QUEEN, ROOK, BISHOP, KNIGHT):
            out[n] = encode(frm, to, promo, 0)
            n += 1
        return n
    out[n] = encode(frm, to, 0, 0)
    return n + 1


@njit(cache=True)
def _castles(bd: np.ndarray, st: np.ndarray, out: np.ndarray, n: int) -> int:
    """Castling moves for a side not in check: squares between empty, none the king crosses attacked."""
    side = st[ST_SIDE]
    rights = st[ST_CASTLE] >> (2 * side)
    e = 25 + 70 * side  # e1 or e8
    bb = side << 3
    if bd[e] != KING | bb:
        return n
    if rights & 1 and bd[e + 3] == ROOK | bb and bd[e + 1] == EMPTY and bd[e + 2] == EMPTY:
        if not attacked(bd, e + 1, 1 - side) and not attacked(bd, e + 2, 1 - side):
            out[n] = encode(e, e + 2, 0, FLAG_CASTLE)
            n += 1
    if rights & 2 and bd[e - 4] == ROOK | bb and bd[e - 1] == EMPTY and bd[e - 2] == EMPTY and bd[e - 3] == EMPTY:
        if not attacked(bd, e - 1, 1 - side) and not attacked(bd, e - 2, 1 - side):
            out[n] = encode(e, e - 2, 0, FLAG_CASTLE)
            n += 1
    return n


@njit(cache=True)
def gen_pseudo(bd: np.ndarray, st: np.ndarray, out: np.ndarray, check: bool) -> int:
    """Every move of the side to move that obeys the pieces' moves (own king safety aside)."""
    side = st[ST_SIDE]
    fwd = 10 - 20 * side
    ep = st[ST_EP]
    n = 0
    for sq in range(21, 99):
        p = bd[sq]
        if p == EMPTY or p == WALL or (p >> 3) != side:
            continue
        kind = p & 7
        if kind == PAWN:
            to = sq + fwd
            rank = (sq - 21) // 10
            promote = rank == 6 - 5 * side
            if bd[to] == EMPTY:
                n = _add_pawn(out, n, sq, to, promote)
                if rank == 1 + 5 * side and bd[to + fwd] == EMPTY:
                    out[n] = encode(sq, to + fwd, 0, FLAG_DOUBLE)
                    n += 1
            for to in (sq + fwd - 1, sq + fwd + 1):
                q = bd[to]
                if q != EMPTY and q != WALL and (q >> 3) != side:
                    n = _add_pawn(out, n, sq, to, promote)
                elif to == ep:
                    out[n] = encode(sq, to, 0, FLAG_EP)
                    n += 1
        elif kind == KNIGHT or kind == KING:
            for i in range(8):
                to = sq + (KNIGHT_STEPS[i] if kind == KNIGHT else KING_STEPS[i])
                q = bd[to]
                if q == EMPTY or (q != WALL and (q >> 3) != side):
                    out[n] = encode(sq, to, 0, 0)
                    n += 1
        else:
            for i in range(8):
                if i < 4:
                    if kind == ROOK:
                        continue
                    d = BISHOP_STEPS[i]
                else:
                    if kind == BISHOP:
                        continue
                    d = ROOK_STEPS[i - 4]
                to = sq + d
                while bd[to] == EMPTY:
                    out[n] = encode(sq, to, 0, 0)
                    n += 1
                    to += d
                q = bd[to]
                if q != WALL and (q >> 3) != side:
                    out[n] = encode(sq, to, 0, 0)
                    n += 1
    if not check and st[ST_CASTLE] >> (2 * side) & 3:
        n = _castles(bd, st, out, n)
    return n


@njit(cache=True)
def _safe(bd: np.ndarray, side: int, ksq: int, mv: int, check: bool) -> bool:
    """Whether pseudo-legal ``mv`` leaves the mover's king unattacked."""
    frm = mv & 127
    flag = mv >> 17
    if flag == FLAG_CASTLE:
        return True
    p = bd[frm]
    if not check and (p & 7) != KING and flag != FLAG_EP and ALIGNED[frm - ksq + 77] == 0:
        return True
    to = (mv >> 7) & 127
    cap = bd[to]
    bd[to] = p
    bd[frm] = EMPTY
    capsq = 0
    capp = 0
    if flag == FLAG_EP:
        capsq = to - 10 + 20 * side
        capp = bd[capsq]
        bd[capsq] = EMPTY
    k = to if (p & 7) == KING else ksq
    ok = not attacked(bd, k, 1 - side)
    bd[frm] = p
    bd[to] = cap
    if capsq:
        bd[capsq] = capp
    return ok


@njit(cache=True)
def gen_legal(bd: np.ndarray, st: np.ndarray, out: np.ndarray) -> int:
    """The legal moves of the side to move into ``out``; returns how many."""
    side = st[ST_SIDE]
    ksq = st[ST_KING + side]
    check = attacked(bd, ksq, 1 - side)
    n = gen_pseudo(bd, st, out, check)
    m = 0
    for i in range(n):
        mv = out[i]
        if _safe(bd, side, ksq, mv, check):
            out[m] = mv
            m += 1
    return m


@njit(cache=True)
def ep_legal(bd: np.ndarray, st: np.ndarray, target: int) -> bool:
    """Whether the side to move can legally capture en passant onto ``target``."""
    side = st[ST_SIDE]
    fwd = 10 - 20 * side
    pushed = target - fwd
    pawn = PAWN | side << 3
    if bd[target] != EMPTY or bd[pushed] != PAWN | (1 - side) << 3:
        return False
    for c in (pushed - 1, pushed + 1):
        if bd[c] != pawn:
            continue
        bd[c] = EMPTY
        bd[target] = pawn
        bd[pushed] = EMPTY
        ok = not attacked(bd, st[ST_KING + side], 1 - side)
        bd[c] = pawn
        bd[target] = EMPTY
        bd[pushed] = PAWN | (1 - side) << 3
        if ok:
            return True
    return False


@njit(cache=True)
def full_key(bd: np.ndarray, st: np.ndarray) -> np.uint64:
    """The Zobrist key computed from scratch (pieces, side, castling rights, en passant)."""
    key = np.uint64(0)
    for sq in range(21, 99):
        p = bd[sq]
        if p != EMPTY and p != WALL:
            key ^= Z_PIECE[p, sq]
    key ^= Z_CASTLE[st[ST_CASTLE]]
    if st[ST_EP]:
        key ^= Z_EP[st[ST_EP]]
    if st[ST_SIDE]:
        key ^= ZS
    return np.uint64(key)


@njit(cache=True)
def make(bd: np.ndarray, st: np.ndarray, zk: np.ndarray, und: np.ndarray, mv: int) -> None:
    """Play legal move ``mv``: board, state, key and the undo record for ply ``st[ST_PLY]``."""
    side = st[ST_SIDE]
    ply = st[ST_PLY]
    frm = mv & 127
    to = (mv >> 7) & 127
    promo = (mv >> 14) & 7
    flag = mv >> 17
    p = bd[frm]
    cap = bd[to]
    und[ply] = mv | cap << 20 | st[ST_CASTLE] << 25 | st[ST_EP] << 29 | st[ST_HALF] << 36
    key = zk[ply] ^ Z_CASTLE[st[ST_CASTLE]] ^ Z_PIECE[p, frm] ^ ZS
    if st[ST_EP]:
        key ^= Z_EP[st[ST_EP]]
    bd[frm] = EMPTY
    if cap:
        key ^= Z_PIECE[cap, to]
    if flag == FLAG_EP:
        capsq = to - 10 + 20 * side
        key ^= Z_PIECE[bd[capsq], capsq]
        bd[capsq] = EMPTY
    newp = (promo | side << 3) if promo else p
    bd[to] = newp
    key ^= Z_PIECE[newp, to]
    if flag == FLAG_CASTLE:
        rf, rt = (frm + 3, frm + 1) if to > frm else (frm - 4, frm - 1)
        r = bd[rf]
        bd[rf] = EMPTY
        bd[rt] = r
        key ^= Z_PIECE[r, rf] ^ Z_PIECE[r, rt]
    if (p & 7) == KING:
        st[ST_KING + side] = to
    castle = st[ST_CASTLE] & CASTLE_MASK[frm] & CASTLE_MASK[to]
    st[ST_CASTLE] = castle
    key ^= Z_CASTLE[castle]
    st[ST_HALF] = 0 if (p & 7) == PAWN or cap else st[ST_HALF] + 1
    if side == 1:
        st[ST_FULL] += 1
    st[ST_SIDE] = 1 - side
    st[ST_EP] = 0
    if flag == FLAG_DOUBLE:
        target = (frm + to) >> 1
        if ep_legal(bd, st, target):
            st[ST_EP] = target
            key ^= Z_EP[target]
    st[ST_PLY] = ply + 1
    zk[ply + 1] = key


@njit(cache=True)
def unmake(bd: np.ndarray, st: np.ndarray, und: np.ndarray) -> int:
    """Take back the move of the last ply; returns its code."""
    ply = st[ST_PLY] - 1
    u = und[ply]
    mv = u & 0xFFFFF
    side = 1 - st[ST_SIDE]
    frm = mv & 127
    to = (mv >> 7) & 127
    flag = mv >> 17
    p = bd[to]
    if (mv >> 14) & 7:
        p = PAWN | side << 3
    bd[frm] = p
    bd[to] = (u >> 20) & 31
    if flag == FLAG_EP:
        bd[to - 10 + 20 * side] = PAWN | (1 - side) << 3
    elif flag == FLAG_CASTLE:
        rf, rt = (frm + 3, frm + 1) if to > frm else (frm - 4, frm - 1)
        bd[rf] = bd[rt]
        bd[rt] = EMPTY
    if (p & 7) == KING:
        st[ST_KING + side] = frm
    st[ST_SIDE] = side
    st[ST_CASTLE] = (u >> 25) & 15
    st[ST_EP] = (u >> 29) & 127
    st[ST_HALF] = u >> 36
    if side == 1:
        st[ST_FULL] -= 1
    st[ST_PLY] = ply
    return int(mv)


@njit(cache=True)
def _perft(bd: np.ndarray, st: np.ndarray, zk: np.ndarray, und: np.ndarray, depth: int, buf: np.ndarray) -> int:
    moves = buf[depth]
    n = gen_legal(bd, st, moves)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        make(bd, st, zk, und, moves[i])
        total += _perft(bd, st, zk, und, depth - 1, buf)
        unmake(bd, st, und)
    return total


@njit(cache=True)
def perft(bd: np.ndarray, st: np.ndarray, zk: np.ndarray, und: np.ndarray, depth: int) -> int:
    """Leaf count of the legal move tree ``depth`` plies deep (the last ply bulk-counted)."""
    if depth <= 0:
        return 1
    buf = np.empty((depth + 1, MAX_MOVES), dtype=np.int64)
    return _perft(bd, st, zk, und, depth, buf)


# --- game end --------------------------------------------------------------------------------
@njit(cache=True)
def _side_cannot_mate(counts: np.ndarray, side: int) -> bool:
    """python-chess's ``has_insufficient_material``: no sequence of legal moves lets ``side`` mate."""
    own = counts[side]
    opp = counts[1 - side]
    if own[PAWN] or own[ROOK] or own[QUEEN]:
        return False
    if own[KNIGHT]:
        return bool(own[KNIGHT] == 1 and own[BISHOP] == 0 and opp[PAWN] + opp[KNIGHT] + opp[BISHOP] + opp[ROOK] == 0)
    if own[BISHOP]:
        light = counts[0, 7] + counts[1, 7]
        dark = counts[0, BISHOP] + counts[1, BISHOP] - light
        no_knights_or_pawns = counts[0, PAWN] + counts[1, PAWN] + counts[0, KNIGHT] + counts[1, KNIGHT] == 0
        return bool((light == 0 or dark == 0) and no_knights_or_pawns)
    return True


@njit(cache=True)
def insufficient_material(bd: np.ndarray) -> bool:
    """Neither side can ever mate: K v K, K+minor v K, bishops all on one square colour, ..."""
    counts = np.zeros((2, 8), dtype=np.int64)  # column 7 counts bishops on light squares
    for sq in range(21, 99):
        p = bd[sq]
        if p == EMPTY or p == WALL:
            continue
        side = p >> 3
        counts[side, p & 7] += 1
        if (p & 7) == BISHOP and (sq % 10 + sq // 10) % 2 == 0:
            counts[side, 7] += 1
    return _side_cannot_mate(counts, 0) and _side_cannot_mate(counts, 1)


@njit(cache=True)
def repetitions(zk: np.ndarray, st: np.ndarray) -> int:
    """How many earlier times (since the last pawn move or capture) the current position occurred."""
    ply = st[ST_PLY]
    key = zk[ply]
    low = max(0, ply - st[ST_HALF])
    c = 0
    for j in range(ply - 2, low - 1, -2):
        if zk[j] == key:
            c += 1
    return c


STATUS_NONE, STATUS_CHECKMATE, STATUS_STALEMATE, STATUS_MATERIAL, STATUS_FIFTY, STATUS_REPETITION = range(6)


@njit(cache=True)
def status(bd: np.ndarray, st: np.ndarray, zk: np.ndarray, n_legal: int) -> int:
    """Why the game is over (a ``STATUS_*`` code), in python-chess's order; 0 while it goes on."""
    check = in_check(bd, st)
    if n_legal == 0 and check:
        return STATUS_CHECKMATE
    if insufficient_material(bd):
        return STATUS_MATERIAL
    if n_legal == 0:
        return STATUS_STALEMATE
    if st[ST_HALF] >= 100:
        return STATUS_FIFTY
    if repetitions(zk, st) >= 2:
        return STATUS_REPETITION
    return STATUS_NONE
