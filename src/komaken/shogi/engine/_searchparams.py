"""The search's settings per variant (the ``[search]`` table of a parameter file) as the kernel's
``sp`` array, and the late-move-reduction table built from them.

Each entry of :data:`SEARCH_PARAMS`: name, default (the search as it was before the setting
existed), lowest, highest, meaning.  Margins are in evaluation units (the variant's pawn is about
100-150).  :mod:`komaken.shogi.engine.evalparams` reads and checks the table; the kernels in
:mod:`komaken.shogi.engine._search` read ``sp`` by the ``SP_*`` slots.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import njit

SEARCH_PARAMS = (
    ("check_extension", 1, 0, 2, "extend checks by a ply: 0 never, 1 always, 2 when the checker is safe"),
    ("lmr", 0, 0, 1, "late-move reductions: 0 one ply from the 4th move, two from the 9th; 1 the log table"),
    ("lmr_base", 50, 0, 400, "log table: reduction = base/100 + ln(depth) ln(move number) / (div/100)"),
    ("lmr_div", 225, 50, 2000, "log table divisor, in hundredths"),
    ("lmp_depth", 0, 0, 16, "move-count pruning of late quiet moves at depth <= this (0: off)"),
    ("lmp_base", 3, 1, 100, "move-count pruning keeps base + depth^2 quiet moves"),
    ("futility_depth", 0, 0, 16, "futility pruning of quiet moves at depth <= this (0: off)"),
    ("futility_margin", 200, 0, 100_000, "futility: prune if static eval + margin * depth <= alpha"),
    ("rfp_depth", 0, 0, 16, "reverse futility (static null move) at depth <= this (0: off)"),
    ("rfp_margin", 150, 0, 100_000, "reverse futility: return if static eval - margin * depth >= beta"),
    ("null_reduction", 2, 1, 10, "null move: search depth - 1 - (reduction + depth / null_div)"),
    ("null_div", 0, 0, 64, "null move: extra reduction per this many plies of depth (0: none)"),
    ("iir_depth", 0, 0, 64, "internal iterative reduction: one ply less without a hash move, depth >= this (0: off)"),
    ("see_depth", 0, 0, 16, "skip captures losing more than see_margin * depth by SEE at depth <= this (0: off)"),
    ("see_margin", 100, 0, 100_000, "SEE pruning margin per ply"),
    ("history", 0, 0, 1, "quiet-move history: 0 a bonus to the move that cut; 1 also a malus to the quiets "
     "tried before it, both bounded (gravity)"),
    ("lmr_history", 0, 0, 1_000_000, "log table: one ply less reduction per this much history, more when "
     "negative (0: off)"),
    ("aspiration", 0, 0, 100_000, "aspiration window: from depth 4 the root is first searched within "
     "± this of the previous depth's score, widened ×4 on a miss (0: full window)"),
    ("qs_delta", 0, 0, 100_000, "quiescence: skip a capture when the static score plus what it wins "
     "(the piece off the board and into the hand, a promotion) plus this stays at or below alpha (0: off)"),
    ("qs_tt", 0, 0, 1, "quiescence reads and writes the transposition table: a stored bound may end the "
     "node, a stored static evaluation is not computed again (0: off)"),
    ("tt_eval", 0, 0, 1, "the pruning rules read the hash table's score instead of the static evaluation "
     "where its bound says the score lies beyond it (0: off)"),
    ("singular_depth", 0, 0, 64, "singular extension: at depth >= this the hash move is extended a ply when "
     "every other move, searched half as deep, fails below its stored score less the margin (0: off)"),
    ("singular_margin", 16, 0, 100_000, "singular extension: the margin per ply of depth"),
    ("corr_history", 0, 0, 1, "correction history: the pruning rules read the static evaluation moved by what "
     "searches found beyond it in positions with the same kings' squares and hands (0: off)"),
)
SP_CHECK_EXT, SP_LMR, SP_LMR_BASE, SP_LMR_DIV, SP_LMP_DEPTH, SP_LMP_BASE, SP_FUT_DEPTH, SP_FUT_MARGIN, \
    SP_RFP_DEPTH, SP_RFP_MARGIN, SP_NULL_R, SP_NULL_DIV, SP_IIR_DEPTH, SP_SEE_DEPTH, SP_SEE_MARGIN, \
    SP_HISTORY, SP_LMR_HISTORY, SP_ASPIRATION, SP_QS_DELTA, SP_QS_TT, SP_TT_EVAL, SP_SE_DEPTH, SP_SE_MARGIN, \
    SP_CORR = range(24)
HISTORY_MAX = 16384  # the bound of the history with ``history = 1``
SP_SIZE = len(SEARCH_PARAMS)
LMR_N = 64  # the log table covers depths and move numbers below this


def search_defaults() -> dict[str, int]:
    """Every search setting at its default (the search before the setting existed)."""
    return {name: default for name, default, *_ in SEARCH_PARAMS}


def search_array(values: Mapping[str, int] | None = None) -> np.ndarray:
    """The kernel's ``sp`` from a name → value mapping (missing names take their defaults)."""
    values = values or {}
    return np.array([int(values.get(name, default)) for name, default, *_ in SEARCH_PARAMS], dtype=np.int64)


@njit(cache=True)
def lmr_table(sp: np.ndarray) -> np.ndarray:
    """``[depth, move number]`` → plies of reduction for the log table (``lmr = 1``)."""
    t = np.zeros((LMR_N, LMR_N), dtype=np.int64)
    for d in range(1, LMR_N):
        for m in range(1, LMR_N):
            t[d, m] = int(sp[SP_LMR_BASE] / 100 + np.log(d) * np.log(m) / (sp[SP_LMR_DIV] / 100))
    return t
