"""The replica of the thesis's 5五将棋 AI (seed 003): depth-4 negamax, material plus noise.

>>> from komaken.shogi import Position
>>> thesis = ThesisSearch("minishogi", {"B": 1800, "R": 2000}, seed=1)
>>> thesis.best(Position.start("minishogi")) in Position.start("minishogi").legal_moves()
True

See :mod:`komaken.shogi.engine._thesis` for exactly what is replicated.  ``values`` is this player's
table; the published program also used the *opponent's* table at leaves where the opponent is
to move (only at odd depths), so ``opponent_values`` may be given (default: the same table).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from komaken.errors import KomakenError, VariantError
from komaken.shogi import _kernels as K
from komaken.shogi.engine import _thesis as T
from komaken.shogi.engine.search import Alarm
from komaken.shogi.engine.values import PieceValues
from komaken.shogi.position import Move, Position
from komaken.shogi.variant import Variant, load_variant


class ThesisSearch:
    """The published program's move choice, seeded: same seed, same game → same moves.

    ``hand_quirk`` scores pieces in hand with both sides' tables added (as the published code
    does); ``noise`` is the half-width of the leaf noise (500: ``nextInt(1000) - 500``).

    The published program has no clock.  ``movetime`` (seconds, ``None``: none) cuts a search
    short, as does :meth:`stop` from another thread; the move is then the best of the root
    moves searched in full (the first legal move if none was), and the noise stream, hence the
    rest of the game, depends on the timing.
    """

    def __init__(self, variant: Variant | str, values: Mapping[str, Any] | PieceValues | None = None, depth: int = 4,
                 seed: int = 0, hand_quirk: bool = False, opponent_values: Mapping[str, int] | None = None,
                 noise: int = 500, movetime: float | None = None) -> None:
        self.variant = load_variant(variant)
        if movetime is not None and not movetime > 0:
            raise KomakenError(f"thesis movetime must be a positive number of seconds, got {movetime}")
        self.movetime = movetime
        pieces = sum(n for kind, n in self.variant.max_counts.items() if kind != 8)  # all but the kings
        if pieces > T.HAND_CAP:  # the kernel keeps each hand as a list of at most HAND_CAP pieces
            raise VariantError(f"thesis player: {self.variant.name} has {pieces} pieces besides the kings; "
                               f"its hand lists hold at most {T.HAND_CAP}")
        if depth < 1:
            raise KomakenError(f"thesis depth must be >= 1, got {depth}")
        own = values if isinstance(values, PieceValues) else PieceValues.from_mapping(values, self.variant)
        opp = own if opponent_values is None else PieceValues.from_mapping(opponent_values, self.variant)
        self.values, self.opponent_values = own, opp
        self.depth = int(depth)
        self.seed = int(seed)
        self.hand_quirk = bool(hand_quirk)
        self.noise = int(noise)
        self.name = f"thesis(depth={depth}{', hand_quirk' if hand_quirk else ''})"
        self._tables = {side: self._make_tables(side) for side in (0, 1)}
        self._rs = T.java_seed(self.seed)
        self._ctl = np.zeros(4, dtype=np.int64)
        self.last_score = 0
        self.last_nodes = 0
        self.stopped = False
        self._generation = 0

    def _make_tables(self, me: int) -> tuple[np.ndarray, np.ndarray]:
        """``tb[leaf side, piece code]`` and ``th[leaf side, color, kind]`` when ``me`` plays."""
        per_side = {me: self.values.arrays(), 1 - me: self.opponent_values.arrays()}
        tb = np.zeros((2, 64), dtype=np.int64)
        th = np.zeros((2, 2, 8), dtype=np.int64)
        for leaf in (0, 1):
            tb[leaf] = per_side[leaf][0]
            if self.hand_quirk:  # komaValue_sente[koma] + komaValue_gote[koma]
                th[leaf] = per_side[0][1] + per_side[1][1]
            else:
                th[leaf] = per_side[leaf][1]
        return tb, th

    def new_game(self, seed: int | None = None) -> None:
        """Restart the noise stream (at ``seed`` if given, else at the player's seed)."""
        self._rs = T.java_seed(self.seed if seed is None else int(seed))

    def stop(self) -> None:
        """End the running search soon (safe to call from another thread)."""
        self._ctl[3] = 1

    def best(self, position: Position, movetime: float | None = None) -> Move | None:
        """The program's move in ``position`` (not modified); ``None`` when it has none.
        ``movetime`` (seconds) overrides the search's own for this call."""
        if not isinstance(position, Position):
            raise KomakenError("the thesis player plays shogi variants only")
        hv, hn = hand_lists(position, self.depth)
        tb, th = self._tables[int(position.turn)]
        self._ctl[3] = 0
        self._generation += 1
        timer = self._arm(movetime if movetime is not None else self.movetime)
        try:
            self.last_score = int(T.thesis_search(*position.kernel_state(self.depth + 1), tb, th, hv, hn, self._rs,
                                                  self._ctl, self.depth, self.noise))
        finally:
            if timer is not None:
                timer.cancel()
            self._generation += 1
        self.last_nodes = int(self._ctl[0] + self._ctl[1])
        self.stopped = bool(self._ctl[3])
        mv = int(self._ctl[2])
        if mv:
            return Move(mv)
        legal = position.legal_moves() if self.stopped else []
        return legal[0] if legal else None

    def _arm(self, seconds: float | None) -> threading.Timer | None:
        if seconds is None:
            return None
        generation = self._generation

        def fire() -> None:
            if self._generation == generation:  # a late timer never stops the next search
                self.stop()

        return Alarm(time.perf_counter() + max(0.0, seconds), fire)

    def close(self) -> None:
        pass


def hand_lists(position: Position, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The program's hands as lists (capture order) for the root: replayed from the start of the
    position's history; pieces already in hand at the start are listed in kind order 歩..飛."""
    hv = np.zeros((depth + 2, 2, T.HAND_CAP), dtype=np.int8)
    hn = np.zeros((depth + 2, 2), dtype=np.int64)
    first = position.copy()
    moves = []
    while first.ply:
        moves.append(first.pop())
    lists: list[list[int]] = [[], []]
    for c in range(2):
        for kind in range(1, 8):
            lists[c] += [kind] * int(first._hd[c, kind])
    for mv in reversed(moves):
        us = int(first._st[K.ST_SIDE])
        if mv.drop:
            kind = (mv.code >> 17) & 0xF
            lists[us].remove(kind)
        else:
            cap = int(first._bd[mv.code & 0xFF])
            if cap:
                lists[us].append(cap & 7)
        K.do_move(first._bd, first._hd, first._st, first._hh, first._hist, mv.code)
    for c in range(2):
        hn[0, c] = len(lists[c])
        hv[0, c, : len(lists[c])] = lists[c]
    return hv, hn


__all__ = ["ThesisSearch", "hand_lists"]
