"""Whether the search's node is decided before any move is looked at (numba).

:func:`game_over_score` answers for the α-β kernel (:mod:`komaken.shogi.engine._search`): a
repetition, 持将棋 by points or by declaration, the variant's ply limit, a captured king or a try.
Wins that are not mates score :data:`KNOWN_WIN` less the plies to them, below every mate score
and above every evaluation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from komaken.shogi._kernels import (
    G_ZONE,
    H_CHECK,
    IMPASSE_BOTH_ENTERED,
    IMPASSE_DECLARATION,
    R_DECIDE,
    R_IMPASSE,
    R_IMPASSE_POINTS,
    R_MAX_PLIES,
    R_PERPETUAL,
    R_REPETITION,
    REPETITION_SENTE_LOSES,
    ST_KING,
    ST_PLY,
    ST_SIDE,
    can_declare,
    decided,
    impasse_points,
)
from komaken.shogi.engine._tt import INF, MATE

KNOWN_WIN = 50_000_000  # decided without mate: won repetition, impasse count, declaration


@njit(cache=True)
def game_over_score(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray,
                     geo: np.ndarray, rules: np.ndarray, start: int, ply: int) -> int:
    """A score if the game is decided here without looking at moves, else ``INF`` (meaning none):
    a repetition (treated as the fourth occurrence, as engines do), 持将棋, the ply limit; a
    captured king or a try (:func:`decided`) scores as mate."""
    us = st[ST_SIDE]
    if rules[R_DECIDE] != 0:
        winner = decided(bd, st, geo, rules)
        if winner >= 0:
            return MATE - ply if winner == us else -MATE + ply
    cur = st[ST_PLY]
    h = hh[cur]
    j = cur - 4
    while j >= start:
        if hh[j] == h:
            # who kept giving check from ply j on?  (moves at plies j .. cur-1)
            if rules[R_PERPETUAL] != 0:
                them_all = True  # the opponent moved at plies cur-1, cur-3, ...
                us_all = True
                for k in range(j, cur):
                    if ((cur - 1 - k) & 1) == 0:
                        if hist[k, H_CHECK] == 0:
                            them_all = False
                    elif hist[k, H_CHECK] == 0:
                        us_all = False
                if them_all:
                    return KNOWN_WIN - ply
                if us_all:
                    return -KNOWN_WIN + ply
            if rules[R_REPETITION] == REPETITION_SENTE_LOSES:
                return -KNOWN_WIN + ply if us == 0 else KNOWN_WIN - ply
            return 0
        j -= 2
    if rules[R_MAX_PLIES] > 0 and cur - start >= rules[R_MAX_PLIES]:
        return 0
    if rules[R_IMPASSE] == IMPASSE_BOTH_ENTERED:
        k0 = st[ST_KING]
        k1 = st[ST_KING + 1]
        if k0 != 0 and k1 != 0 and geo[G_ZONE, k0] and geo[G_ZONE + 1, k1]:
            need = rules[R_IMPASSE_POINTS]
            p_us = impasse_points(bd, hd, rules, us, False, geo)[0]
            p_them = impasse_points(bd, hd, rules, 1 - us, False, geo)[0]
            if p_us < need <= p_them:
                return -KNOWN_WIN + ply
            if p_them < need <= p_us:
                return KNOWN_WIN - ply
            return 0
    elif rules[R_IMPASSE] == IMPASSE_DECLARATION:
        k = st[ST_KING + us]
        if k != 0 and geo[G_ZONE + us, k] and can_declare(bd, hd, st, geo, rules):
            return KNOWN_WIN - ply
    return INF
