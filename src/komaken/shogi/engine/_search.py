"""The α-β search kernel (numba).

One call of :func:`search_depth` searches the position to a fixed depth; the Python driver in
:mod:`komaken.shogi.engine.search` calls it for depth 1, 2, 3, ... (iterative deepening) and keeps the
transposition table, killers and history between iterations, so each iteration starts from
the previous one's best line.

Inside: negamax with α-β and principal-variation search; a transposition table (Zobrist keys,
always-replace, each entry keeping its position's static evaluation); move ordering
(:mod:`komaken.shogi.engine._ordering`) hash move → captures by MVV-LVA (most valuable victim,
least valuable attacker) → killer moves → captures that lose material by static exchange
evaluation (:mod:`komaken.shogi.engine._see`) → history, the quiet moves that pruning would skip
dropped from the list once it sets in; null-move and futility pruning (which, with ``tt_eval``,
read the hash table's score where its bound says more than the static evaluation, and with
``corr_history`` an evaluation corrected by :mod:`komaken.shogi.engine._correction`) and late-move
reductions;
one ply of extension for checks, and with ``singular_depth`` for a hash move every other move
falls short of (singular extension, searched at the same ply without it: ``skip[ply]``);
quiescence search over captures that do not lose material by SEE (all evasions when in check),
reading and writing the transposition table with the setting ``qs_tt``;
mate scores ``±(MATE - plies)``; repetition (千日手, 連続王手の千日手), 持将棋 point counts,
declarations and the ply limit per variant.

Every kernel takes the position (a :class:`~komaken.shogi.kernel.KernelState`) and one
:class:`~komaken.shogi.engine._context.SearchContext` holding the tables, settings and counters.
The evaluation is the context's: the linear one or a network, each its own compiled search
(:mod:`komaken.shogi.engine._evalhooks`).

The driver's stop flag (``ctl.stop``, set from another thread), the node limit and the clock
(``ctl.deadline``, read by the kernel itself: :mod:`komaken.shogi.engine._clock`) are polled
every 1024 nodes; once the search is aborted every node returns at once and the driver uses
only moves whose subtree finished.

MultiPV: the driver searches the root once per line, each time excluding the root moves of the
lines already found (the first ``ctl.excluded`` moves of ``excl``), with a full window; such a
restricted root is never stored in the transposition table.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import BASE, ZSIDE
from komaken.shogi._kernels import (
    FROM_START,
    H_CAPTURED,
    H_CHECK,
    H_MOVE,
    R_DECIDE,
    R_KING_CAPTURE,
    ST_PLY,
    ST_SIDE,
    decided,
    gen_captures_into,
    gen_legal_into,
    in_check,
    move_from,
    move_to,
    push,
    undo_move,
)
from komaken.shogi.engine._clock import monotonic_ns
from komaken.shogi.engine._context import MAX_PLY, Context
from komaken.shogi.engine._correction import corr_key, corr_update, corrected
from komaken.shogi.engine._evalhooks import (
    eval_after,
    eval_before,
    eval_deep,
    eval_node,
    eval_pass,
    eval_root,
    eval_state,
)
from komaken.shogi.engine._evaluate import capture_gain
from komaken.shogi.engine._gameover import game_over_score
from komaken.shogi.engine._history import is_quiet, reward_cutoff
from komaken.shogi.engine._ordering import keep_unprunable, pick, score_moves
from komaken.shogi.engine._searchparams import (
    LMR_N,
    SP_CHECK_EXT,
    SP_CORR,
    SP_FUT_DEPTH,
    SP_FUT_MARGIN,
    SP_HISTORY,
    SP_IIR_DEPTH,
    SP_LMP_BASE,
    SP_LMP_DEPTH,
    SP_LMR,
    SP_LMR_HISTORY,
    SP_NULL_DIV,
    SP_NULL_R,
    SP_QS_DELTA,
    SP_QS_TT,
    SP_RFP_DEPTH,
    SP_RFP_MARGIN,
    SP_SE_DEPTH,
    SP_SE_MARGIN,
    SP_SEE_DEPTH,
    SP_SEE_MARGIN,
    SP_TT_EVAL,
)
from komaken.shogi.engine._see import see, threat_on
from komaken.shogi.engine._tt import (
    F_EXACT,
    F_LOWER,
    F_UPPER,
    INF,
    MATE,
    MATE_BOUND,
    bound_decides,
    bound_of,
    tt_hit,
    tt_index,
    tt_key_word,
    tt_static,
    tt_store,
    tt_unpack,
)
from komaken.shogi.kernel import KernelState

SCRATCH_ROW = MAX_PLY + 1  # a row of the move-score buffer no ply reaches: SEE's scratch space

# typed (not literal) constants for recursive calls: a literal argument would make numba compile
# one more specialisation of the recursive function, and cached recursive specialisations crash
ON = np.int64(1)
OFF = np.int64(0)


@njit(cache=True)
def _poll(ctl: np.ndarray) -> bool:
    c = ctl[0]
    c.nodes += 1
    if (c.nodes & 1023) == 0:
        if c.stop != 0 or (c.max_nodes > 0 and c.nodes >= c.max_nodes):
            c.abort = 1
        elif c.deadline > 0 and monotonic_ns() >= c.deadline:  # type: ignore[call-arg]
            c.abort = 1
    return c.abort != 0


@njit(cache=True)
def qsearch(pos: KernelState, c: Context, alpha, beta, ply) -> int:
    """Captures only (every evasion when in check) until the position is quiet.

    Out of check only the captures are generated (:func:`gen_captures_into`), never the quiet
    moves and drops, so a side that is not in check and has no legal move at all (rare: a
    cornered king with nothing in hand) stands pat here; the main search scores it as lost."""
    bd, hd, st, hh, hist, geo, rules = pos
    ev = eval_state(c)
    ctl = c.ctl[0]
    if _poll(c.ctl):
        return 0
    if ply > ctl.seldepth:
        ctl.seldepth = ply
    seed = ctl.seed
    if rules[R_DECIDE] != 0:
        winner = decided(bd, st, geo, rules)
        if winner >= 0:
            return MATE - ply if winner == st[ST_SIDE] else -MATE + ply
    # a king that may be captured is not "in check": the captures below include taking it, and
    # answering every attack on it with all moves would not end
    checked = in_check(bd, st, rules) and rules[R_KING_CAPTURE] == 0
    stand = -INF
    if ply >= MAX_PLY - 2:
        return eval_deep(bd, hd, st, rules, c.bval, c.hval, c.w, ev, hh[st[ST_PLY]], seed, ply)
    h = hh[st[ST_PLY]]
    use_tt = c.sp[SP_QS_TT] != 0
    static = -INF
    if use_tt:
        idx = tt_index(c.tt_key, h)
        if tt_hit(c.tt_key, idx, h):
            static = tt_static(c.tt_key, idx)
            _, _, tf, ts = tt_unpack(c.tt_data[idx], ply)
            if beta - alpha == 1 and bound_decides(tf, ts, alpha, beta):
                return ts
    old_alpha = alpha
    if not checked:
        if static == -INF:
            static = eval_node(bd, hd, st, rules, c.w, ev, h, seed, ply)
        stand = static
        if c.sp[SP_CORR] != 0:
            stand = corrected(c.corr, st[ST_SIDE], corr_key(hd, st), static)
        if stand >= beta:
            if use_tt:
                tt_store(c.tt_key, c.tt_data, h, 0, stand, 0, F_LOWER, ply, static)
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
    else:
        best = -MATE + ply
    moves = c.mbuf[ply]
    scores = c.sbuf[ply]
    if checked:
        n_all = gen_legal_into(bd, hd, st, geo, rules, moves, FROM_START, c.gen)
        if n_all == 0:
            return -MATE + ply
    else:
        n_all = gen_captures_into(bd, hd, st, geo, rules, moves, FROM_START, c.gen)
    n = 0
    us = st[ST_SIDE]
    delta = c.sp[SP_QS_DELTA]
    for i in range(n_all):
        mv = moves[i]
        victim = bd[move_to(mv)]
        frm = move_from(mv)
        if not checked and delta > 0 and stand + capture_gain(bd, mv, us, c.bval, c.hval) + delta <= alpha:
            continue  # even winning the piece outright leaves the score below alpha
        if not checked and see(bd, rules, c.bval, frm, move_to(mv), us, c.sbuf[SCRATCH_ROW]) < 0:
            continue  # a capture that loses material in the exchange does not make it quiet
        moves[n] = mv
        scores[n] = abs(c.bval[victim]) * 64 - (abs(c.bval[bd[frm]]) >> 6 if frm != 0 else 0)
        n += 1
    best_move = 0
    for i in range(n):
        mv = pick(moves, scores, i, n)
        eval_before(bd, hd, st, rules, c.bval, c.hval, c.w, ev, mv, st[ST_SIDE], ply)
        push(bd, hd, st, hh, hist, rules, mv)
        eval_after(bd, hd, st, rules, ev, ply)
        v = -qsearch(pos, c, -beta, -alpha, ply + 1)
        undo_move(bd, hd, st, hist)
        if ctl.abort != 0:
            return 0
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                best_move = mv
                if v >= beta:
                    break
    if use_tt:
        tt_store(c.tt_key, c.tt_data, h, best_move, best, 0, bound_of(best, old_alpha, beta), ply, static)
    return best


@njit(cache=True)
def _excluded(c: Context, mv: int) -> bool:
    for k in range(c.ctl[0].excluded):
        if c.excl[k] == mv:
            return True
    return False


@njit(cache=True)
def negamax(pos: KernelState, c: Context, depth: int, alpha: int, beta: int, ply, can_null) -> int:
    """Score of the position from the side to move's view, searched ``depth`` plies deep."""
    bd, hd, st, hh, hist, geo, rules = pos
    ev = eval_state(c)
    ctl = c.ctl[0]
    c.pvlen[ply] = ply
    if ply > 0:
        if _poll(c.ctl):
            return 0
        over = game_over_score(bd, hd, st, hh, hist, geo, rules, ctl.game_start, ply)
        if over != INF:
            return over
        # mate distance pruning: no line from here beats a mate already found nearer the root
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
    if ply >= MAX_PLY - 4:
        return eval_deep(bd, hd, st, rules, c.bval, c.hval, c.w, ev, hh[st[ST_PLY]], ctl.seed, ply)
    checked = in_check(bd, st, rules)
    if depth <= 0 and not checked:
        return qsearch(pos, c, alpha, beta, ply)
    if depth < 0:
        depth = 0
    pv_node = beta - alpha > 1
    h = hh[st[ST_PLY]]
    idx = tt_index(c.tt_key, h)
    ttm = 0
    # the static evaluation, kept with the position's table entry; computed below only where a
    # pruning rule reads it
    static = -INF
    hit = tt_hit(c.tt_key, idx, h)
    tf = 0
    ts = 0
    td = 0
    # a singular-extension search of this position without its hash move (skip): no cut-off, pruning
    # or storing on the hash table's word, which is about the position with every move
    skip = c.skip[ply]
    if hit:
        static = tt_static(c.tt_key, idx)
        ttm, td, tf, ts = tt_unpack(c.tt_data[idx], ply)
        if ply > 0 and not pv_node and skip == 0 and td >= depth and bound_decides(tf, ts, alpha, beta):
            return ts
    seed = ctl.seed
    us = st[ST_SIDE]
    if static == -INF and not checked and not pv_node and ply > 0 and (
            depth <= c.sp[SP_RFP_DEPTH] or depth <= c.sp[SP_FUT_DEPTH]
            or (can_null != 0 and depth >= 3 and abs(beta) < MATE_BOUND)):
        static = eval_node(bd, hd, st, rules, c.w, ev, h, seed, ply)
        if hit:
            c.tt_key[idx] = tt_key_word(h, static)
    # what the pruning rules read: the static evaluation, or with tt_eval the hash table's score
    # where its bound says the position is worth more (a lower bound above it) or less
    est = static
    ckey = -1
    if c.sp[SP_CORR] != 0 and static != -INF and not checked:
        ckey = corr_key(hd, st)
        est = corrected(c.corr, us, ckey, static)
    cest = est  # the corrected static evaluation, before the hash table's score may replace it
    if c.sp[SP_TT_EVAL] != 0 and static != -INF and abs(ts) < MATE_BOUND and bound_decides(tf, ts, cest, cest):
        est = ts
    # reverse futility: far enough above beta that a quiet reply will not bring it back
    if (not pv_node and not checked and ply > 0 and skip == 0 and depth <= c.sp[SP_RFP_DEPTH]
            and abs(beta) < MATE_BOUND and est - c.sp[SP_RFP_MARGIN] * depth >= beta):
        return est
    # null move: if passing still holds beta, a real move will too (not in check, not near mates)
    if (can_null != 0 and not pv_node and not checked and depth >= 3 and ply > 0 and skip == 0
            and abs(beta) < MATE_BOUND and est >= beta):
        cur = st[ST_PLY]
        hist[cur, H_MOVE] = 0
        hist[cur, H_CAPTURED] = 0
        hist[cur, H_CHECK] = 0
        hh[cur + 1] = h ^ ZSIDE
        st[ST_SIDE] = 1 - us
        st[ST_PLY] = cur + 1
        eval_pass(ev, ply)
        saved_start = ctl.game_start
        ctl.game_start = cur + 1  # no repetition through a pass
        r = c.sp[SP_NULL_R] + (depth // c.sp[SP_NULL_DIV] if c.sp[SP_NULL_DIV] > 0 else 0)
        v = -negamax(pos, c, depth - 1 - r, -beta, -beta + 1, ply + 1, OFF)
        ctl.game_start = saved_start
        st[ST_SIDE] = us
        st[ST_PLY] = cur
        if ctl.abort != 0:
            return 0
        if v >= beta:
            return beta
    # internal iterative reduction: without a hash move the ordering is poor, so search shallower
    if ttm == 0 and c.sp[SP_IIR_DEPTH] > 0 and depth >= c.sp[SP_IIR_DEPTH]:
        depth -= 1
    # singular extension: when every other move, searched half as deep, stays below the hash move's
    # stored score less a margin, the hash move is extended; when even that lower bound holds beta,
    # several moves do (multi-cut).  Searched before this node's moves are generated: it uses this
    # ply's move buffer.
    tt_ext = 0
    if (skip == 0 and ply > 0 and c.sp[SP_SE_DEPTH] > 0 and depth >= c.sp[SP_SE_DEPTH] and ttm != 0
            and (tf == F_LOWER or tf == F_EXACT) and td >= depth - 3 and abs(ts) < MATE_BOUND
            and ply < 2 * ctl.root_depth):
        sbeta = ts - c.sp[SP_SE_MARGIN] * depth
        c.skip[ply] = ttm
        v = negamax(pos, c, (depth - 1) // 2, sbeta - 1, sbeta, ply, OFF)
        c.skip[ply] = 0
        if ctl.abort != 0:
            return 0
        if v < sbeta:
            tt_ext = 1
        elif sbeta >= beta:
            return sbeta
        c.pvlen[ply] = ply
    moves = c.mbuf[ply]
    scores = c.sbuf[ply]
    n = gen_legal_into(bd, hd, st, geo, rules, moves, FROM_START, c.gen)
    if n == 0:
        return -MATE + ply  # checkmated, or no move at all: both lose in shogi
    score_moves(bd, rules, moves, scores, n, ttm, c.bval, c.killers, c.history, ply, us, c.sbuf[SCRATCH_ROW])
    best = -INF
    best_move = 0
    old_alpha = alpha
    searched = 0
    quiets = 0
    # the pruning of moves below needs a static score, a move already searched and no mate in sight
    may_prune = ply > 0 and not checked and not pv_node
    lmp_count = c.sp[SP_LMP_BASE] + depth * depth
    # the list can shrink once every quiet non-check is pruned (not where the fixed reductions of lmr = 0
    # read a move's place in it, nor where the history malus reads the quiets before a cut-off)
    may_cull = may_prune and c.sp[SP_LMR] != 0 and c.sp[SP_HISTORY] == 0
    i = -1
    while i + 1 < n:
        i += 1
        if may_cull and searched > 0 and best > -MATE_BOUND and (
                (depth <= c.sp[SP_LMP_DEPTH] and quiets >= lmp_count)
                or (depth <= c.sp[SP_FUT_DEPTH] and est + c.sp[SP_FUT_MARGIN] * depth <= alpha)):
            n = keep_unprunable(bd, st, rules, moves, scores, i, n, ttm)
            may_cull = False
            if i >= n:
                break
        mv = pick(moves, scores, i, n)
        if ply == 0 and ctl.excluded > 0 and _excluded(c, mv):
            continue
        if mv == skip:
            continue
        frm = move_from(mv)
        to = move_to(mv)
        quiet = is_quiet(bd, mv)
        if quiet:
            quiets += 1
        prunable = may_prune and searched > 0 and best > -MATE_BOUND and mv != ttm
        if prunable and not quiet and frm != 0 and depth <= c.sp[SP_SEE_DEPTH] and scores[i] < (1 << 47) \
                and see(bd, rules, c.bval, frm, to, us, c.sbuf[SCRATCH_ROW]) < -c.sp[SP_SEE_MARGIN] * depth:
            continue  # a capture that loses too much in the exchange (ordered after the killers)
        eval_before(bd, hd, st, rules, c.bval, c.hval, c.w, ev, mv, us, ply)
        gives = push(bd, hd, st, hh, hist, rules, mv)
        if prunable and quiet and not gives:
            if depth <= c.sp[SP_LMP_DEPTH] and quiets > lmp_count:
                undo_move(bd, hd, st, hist)
                continue
            if depth <= c.sp[SP_FUT_DEPTH] and est + c.sp[SP_FUT_MARGIN] * depth <= alpha:
                undo_move(bd, hd, st, hist)
                continue
        eval_after(bd, hd, st, rules, ev, ply)  # after the pruning above: a pruned move needs no evaluation state
        searched += 1
        ext = tt_ext if mv == ttm else 0
        if gives and ply < 2 * ctl.root_depth and ply < MAX_PLY // 2:
            if c.sp[SP_CHECK_EXT] == 1:
                ext = 1
            elif c.sp[SP_CHECK_EXT] == 2 and threat_on(bd, rules, c.bval, to, 1 - us, c.sbuf[SCRATCH_ROW]) <= 0:
                ext = 1
        nd = depth - 1 + ext
        if searched == 1:
            v = -negamax(pos, c, nd, -beta, -alpha, ply + 1, ON)
        else:
            r = 0
            if quiet and not gives and not checked and depth >= 3:
                if c.sp[SP_LMR] == 0:
                    if i >= 3:
                        r = 1 if i < 8 else 2
                elif scores[i] < (1 << 47):  # not a killer
                    r = c.lmr[min(depth, LMR_N - 1), min(searched, LMR_N - 1)]
                    if pv_node:
                        r -= 1
                    if c.sp[SP_LMR_HISTORY] > 0:
                        r -= int(scores[i] / c.sp[SP_LMR_HISTORY])
                    if r > nd - 1:
                        r = nd - 1
                    if r < 0:
                        r = 0
            v = -negamax(pos, c, nd - r, -alpha - 1, -alpha, ply + 1, ON)
            if v > alpha and r > 0:
                v = -negamax(pos, c, nd, -alpha - 1, -alpha, ply + 1, ON)
            if v > alpha and v < beta:
                v = -negamax(pos, c, nd, -beta, -alpha, ply + 1, ON)
        undo_move(bd, hd, st, hist)
        if ctl.abort != 0:
            return 0
        if v > best:
            best = v
            best_move = mv
            if v > alpha:
                alpha = v
                c.pv[ply, ply] = mv
                for k in range(ply + 1, c.pvlen[ply + 1]):
                    c.pv[ply, k] = c.pv[ply + 1, k]
                c.pvlen[ply] = c.pvlen[ply + 1] if c.pvlen[ply + 1] > ply + 1 else ply + 1
                if ply == 0:
                    ctl.root_move = mv
                    ctl.root_score = v
                if v >= beta:
                    if quiet:
                        if c.killers[ply, 0] != mv:
                            c.killers[ply, 1] = c.killers[ply, 0]
                            c.killers[ply, 0] = mv
                        reward_cutoff(c.history, bd, moves, i, depth, c.sp[SP_HISTORY])
                    break
    if searched == 0:
        return alpha  # every move was pruned (cannot happen at the root: its first move is searched)
    if (ply == 0 and ctl.excluded > 0) or skip != 0:
        return best  # a node with moves left out is not this position's value
    bound = bound_of(best, old_alpha, beta)
    # what this search found beyond the static evaluation teaches the position's family, unless a
    # capture or promotion decided it or the bound leaves the true score on the static side
    if (ckey >= 0 and abs(best) < MATE_BOUND and (best_move == 0 or is_quiet(bd, best_move))
            and not (bound == F_LOWER and best <= cest) and not (bound == F_UPPER and best >= cest)):
        corr_update(c.corr, us, ckey, best - cest, depth)
    tt_store(c.tt_key, c.tt_data, h, best_move, best, depth, bound, ply, static)
    return best


@njit(cache=True, nogil=True)
def search_depth(pos: KernelState, c: Context, depth: int, alpha, beta) -> int:
    """One iteration of iterative deepening from the root (ply 0); the GIL is released.

    The evaluation's state per ply (the linear evaluation's material and PSQ sums ``acc[ply]``, or
    the network's accumulators) is set up here and kept up to date move by move
    (:mod:`komaken.shogi.engine._evalhooks`), so that no node counts it afresh."""
    eval_root(pos.bd, pos.hd, pos.st, pos.rules, c)
    ctl = c.ctl[0]
    ctl.root_move = 0
    ctl.root_score = -INF
    ctl.root_depth = depth
    return negamax(pos, c, depth, alpha, beta, np.int64(0), OFF)


@njit(cache=True)
def age_history(history: np.ndarray) -> None:
    for i in range(history.shape[0]):
        for j in range(history.shape[1]):
            history[i, j] >>= 2


_ = BASE  # re-exported for users of this module's tables
