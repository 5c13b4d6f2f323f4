"""Whole self-play games in one numba call: search, move, game-end checks, material features.

:func:`play_game` plays one game of the engine against itself from a start position and returns
nothing to Python until the game is over, so there is no Python per move.  Each move is the
engine's iterative-deepening search (the kernels of :mod:`komaken.shogi.engine._search`) at a node
budget or a fixed depth, with the same rules the Python :class:`komaken.shogi.engine.Engine` follows:
tables cleared before every search, a partly searched iteration's root move used only if its
subtree finished, a declaration when the 27-point rule allows it.  With the same transposition
table size (``tt_bits`` = log2 of the entries; ``hash_mb = 1`` is 16) and seed, a game here is
move for move the game :func:`komaken.match.play_game` plays with two ``EnginePlayer``
objects — the tests check it.

Games differ through ``random_plies`` uniformly random legal opening moves (a splitmix64 stream
from the game's seed, redrawn if the opening ends the game) and through the evaluation's noise
term, seeded with the same seed.

For every position from the end of the opening to the end of the game (the final position
included) the kernel writes one row of :data:`NF` ``int8`` features:

=========  ==============================================================================
columns    meaning
=========  ==============================================================================
0-6        black's unpromoted pieces on the board: P L N S G B R
7-12       black's promoted pieces: +P +L +N +S +B +R
13-19      black's pieces in hand: P L N S G B R
20-39      the same for white
40         side to move (0 black, 1 white)
41         flags: 1 in check, 2 a capture is legal, 4 a capture-only search gains material,
           8 that search hit its node cap (undecided)
=========  ==============================================================================

This module is the only one outside the engine package that touches engine internals.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import KIND_MASK
from komaken.shogi._kernels import (
    FROM_START,
    MAX_MOVES,
    R_NSQ,
    R_SQUARES,
    ST_PLY,
    ST_SIDE,
    can_declare,
    full_hash,
    game_end,
    gen_captures_into,
    gen_legal,
    in_check,
    push,
)
from komaken.shogi.engine._context import MAX_PLY, SearchContext, clear_control
from komaken.shogi.engine._evaluate import W_NOISE, evaluate, material_psq, splitmix_mix
from komaken.shogi.engine._search import INF, MATE, MATE_BOUND, qsearch, search_depth
from komaken.shogi.kernel import KernelState

NF = 42
COL_SIDE, COL_FLAGS = 40, 41
FLAG_CHECK, FLAG_CAPTURE, FLAG_QS_GAIN, FLAG_QS_CAP = 1, 2, 4, 8
#: a position with any of these flags is not quiet (the fits use the quiet ones only)
NOT_QUIET = FLAG_CHECK | FLAG_QS_GAIN | FLAG_QS_CAP
#: termination codes beyond the rules kernel's (END_NONE .. END_MAX_PLIES = 0 .. 6)
END_DECLARATION = 7
QS_NODE_CAP = 20_000
MAX_DEPTH = MAX_PLY - 8
_MASK63 = 0x7FFFFFFFFFFFFFFF
# typed (not literal) arguments for the recursive search kernels: a literal would compile one
# more specialisation of them, and cached recursive specialisations crash on reload
_LO = np.int64(-INF)
_HI = np.int64(INF)
_ZERO = np.int64(0)
# column of each piece code's kind within a side's 20 columns (-1: not counted, the king)
_BOARD_COL = np.array([-1, 0, 1, 2, 3, 4, 5, 6, -1, 7, 8, 9, 10, -1, 11, 12], dtype=np.int64)


@njit(cache=True)
def _splitmix(state: np.ndarray) -> np.uint64:
    """The next number of a splitmix64 stream kept in ``state[0]``."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    return splitmix_mix(state[0])


@njit(cache=True)
def features(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, rules: np.ndarray, row: np.ndarray) -> None:
    """Write the material columns and the side to move of the position into ``row``."""
    row[:] = 0
    for i in range(rules[R_NSQ]):
        p = bd[rules[R_SQUARES + i]]
        if p == 0:
            continue
        col = _BOARD_COL[p & KIND_MASK]
        if col < 0:
            continue
        row[col + (0 if p & 0x10 else 20)] += 1
    for c in range(2):
        for k in range(1, 8):
            row[20 * c + 12 + k] = hd[c, k]
    row[COL_SIDE] = st[ST_SIDE]


@njit(cache=True)
def quiet_flags(pos: KernelState, q: SearchContext, moves: np.ndarray) -> int:
    """The flags column: in check, capture available, and whether a material-only capture search
    (``q``, a :func:`~komaken.shogi.engine._context.capture_context`) gains over the static material
    count (the position is then not quiet)."""
    bd, hd, st, hh, hist, geo, rules = pos
    flags = 0
    if in_check(bd, st, rules):
        flags |= FLAG_CHECK
    capture = gen_captures_into(bd, hd, st, geo, rules, moves, FROM_START, q.gen) > 0  # the context's scratch
    if capture:
        flags |= FLAG_CAPTURE
    if capture and not (flags & FLAG_CHECK):
        clear_control(q.ctl)
        q.ctl[0].max_nodes = QS_NODE_CAP
        stand = evaluate(bd, hd, st, rules, q.bval, q.hval, q.w, hh[st[ST_PLY]], 0)
        q.acc[0, 0], q.acc[0, 1] = material_psq(bd, hd, rules, q.bval, q.hval, q.w)
        v = qsearch(pos, q, _LO, _HI, _ZERO)
        if q.ctl[0].abort != 0:
            flags |= FLAG_QS_CAP
        elif v > stand:
            flags |= FLAG_QS_GAIN
    return flags


@njit(cache=True)
def best_move(pos: KernelState, c: SearchContext, first_legal: int, nodes: int, depth: int, seed: int) -> int:
    """Iterative deepening to ``depth`` (0: no limit) within ``nodes`` (0: no limit), exactly as
    :meth:`komaken.shogi.engine.Engine.search` does it, from cleared tables; returns the move chosen."""
    clear_control(c.ctl)
    ctl = c.ctl[0]
    ctl.seed = seed
    ctl.max_nodes = nodes
    c.tt_key[:] = 0
    c.tt_data[:] = 0
    c.killers[:] = 0
    c.history[:] = 0
    c.corr[:] = 0
    max_depth = MAX_DEPTH if depth <= 0 else min(depth, MAX_DEPTH)
    best = 0
    for d in range(1, max_depth + 1):
        v = search_depth(pos, c, d, _LO, _HI)
        if ctl.abort != 0:
            root = ctl.root_move
            if root != 0:
                best = root
            break
        best = c.pv[0, 0] if c.pvlen[0] > 0 else ctl.root_move
        if v > MATE_BOUND and MATE - v <= d:
            break
        if v < -MATE_BOUND and MATE + v <= d:
            break
        if nodes > 0 and ctl.nodes >= nodes:
            break
    return best if best != 0 else first_legal


@njit(cache=True)
def play_game(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, geo: np.ndarray, rules: np.ndarray,
              c: SearchContext, q: SearchContext, seed: int, nodes: int, depth: int, random_plies: int,
              max_plies: int, feat: np.ndarray, moves_out: np.ndarray) -> np.ndarray:
    """Play one game from (``bd``, ``hd``, ``st``) (a start position, ply 0; not modified) with
    the search context ``c`` (its values, weights, settings and tables); ``q`` is the material-only
    capture search of :func:`quiet_flags`.

    ``feat`` (``int8[max_plies + 1, NF]``) receives one row per position after the opening;
    ``moves_out`` (``int64[max_plies]``) the moves, opening included.  Returns ``int64[4]``:
    the end code (termination * 4 + winner, winner 0 black, 1 white, 2 draw), plies played,
    opening plies, feature rows written.
    """
    room = max_plies + MAX_PLY + 16
    state = np.zeros(1, dtype=np.uint64)
    state[0] = np.uint64(seed)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    b = bd.copy()
    h = hd.copy()
    s = st.copy()
    hh = np.zeros(room + 1, dtype=np.uint64)
    hist = np.zeros((room, 3), dtype=np.int64)
    h0 = full_hash(b, h, s[ST_SIDE])
    # the opening: random legal moves, redrawn until the game is still going after them
    for _attempt in range(1000):
        b[:] = bd
        h[:] = hd
        s[:] = st
        hh[0] = h0
        ok = True
        for i in range(random_plies):
            n = gen_legal(b, h, s, geo, rules, moves)
            if n == 0 or game_end(b, h, s, hh, hist, geo, rules, 0) != 0:
                ok = False
                break
            mv = moves[int(_splitmix(state) % np.uint64(n))]
            moves_out[i] = mv
            push(b, h, s, hh, hist, rules, mv)
        if ok and game_end(b, h, s, hh, hist, geo, rules, 0) == 0:
            break
    pos = KernelState(b, h, s, hh, hist, geo, rules)
    noise_seed = seed & _MASK63 if c.w[W_NOISE] > 0.0 else 0
    out = np.zeros(4, dtype=np.int64)
    out[2] = random_plies
    rows = 0
    while True:
        ply = s[ST_PLY]
        features(b, h, s, rules, feat[rows])
        feat[rows, COL_FLAGS] = quiet_flags(pos, q, moves)
        rows += 1
        end = game_end(b, h, s, hh, hist, geo, rules, 0)
        if end == 0 and ply >= max_plies:
            end = 6 * 4 + 2  # END_MAX_PLIES, draw
        if end == 0 and can_declare(b, h, s, geo, rules):
            end = END_DECLARATION * 4 + s[ST_SIDE]
        if end != 0:
            out[0] = end
            out[1] = ply
            out[3] = rows
            return out
        gen_legal(b, h, s, geo, rules, moves)
        mv = best_move(pos, c, moves[0], nodes, depth, noise_seed)
        moves_out[ply] = mv
        push(b, h, s, hh, hist, rules, mv)
