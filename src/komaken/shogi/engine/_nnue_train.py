"""The numba kernels of NNUE training (:mod:`komaken.shogi.engine.nnue_train`): the features of a
position and of a game's positions, the float network forward and backward, sparse Adam, and
the integer network over feature lists."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from komaken.shogi._board import BOARD_SIZE
from komaken.shogi._kernels import R_NSQ, R_SQUARES, ST_SIDE, push
from komaken.shogi.engine._nnue import (
    HAND_KINDS,
    _bucket,
    attack_maps,
    board_feature,
    forward,
    hand_feature,
    square_index,
    threat_features,
)
from komaken.shogi.engine._selfplay import _splitmix


@njit(cache=True)
def active_features(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, inv: np.ndarray, c: int,
                    out: np.ndarray) -> int:
    """Writes the active features of colour ``c``'s perspective to ``out`` (the ones
    :func:`~komaken.shogi.engine._nnue.refresh` sums) and returns how many; -1 pads the rest."""
    nsq = rules[R_NSQ]
    b = _bucket(st, inv, nsq, c)
    n = 0
    for i in range(nsq):
        sq = rules[R_SQUARES + i]
        p = bd[sq]
        if p != 0 and n < out.shape[0]:
            out[n] = board_feature(b, nsq, c, p, sq, inv)
            n += 1
    for owner in range(2):
        for kind in range(1, HAND_KINDS):
            for level in range(hd[owner, kind]):
                f = hand_feature(nsq, c, owner, kind, level)
                if f < 0 or n >= out.shape[0]:
                    break
                out[n] = f
                n += 1
    for j in range(n, out.shape[0]):
        out[j] = -1
    return n


@njit(cache=True)
def position_features_into(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, inv: np.ndarray,
                           threats: bool, att: np.ndarray, out: np.ndarray) -> None:
    """Both perspectives' active features (side to move's first) to ``out[2, width]``: the board
    and hand features, then with ``threats`` the threat features (``att``: scratch for
    :func:`~komaken.shogi.engine._nnue.attack_maps`)."""
    us = st[ST_SIDE]
    if threats:
        attack_maps(bd, rules, att)
    for j, c in ((0, us), (1, 1 - us)):
        n = active_features(bd, hd, st, rules, inv, c, out[j])
        if threats:
            threat_features(bd, rules, inv, att, c, out[j], n)


@njit(cache=True)
def game_features(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray,
                  rules: np.ndarray, moves: np.ndarray, first: int, keep: np.ndarray, feats: np.ndarray,
                  side: np.ndarray, threats: bool) -> int:
    """Plays ``moves`` from the state given; for each position ``first + i`` that ``keep[i]``
    marks, writes both perspectives' features (side to move's first; with ``threats`` the
    threat features too) to ``feats[k]`` and the side to move to ``side[k]``.  Returns how many
    positions were written."""
    inv = square_index(rules)
    att = np.zeros((2, BOARD_SIZE), dtype=np.int8)
    k = 0
    for ply in range(moves.shape[0] + 1):
        i = ply - first
        if 0 <= i < keep.shape[0] and keep[i]:
            position_features_into(bd, hd, st, rules, inv, threats, att, feats[k])
            side[k] = st[ST_SIDE]
            k += 1
        if ply < moves.shape[0]:
            push(bd, hd, st, hh, hist, rules, moves[ply])
    return k


@njit(cache=True)
def _factor(f: int, nboard: int, cells: int) -> int:
    return f % cells if f < nboard else -1


@njit(cache=True)
def _forward_one(feats: np.ndarray, W: np.ndarray, F: np.ndarray, B: np.ndarray, L1: np.ndarray, b1: np.ndarray,
                 L2: np.ndarray, b2: np.ndarray, O: np.ndarray, ob: np.ndarray, nboard: int, cells: int,
                 acc: np.ndarray, z1: np.ndarray, z2: np.ndarray) -> float:
    """The float output ``o`` of one position (``acc``, ``z1``, ``z2``: the pre-activations).
    A column of ``W``/``F``/``B`` beyond the ``H`` the first layer reads is the material column
    (see :func:`~komaken.shogi.engine._nnue.forward`): ``o += (acc[0, H] - acc[1, H]) / 2``."""
    hp = B.shape[0]
    h = L1.shape[1] // 2
    for s in range(2):
        for i in range(hp):
            acc[s, i] = B[i]
        for j in range(feats.shape[1]):
            f = feats[s, j]
            if f < 0:
                break
            v = _factor(f, nboard, cells)
            for i in range(hp):
                acc[s, i] += W[f, i]
            if v >= 0:
                for i in range(hp):
                    acc[s, i] += F[v, i]
    for k in range(L1.shape[0]):
        t = b1[k]
        for s in range(2):
            for i in range(h):
                a = acc[s, i]
                if a > 0.0:
                    t += L1[k, s * h + i] * (a if a < 1.0 else 1.0)
        z1[k] = t
    o = ob[0]
    if hp > h:
        o += 0.5 * (acc[0, h] - acc[1, h])
    for k in range(L2.shape[0]):
        t = b2[k]
        for i in range(L1.shape[0]):
            a = z1[i]
            if a > 0.0:
                t += L2[k, i] * (a if a < 1.0 else 1.0)
        z2[k] = t
        if t > 0.0:
            o += O[k] * (t if t < 1.0 else 1.0)
    return o


@njit(cache=True)
def predict(feats: np.ndarray, W: np.ndarray, F: np.ndarray, B: np.ndarray, L1: np.ndarray, b1: np.ndarray,
            L2: np.ndarray, b2: np.ndarray, O: np.ndarray, ob: np.ndarray, nboard: int, cells: int) -> np.ndarray:
    """The float outputs ``o`` of every position."""
    n = feats.shape[0]
    out = np.empty(n, dtype=np.float64)
    acc = np.empty((2, B.shape[0]), dtype=np.float32)
    z1 = np.empty(L1.shape[0], dtype=np.float32)
    z2 = np.empty(L2.shape[0], dtype=np.float32)
    for r in range(n):
        out[r] = _forward_one(feats[r], W, F, B, L1, b1, L2, b2, O, ob, nboard, cells, acc, z1, z2)
    return out


@njit(cache=True)
def _adam_rows(p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, rows: np.ndarray, nrows: int, lr: float,
               b1c: float, b2c: float, decay: float, ndecay: int) -> None:
    """Adam on the touched ``rows``; ``decay`` pulls rows below ``ndecay`` (the king-bucket
    board rows, towards their factor) to zero, not the hand rows, which have no factor."""
    for r in range(nrows):
        f = rows[r]
        d = decay if f < ndecay else 0.0
        for i in range(p.shape[1]):
            gi = g[f, i] + d * p[f, i]
            m[f, i] = 0.9 * m[f, i] + 0.1 * gi
            v[f, i] = 0.999 * v[f, i] + 0.001 * gi * gi
            p[f, i] -= lr * (m[f, i] / b1c) / (math.sqrt(v[f, i] / b2c) + 1e-8)
            g[f, i] = 0.0


@njit(cache=True)
def _adam_dense(p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, lr: float, b1c: float,
                b2c: float) -> None:
    pf, gf, mf, vf = p.reshape(-1), g.reshape(-1), m.reshape(-1), v.reshape(-1)
    for i in range(pf.shape[0]):
        mf[i] = 0.9 * mf[i] + 0.1 * gf[i]
        vf[i] = 0.999 * vf[i] + 0.001 * gf[i] * gf[i]
        pf[i] -= lr * (mf[i] / b1c) / (math.sqrt(vf[i] / b2c) + 1e-8)
        gf[i] = 0.0


@njit(cache=True)
def train_epoch(feats: np.ndarray, target: np.ndarray, order: np.ndarray, batch: int, lr: float, decay: float,
                ks: float, step0: int, nboard: int, cells: int, P: tuple[np.ndarray, ...], G: tuple[np.ndarray, ...],
                M: tuple[np.ndarray, ...], V: tuple[np.ndarray, ...], touched_w: np.ndarray, touched_f: np.ndarray,
                mark_w: np.ndarray, mark_f: np.ndarray) -> float:
    """One epoch of mini-batch Adam over ``order``, the prediction being ``σ(ks · o)``; returns
    the summed training loss.  ``P``, ``G``,
    ``M``, ``V``: parameters, gradients, Adam moments, each in the order of ``_PARAMS``."""
    W, F, B, L1, b1, L2, b2, O, ob = P
    gW, gF, gB, gL1, gb1, gL2, gb2, gO, gob = G
    hp = B.shape[0]
    h = L1.shape[1] // 2
    n1 = L1.shape[0]
    n2 = L2.shape[0]
    acc = np.empty((2, hp), dtype=np.float32)
    z1 = np.empty(n1, dtype=np.float32)
    z2 = np.empty(n2, dtype=np.float32)
    ga1 = np.empty(n1, dtype=np.float32)
    gacc = np.empty((2, hp), dtype=np.float32)
    total = 0.0
    step = step0
    n = order.shape[0]
    for start in range(0, n, batch):
        end = min(n, start + batch)
        nw = 0
        nf = 0
        scale = 1.0 / (end - start)
        for r in range(start, end):
            x = feats[order[r]]
            t = target[order[r]]
            o = _forward_one(x, W, F, B, L1, b1, L2, b2, O, ob, nboard, cells, acc, z1, z2)
            p = 1.0 / (1.0 + math.exp(-ks * o))
            pc = min(max(p, 1e-7), 1 - 1e-7)
            total += -(t * math.log(pc) + (1 - t) * math.log(1 - pc))
            go = ks * (p - t) * scale
            gob[0] += go
            for i in range(n1):
                ga1[i] = 0.0
            for k in range(n2):
                zk = z2[k]
                a2 = 0.0 if zk <= 0.0 else (zk if zk < 1.0 else 1.0)
                gO[k] += go * a2
                if 0.0 < zk < 1.0:
                    gz = go * O[k]
                    gb2[k] += gz
                    for i in range(n1):
                        zi = z1[i]
                        a1 = 0.0 if zi <= 0.0 else (zi if zi < 1.0 else 1.0)
                        gL2[k, i] += gz * a1
                        ga1[i] += gz * L2[k, i]
            for s in range(2):
                for i in range(hp):
                    gacc[s, i] = 0.0
            if hp > h:
                gacc[0, h] = 0.5 * go
                gacc[1, h] = -0.5 * go
            for k in range(n1):
                zk = z1[k]
                if 0.0 < zk < 1.0:
                    gz = ga1[k]
                    gb1[k] += gz
                    for s in range(2):
                        for i in range(h):
                            a = acc[s, i]
                            if a > 0.0:
                                gL1[k, s * h + i] += gz * (a if a < 1.0 else 1.0)
                                if a < 1.0:
                                    gacc[s, i] += gz * L1[k, s * h + i]
            for s in range(2):
                for i in range(hp):
                    gB[i] += gacc[s, i]
                for j in range(x.shape[1]):
                    f = x[s, j]
                    if f < 0:
                        break
                    if mark_w[f] == 0:
                        mark_w[f] = 1
                        touched_w[nw] = f
                        nw += 1
                    for i in range(hp):
                        gW[f, i] += gacc[s, i]
                    v = _factor(f, nboard, cells)
                    if v >= 0:
                        if mark_f[v] == 0:
                            mark_f[v] = 1
                            touched_f[nf] = v
                            nf += 1
                        for i in range(hp):
                            gF[v, i] += gacc[s, i]
        step += 1
        b1c = 1.0 - 0.9 ** step
        b2c = 1.0 - 0.999 ** step
        _adam_rows(W, gW, M[0], V[0], touched_w, nw, lr, b1c, b2c, decay, nboard)
        _adam_rows(F, gF, M[1], V[1], touched_f, nf, lr, b1c, b2c, 0.0, 0)
        for r in range(nw):
            mark_w[touched_w[r]] = 0
        for r in range(nf):
            mark_f[touched_f[r]] = 0
        _adam_dense(B, gB, M[2], V[2], lr, b1c, b2c)
        _adam_dense(L1, gL1, M[3], V[3], lr, b1c, b2c)
        _adam_dense(b1, gb1, M[4], V[4], lr, b1c, b2c)
        _adam_dense(L2, gL2, M[5], V[5], lr, b1c, b2c)
        _adam_dense(b2, gb2, M[6], V[6], lr, b1c, b2c)
        _adam_dense(O, gO, M[7], V[7], lr, b1c, b2c)
        _adam_dense(ob, gob, M[8], V[8], lr, b1c, b2c)
    return total


@njit(cache=True)
def integer_scores(feats: np.ndarray, w: np.ndarray, b: np.ndarray, l1w: np.ndarray, l1b: np.ndarray,
                     l2w: np.ndarray, l2b: np.ndarray, ow: np.ndarray, ob: int) -> np.ndarray:
    n = feats.shape[0]
    out = np.empty(n, dtype=np.int64)
    acc = np.empty((2, b.shape[0]), dtype=np.int32)
    for r in range(n):
        for s in range(2):
            for i in range(b.shape[0]):
                acc[s, i] = b[i]
            for j in range(feats.shape[2]):
                f = feats[r, s, j]
                if f < 0:
                    break
                for i in range(b.shape[0]):
                    acc[s, i] += w[f, i]
        out[r] = forward(acc[0], acc[1], l1w, l1b, l2w, l2b, ow, ob)
    return out


@njit(cache=True)
def unit_hash(ids: np.ndarray, key: np.uint64) -> np.ndarray:
    """A number in [0, 1) for each of ``ids`` that depends on it and ``key`` alone: the
    splitmix64 number that follows ``id + key`` (the self-play's :func:`_splitmix`)."""
    out = np.empty(ids.shape[0], dtype=np.float64)
    state = np.zeros(1, dtype=np.uint64)
    for i in range(ids.shape[0]):
        state[0] = np.uint64(ids[i]) + key
        out[i] = (_splitmix(state) >> np.uint64(11)) / 9007199254740992.0  # 2 ** 53
    return out
