"""The NNUE feature set and its accumulator (numba): a full refresh and the incremental update.

Features (HalfKP-like, for drop games on any board).  The board's ``N`` squares are numbered
``0 .. N-1`` in the variant's order (``rules[R_SQUARES + i]``, row by row), and seen from White
turned half round (``N - 1 - i``), so both perspectives share one weight table.  For the
perspective of colour ``c``:

* a board feature for every piece on the board, including both kings:
  ``(king bucket, relative colour, piece kind, square)``, the king bucket being ``c``'s own king
  square (``N`` when ``c`` has no king, as after a king capture in どうぶつしょうぎ);
* a hand feature for every piece in hand, counted cumulatively (a second pawn in hand turns on
  the feature "at least two pawns"), by relative colour and kind, up to :data:`HAND_CAP` of a
  kind; hand features do not depend on the king.

With the **threat features** (feature set ``halfkp-drop+threats``), for every piece on the board
two more: ``(attacked, relative colour, piece kind, square)`` — "the other side attacks this
piece" — and the same with "its own side defends it", king-independent, after the hand
features.  What a move changes there reaches far from it (a slider's line opens or closes), so
they are not kept incrementally: each evaluation adds their rows to copies of the two
accumulators (:func:`add_threats`, from one walk over every piece's moves, :func:`attack_maps`).

So one move changes at most four board and hand features of each perspective (the piece leaving its square,
arriving, a captured piece leaving the board and entering the hand); a move of ``c``'s own king
changes its bucket, and that perspective is refreshed whole.

The accumulator of a perspective is ``bias + Σ W[f]`` over its active features (int32 sums of
int16 weights).  The kernels allocate nothing and are compiled without reference counting
(``_nrt=False``, as the move generator is): with it, each call paid an atomic increment and
decrement per array argument, more than the update itself.  A search keeps one accumulator
per ply: a child's is its parent's plus the move's changes (:func:`update`), so unmaking a
move is just going back a ply.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import BASE, BLACK_BIT, BOARD_SIZE, KIND_MASK, KING, PROMOTED
from komaken.shogi._kernels import (
    MAX_SLIDES,
    MAX_STEPS,
    R_NSQ,
    R_SLIDE_N,
    R_SLIDES,
    R_SQUARES,
    R_STEP_N,
    R_STEPS,
    ST_KING,
    ST_SIDE,
    move_drop_kind,
    move_from,
    move_promotes,
    move_to,
)

PLANES = 32  # relative colour (2) x piece code kind (16: 1..7 and their promoted forms, king 8)
HAND_KINDS = 8
HAND_CAP = 18  # hand features per kind: "at least 1" .. "at least 18" (18 pawns in 9x9 shogi)
MAX_CHANGES = 4  # what :func:`changes` writes at most
THREAT_PLANES = 2 * PLANES  # attacked by the other side (32 planes), defended by its own (32)


def n_features(nsq: int, threats: bool = False) -> int:
    """How many features a board of ``nsq`` squares has (with the threat features or without)."""
    return (nsq + 1) * PLANES * nsq + 2 * HAND_KINDS * HAND_CAP + (THREAT_PLANES * nsq if threats else 0)


def reads_threats(w: np.ndarray, nsq: int) -> bool:
    """Whether the feature table ``w`` of a board of ``nsq`` squares has the threat features' rows."""
    return int(w.shape[0]) == n_features(nsq, True)


@njit(cache=True)
def square_index(rules: np.ndarray) -> np.ndarray:
    """``[board index]`` -> the square's number ``0 .. N-1`` (-1 off the board)."""
    inv = np.full(256, -1, dtype=np.int64)
    for i in range(rules[R_NSQ]):
        inv[rules[R_SQUARES + i]] = i
    return inv


@njit(cache=True)
def _colour(p: int) -> int:
    return 0 if p & BLACK_BIT else 1


@njit(cache=True)
def _bucket(st: np.ndarray, inv: np.ndarray, nsq: int, c: int) -> int:
    k = st[ST_KING + c]
    if k == 0:
        return nsq
    s = inv[k]
    return s if c == 0 else nsq - 1 - s


@njit(cache=True)
def board_feature(bucket: int, nsq: int, c: int, p: int, sq: int, inv: np.ndarray) -> int:
    """The feature of piece code ``p`` on board index ``sq`` from colour ``c``'s side."""
    s = inv[sq]
    if c == 1:
        s = nsq - 1 - s
    plane = (0 if _colour(p) == c else 16) + (p & KIND_MASK)
    return (bucket * PLANES + plane) * nsq + s


@njit(cache=True)
def hand_feature(nsq: int, c: int, owner: int, kind: int, level: int) -> int:
    """The feature "``owner`` holds more than ``level`` pieces of ``kind``" from ``c``'s side
    (-1 beyond :data:`HAND_CAP`)."""
    if level >= HAND_CAP:
        return -1
    rel = 0 if owner == c else 1
    return (nsq + 1) * PLANES * nsq + (rel * HAND_KINDS + kind) * HAND_CAP + level


@njit(cache=True)
def _add(acc: np.ndarray, w: np.ndarray, f: int) -> None:
    # an explicit loop: ``acc += w[f]`` (int16 into int32) made a temporary array every time
    for i in range(acc.shape[0]):
        acc[i] += w[f, i]


@njit(cache=True, _nrt=False)
def refresh(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, inv: np.ndarray, w: np.ndarray,
            bias: np.ndarray, c: int, out: np.ndarray) -> None:
    """``out[:] = bias + Σ w[f]`` over the active features of colour ``c``'s perspective."""
    nsq = rules[R_NSQ]
    for i in range(out.shape[0]):
        out[i] = bias[i]
    b = _bucket(st, inv, nsq, c)
    for i in range(nsq):
        sq = rules[R_SQUARES + i]
        p = bd[sq]
        if p != 0:
            _add(out, w, board_feature(b, nsq, c, p, sq, inv))
    for owner in range(2):
        for kind in range(1, HAND_KINDS):
            for level in range(hd[owner, kind]):
                f = hand_feature(nsq, c, owner, kind, level)
                if f < 0:
                    break
                _add(out, w, f)


@njit(cache=True, _nrt=False)
def changes(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, mv: int, pieces: np.ndarray, squares: np.ndarray,
            signs: np.ndarray) -> int:
    """The board and hand changes ``mv`` (legal here, not yet played) makes, as ``pieces[j]``
    (a piece code; for a hand change ``-(owner * 8 + kind) - 1``), ``squares[j]`` (a board index;
    for a hand change the count level) and ``signs[j]`` (+1 on, -1 off).  Returns how many: 2
    (a move or drop), 4 (a capture: the piece off the board and into the hand) or 3 (a king
    captured, which goes to no hand).  ``squares[1]`` is always the destination."""
    us = st[ST_SIDE]
    to = move_to(mv)
    frm = move_from(mv)
    if frm == 0:
        kind = move_drop_kind(mv)
        pieces[0] = -(us * HAND_KINDS + kind) - 1
        squares[0] = hd[us, kind] - 1
        signs[0] = -1
        pieces[1] = kind | (BLACK_BIT << us)
        squares[1] = to
        signs[1] = 1
        return 2
    p = bd[frm]
    q = p | PROMOTED if move_promotes(mv) else p
    pieces[0] = p
    squares[0] = frm
    signs[0] = -1
    pieces[1] = q
    squares[1] = to
    signs[1] = 1
    n = 2
    cap = bd[to]
    if cap != 0:
        pieces[2] = cap
        squares[2] = to
        signs[2] = -1
        ck = BASE[cap & KIND_MASK]
        if ck == KING:
            return 3
        pieces[3] = -(us * HAND_KINDS + ck) - 1
        squares[3] = hd[us, ck]
        signs[3] = 1
        n = 4
    return n


@njit(cache=True, _nrt=False)
def update(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, inv: np.ndarray, w: np.ndarray,
           bias: np.ndarray, n: int, pieces: np.ndarray, squares: np.ndarray, signs: np.ndarray,
           parent: np.ndarray, child: np.ndarray) -> None:
    """``child[c]`` for both perspectives after a move was played (``bd``/``hd``/``st`` are the
    position after it), from ``parent`` and the move's :func:`changes` (``n`` of them).  A
    perspective whose king bucket changed — the mover's king moved, the other's was captured — is
    refreshed whole instead."""
    nsq = rules[R_NSQ]
    mover = 1 - st[ST_SIDE]
    to = squares[1]
    king_moved = (bd[to] & KIND_MASK) == KING and _colour(bd[to]) == mover
    for c in range(2):
        if (c == mover and king_moved) or (c != mover and n == 3):
            refresh(bd, hd, st, rules, inv, w, bias, c, child[c])
            continue
        b = _bucket(st, inv, nsq, c)
        # indexed in place, not through row views: a view costs reference counting per call
        for i in range(child.shape[1]):
            child[c, i] = parent[c, i]
        for j in range(n):
            _apply(child, w, b, nsq, c, pieces[j], squares[j], signs[j], inv)


@njit(cache=True)
def _apply(acc: np.ndarray, w: np.ndarray, b: int, nsq: int, c: int, piece: int, where: int, sign: int,
           inv: np.ndarray) -> None:
    """``acc[c] ±= w[f]`` for one change of :func:`changes`."""
    if piece < 0:
        code = -piece - 1
        f = hand_feature(nsq, c, code // HAND_KINDS, code % HAND_KINDS, where)
        if f < 0:
            return
    else:
        f = board_feature(b, nsq, c, piece, where, inv)
    if sign > 0:
        for i in range(acc.shape[1]):
            acc[c, i] += w[f, i]
    else:
        for i in range(acc.shape[1]):
            acc[c, i] -= w[f, i]


# --- threat features: computed afresh at each evaluation -------------------------------------------
@njit(cache=True, _nrt=False)
def attack_maps(bd: np.ndarray, rules: np.ndarray, att: np.ndarray) -> None:
    """``att[side, board index]`` = 1 where a piece of ``side`` attacks that square (whether or
    not the piece is pinned), else 0, for every square of the board; ``att`` is int8 ``[2,
    BOARD_SIZE]``.  One walk over each piece's steps and slides, read from the move generator's
    per-piece lists (``rules[R_STEPS ...]``, ``rules[R_SLIDES ...]``)."""
    nsq = rules[R_NSQ]
    for i in range(nsq):
        sq = rules[R_SQUARES + i]
        att[0, sq] = 0
        att[1, sq] = 0
    for i in range(nsq):
        s = rules[R_SQUARES + i]
        p = bd[s]
        if p == 0:
            continue
        by = _colour(p)
        for k in range(rules[R_STEP_N + p]):
            att[by, s + rules[R_STEPS + p * MAX_STEPS + k]] = 1
        for k in range(rules[R_SLIDE_N + p]):
            d = rules[R_SLIDES + p * MAX_SLIDES + k]
            t = s + d
            while bd[t] == 0:
                att[by, t] = 1
                t += d
            att[by, t] = 1


@njit(cache=True)
def threat_feature(nsq: int, c: int, p: int, sq: int, inv: np.ndarray, defended: int) -> int:
    """The feature "piece code ``p`` on board index ``sq`` is attacked by the other side"
    (``defended`` 0) or "... defended by its own side" (1), from colour ``c``'s side."""
    s = inv[sq]
    if c == 1:
        s = nsq - 1 - s
    plane = (0 if _colour(p) == c else 16) + (p & KIND_MASK)
    return (nsq + 1) * PLANES * nsq + 2 * HAND_KINDS * HAND_CAP + (defended * PLANES + plane) * nsq + s


@njit(cache=True, _nrt=False)
def threat_features(bd: np.ndarray, rules: np.ndarray, inv: np.ndarray, att: np.ndarray, c: int, out: np.ndarray,
                    n: int) -> int:
    """Writes colour ``c``'s active threat features to ``out`` from ``out[n]`` on (``att`` from
    :func:`attack_maps` of this position) and returns the new count."""
    nsq = rules[R_NSQ]
    for i in range(nsq):
        sq = rules[R_SQUARES + i]
        p = bd[sq]
        if p == 0:
            continue
        owner = _colour(p)
        for defended in range(2):
            if att[owner if defended else 1 - owner, sq] and n < out.shape[0]:
                out[n] = threat_feature(nsq, c, p, sq, inv, defended)
                n += 1
    return n


@njit(cache=True, _nrt=False)
def add_threats(bd: np.ndarray, rules: np.ndarray, inv: np.ndarray, w: np.ndarray, att: np.ndarray,
                feats: np.ndarray, acc: np.ndarray, out: np.ndarray) -> None:
    """``out[c] = acc[c] + Σ w[f]`` over colour ``c``'s active threat features, both colours
    (``att``, ``feats``: scratch from :func:`threat_maps` and :func:`threat_list`)."""
    attack_maps(bd, rules, att)
    for c in range(2):
        n = threat_features(bd, rules, inv, att, c, feats, 0)
        for i in range(out.shape[1]):
            out[c, i] = acc[c, i]
        for j in range(n):
            f = feats[j]
            for i in range(out.shape[1]):
                out[c, i] += w[f, i]


def threat_maps() -> np.ndarray:
    """A scratch array for :func:`attack_maps`."""
    return np.zeros((2, BOARD_SIZE), dtype=np.int8)


def threat_list() -> np.ndarray:
    """A scratch array for one perspective's threat features (two a square at most)."""
    return np.zeros(2 * BOARD_SIZE, dtype=np.int64)


def full_score(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, w: np.ndarray, b: np.ndarray,
               l1w: np.ndarray, l1b: np.ndarray, l2w: np.ndarray, l2b: np.ndarray, ow: np.ndarray, ob: int) -> int:
    """The network's score of the position for the side to move from both accumulators refreshed
    whole (and the threat features' rows added when ``w`` has them), then :func:`forward`: the
    reference the search's incremental evaluation must equal."""
    inv = square_index(rules)
    acc = np.zeros((2, w.shape[1]), dtype=np.int32)
    for c in range(2):
        refresh(bd, hd, st, rules, inv, w, b, c, acc[c])
    if reads_threats(w, int(rules[R_NSQ])):
        add_threats(bd, rules, inv, w, threat_maps(), threat_list(), acc.copy(), acc)
    us = int(st[ST_SIDE])
    return int(forward(acc[us], acc[1 - us], l1w, l1b, l2w, l2b, ow, ob))


# --- the network after the accumulator ----------------------------------------------------------
QA = 127  # an activation of 1.0 is 127: the clipped ReLU keeps 0 .. 127
QB = 64  # a dense weight of 1.0 is 64
OUT_SCALE = 600  # a network output of 1.0 is this many evaluation units


@njit(cache=True)
def _crelu(x: int) -> int:
    return 0 if x < 0 else (QA if x > QA else x)


@njit(cache=True)
def forward(us: np.ndarray, them: np.ndarray, l1w: np.ndarray, l1b: np.ndarray, l2w: np.ndarray,
            l2b: np.ndarray, ow: np.ndarray, ob: int) -> int:
    """The score for the side to move (evaluation units) from the two accumulators (side to move's
    first): clipped ReLU, then two dense layers with clipped ReLU, then the output; integers
    throughout (``l1w[j, i]``, ``l2w``, ``ow`` in 1/QB, biases in 1/(QA*QB)).

    An accumulator one wider than the first layer reads (``H + 1`` columns for ``l1w``'s ``2H``)
    carries a **material column** (PSQT): its sum is already in evaluation units and bypasses the
    layers, ``score += (us[H] - them[H]) / 2``.  Material is a sum over pieces, which a linear
    path represents exactly and a clipped layer only approximately; the layers then learn what
    material alone misses."""
    h = l1w.shape[1] // 2
    n1 = l1w.shape[0]
    n2 = l2w.shape[0]
    a1 = np.empty(n1, dtype=np.int64)
    for j in range(n1):
        s = l1b[j]
        for i in range(h):
            s += _crelu(us[i]) * l1w[j, i] + _crelu(them[i]) * l1w[j, h + i]
        a1[j] = _crelu((s + QB // 2) // QB)  # rounded, not floored: no bias layer by layer
    out = ob
    for j in range(n2):
        s = l2b[j]
        for i in range(n1):
            s += a1[i] * l2w[j, i]
        out += _crelu((s + QB // 2) // QB) * ow[j]
    score = (out * OUT_SCALE + QA * QB // 2) // (QA * QB)
    if us.shape[0] > h:
        score += (us[h] - them[h]) // 2
    return score
