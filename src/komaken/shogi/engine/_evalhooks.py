"""The evaluation's hooks in the search kernel, compiled for the context's evaluation (numba).

The kernels of :mod:`komaken.shogi.engine._search` call these six functions where the
evaluation needs to know of the search: at the root, before and after a move is made, at a null
move, and for a static score.  Each is a numba ``overload`` that looks at the *type* of the
context's ``nn`` field (:class:`~komaken.shogi.engine._context.SearchContext`) when the kernel is
compiled:

* :data:`~komaken.shogi.engine._context.NO_NET` (an empty tuple): the linear evaluation
  (:mod:`komaken.shogi.engine._evaluate`) with its material and PSQ sums kept per ply;
* an :class:`~komaken.shogi.engine._context.NnueState`: the network, its accumulators kept per
  ply — a child's are its parent's plus the move's feature changes
  (:func:`~komaken.shogi.engine._nnue.update`; a king move refreshes that king's perspective), so
  unmaking a move is going back a ply, and a null move copies them a ply on.

So numba compiles the kernels twice, one machine-code search per evaluation, and the linear one
is the code it was before the network existed: no network array in its context, no test of a
flag at any node.  Both specialisations are cached (``cache=True`` on the kernels).

The hooks are compiled calls, not inlined at numba's IR level (only the one-line
:func:`eval_state` is): each IR-level inlining types the whole calling kernel again, and the six
hooks made each search specialisation take some 20 s longer to compile, for no speed (nodes per
second measured the same; LLVM inlines what pays).

Called from Python (not compiled), these functions raise: they exist only to be compiled.
"""

from __future__ import annotations

from typing import Any

from numba import njit, types
from numba.extending import overload

from komaken.shogi._kernels import ST_SIDE
from komaken.shogi.engine._evaluate import W_NOISE, evaluate, evaluate_sums, material_psq, move_delta, noise
from komaken.shogi.engine._nnue import add_threats, changes, forward, refresh, update


def _with_net(c: Any) -> bool:
    """Whether the numba type of a search context is that of one with a network."""
    return "nn" in c.fields


def _net_state(ev: Any) -> bool:
    """Whether the numba type of an evaluation state (:func:`eval_state`) is the network's."""
    return not isinstance(ev, types.Array)


def _compiled_only(*args: Any) -> Any:
    raise TypeError("an evaluation hook runs only inside a compiled search kernel")


def eval_state(c: Any) -> Any:
    """The evaluation's per-ply state in the context: the linear sums ``c.acc`` or the network
    ``c.nn``.  A node takes it out once and hands it to the hooks below, which take it and the
    arrays they read, never the whole context: each array a call receives inside a tuple is
    reference-counted, and the context holds sixteen."""
    return _compiled_only()


def eval_root(bd: Any, hd: Any, st: Any, rules: Any, c: Any) -> None:
    """Set up the evaluation's per-ply state at ply 0 from the position."""
    _compiled_only()


def eval_before(bd: Any, hd: Any, st: Any, rules: Any, bval: Any, hval: Any, w: Any, ev: Any, mv: int, us: int,
                ply: int) -> None:
    """``us`` is about to play ``mv`` at ``ply`` (the position is still the one before it)."""
    _compiled_only()


def eval_after(bd: Any, hd: Any, st: Any, rules: Any, ev: Any, ply: int) -> None:
    """The move noted by :func:`eval_before` at ``ply`` has been played and not pruned: make the
    state of ``ply + 1``."""
    _compiled_only()


def eval_pass(ev: Any, ply: int) -> None:
    """A null move at ``ply``: the state of ``ply + 1`` is that of ``ply``."""
    _compiled_only()


def eval_node(bd: Any, hd: Any, st: Any, rules: Any, w: Any, ev: Any, key: Any, seed: int, ply: int) -> int:
    """The static evaluation of the position at ``ply`` for the side to move."""
    return _compiled_only()


def eval_deep(bd: Any, hd: Any, st: Any, rules: Any, bval: Any, hval: Any, w: Any, ev: Any, key: Any, seed: int,
              ply: int) -> int:
    """:func:`eval_node` at the ply limit (the linear evaluation counts its sums afresh there)."""
    return _compiled_only()


# The network's hooks are compiled functions of their own (called, not inlined into the
# kernel): writes into the network's arrays from code inlined at the IR level were lost.

@njit(cache=True)
def _nn_before(bd, hd, st, nn, mv, ply):
    nn.nchg[ply] = changes(bd, hd, st, mv, nn.chg[ply, 0], nn.chg[ply, 1], nn.chg[ply, 2])


@njit(cache=True)
def _nn_after(bd, hd, st, rules, nn, ply):
    update(bd, hd, st, rules, nn.inv, nn.w, nn.b, nn.nchg[ply], nn.chg[ply, 0], nn.chg[ply, 1], nn.chg[ply, 2],
           nn.acc[ply], nn.acc[ply + 1])


@njit(cache=True)
def _nn_pass(nn, ply):
    acc = nn.acc
    for side in range(2):
        for i in range(acc.shape[2]):
            acc[ply + 1, side, i] = acc[ply, side, i]


@overload(eval_state, inline="always")
def _eval_state(c):
    if _with_net(c):
        return lambda c: c.nn
    return lambda c: c.acc


@overload(eval_root)
def _eval_root(bd, hd, st, rules, c):
    if _with_net(c):
        def nnue(bd, hd, st, rules, c):
            nn = c.nn
            for side in range(2):
                refresh(bd, hd, st, rules, nn.inv, nn.w, nn.b, side, nn.acc[0, side])
        return nnue

    def linear(bd, hd, st, rules, c):
        c.acc[0, 0], c.acc[0, 1] = material_psq(bd, hd, rules, c.bval, c.hval, c.w)
    return linear


@overload(eval_before)
def _eval_before(bd, hd, st, rules, bval, hval, w, ev, mv, us, ply):
    if _net_state(ev):
        def nnue(bd, hd, st, rules, bval, hval, w, ev, mv, us, ply):
            _nn_before(bd, hd, st, ev, mv, ply)
        return nnue

    def linear(bd, hd, st, rules, bval, hval, w, ev, mv, us, ply):
        dm, dp = move_delta(bd, mv, us, rules, bval, hval, w)
        ev[ply + 1, 0] = ev[ply, 0] + dm
        ev[ply + 1, 1] = ev[ply, 1] + dp
    return linear


@overload(eval_after)
def _eval_after(bd, hd, st, rules, ev, ply):
    if _net_state(ev):
        def nnue(bd, hd, st, rules, ev, ply):
            _nn_after(bd, hd, st, rules, ev, ply)
        return nnue

    def linear(bd, hd, st, rules, ev, ply):
        pass  # the sums were made before the move
    return linear


@overload(eval_pass)
def _eval_pass(ev, ply):
    if _net_state(ev):
        def nnue(ev, ply):
            _nn_pass(ev, ply)
        return nnue

    def linear(ev, ply):
        ev[ply + 1, 0] = ev[ply, 0]
        ev[ply + 1, 1] = ev[ply, 1]
    return linear


@njit(cache=True)
def _audit(bd, hd, st, rules, nn, ply):
    """Count one evaluation in ``nn.audit[1]``, and in ``nn.audit[2]`` if the accumulators the
    search kept for ``ply`` differ from a full refresh of the position (tests switch this on)."""
    nn.audit[1] += 1
    for side in range(2):
        refresh(bd, hd, st, rules, nn.inv, nn.w, nn.b, side, nn.scratch[side])
        for i in range(nn.scratch.shape[1]):
            if nn.scratch[side, i] != nn.acc[ply, side, i]:
                nn.audit[2] += 1
                return


@njit(cache=True)
def _network_score(bd, hd, st, rules, w, nn, key, seed, ply):
    """The network's score from the accumulators of ``ply`` (side to move's first; with the
    threat features, those added to copies of them), plus the seeded noise the linear
    evaluation adds (the weaker skill levels play by it)."""
    us = st[ST_SIDE]
    if nn.audit[0] != 0:
        _audit(bd, hd, st, rules, nn, ply)
    acc = nn.acc[ply]
    if nn.att.shape[0] > 0:
        add_threats(bd, rules, nn.inv, nn.w, nn.att, nn.tfeat, acc, nn.tacc)
        acc = nn.tacc
    v = forward(acc[us], acc[1 - us], nn.l1w, nn.l1b, nn.l2w, nn.l2b, nn.ow, nn.ob[0])
    if w[W_NOISE] > 0.0:
        v += noise(key, seed, int(w[W_NOISE]))
    return v


@overload(eval_node)
def _eval_node(bd, hd, st, rules, w, ev, key, seed, ply):
    if _net_state(ev):
        def nnue(bd, hd, st, rules, w, ev, key, seed, ply):
            return _network_score(bd, hd, st, rules, w, ev, key, seed, ply)
        return nnue

    def linear(bd, hd, st, rules, w, ev, key, seed, ply):
        return evaluate_sums(bd, hd, st, rules, w, key, seed, int(ev[ply, 0]), ev[ply, 1])
    return linear


@overload(eval_deep)
def _eval_deep(bd, hd, st, rules, bval, hval, w, ev, key, seed, ply):
    if _net_state(ev):
        def nnue(bd, hd, st, rules, bval, hval, w, ev, key, seed, ply):
            return _network_score(bd, hd, st, rules, w, ev, key, seed, ply)
        return nnue

    def linear(bd, hd, st, rules, bval, hval, w, ev, key, seed, ply):
        return evaluate(bd, hd, st, rules, bval, hval, w, key, seed)
    return linear
