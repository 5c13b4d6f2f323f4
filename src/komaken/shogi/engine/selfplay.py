"""Whole engine-vs-engine games in one numba call, for studies that need many of them.

:class:`SelfPlay` holds a variant's start, value tables and buffers; :meth:`SelfPlay.play` plays
one game (search at a node budget or depth, moves, game-end checks — all inside the kernel of
:mod:`komaken.shogi.engine._selfplay`) and leaves the moves and one row of material features per
position in :attr:`SelfPlay.moves` and :attr:`SelfPlay.features`.

>>> sp = SelfPlay("minishogi", max_plies=64)
>>> end, plies, opening, rows = sp.play(seed=1, nodes=200)
>>> 0 < plies <= 64 and rows == plies - opening + 1
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from komaken.shogi.engine._context import SearchContext, capture_context, new_context
from komaken.shogi.engine._evaluate import weights
from komaken.shogi.engine._searchparams import lmr_table, search_array
from komaken.shogi.engine._selfplay import (
    COL_FLAGS,
    COL_SIDE,
    FLAG_CAPTURE,
    FLAG_CHECK,
    FLAG_QS_CAP,
    FLAG_QS_GAIN,
    NF,
    NOT_QUIET,
)
from komaken.shogi.engine._selfplay import play_game as _play_game
from komaken.shogi.engine.values import PieceValues
from komaken.shogi.position import Position
from komaken.shogi.variant import Variant, load_variant


class SelfPlay:
    """Self-play games of the engine from ``variant``'s start with one value table and term set;
    ``tables`` (``EvalParams.tables``) replaces the built-in evaluation's term tables and ``search``
    (``EvalParams.search``) the default search settings (both of which the piece-value study
    plays)."""

    def __init__(self, variant: Variant | str, values: Mapping[str, Any] | PieceValues | None = None,
                 terms: Mapping[str, float] | None = None, *, max_plies: int = 256,
                 tables: np.ndarray | None = None, search: Mapping[str, int] | None = None) -> None:
        self.variant = load_variant(variant)
        table = values if isinstance(values, PieceValues) else PieceValues.from_mapping(values, self.variant)
        self.bval, self.hval = table.arrays()
        self.w = weights(dict(terms or {}), tables)
        self.sp = search_array(search)
        self._ctx: SearchContext | None = None  # made for the first game's table size
        self._capture = capture_context(self.bval, self.hval)
        self.max_plies = int(max_plies)
        self._start = Position.start(self.variant).kernel_state(1)
        #: one row of ``NF`` int8 material features per position after the opening
        self.features = np.zeros((self.max_plies + 1, NF), dtype=np.int8)
        #: the kernel move codes of the last game, opening included
        self.moves = np.zeros(self.max_plies, dtype=np.int64)

    def play(self, seed: int, nodes: int = 0, depth: int = 0, random_plies: int = 2,
             tt_bits: int = 16, start: Position | None = None) -> tuple[int, int, int, int]:
        """Play one game: ``(end code, plies, opening plies, feature rows)``; the end code is
        ``termination * 4 + winner`` (winner 0 black, 1 white, 2 draw).  ``start``: a position of
        the same variant to play from instead of the variant's start (its history is not used)."""
        s = self._start if start is None else start.kernel_state(1)
        if self._ctx is None or self._ctx.tt_key.size != 1 << tt_bits:
            self._ctx = new_context(self.bval, self.hval, self.w, self.sp, lmr_table(self.sp), 1 << tt_bits)
        out = _play_game(s.bd, s.hd, s.st, s.geo, s.rules, self._ctx, self._capture, seed, nodes, depth,
                         random_plies, self.max_plies, self.features, self.moves)
        end, plies, opening, rows = (int(x) for x in out)
        return end, plies, opening, rows


__all__ = ["COL_FLAGS", "COL_SIDE", "FLAG_CAPTURE", "FLAG_CHECK", "FLAG_QS_CAP", "FLAG_QS_GAIN", "NF", "NOT_QUIET",
           "SelfPlay"]
