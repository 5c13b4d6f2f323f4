"""numba kernels: attacks, legal move generation, make/unmake, perft, game end.

Everything here works on plain numpy arrays (see :mod:`komaken.shogi._board` for the board
layout) so it compiles with ``@njit(cache=True)`` and can be called from other kernels, such
as the search.  A position is the tuple of arrays

``bd``   int8[176]       the board, walls included
``hd``   int8[2, 8]      pieces in hand, by color and base kind (at most ``MAX_HAND`` = 81 of a
                         kind: the Zobrist table ``ZH`` has a key for every count up to it)
``st``   int64[ST_SIZE]  side to move, ply, king squares
``hh``   uint64[N + 1]   Zobrist hash of the position after each ply (``hh[st[PLY]]`` is current)
``hist`` int64[N, 3]     per ply: the move made, the piece it captured, whether it gave check

and a variant is ``geo`` (int8 per-square tables) with ``rules`` (int64: switches, the movement
of every piece code, the board squares).  Movement is data of the variant, not of the kernels:
``rules[R_STEP_N + p]`` steps at ``rules[R_STEPS + p * 12 ...]`` (square deltas), the same for
slides, and ``rules[R_CAN + p]`` a mask of the directions ``p`` reaches (bit j: a step along
``DIRS[j]``, bit 16 + j: a slide) for the attack tests.

Moves are ints: ``to | from << 8 | promote << 16 | drop_kind << 17``; a drop has ``from == 0``.

The kernels on the move-generation and make/unmake path allocate nothing and are compiled with
``_nrt=False``: with reference counting on, every call between kernels paid an atomic increment
and decrement per array argument, half of perft's time.  Loops that generate moves at every node
should call :func:`gen_legal_into` with a scratch array made once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import (
    BASE,
    BLACK_BIT,
    BOARD_SIZE,
    DIRS,
    KIND_MASK,
    KING,
    OPPOSITE,
    PAWN,
    POINTS,
    PROMOTED,
    WALL,
    ZB,
    ZH,
    ZSIDE,
)

# --- state layout -----------------------------------------------------------------------------
ST_SIDE, ST_PLY, ST_KING = 0, 1, 2  # king squares at ST_KING + color (0: no king)
ST_SIZE = 4
H_MOVE, H_CAPTURED, H_CHECK = 0, 1, 2

# geo rows
G_ZONE = 0  # + color: 1 where that color may promote
G_DEAD = 2  # + color: 1 on the last rank, 2 on the second-to-last (for that color)
G_BOARD = 4  # 1 on the board
G_ROWS = 5

# rules slots
R_WIDTH, R_HEIGHT, R_NIFU, R_UCHIFUZUME, R_DEAD, R_REPETITION, R_PERPETUAL = 0, 1, 2, 3, 4, 5, 6
R_IMPASSE, R_IMPASSE_POINTS, R_MAX_PLIES, R_ZONE, R_NSQ = 7, 8, 9, 10, 11
R_DEAD_DROPS = 12  # with R_DEAD: no drop where the piece would have no move
R_KING_CAPTURE = 13  # kings are not royal: they may stand attacked, and capturing one wins
R_TRY = 14  # a king on its last rank, not attacked, wins (dobutsu's トライ)
R_DECIDE = 15  # R_KING_CAPTURE or R_TRY: the game can end before a move is generated
# movement tables by piece code (0..63), then per kind (0..15)
MAX_STEPS, MAX_SLIDES, CAN_SLIDE_BIT = 12, 8, 16
R_STEP_N = 16
R_STEPS = R_STEP_N + 64  # [code * MAX_STEPS + k]: the square delta of step k
R_SLIDE_N = R_STEPS + 64 * MAX_STEPS
R_SLIDES = R_SLIDE_N + 64  # [code * MAX_SLIDES + k]
R_CAN = R_SLIDES + 64 * MAX_SLIDES  # [code]: bit j steps along DIRS[j], bit 16 + j slides
R_PROMOTE = R_CAN + 64  # [kind]: 1 if the kind may promote
R_DEAD_RANKS = R_PROMOTE + 16  # [kind]: on how many last ranks it would have no move (2: a knight)
R_SQUARES = R_DEAD_RANKS + 16  # the board squares, R_NSQ of them
REPETITION_DRAW, REPETITION_SENTE_LOSES = 0, 1
IMPASSE_NONE, IMPASSE_BOTH_ENTERED, IMPASSE_DECLARATION = 0, 1, 2

#: Size of every move buffer: more than the 593 legal moves a 9x9 shogi position can have, with
#: non-promotions.  No bounds are checked inside the kernels, so a variant whose pieces could
#: generate more is refused when it is built (``Variant.move_bound``).
MAX_MOVES = 1024

# game-end codes: termination * 4 + winner (0 black, 1 white, 2 draw)
END_NONE, END_MATE, END_NO_MOVES, END_REPETITION, END_PERPETUAL, END_IMPASSE, END_MAX_PLIES = range(7)
END_KING_CAPTURED, END_TRY = 7, 8
WINNER_DRAW = 2


# --- moves ------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def make_move(frm: int, to: int, promote: int) -> int:
    return to | (frm << 8) | (promote << 16)


@njit(cache=True, inline="always")
def make_drop(kind: int, to: int) -> int:
    return to | (kind << 17)


@njit(cache=True, inline="always")
def move_to(m: int) -> int:
    return m & 0xFF


@njit(cache=True, inline="always")
def move_from(m: int) -> int:
    return (m >> 8) & 0xFF


@njit(cache=True, inline="always")
def move_promotes(m: int) -> bool:
    return (m >> 16) & 1 == 1


@njit(cache=True, inline="always")
def move_drop_kind(m: int) -> int:
    return (m >> 17) & 0xF


# --- attacks ----------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def attacked(bd: np.ndarray, sq: int, by: int, rules: np.ndarray) -> bool:
    """Whether any piece of color ``by`` attacks square ``sq``."""
    bit = BLACK_BIT << by
    for j in range(8):
        d = DIRS[j]
        s = sq - d
        p = bd[s]
        if p & bit:
            if (rules[R_CAN + p] >> j) & 1:
                return True
            continue
        if p != 0:
            continue
        s -= d
        p = bd[s]
        while p == 0:
            s -= d
            p = bd[s]
        if (p & bit) and (rules[R_CAN + p] >> (CAN_SLIDE_BIT + j)) & 1:
            return True
    for j in range(8 + 2 * by, 10 + 2 * by):  # knight jumps of color ``by`` go along these
        p = bd[sq - DIRS[j]]
        if (p & bit) and (rules[R_CAN + p] >> j) & 1:
            return True
    return False


@njit(cache=True, _nrt=False)
def attackers(bd: np.ndarray, sq: int, by: int, rules: np.ndarray, out: np.ndarray) -> int:
    """Store the squares of ``by``'s pieces attacking ``sq`` in ``out``; return how many."""
    bit = BLACK_BIT << by
    n = 0
    for j in range(8):
        d = DIRS[j]
        s = sq - d
        p = bd[s]
        if p & bit:
            if (rules[R_CAN + p] >> j) & 1:
                out[n] = s
                n += 1
            continue
        if p != 0:
            continue
        s -= d
        p = bd[s]
        while p == 0:
            s -= d
            p = bd[s]
        if (p & bit) and (rules[R_CAN + p] >> (CAN_SLIDE_BIT + j)) & 1:
            out[n] = s
            n += 1
    for j in range(8 + 2 * by, 10 + 2 * by):
        s = sq - DIRS[j]
        p = bd[s]
        if (p & bit) and (rules[R_CAN + p] >> j) & 1:
            out[n] = s
            n += 1
    return n


@njit(cache=True, _nrt=False)
def in_check(bd: np.ndarray, st: np.ndarray, rules: np.ndarray) -> bool:
    """Whether the king of the side to move is attacked."""
    us = st[ST_SIDE]
    k = st[ST_KING + us]
    return k != 0 and attacked(bd, k, 1 - us, rules)


@njit(cache=True, _nrt=False)
def gives_check(bd: np.ndarray, st: np.ndarray, rules: np.ndarray, mv: int) -> bool:
    """Whether the legal move ``mv`` of the side to move checks the opponent, decided without
    playing it: the piece is set on its square for one :func:`attacked` look from the enemy king
    (so discovered checks count) and the board put back — cheaper than :func:`push` and undo."""
    us = st[ST_SIDE]
    k = st[ST_KING + 1 - us]
    if k == 0:
        return False
    to = move_to(mv)
    frm = move_from(mv)
    if frm == 0:
        bd[to] = move_drop_kind(mv) | (BLACK_BIT << us)
        check = attacked(bd, k, us, rules)
        bd[to] = 0
        return check
    p = bd[frm]
    cap = bd[to]
    bd[to] = p | PROMOTED if move_promotes(mv) else p
    bd[frm] = 0
    check = attacked(bd, k, us, rules)
    bd[frm] = p
    bd[to] = cap
    return check


@njit(cache=True, _nrt=False)
def decided(bd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray) -> int:
    """The winner (0 black, 1 white) if the game ended before the side to move moves, by the
    capture of a king (``R_KING_CAPTURE``: the side without its king lost) or by a try
    (``R_TRY``: a king on its last rank that the enemy does not attack wins; the side to move's
    king first, since the enemy's last move failed to take it); else -1."""
    us = st[ST_SIDE]
    if rules[R_KING_CAPTURE] != 0:
        for c in range(2):
            if st[ST_KING + c] == 0:
                return 1 - c
    if rules[R_TRY] != 0:
        for i in range(2):
            c = us ^ i
            k = st[ST_KING + c]
            if k != 0 and geo[G_DEAD + c, k] == 1 and not attacked(bd, k, 1 - c, rules):
                return c
    return -1


# --- move generation --------------------------------------------------------------------------
# The generator produces legal moves directly: one look out from the king finds the checkers and
# the pinned pieces (kept in a scratch array), a pinned piece moves only along its pin line, the
# king steps only to unattacked squares, and in check the other pieces and the drops land only
# on the checker or between it and the king.  Scratch layout (int16; the tables up to
# SC_PINNED are all zero between calls, the rest is working space):
SC_PIN = 0  # [square]: the step of the king-to-pinner line through the pinned piece there
SC_TARGET = BOARD_SIZE  # [square]: 1 where a non-king evasion may land
SC_PINNED = 2 * BOARD_SIZE  # number of pinned pieces, then their squares (at most 8)
SC_ATTACKERS = SC_PINNED + 9  # room for the attackers of a square (打ち歩詰め test)
SCRATCH_SIZE = SC_ATTACKERS + 16
# Where every compiled caller starts appending moves.  A typed zero, not a literal: a literal 0
# would make numba compile the generators once more for it (ten seconds each), apart from the
# int64 start Python callers and the searches pass, so one cached compile serves them all.
FROM_START = np.int64(0)


@njit(cache=True, inline="always")
def _add_board_move(out: np.ndarray, n: int, frm: int, to: int, kind: int, us: int, geo: np.ndarray,
                    rules: np.ndarray, dead_rule: bool, from_zone: bool) -> int:
    """Append frm→to with its promotion choices: promote when the zone allows, and stay
    unpromoted unless the piece would have no further move (dead-piece rule)."""
    if rules[R_PROMOTE + kind] == 0:
        out[n] = make_move(frm, to, 0)
        return n + 1
    forced = False
    if dead_rule:
        dead = rules[R_DEAD_RANKS + kind]
        if dead != 0:
            level = geo[G_DEAD + us, to]
            forced = level != 0 and level <= dead
    if from_zone or geo[G_ZONE + us, to]:
        out[n] = make_move(frm, to, 1)
        n += 1
    if not forced:
        out[n] = make_move(frm, to, 0)
        n += 1
    return n


@njit(cache=True, _nrt=False)
def _pawn_drop_mates(bd: np.ndarray, st: np.ndarray, rules: np.ndarray, to: int, us: int, sc: np.ndarray) -> bool:
    """With a pawn of ``us`` just dropped on ``to`` (checking the enemy king), can the enemy
    not escape?  Used for 打ち歩詰め.  The board is left as it was."""
    them = 1 - us
    tk = st[ST_KING + them]
    tbit = BLACK_BIT << them
    buf = sc[SC_ATTACKERS:]
    # 1. capture the pawn with something other than the king, without exposing the king
    n = attackers(bd, to, them, rules, buf)
    pawn = bd[to]
    for i in range(n):
        s = buf[i]
        if s == tk:
            continue
        p = bd[s]
        bd[to] = p
        bd[s] = 0
        exposed = attacked(bd, tk, us, rules)
        bd[s] = p
        bd[to] = pawn
        if not exposed:
            return False
    # 2. move the king (capturing the pawn included) to a square not attacked
    king = bd[tk]
    bd[tk] = 0
    escape = False
    for i in range(rules[R_STEP_N + king]):
        t = tk + rules[R_STEPS + king * MAX_STEPS + i]
        q = bd[t]
        if q & (tbit | WALL):
            continue
        if not attacked(bd, t, us, rules):
            escape = True
            break
    bd[tk] = king
    return not escape


@njit(cache=True, _nrt=False)
def _gen_drops(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray,
               out: np.ndarray, n: int, sc: np.ndarray, evade: bool) -> int:
    """Append the drops (only on ``SC_TARGET`` squares when ``evade``), by square then kind."""
    us = st[ST_SIDE]
    kinds = 0  # bit k: kind k in hand
    for kind in range(1, 8):
        if hd[us, kind] != 0:
            kinds |= 1 << kind
    if kinds == 0:
        return n
    ubit = BLACK_BIT << us
    nsq = rules[R_NSQ]
    dead_rule = rules[R_DEAD] != 0 and rules[R_DEAD_DROPS] != 0
    pawn_files = 0  # bit f: file f holds an unpromoted pawn of ours (二歩)
    if (kinds >> PAWN) & 1 and rules[R_NIFU] != 0:
        for i in range(nsq):
            s = rules[R_SQUARES + i]
            if bd[s] == (PAWN | ubit):
                pawn_files |= 1 << (s >> 4)
    them_king = st[ST_KING + 1 - us]
    mate_sq = -1
    if them_king != 0 and rules[R_UCHIFUZUME] != 0:
        mate_sq = them_king + (1 if us == 0 else -1)  # a pawn here checks the king (it moves -1 / +1)
    for i in range(nsq):
        to = rules[R_SQUARES + i]
        if bd[to] != 0 or (evade and sc[SC_TARGET + to] == 0):
            continue
        level = geo[G_DEAD + us, to] if dead_rule else 0
        for kind in range(1, 8):
            if not (kinds >> kind) & 1:
                continue
            if level != 0 and level <= rules[R_DEAD_RANKS + kind]:
                continue
            if kind == PAWN:
                if (pawn_files >> (to >> 4)) & 1:
                    continue
                if to == mate_sq:
                    bd[to] = PAWN | ubit
                    mates = _pawn_drop_mates(bd, st, rules, to, us, sc)
                    bd[to] = 0
                    if mates:
                        continue
            out[n] = make_drop(kind, to)
            n += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def _has_hand(hd: np.ndarray, us: int) -> bool:
    for kind in range(1, 8):
        if hd[us, kind] != 0:
            return True
    return False


_attacked_inline = njit(_nrt=False, inline="always")(attacked.py_func)


@njit(cache=True, _nrt=False, inline="always")
def _gen_king(bd: np.ndarray, frm: int, us: int, rules: np.ndarray, out: np.ndarray, n: int, evade: bool,
              captures: bool, royal: bool) -> int:
    """Append the king's steps to squares the enemy does not attack (any square when the king is
    not ``royal``; with ``captures``, only those that take a piece).  In check the king is lifted
    off the board for the test (a slider's line goes on through its square); otherwise it cannot
    matter, since nothing attacks the king's own square."""
    p = bd[frm]
    stop = (BLACK_BIT << us) | WALL
    them = 1 - us
    if evade:
        bd[frm] = 0
    for k in range(rules[R_STEP_N + p]):
        to = frm + rules[R_STEPS + p * MAX_STEPS + k]
        if bd[to] & stop or (captures and bd[to] == 0):
            continue
        if royal and _attacked_inline(bd, to, them, rules):
            continue
        out[n] = make_move(frm, to, 0)
        n += 1
    bd[frm] = p
    return n


@njit(cache=True, _nrt=False, inline="always")
def _gen_piece(bd: np.ndarray, frm: int, us: int, geo: np.ndarray, rules: np.ndarray, dead_rule: bool,
               out: np.ndarray, n: int, sc: np.ndarray, evade: bool, captures: bool) -> int:
    """Append the moves of the (non-king) piece on ``frm``: steps, then slides.  A pinned piece
    keeps to its pin line; with ``evade`` only ``SC_TARGET`` squares are allowed, with
    ``captures`` only squares holding an enemy piece."""
    p = bd[frm]
    stop = (BLACK_BIT << us) | WALL
    kind = p & KIND_MASK
    pd = sc[SC_PIN + frm]
    from_zone = geo[G_ZONE + us, frm] != 0
    for k in range(rules[R_STEP_N + p]):
        d = rules[R_STEPS + p * MAX_STEPS + k]
        if pd != 0 and d != pd and d != -pd:
            continue
        to = frm + d
        if bd[to] & stop or (evade and sc[SC_TARGET + to] == 0) or (captures and bd[to] == 0):
            continue
        n = _add_board_move(out, n, frm, to, kind, us, geo, rules, dead_rule, from_zone)
    for k in range(rules[R_SLIDE_N + p]):
        d = rules[R_SLIDES + p * MAX_SLIDES + k]
        if pd != 0 and d != pd and d != -pd:
            continue
        to = frm + d
        while True:
            q = bd[to]
            if q & stop:
                break
            if (not evade or sc[SC_TARGET + to] != 0) and (not captures or q != 0):
                n = _add_board_move(out, n, frm, to, kind, us, geo, rules, dead_rule, from_zone)
            if q != 0:
                break
            to += d
    return n


@njit(cache=True, _nrt=False, inline="always")
def _scan_king(bd: np.ndarray, k: int, us: int, rules: np.ndarray, sc: np.ndarray) -> tuple[int, int, int]:
    """Look out from our king on ``k``: record the pinned pieces in ``sc`` and return (number of
    checkers, a checker's square, the step from the king towards it if it checks from afar, else 0)."""
    ubit = BLACK_BIT << us
    tbit = BLACK_BIT << (1 - us)
    nchk, csq, cdel, npin = 0, 0, 0, 0
    for j in range(8):
        d = DIRS[j]
        back = OPPOSITE[j]  # the direction an enemy piece on this line moves to reach the king
        s = k + d
        p = bd[s]
        if p & tbit:
            if (rules[R_CAN + p] >> back) & 1:
                nchk, csq, cdel = nchk + 1, s, 0
            continue
        while p == 0:
            s += d
            p = bd[s]
        if p & tbit:
            if (rules[R_CAN + p] >> (CAN_SLIDE_BIT + back)) & 1:
                nchk, csq, cdel = nchk + 1, s, d
            continue
        if not (p & ubit):
            continue
        s2 = s + d
        q = bd[s2]
        while q == 0:
            s2 += d
            q = bd[s2]
        if (q & tbit) and (rules[R_CAN + q] >> (CAN_SLIDE_BIT + back)) & 1:
            sc[SC_PIN + s] = d
            npin += 1
            sc[SC_PINNED + npin] = s
    sc[SC_PINNED] = npin
    them = 1 - us
    for j in range(8 + 2 * them, 10 + 2 * them):  # enemy knights jump along these
        s = k - DIRS[j]
        p = bd[s]
        if (p & tbit) and (rules[R_CAN + p] >> j) & 1:
            nchk, csq, cdel = nchk + 1, s, 0
    return nchk, csq, cdel


@njit(cache=True, _nrt=False)
def _mark_targets(sc: np.ndarray, k: int, csq: int, cdel: int, value: int) -> None:
    """Set ``SC_TARGET`` to ``value`` on the checker's square and the squares between it and the king."""
    sc[SC_TARGET + csq] = value
    if cdel != 0:
        t = k + cdel
        while t != csq:
            sc[SC_TARGET + t] = value
            t += cdel


@njit(cache=True, _nrt=False, inline="always")
def _gen_into(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray,
              out: np.ndarray, n: int, sc: np.ndarray, captures: bool) -> int:
    """The body of :func:`gen_legal_into` and :func:`gen_captures_into` (``captures`` is a
    constant in each, so the compiler drops the branches the other one needs)."""
    if rules[R_DECIDE] != 0 and decided(bd, st, geo, rules) >= 0:
        return n  # the game is over: no moves, as a mated side has none
    us = st[ST_SIDE]
    k = st[ST_KING + us]
    royal = rules[R_KING_CAPTURE] == 0
    nchk, csq, cdel = 0, 0, 0
    if k != 0 and royal:
        nchk, csq, cdel = _scan_king(bd, k, us, rules, sc)
    evade = nchk != 0  # in double check nothing is marked as a target: only the king moves
    if nchk == 1:
        _mark_targets(sc, k, csq, cdel, 1)
    ubit = BLACK_BIT << us
    dead_rule = rules[R_DEAD] != 0
    for i in range(rules[R_NSQ]):
        frm = rules[R_SQUARES + i]
        p = bd[frm]
        if not (p & ubit):
            continue
        if (p & KIND_MASK) == KING:
            n = _gen_king(bd, frm, us, rules, out, n, evade, captures, royal)
        else:
            n = _gen_piece(bd, frm, us, geo, rules, dead_rule, out, n, sc, evade, captures)
    if nchk < 2 and not captures and _has_hand(hd, us):
        n = _gen_drops(bd, hd, st, geo, rules, out, n, sc, evade)
    if nchk == 1:
        _mark_targets(sc, k, csq, cdel, 0)
    for i in range(sc[SC_PINNED]):
        sc[SC_PIN + sc[SC_PINNED + 1 + i]] = 0
    sc[SC_PINNED] = 0
    return n


@njit(cache=True, _nrt=False)
def gen_legal_into(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray,
                   out: np.ndarray, n: int, sc: np.ndarray) -> int:
    """Append the legal moves of the side to move to ``out`` from index ``n``; return the new end.

    ``sc`` is scratch: ``np.zeros(SCRATCH_SIZE, np.int16)``, made once and reused (its tables,
    up to ``SC_PINNED``, are left zero for the next call).  The moves and their order are
    :func:`gen_legal`'s."""
    return _gen_into(bd, hd, st, geo, rules, out, n, sc, False)


@njit(cache=True, _nrt=False)
def gen_captures_into(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray,
                      out: np.ndarray, n: int, sc: np.ndarray) -> int:
    """Append the legal captures of the side to move (board moves onto an enemy piece, with
    their promotion choices; in check only those that also evade) to ``out`` from index ``n``;
    return the new end.  They are :func:`gen_legal_into`'s captures in its order, without the
    cost of generating the quiet moves and drops (quiescence search asks for nothing else)."""
    return _gen_into(bd, hd, st, geo, rules, out, n, sc, True)


@njit(cache=True)
def gen_legal(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray,
              out: np.ndarray) -> int:
    """Write the legal moves of the side to move into ``out``; return their number.

    Board moves come first, by square in ``rules`` order (for each piece its steps, then its
    slides, a promotion before the same move unpromoted), then drops by square and kind.  Hot
    loops should call :func:`gen_legal_into` with a scratch array made once."""
    sc = np.zeros(SCRATCH_SIZE, dtype=np.int16)
    return gen_legal_into(bd, hd, st, geo, rules, out, FROM_START, sc)


@njit(cache=True)
def is_legal(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray,
             mv: int) -> bool:
    """Whether ``mv`` is legal (by generating all legal moves: for input checks, not hot paths)."""
    out = np.empty(MAX_MOVES, dtype=np.int64)
    n = gen_legal(bd, hd, st, geo, rules, out)
    for i in range(n):
        if out[i] == mv:
            return True
    return False


# --- make / unmake ----------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def do_move(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray,
            mv: int) -> None:
    """Play ``mv`` (assumed legal), updating the hash incrementally."""
    us = st[ST_SIDE]
    ply = st[ST_PLY]
    h = hh[ply]
    to = move_to(mv)
    frm = move_from(mv)
    cap = 0
    if frm == 0:
        kind = move_drop_kind(mv)
        p = kind | (BLACK_BIT << us)
        bd[to] = p
        c = hd[us, kind]
        hd[us, kind] = c - 1
        h ^= ZH[us, kind, c] ^ ZH[us, kind, c - 1] ^ ZB[p, to]
    else:
        p = bd[frm]
        cap = bd[to]
        if cap != 0:
            ck = BASE[cap & KIND_MASK]
            if ck == KING:  # only where kings may be captured (R_KING_CAPTURE): the game is over
                st[ST_KING + 1 - us] = 0
                h ^= ZB[cap, to]
            else:
                c = hd[us, ck]
                hd[us, ck] = c + 1
                h ^= ZH[us, ck, c] ^ ZH[us, ck, c + 1] ^ ZB[cap, to]
        q = p | PROMOTED if move_promotes(mv) else p
        bd[to] = q
        bd[frm] = 0
        h ^= ZB[p, frm] ^ ZB[q, to]
        if (p & KIND_MASK) == KING:
            st[ST_KING + us] = to
    hist[ply, H_MOVE] = mv
    hist[ply, H_CAPTURED] = cap
    hist[ply, H_CHECK] = 0
    st[ST_SIDE] = 1 - us
    st[ST_PLY] = ply + 1
    hh[ply + 1] = h ^ ZSIDE


@njit(cache=True)
def push(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray, rules: np.ndarray,
         mv: int) -> bool:
    """:func:`do_move` that also records whether the move gave check (for 連続王手); returns it."""
    do_move(bd, hd, st, hh, hist, mv)
    check = in_check(bd, st, rules)
    hist[st[ST_PLY] - 1, H_CHECK] = 1 if check else 0
    return check


@njit(cache=True, _nrt=False)
def undo_move(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hist: np.ndarray) -> None:
    """Take back the last move."""
    ply = st[ST_PLY] - 1
    us = 1 - st[ST_SIDE]
    mv = hist[ply, H_MOVE]
    to = move_to(mv)
    frm = move_from(mv)
    if frm == 0:
        hd[us, move_drop_kind(mv)] += 1
        bd[to] = 0
    else:
        q = bd[to]
        p = q & ~PROMOTED if move_promotes(mv) else q
        cap = hist[ply, H_CAPTURED]
        bd[frm] = p
        bd[to] = cap
        if cap != 0:
            ck = BASE[cap & KIND_MASK]
            if ck == KING:
                st[ST_KING + 1 - us] = to
            else:
                hd[us, ck] -= 1
        if (p & KIND_MASK) == KING:
            st[ST_KING + us] = frm
    st[ST_SIDE] = us
    st[ST_PLY] = ply


@njit(cache=True)
def full_hash(bd: np.ndarray, hd: np.ndarray, side: int) -> np.uint64:
    """The Zobrist hash computed from scratch (the incremental one must always equal it)."""
    h = np.uint64(0)
    for s in range(BOARD_SIZE):
        p = bd[s]
        if p != 0 and p != WALL:
            h ^= ZB[p, s]
    for c in range(2):
        for k in range(1, 8):
            h ^= ZH[c, k, hd[c, k]]
    if side == 1:
        h ^= ZSIDE
    return h


# --- perft ------------------------------------------------------------------------------------
# Perft inlines the generator and make/unmake into one loop over an explicit stack (a call
# between kernels costs a push of every array's fields).
_gen_inline = njit(_nrt=False, inline="always")(gen_legal_into.py_func)
_do_inline = njit(_nrt=False, inline="always")(do_move.py_func)
_undo_inline = njit(_nrt=False, inline="always")(undo_move.py_func)


@njit(cache=True, _nrt=False)
def _perft(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray,
           geo: np.ndarray, rules: np.ndarray, depth: int, buf: np.ndarray, sc: np.ndarray,
           cur: np.ndarray, end: np.ndarray) -> int:
    """Leaves ``depth`` ≥ 2 plies down.  The moves of ply ``d`` (counted down to 1 at the
    leaves' parents) live in ``buf[d * MAX_MOVES:]``; ``cur[d]`` is the next to play, ``end[d]``
    the end of the list."""
    total = 0
    d = depth
    while True:
        b = d * MAX_MOVES
        e = _gen_inline(bd, hd, st, geo, rules, buf, b, sc)
        if d == 1:  # bulk count: the leaves are not played
            total += e - b
            _undo_inline(bd, hd, st, hist)
            d = 2
        else:
            cur[d] = b
            end[d] = e
        while cur[d] == end[d]:
            if d == depth:
                return total
            _undo_inline(bd, hd, st, hist)
            d += 1
        _do_inline(bd, hd, st, hh, hist, buf[cur[d]])
        cur[d] += 1
        d -= 1


@njit(cache=True)
def perft(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray,
          geo: np.ndarray, rules: np.ndarray, depth: int) -> int:
    """Leaf count of the legal move tree to ``depth`` (bulk-counted at the last ply)."""
    if depth <= 0:
        return 1
    buf = np.empty((depth + 1) * MAX_MOVES, dtype=np.int64)
    sc = np.zeros(SCRATCH_SIZE, dtype=np.int16)
    if depth == 1:
        return gen_legal_into(bd, hd, st, geo, rules, buf, FROM_START, sc)
    cur = np.zeros(depth + 1, dtype=np.int64)
    end = np.zeros(depth + 1, dtype=np.int64)
    return _perft(bd, hd, st, hh, hist, geo, rules, depth, buf, sc, cur, end)


# --- game end ---------------------------------------------------------------------------------
@njit(cache=True)
def repetition_count(hh: np.ndarray, st: np.ndarray) -> int:
    """How many earlier times the current position occurred (same side to move, same hands)."""
    ply = st[ST_PLY]
    h = hh[ply]
    c = 0
    for j in range(ply - 4, -1, -2):
        if hh[j] == h:
            c += 1
    return c


@njit(cache=True)
def _checked_throughout(hist: np.ndarray, first: int, last: int, mover_parity: int) -> bool:
    """Whether every move made at plies first..last-1 with ply parity ``mover_parity`` gave check."""
    any_move = False
    for j in range(first, last):
        if (j & 1) == mover_parity:
            any_move = True
            if hist[j, H_CHECK] == 0:
                return False
    return any_move


@njit(cache=True)
def impasse_points(bd: np.ndarray, hd: np.ndarray, rules: np.ndarray, color: int, zone_only: bool,
                   geo: np.ndarray) -> np.ndarray:
    """[points, pieces] of ``color``: 5 per rook/bishop, 1 per other piece (king excluded), on
    the board (only inside the enemy camp when ``zone_only``) and in hand."""
    bit = BLACK_BIT << color
    pts = 0
    cnt = 0
    for i in range(rules[R_NSQ]):
        s = rules[R_SQUARES + i]
        p = bd[s]
        if (p & bit) and (p & KIND_MASK) != KING:
            if zone_only and not geo[G_ZONE + color, s]:
                continue
            pts += POINTS[p & KIND_MASK]
            cnt += 1
    for k in range(1, 8):
        pts += POINTS[k] * hd[color, k]
    res = np.empty(2, dtype=np.int64)
    res[0] = pts
    res[1] = cnt
    return res


@njit(cache=True)
def can_declare(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray) -> bool:
    """The 27-point declaration rule (入玉宣言, CSA rules) for the side to move: king in the
    enemy camp and not in check, at least 10 other pieces there, and at least 28 (black) or 27
    (white) points counting the camp and the hand.  Thresholds scale with ``R_IMPASSE_POINTS``."""
    if rules[R_IMPASSE] != IMPASSE_DECLARATION:
        return False
    us = st[ST_SIDE]
    k = st[ST_KING + us]
    if k == 0 or not geo[G_ZONE + us, k] or in_check(bd, st, rules):
        return False
    pc = impasse_points(bd, hd, rules, us, True, geo)
    need = rules[R_IMPASSE_POINTS] + (1 if us == 0 else 0)
    return pc[1] >= 10 and pc[0] >= need


@njit(cache=True)
def game_end(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray,
             geo: np.ndarray, rules: np.ndarray, start_ply: int) -> int:
    """``termination * 4 + winner`` if the game is over (winner 0 black, 1 white, 2 draw), else 0.

    ``start_ply`` is the first ply of ``hh`` that belongs to this game (0 normally)."""
    us = st[ST_SIDE]
    ply = st[ST_PLY]
    if rules[R_DECIDE] != 0:
        winner = decided(bd, st, geo, rules)
        if winner >= 0:
            captured = rules[R_KING_CAPTURE] != 0 and st[ST_KING + 1 - winner] == 0
            return (END_KING_CAPTURED if captured else END_TRY) * 4 + winner
    out = np.empty(MAX_MOVES, dtype=np.int64)
    if gen_legal(bd, hd, st, geo, rules, out) == 0:
        return (END_MATE if in_check(bd, st, rules) else END_NO_MOVES) * 4 + (1 - us)
    # 千日手: the fourth occurrence of the same position
    h = hh[ply]
    c = 0
    first = -1
    for j in range(ply - 4, start_ply - 1, -2):
        if hh[j] == h:
            c += 1
            first = j
            if c == 3:
                break
    if c >= 3:
        if rules[R_PERPETUAL] != 0:
            for mover in range(2):  # the color that moved at plies with this parity
                parity = (ply - 1 - mover) & 1
                color = us if mover == 1 else 1 - us
                if _checked_throughout(hist, first, ply, parity):
                    return END_PERPETUAL * 4 + (1 - color)
        if rules[R_REPETITION] == REPETITION_SENTE_LOSES:
            return END_REPETITION * 4 + 1
        return END_REPETITION * 4 + WINNER_DRAW
    # 持将棋 by the point count once both kings have entered the enemy camp
    if rules[R_IMPASSE] == IMPASSE_BOTH_ENTERED:
        k0 = st[ST_KING]
        k1 = st[ST_KING + 1]
        if k0 != 0 and k1 != 0 and geo[G_ZONE, k0] and geo[G_ZONE + 1, k1]:
            need = rules[R_IMPASSE_POINTS]
            p0 = impasse_points(bd, hd, rules, 0, False, geo)[0]
            p1 = impasse_points(bd, hd, rules, 1, False, geo)[0]
            if p0 < need <= p1:
                return END_IMPASSE * 4 + 1
            if p1 < need <= p0:
                return END_IMPASSE * 4 + 0
            return END_IMPASSE * 4 + WINNER_DRAW
    if rules[R_MAX_PLIES] > 0 and ply - start_ply >= rules[R_MAX_PLIES]:
        return END_MAX_PLIES * 4 + WINNER_DRAW
    return 0
