"""df-pn (depth-first proof-number search) for tsume: the attacker checks on every move.

Each node keeps two numbers in a hash table, from the side to move's view: ``phi`` — how many
leaves must still be solved to show the mover wins — and ``delta`` — the same for showing the
mover loses.  For a node, ``phi = min(delta(child))`` and ``delta = sum(phi(child))``; the
search always descends into the child with the smallest ``delta`` and returns as soon as the
node's numbers pass the thresholds it was given (Nagai's df-pn).  The attacker may only play
checks; the defender plays every legal move.  A side with no move loses (``phi = ∞``,
``delta = 0``); a repeated position or the depth limit counts against the attacker.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._kernels import ST_PLY, do_move, gen_legal, in_check, push, undo_move

DINF = 1 << 40
_ONE = np.int64(1)


@njit(cache=True)
def _key(h: np.uint64, ply: int, run: int) -> np.uint64:
    """Entries are kept per ply: with a depth limit, the same position nearer the limit may
    have a different answer, and sharing it between plies makes the search go round in circles.
    They are kept per run too (``ctl[4]``), so a new run finds none of an earlier one's entries
    without the table being cleared: clearing a table of some megabytes before each depth of
    :func:`komaken.shogi.engine.mate.solve` took longer than the proofs themselves."""
    return h ^ (np.uint64(ply + (run << 16)) * np.uint64(0x9E3779B97F4A7C15))


@njit(cache=True)
def _lookup(tk: np.ndarray, tv: np.ndarray, h: np.uint64) -> tuple[int, int]:
    i = int(h & np.uint64(len(tk) - 1))
    if tk[i] == h:
        return tv[i, 0], tv[i, 1]
    return 1, 1


@njit(cache=True)
def _store(tk: np.ndarray, tv: np.ndarray, h: np.uint64, phi: int, delta: int) -> None:
    i = int(h & np.uint64(len(tk) - 1))
    tk[i] = h
    tv[i, 0] = phi
    tv[i, 1] = delta


@njit(cache=True)
def _children(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray, geo: np.ndarray,
              rules: np.ndarray, attacker: bool, out: np.ndarray) -> int:
    n = gen_legal(bd, hd, st, geo, rules, out)
    if not attacker:
        return n
    m = 0
    for i in range(n):
        if push(bd, hd, st, hh, hist, rules, out[i]):
            out[m] = out[i]
            m += 1
        undo_move(bd, hd, st, hist)
    return m


@njit(cache=True)
def _mid(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray, geo: np.ndarray,
         rules: np.ndarray, tk: np.ndarray, tv: np.ndarray, mbuf: np.ndarray, ctl: np.ndarray, th_phi,
         th_delta, ply, attacker) -> None:
    ctl[0] += 1
    h = _key(hh[st[ST_PLY]], ply, ctl[4])
    moves = mbuf[ply]
    n = _children(bd, hd, st, hh, hist, geo, rules, attacker != 0, moves)
    if n == 0:  # the mover has no (checking) move: the mover loses
        _store(tk, tv, h, DINF, 0)
        return
    if ply >= ctl[1] or ctl[0] >= ctl[2]:  # depth or node limit: unproven, counts for the defender
        if attacker:
            _store(tk, tv, h, DINF, 0)
        else:
            _store(tk, tv, h, 0, DINF)
        return
    while True:
        phi = DINF
        delta = 0
        best = -1
        best_delta = DINF
        second = DINF
        best_phi = 0
        for i in range(n):
            do_move(bd, hd, st, hh, hist, moves[i])
            ch = hh[st[ST_PLY]]
            rep = False
            j = st[ST_PLY] - 2
            while j >= ctl[3]:
                if hh[j] == ch:
                    rep = True
                    break
                j -= 2
            undo_move(bd, hd, st, hist)
            if rep:  # a repetition: bad for the attacker
                cp, cd = (0, DINF) if attacker else (DINF, 0)
            else:
                cp, cd = _lookup(tk, tv, _key(ch, ply + 1, ctl[4]))
            if cd < phi:
                phi = cd
            delta = min(delta + cp, DINF)
            if cd < best_delta:
                second = best_delta
                best_delta = cd
                best = i
                best_phi = cp
            elif cd < second:
                second = cd
        if phi >= th_phi or delta >= th_delta or best < 0:
            _store(tk, tv, h, phi, delta)
            return
        if ctl[0] >= ctl[2]:  # out of nodes: leave the numbers as they are
            return
        c_phi = th_delta - delta + best_phi
        c_delta = min(th_phi, second + 1)
        push(bd, hd, st, hh, hist, rules, moves[best])
        _mid(bd, hd, st, hh, hist, geo, rules, tk, tv, mbuf, ctl, c_phi, c_delta, ply + 1, _ONE - attacker)
        undo_move(bd, hd, st, hist)


@njit(cache=True, nogil=True)
def dfpn(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray, geo: np.ndarray,
         rules: np.ndarray, tk: np.ndarray, tv: np.ndarray, ctl: np.ndarray) -> int:
    """Solve with the attacker to move: 1 proven (mate), -1 disproven, 0 unknown (limits).
    ``ctl``: [nodes, max depth, max nodes, first ply for repetitions, run number (see :func:`_key`)]."""
    if in_check(bd, st, rules):
        return -1  # the attacker may not be in check at the start of a tsume
    mbuf = np.empty((ctl[1] + 2, 1024), dtype=np.int64)
    _mid(bd, hd, st, hh, hist, geo, rules, tk, tv, mbuf, ctl, np.int64(DINF - 1), np.int64(DINF - 1), np.int64(0),
         _ONE)
    phi, delta = _lookup(tk, tv, _key(hh[st[ST_PLY]], 0, ctl[4]))
    if phi == 0:
        return 1
    if delta == 0 and ctl[0] < ctl[2]:
        return -1
    return 0
