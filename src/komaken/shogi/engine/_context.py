"""The search context: everything the α-β kernel (:mod:`komaken.shogi.engine._search`) reads or
writes besides the position, as one object built in one place (:func:`new_context`).

The kernels take two arguments where they once took 27: the position
(:class:`~komaken.shogi.kernel.KernelState`) and a :class:`SearchContext`.  A new table, a new
setting or a second evaluation is one more field here, not one more positional argument threaded
through every recursive call.  Both are named tuples of numpy arrays, which numba passes by their
fields (no copying, no Python objects inside the kernel).

``ctl`` is a one-record structured array (:data:`CONTROL`): the kernel reads and writes its fields
by name (``c.ctl[0].nodes``); the Python driver does the same (``ctx.ctl["stop"][0] = 1`` from
another thread stops a search).

The evaluation is chosen by the context's type: a :class:`SearchContext` evaluates with the
linear evaluation, an :class:`NnueContext` (the same fields and ``nn``, an :class:`NnueState`)
with a network.  numba compiles the kernels once for each type, and the hooks of
:mod:`komaken.shogi.engine._evalhooks` compile to the linear code or to the network's, so the
linear search carries no network array and tests no flag (a context that merely *held* the
network's arrays made the linear search 35-40 % slower).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from komaken.shogi._board import BOARD_SIZE
from komaken.shogi._kernels import MAX_MOVES, R_NSQ, SCRATCH_SIZE
from komaken.shogi.engine._correction import CORR_SHAPE
from komaken.shogi.engine._evaluate import W_SIZE
from komaken.shogi.engine._nnue import MAX_CHANGES, n_features, reads_threats, square_index
from komaken.shogi.engine._searchparams import LMR_N, SP_SIZE

MAX_PLY = 128
ROWS = MAX_PLY + 2  # one row per ply, and the move-score buffer's SEE scratch row (MAX_PLY + 1)
HISTORY_SHAPE = (64, 256)  # [piece code, destination square]

#: the search's counters and flags, one record
CONTROL = np.dtype([
    ("nodes", np.int64),        # nodes visited so far
    ("stop", np.int64),         # set from another thread: finish now
    ("abort", np.int64),        # set by the kernel once stop or the node limit is seen
    ("max_nodes", np.int64),    # node limit (0: none), polled every 1024 nodes
    ("seldepth", np.int64),     # the deepest ply reached
    ("game_start", np.int64),   # the first ply a repetition may reach back to
    ("seed", np.int64),         # the evaluation noise's seed
    ("root_move", np.int64),    # the best root move of the running iteration so far
    ("root_score", np.int64),   # and its score
    ("root_depth", np.int64),   # the running iteration's depth
    ("excluded", np.int64),     # MultiPV: the root skips the first this many moves of ``excl``
    ("deadline", np.int64),     # stop at this time.monotonic_ns() reading (0: none), polled with ``stop``
])


class SearchContext(NamedTuple):
    """What the search kernel works with besides the position (see the module docstring).

    ``bval``/``hval`` piece values on the board and in hand, ``w`` the evaluation weights, ``sp``
    the search settings (:mod:`komaken.shogi.engine._searchparams`), ``lmr`` the late-move
    reduction table; ``tt_key``/``tt_data`` the transposition table, ``killers`` and ``history``
    the move-ordering tables, ``corr`` the correction history
    (:mod:`komaken.shogi.engine._correction`), ``pv``/``pvlen`` the triangular principal-variation
    table, ``mbuf``/``sbuf`` moves and their scores per ply, ``gen`` the move generator's scratch
    (int16, as every other caller passes it: one compiled generator, cached once, serves them all),
    ``acc`` the material and PSQ sums per ply, ``excl`` the root moves MultiPV leaves out,
    ``skip[ply]`` the move a singular-extension search at that ply leaves out (0: none).
    (:class:`NnueContext` adds the network.)
    """

    ctl: np.ndarray
    excl: np.ndarray
    skip: np.ndarray
    bval: np.ndarray
    hval: np.ndarray
    w: np.ndarray
    sp: np.ndarray
    lmr: np.ndarray
    tt_key: np.ndarray
    tt_data: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    corr: np.ndarray
    pv: np.ndarray
    pvlen: np.ndarray
    mbuf: np.ndarray
    sbuf: np.ndarray
    gen: np.ndarray
    acc: np.ndarray


#: "no network": :func:`new_context` and :func:`with_network` then make a :class:`SearchContext`
NO_NET: tuple[()] = ()


class NetArrays(NamedTuple):
    """A quantized network as the search evaluates it: the accumulator's feature weights ``w``
    (int16 ``[features, H]``) and bias ``b`` (int32 ``[H]``), then the dense layers of
    :func:`~komaken.shogi.engine._nnue.forward` (int64: ``l1w [N1, 2H]``, ``l1b [N1]``,
    ``l2w [N2, N1]``, ``l2b [N2]``, ``ow [N2]``, ``ob [1]``)."""

    w: np.ndarray
    b: np.ndarray
    l1w: np.ndarray
    l1b: np.ndarray
    l2w: np.ndarray
    l2b: np.ndarray
    ow: np.ndarray
    ob: np.ndarray


class NnueState(NamedTuple):
    """``SearchContext.nn`` with a network: its arrays (:class:`NetArrays`' fields), the board's
    square numbering ``inv`` (:func:`~komaken.shogi.engine._nnue.square_index`), the accumulators
    ``acc[ply, colour]`` (int32) and each ply's move's feature changes ``chg[ply]`` (pieces, squares,
    signs) and their count ``nchg[ply]``; ``audit`` (on, evaluations, mismatches) and ``scratch``
    let a test compare every evaluated node's accumulators with a full refresh.  A net with the
    threat features has ``att`` int8 ``[2, BOARD_SIZE]`` (:func:`~komaken.shogi.engine._nnue.attack_maps`)
    ``tfeat`` (one perspective's threat features) and ``tacc`` (the accumulators with the threats
    added, at the node being evaluated); without them ``att`` has no rows."""

    w: np.ndarray
    b: np.ndarray
    l1w: np.ndarray
    l1b: np.ndarray
    l2w: np.ndarray
    l2b: np.ndarray
    ow: np.ndarray
    ob: np.ndarray
    inv: np.ndarray
    acc: np.ndarray
    chg: np.ndarray
    nchg: np.ndarray
    audit: np.ndarray
    scratch: np.ndarray
    att: np.ndarray
    tfeat: np.ndarray
    tacc: np.ndarray


def nnue_state(net: NetArrays, rules: np.ndarray) -> NnueState:
    """The search's state for ``net`` on the board of ``rules`` (ValueError if ``net`` is not
    for a board of that size)."""
    nsq = int(rules[R_NSQ])
    if net.w.ndim != 2 or net.w.shape[0] not in (n_features(nsq), n_features(nsq, True)):
        raise ValueError(f"the network has {net.w.shape[0] if net.w.ndim else 0} features, a board of {nsq} "
                         f"squares has {n_features(nsq)} ({n_features(nsq, True)} with the threat features)")
    hidden = net.w.shape[1]
    threats = reads_threats(net.w, nsq)
    # the dense layers in int64 whatever the file's types: one compiled forward, no overflow
    dense = [np.ascontiguousarray(np.asarray(a).reshape(-1) if k == "ob" else a, dtype=np.int64)
             for k, a in zip(NetArrays._fields[2:], net[2:], strict=True)]
    return NnueState._make([np.ascontiguousarray(net.w, dtype=np.int16), np.ascontiguousarray(net.b, dtype=np.int32),
                            *dense, square_index(rules), np.zeros((ROWS, 2, hidden), dtype=np.int32),
                            np.zeros((ROWS, 3, MAX_CHANGES), dtype=np.int64), np.zeros(ROWS, dtype=np.int64),
                            np.zeros(3, dtype=np.int64), np.zeros((2, hidden), dtype=np.int32),
                            np.zeros((2 if threats else 0, BOARD_SIZE), dtype=np.int8),
                            np.zeros(2 * BOARD_SIZE, dtype=np.int64), np.zeros((2, hidden), dtype=np.int32)])


class NnueContext(NamedTuple):
    """A :class:`SearchContext` evaluating with a network: the same fields, then ``nn`` (an
    :class:`NnueState`).  A type of its own, so that numba compiles the search for it apart."""

    ctl: np.ndarray
    excl: np.ndarray
    skip: np.ndarray
    bval: np.ndarray
    hval: np.ndarray
    w: np.ndarray
    sp: np.ndarray
    lmr: np.ndarray
    tt_key: np.ndarray
    tt_data: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    corr: np.ndarray
    pv: np.ndarray
    pvlen: np.ndarray
    mbuf: np.ndarray
    sbuf: np.ndarray
    gen: np.ndarray
    acc: np.ndarray
    nn: NnueState


#: either kind of context
Context = SearchContext | NnueContext


def with_network(c: Context, nn: NnueState | tuple[()]) -> Context:
    """``c`` (either kind) evaluating with ``nn``: a :class:`SearchContext` for :data:`NO_NET`,
    else an ``NnueContext``; the tables are ``c``'s own, not copies."""
    base = SearchContext._make(c[:len(SearchContext._fields)])
    if isinstance(nn, NnueState):
        return NnueContext(*base, nn)
    return base


Zeros = Callable[..., np.ndarray]


def new_context(bval: np.ndarray, hval: np.ndarray, w: np.ndarray, sp: np.ndarray, lmr: np.ndarray,
                tt_entries: int, zeros: Zeros = np.zeros) -> SearchContext:
    """A context with cleared tables; ``tt_entries`` (a power of two) sizes the transposition
    table.  ``zeros(shape, dtype)`` makes the large tables (the engine passes an allocator whose
    pages cost memory only once written).  The context evaluates with the linear evaluation;
    :func:`with_network` makes one that evaluates with a network."""
    if tt_entries < 1 or tt_entries & (tt_entries - 1):
        raise ValueError(f"tt_entries must be a power of two, not {tt_entries}")
    return SearchContext(
        ctl=np.zeros(1, dtype=CONTROL),
        excl=np.zeros(MAX_MOVES, dtype=np.int64),
        skip=np.zeros(ROWS, dtype=np.int64),
        bval=bval, hval=hval, w=w, sp=sp, lmr=lmr,
        tt_key=zeros(tt_entries, np.uint64),
        tt_data=zeros(tt_entries, np.int64),
        killers=np.zeros((ROWS, 2), dtype=np.int64),
        history=zeros(HISTORY_SHAPE, np.int64),
        corr=zeros(CORR_SHAPE, np.int64),
        pv=zeros((ROWS, ROWS), np.int64),
        pvlen=np.zeros(ROWS, dtype=np.int64),
        mbuf=zeros((ROWS, MAX_MOVES), np.int64),
        sbuf=zeros((ROWS, MAX_MOVES), np.int64),
        gen=np.zeros(SCRATCH_SIZE, dtype=np.int16),
        acc=np.zeros((ROWS, 2), dtype=np.float64),
    )


def capture_context(bval: np.ndarray, hval: np.ndarray) -> SearchContext:
    """A context for the material-only capture search that tells quiet positions from the rest
    (:func:`komaken.shogi.engine._selfplay.quiet_flags`): no positional term, nothing pruned."""
    no_lmr = np.zeros((LMR_N, LMR_N), dtype=np.int64)  # the capture search reduces nothing
    return new_context(bval, hval, np.zeros(W_SIZE, dtype=np.float64), np.zeros(SP_SIZE, dtype=np.int64), no_lmr, 1)


@njit(cache=True)
def clear_control(ctl: np.ndarray) -> None:
    """Zero every counter and flag of ``ctl`` (the start of a search)."""
    c = ctl[0]
    c.nodes = 0
    c.stop = 0
    c.abort = 0
    c.max_nodes = 0
    c.seldepth = 0
    c.game_start = 0
    c.seed = 0
    c.root_move = 0
    c.root_score = 0
    c.root_depth = 0
    c.excluded = 0
    c.deadline = 0
