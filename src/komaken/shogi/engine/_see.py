"""Static exchange evaluation (numba): what a capture wins once every recapture on its square
has been played out, least valuable attacker first.

Both sides may stop capturing whenever going on would lose, so the value is a minimax over the
sequence.  Pieces behind a capturer (a rook behind a rook, a lance behind a lance) join in as the
squares in front empty: each capturer is lifted off the board before the next attacker is looked
for.  Pins, promotions on the way and drops are ignored, as usual for SEE.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._board import KIND_MASK, KING
from komaken.shogi._kernels import attackers

SCRATCH = 160
KING_VALUE = 1_000_000  # a king "captured" ends the exchange: it may only take last


@njit(cache=True)
def _value(bval: np.ndarray, p: int) -> int:
    if (p & KIND_MASK) == KING:
        return KING_VALUE
    return abs(bval[p])


@njit(cache=True)
def _cheapest_attacker(bd: np.ndarray, rules: np.ndarray, bval: np.ndarray, to: int, side: int,
                       buf: np.ndarray) -> tuple[int, int]:
    """``side``'s least valuable piece attacking ``to``: (its square, its value); (-1, 0) if none."""
    n = attackers(bd, to, side, rules, buf)
    best_sq = -1
    best_v = 0
    for k in range(n):
        v = _value(bval, bd[buf[k]])
        if best_sq < 0 or v < best_v:
            best_sq = buf[k]
            best_v = v
    return best_sq, best_v


@njit(cache=True)
def see(bd: np.ndarray, rules: np.ndarray, bval: np.ndarray, frm: int, to: int, us: int, scratch: np.ndarray) -> int:
    """The material balance, for ``us``, of the capture ``frm``→``to`` and all recaptures.
    ``scratch`` is any int64 array of at least :data:`SCRATCH` entries (none is allocated here:
    this runs for every capture of every node)."""
    gain = scratch[0:40]
    lifted = scratch[40:80]
    lifted_p = scratch[80:120]
    buf = scratch[120:SCRATCH]
    gain[0] = _value(bval, bd[to])
    on_square = _value(bval, bd[frm])  # what stands on ``to`` after the capture
    lifted[0] = frm
    lifted_p[0] = bd[frm]
    bd[frm] = 0
    n_lift = 1
    side = 1 - us
    d = 0
    while d < 38:
        best_sq, best_v = _cheapest_attacker(bd, rules, bval, to, side, buf)
        if best_sq < 0:
            break
        d += 1
        gain[d] = on_square - gain[d - 1]
        if on_square == KING_VALUE:
            break  # the king was taken: the side that took it has won the exchange
        on_square = best_v
        lifted[n_lift] = best_sq
        lifted_p[n_lift] = bd[best_sq]
        n_lift += 1
        bd[best_sq] = 0
        side = 1 - side
    for k in range(n_lift):
        bd[lifted[k]] = lifted_p[k]
    while d > 0:
        if -gain[d - 1] < gain[d]:
            gain[d - 1] = -gain[d]
        d -= 1
    return gain[0]


@njit(cache=True)
def threat_on(bd: np.ndarray, rules: np.ndarray, bval: np.ndarray, to: int, side: int, scratch: np.ndarray) -> int:
    """What ``side`` wins by capturing the piece on ``to`` with its least valuable attacker and
    playing out the exchange (:func:`see`); 0 when ``side`` does not attack ``to``."""
    best_sq, _ = _cheapest_attacker(bd, rules, bval, to, side, scratch[120:SCRATCH])
    if best_sq < 0:
        return 0
    return see(bd, rules, bval, best_sq, to, side, scratch)
