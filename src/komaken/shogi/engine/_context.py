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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from komaken.shogi._kernels import MAX_MOVES
from komaken.shogi.engine._evaluate import W_SIZE
from komaken.shogi.engine._searchparams import LMR_N, SP_SIZE

MAX_PLY = 128
ROWS = MAX_PLY + 2  # one row per ply, and the move-score buffer's scratch rows (MAX_PLY, MAX_PLY + 1)
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
])


class SearchContext(NamedTuple):
    """What the search kernel works with besides the position (see the module docstring).

    ``bval``/``hval`` piece values on the board and in hand, ``w`` the evaluation weights, ``sp``
    the search settings (:mod:`komaken.shogi.engine._searchparams`), ``lmr`` the late-move
    reduction table; ``tt_key``/``tt_data`` the transposition table, ``killers`` and ``history``
    the move-ordering tables, ``pv``/``pvlen`` the triangular principal-variation table, ``mbuf``/
    ``sbuf`` moves and their scores per ply, ``acc`` the material and PSQ sums per ply, ``excl``
    the root moves MultiPV leaves out.
    """

    ctl: np.ndarray
    excl: np.ndarray
    bval: np.ndarray
    hval: np.ndarray
    w: np.ndarray
    sp: np.ndarray
    lmr: np.ndarray
    tt_key: np.ndarray
    tt_data: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    pv: np.ndarray
    pvlen: np.ndarray
    mbuf: np.ndarray
    sbuf: np.ndarray
    acc: np.ndarray


Zeros = Callable[..., np.ndarray]


def new_context(bval: np.ndarray, hval: np.ndarray, w: np.ndarray, sp: np.ndarray, lmr: np.ndarray,
                tt_entries: int, zeros: Zeros = np.zeros) -> SearchContext:
    """A context with cleared tables; ``tt_entries`` (a power of two) sizes the transposition
    table.  ``zeros(shape, dtype)`` makes the large tables (the engine passes an allocator whose
    pages cost memory only once written)."""
    if tt_entries < 1 or tt_entries & (tt_entries - 1):
        raise ValueError(f"tt_entries must be a power of two, not {tt_entries}")
    return SearchContext(
        ctl=np.zeros(1, dtype=CONTROL),
        excl=np.zeros(MAX_MOVES, dtype=np.int64),
        bval=bval, hval=hval, w=w, sp=sp, lmr=lmr,
        tt_key=zeros(tt_entries, np.uint64),
        tt_data=zeros(tt_entries, np.int64),
        killers=np.zeros((ROWS, 2), dtype=np.int64),
        history=zeros(HISTORY_SHAPE, np.int64),
        pv=zeros((ROWS, ROWS), np.int64),
        pvlen=np.zeros(ROWS, dtype=np.int64),
        mbuf=zeros((ROWS, MAX_MOVES), np.int64),
        sbuf=zeros((ROWS, MAX_MOVES), np.int64),
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
