"""The thesis player's search (seed 003, ``Sikou.java`` / ``Kyokumen.java``), replicated exactly.

The published program searches every legal move to a fixed depth (4) with negamax and α-β, in the
order its generator produces them, and scores each leaf by material alone plus uniform noise:

* **Move order** (``GenerateMoves.generateLegalMoves``): board moves first, square by square —
  file (筋) 1..W outer, rank (段) 1..H inner; for each piece its one-step moves in the program's
  direction order 0..11 (down-left, down, down-right, left, right, up-left, up, up-right, then
  the four knight jumps), then its sliding moves per direction 0..7 and distance 1, 2, ...; a
  move that may promote comes first promoted, then unpromoted.  Drops follow: one kind at a
  time, in the order the kinds first appear in the hand — the hand is a list in the order the
  pieces were captured, and a drop removes that kind's first entry — each over files 1..W,
  ranks 1..H.
* **Leaf score** (``Kyokumen.evaluate``): the board summed with the piece-value table of the side
  to move *at the leaf* (the program keeps one table per side: ``komaValue_sente`` /
  ``komaValue_gote``), black's pieces plus, white's minus; then each piece in hand.  The
  published program adds ``komaValue_sente[koma] + komaValue_gote[koma]`` for a piece in hand —
  both tables — which ``hand_quirk`` reproduces; without it a piece in hand counts once, with
  the leaf table.  Then ``random.nextInt(1000) - 500`` is added and the sum is negated when
  white is to move (``Sikou.negaMax``).
* **Search** (``Sikou.negaMax``): ``value = -∞``; a move replaces the best when its score is
  greater *or the best is still -∞* (so among moves that all lose to mate the last one wins);
  α is raised, and a score ``>= β`` stops the loop.  No mate scores, no repetition, no
  quiescence.  A node without legal moves scores -99999999.

The noise comes from a ``java.util.Random``-compatible generator (the same 48-bit LCG and
``nextInt`` rejection rule), seeded.  The Java program also drew one number each time it copied
a position; that only shifts the stream (its seed was the clock), so it is not reproduced.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import BISHOP, DRAGON, HORSE, KIND_MASK, KNIGHT, LANCE, ROOK
from komaken.shogi._kernels import (
    R_HEIGHT,
    R_NSQ,
    R_SQUARES,
    ST_SIDE,
    do_move,
    gen_legal,
    move_drop_kind,
    move_from,
    move_promotes,
    move_to,
    undo_move,
)

INFINITE = 99999999
HAND_CAP = 40

_MULT = np.uint64(0x5DEECE66D)
_MASK = np.uint64((1 << 48) - 1)

# Java direction index of a unit step (dfile + 1, drank + 1); -1: none
_DIR = np.array([[7, 4, 0], [6, -1, 1], [5, 3, 2]], dtype=np.int64)


def java_seed(seed: int) -> np.ndarray:
    """The state of ``new java.util.Random(seed)``."""
    return np.array([(seed ^ 0x5DEECE66D) & ((1 << 48) - 1)], dtype=np.uint64)


@njit(cache=True)
def _next31(rs: np.ndarray) -> int:
    s = (rs[0] * _MULT + np.uint64(0xB)) & _MASK
    rs[0] = s
    return int(s >> np.uint64(17))  # next(31)


@njit(cache=True)
def java_next_int(rs: np.ndarray, bound: int) -> int:
    """``java.util.Random.nextInt(bound)`` for a bound that is not a power of two."""
    r = _next31(rs)
    m = bound - 1
    u = r
    r = u % bound
    while u - r + m >= 2147483648:  # the Java int overflow test ``u - r + m < 0``
        u = _next31(rs)
        r = u % bound
    return r


@njit(cache=True)
def _order_key(bd: np.ndarray, mv: int, h: int, hv: np.ndarray, hn: int) -> int:
    to = move_to(mv)
    frm = move_from(mv)
    if frm == 0:
        kind = move_drop_kind(mv)
        first = 0
        for i in range(hn):
            if hv[i] == kind:
                first = i
                break
        return 1_000_000 + first * 1000 + ((to >> 4) - 1) * h + (to & 15) - 1
    ff, fr = frm >> 4, frm & 15
    ds = (to >> 4) - ff
    dd = (to & 15) - fr
    kind = bd[frm] & KIND_MASK
    if kind == KNIGHT and (dd == 2 or dd == -2):
        d = (8 if ds == 1 else 9) if dd == -2 else (10 if ds == -1 else 11)
        code = d
    else:
        us = 1 if ds > 0 else (-1 if ds < 0 else 0)
        ud = 1 if dd > 0 else (-1 if dd < 0 else 0)
        d = _DIR[us + 1, ud + 1]
        dist = max(abs(ds), abs(dd))
        diagonal = us != 0 and ud != 0
        slides = (kind == LANCE or ((kind == BISHOP or kind == HORSE) and diagonal)
                  or ((kind == ROOK or kind == DRAGON) and not diagonal))
        code = 12 + d * 10 + dist if slides else d
    return ((ff - 1) * h + fr - 1) * 1000 + code * 2 + (0 if move_promotes(mv) else 1)


@njit(cache=True)
def ordered_moves(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray,
                  hv: np.ndarray, hn: int, out: np.ndarray, keys: np.ndarray) -> int:
    """The legal moves in the published program's generation order."""
    n = gen_legal(bd, hd, st, geo, rules, out)
    h = rules[R_HEIGHT]
    for i in range(n):
        keys[i] = _order_key(bd, out[i], h, hv, hn)
    for i in range(1, n):  # insertion sort: n is small
        k = keys[i]
        m = out[i]
        j = i - 1
        while j >= 0 and keys[j] > k:
            keys[j + 1] = keys[j]
            out[j + 1] = out[j]
            j -= 1
        keys[j + 1] = k
        out[j + 1] = m
    return n


@njit(cache=True)
def leaf_score(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, tb: np.ndarray,
               th: np.ndarray, rs: np.ndarray, noise: int) -> int:
    """``Kyokumen.evaluate`` then the sign of ``Sikou.negaMax``: the side to move's view."""
    side = st[ST_SIDE]
    v = 0
    for i in range(rules[R_NSQ]):
        v += tb[side, bd[rules[R_SQUARES + i]]]
    for k in range(1, 8):
        v += th[side, 0, k] * hd[0, k] + th[side, 1, k] * hd[1, k]
    if noise > 0:
        v += java_next_int(rs, 2 * noise) - noise
    return v if side == 0 else -v


@njit(cache=True)
def _nega(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray, geo: np.ndarray,
          rules: np.ndarray, tb: np.ndarray, th: np.ndarray, hv: np.ndarray, hn: np.ndarray, mbuf: np.ndarray,
          kbuf: np.ndarray, rs: np.ndarray, ctl: np.ndarray, depth, depth_max, alpha,
          beta, noise) -> int:
    if ctl[3] != 0:  # stopped from outside: unwind at once (the caller discards this score)
        return 0
    if depth >= depth_max:
        ctl[1] += 1
        return leaf_score(bd, hd, st, rules, tb, th, rs, noise)
    ctl[0] += 1
    us = st[ST_SIDE]
    moves = mbuf[depth]
    n = ordered_moves(bd, hd, st, geo, rules, hv[depth, us], hn[depth, us], moves, kbuf[depth])
    value = -INFINITE
    for i in range(n):
        mv = moves[i]
        # the hand lists one ply down: copy, then record the capture or the drop
        for c in range(2):
            hn[depth + 1, c] = hn[depth, c]
            for j in range(hn[depth, c]):
                hv[depth + 1, c, j] = hv[depth, c, j]
        frm = move_from(mv)
        if frm == 0:
            kind = move_drop_kind(mv)
            m = hn[depth + 1, us]
            for j in range(m):
                if hv[depth + 1, us, j] == kind:
                    for t in range(j, m - 1):
                        hv[depth + 1, us, t] = hv[depth + 1, us, t + 1]
                    hn[depth + 1, us] = m - 1
                    break
        else:
            cap = bd[move_to(mv)]
            if cap != 0:
                base = cap & 7
                hv[depth + 1, us, hn[depth + 1, us]] = base
                hn[depth + 1, us] += 1
        do_move(bd, hd, st, hh, hist, mv)
        ev = -_nega(bd, hd, st, hh, hist, geo, rules, tb, th, hv, hn, mbuf, kbuf, rs, ctl, depth + 1, depth_max,
                    -beta, -alpha, noise)
        undo_move(bd, hd, st, hist)
        if ctl[3] != 0:
            break  # this move's subtree was cut short: keep the moves searched in full
        if ev > value or value == -INFINITE:
            value = ev
            if ev > alpha:
                alpha = ev
            if depth == 0:
                ctl[2] = mv
            if ev >= beta:
                break
    return value


@njit(cache=True, nogil=True)
def thesis_search(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray,
                  geo: np.ndarray, rules: np.ndarray, tb: np.ndarray, th: np.ndarray, hv: np.ndarray,
                  hn: np.ndarray, rs: np.ndarray, ctl: np.ndarray, depth_max: int, noise: int) -> int:
    """``Sikou.getNextTe``: the chosen move goes to ``ctl[2]`` (0: none, resign); returns the
    score.  ``ctl[0]``/``ctl[1]`` count interior nodes and leaves; ``hv[0]``/``hn[0]`` hold the
    root's hand lists.  Setting ``ctl[3]`` (from another thread: the kernel runs without the GIL)
    stops the search; ``ctl[2]`` is then the best of the root moves searched in full (0: none yet)."""
    mbuf = np.empty((depth_max + 1, 1024), dtype=np.int64)
    kbuf = np.empty((depth_max + 1, 1024), dtype=np.int64)
    ctl[0] = 0
    ctl[1] = 0
    ctl[2] = 0
    d0 = np.int64(0)
    return _nega(bd, hd, st, hh, hist, geo, rules, tb, th, hv, hn, mbuf, kbuf, rs, ctl, d0, np.int64(depth_max),
                 np.int64(-INFINITE), np.int64(INFINITE), np.int64(noise))
