"""The sums the search keeps move by move instead of counting them at every node: material and
the PSQ term after a move equal the sums before it plus :func:`move_delta` — drops, captures
(the piece goes to the hand), promotions and king moves — exactly with whole-number tables, and
the static evaluation kept in the hash table is the one a fresh evaluation gives."""

from __future__ import annotations

import random

import numpy as np
import pytest

from komaken.shogi import Position
from komaken.shogi import _kernels as K
from komaken.shogi.engine import Engine, Limits
from komaken.shogi.engine._evaluate import evaluate, evaluate_sums, material_psq, move_delta


def _walk(variant: str, seed: int, plies: int = 80):
    """Positions of a random game that prefers captures and promotions, so both are exercised."""
    rng = random.Random(seed)
    pos = Position.start(variant)
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            return
        yield pos
        sharp = [m for m in moves if m.promotion or pos.piece_at(m.to_square) is not None]
        pos.push(rng.choice(sharp) if sharp and rng.random() < 0.6 else rng.choice(moves))


@pytest.mark.parametrize("variant", ["shogi", "minishogi", "judkins"])
@pytest.mark.parametrize("whole", [True, False])
def test_move_delta_keeps_the_sums_of_a_fresh_count(variant: str, whole: bool) -> None:
    e = Engine(variant)
    w = e._ctx.w.copy()
    if not whole:  # fractional tables: equal within rounding
        rng = np.random.default_rng(5)
        w[4:] += rng.uniform(-0.5, 0.5, len(w) - 4)
    kinds = {"drop": 0, "capture": 0, "promotion": 0}
    for seed in range(3):
        for pos in _walk(variant, seed):
            s = pos.kernel_state()
            m0, p0 = material_psq(s.bd, s.hd, s.rules, e._ctx.bval, e._ctx.hval, w)
            us = int(s.st[K.ST_SIDE])
            for code in (int(c) for c in pos.legal_codes()):
                frm, to = K.move_from(code), K.move_to(code)
                kinds["drop"] += frm == 0
                kinds["capture"] += frm != 0 and s.bd[to] != 0
                kinds["promotion"] += K.move_promotes(code)
                dm, dp = move_delta(s.bd, code, us, s.rules, e._ctx.bval, e._ctx.hval, w)
                K.push(s.bd, s.hd, s.st, s.hh, s.hist, s.rules, code)
                m1, p1 = material_psq(s.bd, s.hd, s.rules, e._ctx.bval, e._ctx.hval, w)
                assert m1 == m0 + dm, (pos.sfen(), code)
                if whole:
                    assert p1 == p0 + dp, (pos.sfen(), code)
                    key = s.hh[s.st[K.ST_PLY]]
                    assert evaluate_sums(s.bd, s.hd, s.st, s.rules, w, key, 0, m0 + dm, p0 + dp) == \
                        evaluate(s.bd, s.hd, s.st, s.rules, e._ctx.bval, e._ctx.hval, w, key, 0)
                else:
                    assert p1 == pytest.approx(p0 + dp, abs=1e-9)
                K.undo_move(s.bd, s.hd, s.st, s.hist)
    assert min(kinds.values()) > 20, kinds


def test_changing_values_or_terms_forgets_the_evaluations_kept_in_the_hash_table() -> None:
    """The hash table keeps each entry's static evaluation (the low half of its key word); new
    piece values or term weights make those stale, so they are dropped and the entries kept."""
    pos = Position.from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2", "shogi")
    e = Engine("shogi")
    for change in (lambda: e.set_values({"P": 400}), lambda: e.set_term("king_safety", 0.5)):
        e.search(pos, Limits(depth=6))
        kept = (e._ctx.tt_key & np.uint64(0xFFFFFFFF)) != 0
        assert kept.sum() > 100
        keys = e._ctx.tt_key >> np.uint64(32)
        change()
        assert not ((e._ctx.tt_key & np.uint64(0xFFFFFFFF)) != 0).any()
        assert (e._ctx.tt_key >> np.uint64(32) == keys).all()
