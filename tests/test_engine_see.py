"""Static exchange evaluation: the capture sequences a shogi player counts in their head."""

from __future__ import annotations

import numpy as np
import pytest

from komaken.shogi import Position
from komaken.shogi._kernels import move_from, move_to
from komaken.shogi.engine._see import SCRATCH, see
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.search import Engine


@pytest.mark.parametrize("sfen, usi, value", [
    ("4k4/9/9/4p4/9/9/9/4R4/4K4 b - 1", "5h5d", 100),  # an undefended pawn
    ("4k4/9/4g4/4p4/9/9/9/4R4/4KL3 b - 1", "5h5d", 100 - 2000),  # the gold takes the rook back
    ("4k4/9/4g4/4p4/9/9/9/4R4/K3L4 b - 1", "5h5d", 100 - 2000 + 1200),  # the lance behind joins in
    ("4k4/9/4g4/4s4/4P4/9/9/9/4K4 b - 1", "5e5d", 1000 - 100),  # the gold takes the pawn back
    ("4k4/9/9/9/9/9/9/4r4/4K4 b - 1", "5i5h", 2000),  # the king takes an undefended rook
    ("4k4/9/9/9/9/4l4/4G4/4r4/4K4 b - 1", "5g5h", 2000 - 1200 + 600),  # the lance behind, then the king
    ("4k4/9/9/9/9/9/9/3Gr4/4K4 b - 1", "6h5h", 2000),  # the gold takes; the king stands behind it
])
def test_see_counts_the_exchange_and_leaves_the_board_as_it_was(sfen: str, usi: str, value: int) -> None:
    pos = Position.from_sfen(sfen, "shogi")
    code = next(m for m in pos.legal_moves() if m.usi() == usi).code
    bd = pos.kernel_state(10)[0]
    before = bd.copy()
    scratch = np.zeros(SCRATCH, dtype=np.int64)
    seed_values = Engine("shogi", params=EvalParams.legacy("shogi"))._ctx.bval  # the values the table above counts in
    assert see(bd, pos.variant.rules, seed_values, move_from(code), move_to(code), int(pos.turn), scratch) == value
    assert (bd == before).all()

