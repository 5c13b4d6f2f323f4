"""The NNUE accumulator: updated move by move it equals a full refresh, on every board size."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from komaken.shogi import Position
from komaken.shogi._board import BLACK_BIT, KIND_MASK, KING
from komaken.shogi._kernels import (
    MAX_MOVES,
    R_NSQ,
    R_SQUARES,
    attacked,
    gen_legal,
    move_from,
    move_promotes,
    move_to,
    push,
    undo_move,
)
from komaken.shogi.engine._nnue import (
    MAX_CHANGES,
    attack_maps,
    changes,
    n_features,
    refresh,
    square_index,
    threat_features,
    threat_maps,
    update,
)
from test_engine_nnue_search import _random_position

VARIANTS = ["minishogi", "judkins", "shogi", "dobutsu"]
HIDDEN = 8


def _net(nsq: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    w = rng.integers(-500, 500, size=(n_features(nsq), HIDDEN)).astype(np.int16)
    bias = rng.integers(-500, 500, size=HIDDEN).astype(np.int32)
    return w, bias


def _walk(variant: str, seed: int, plies: int) -> dict[str, int]:
    """Random legal moves; after each, the incremental accumulator is checked against a refresh
    (and after taking every move back, the stack's accumulators still match)."""
    s = Position.start(variant).kernel_state(plies + 2)
    bd, hd, stt, hh, hist, geo, rules = s
    nsq = int(rules[R_NSQ])
    inv = square_index(rules)
    w, bias = _net(nsq, seed)
    acc = np.zeros((plies + 1, 2, HIDDEN), dtype=np.int32)
    for c in range(2):
        refresh(bd, hd, stt, rules, inv, w, bias, c, acc[0, c])
    rng = np.random.default_rng(seed)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    pieces, squares, signs = (np.zeros(MAX_CHANGES, dtype=np.int64) for _ in range(3))
    seen = {"drop": 0, "capture": 0, "promotion": 0, "king": 0}
    full = np.zeros((2, HIDDEN), dtype=np.int32)
    played = 0
    for ply in range(plies):
        n_moves = gen_legal(bd, hd, stt, geo, rules, moves)
        if n_moves == 0 or stt[2] == 0 or stt[3] == 0:
            break
        # prefer captures half the time, so hands fill and drops follow
        caps = [m for m in moves[:n_moves] if move_from(m) != 0 and bd[move_to(m)] != 0]
        mv = int(rng.choice(caps) if caps and rng.random() < 0.5 else moves[rng.integers(n_moves)])
        frm = move_from(mv)
        seen["drop"] += frm == 0
        seen["capture"] += frm != 0 and bd[move_to(mv)] != 0
        seen["promotion"] += move_promotes(mv)
        seen["king"] += frm != 0 and (bd[frm] & KIND_MASK) == KING
        n = changes(bd, hd, stt, mv, pieces, squares, signs)
        push(bd, hd, stt, hh, hist, rules, mv)
        update(bd, hd, stt, rules, inv, w, bias, n, pieces, squares, signs, acc[ply], acc[ply + 1])
        for c in range(2):
            refresh(bd, hd, stt, rules, inv, w, bias, c, full[c])
        assert (acc[ply + 1] == full).all(), f"{variant} seed {seed}: after ply {ply + 1} ({mv})"
        played += 1
    for ply in range(played, 0, -1):
        undo_move(bd, hd, stt, hist)
        for c in range(2):
            refresh(bd, hd, stt, rules, inv, w, bias, c, full[c])
        assert (acc[ply - 1] == full).all()
    return seen


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1), plies=st.integers(1, 120))
def test_incremental_accumulator_equals_a_full_refresh(variant: str, seed: int, plies: int) -> None:
    _walk(variant, seed, plies)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_walks_cover_drops_captures_promotions_and_king_moves(variant: str) -> None:
    seen = {"drop": 0, "capture": 0, "promotion": 0, "king": 0}
    for seed in range(12):
        for k, v in _walk(variant, seed, 150).items():
            seen[k] += v
    assert all(v > 0 for v in seen.values()), seen


def test_a_perspective_sees_the_board_turned_round() -> None:
    """The start position is symmetric, so both sides' accumulators are the same."""
    for variant in ("minishogi", "shogi"):
        s = Position.start(variant).kernel_state()
        nsq = int(s.rules[R_NSQ])
        w, bias = _net(nsq, 1)
        out = np.zeros((2, HIDDEN), dtype=np.int32)
        inv = square_index(s.rules)
        for c in range(2):
            refresh(s.bd, s.hd, s.st, s.rules, inv, w, bias, c, out[c])
        assert (out[0] == out[1]).all() and (out[0] != bias).any()


def test_the_integer_network_follows_its_float_original() -> None:
    """Quantized to integers (activations in 1/127, weights in 1/64), the network's score stays
    close to the same network computed in floating point."""
    from komaken.shogi.engine._nnue import OUT_SCALE, QA, QB, forward

    rng = np.random.default_rng(7)
    h, n1, n2 = 32, 16, 16
    errors: list[float] = []
    for _ in range(200):
        us, them = (rng.uniform(-0.3, 1.3, h) for _ in range(2))
        l1w = rng.normal(0, 0.3, (n1, 2 * h))
        l1b, l2b = rng.normal(0, 0.3, n1), rng.normal(0, 0.3, n2)
        l2w = rng.normal(0, 0.4, (n2, n1))
        ow, ob = rng.normal(0, 0.5, n2), float(rng.normal(0, 0.3))
        a1 = np.clip(l1w @ np.concatenate([np.clip(us, 0, 1), np.clip(them, 0, 1)]) + l1b, 0, 1)
        exact = (ow @ np.clip(l2w @ a1 + l2b, 0, 1) + ob) * OUT_SCALE

        def q(x: np.ndarray, scale: float) -> np.ndarray:
            return np.round(np.asarray(x) * scale).astype(np.int64)

        got = forward(q(us, QA), q(them, QA), q(l1w, QB), q(l1b, QA * QB), q(l2w, QB), q(l2b, QA * QB),
                      q(ow, QB), int(q(ob, QA * QB)))
        errors.append(abs(got - exact))
    # rounding the weights to 1/64 costs about 2 % of the scale on average on these random nets
    # (saturating ones, harder than trained); a wrong index or scale costs hundreds of units
    assert np.mean(errors) < 0.03 * OUT_SCALE and np.max(errors) < 0.15 * OUT_SCALE, (np.mean(errors), max(errors))


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 80))
def test_attack_maps_are_the_rules_attack_test(variant: str, seed: int, plies: int) -> None:
    """The threat features' attack maps, made in one walk over the pieces, say of every square
    what the rules' own test (``attacked``, used for check) says, for both colours."""
    s = _random_position(variant, seed, plies).kernel_state()
    att = threat_maps()
    attack_maps(s.bd, s.rules, att)
    for i in range(int(s.rules[R_NSQ])):
        sq = int(s.rules[R_SQUARES + i])
        for side in range(2):
            assert bool(att[side, sq]) == attacked(s.bd, sq, side, s.rules), (variant, i, side)


def test_threat_features_name_each_attacked_and_each_defended_piece() -> None:
    """In a middle-game position each perspective has one threat feature per fact "this piece is
    attacked" and "this piece is defended" (counted with the rules' attack test), none twice, all
    beyond the board and hand features; the two perspectives number them differently."""
    pos = Position.from_sfen("rb1gk/1s2p/5/P1S2/KG1BR b - 5", "minishogi")
    s = pos.kernel_state()
    att = threat_maps()
    attack_maps(s.bd, s.rules, att)
    inv = square_index(s.rules)
    facts = 0
    for i in range(25):
        sq = int(s.rules[R_SQUARES + i])
        p = int(s.bd[sq])
        if p:
            owner = 0 if p & BLACK_BIT else 1
            facts += int(attacked(s.bd, sq, 1 - owner, s.rules)) + int(attacked(s.bd, sq, owner, s.rules))
    lists = []
    for c in range(2):
        out = np.full(64, -1, dtype=np.int64)
        n = threat_features(s.bd, s.rules, inv, att, c, out, 0)
        got = out[:n]
        assert n == facts and len(set(got.tolist())) == n
        assert (got >= n_features(25)).all() and (got < n_features(25, True)).all()
        lists.append(sorted(got.tolist()))
    assert facts > 4 and lists[0] != lists[1]
