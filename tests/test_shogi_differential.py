"""Differential tests: our legal move sets equal the peers' on thousands of random positions.

cshogi is the reference for 9×9 and minishogilib for 5×5.  Playouts prefer captures so that
hands fill up and drops (二歩, 打ち歩詰め, dead squares) get exercised; promotions come by
themselves.
"""

from __future__ import annotations

import random

from conftest import needs_module
from komaken.shogi import Position

cshogi = needs_module("cshogi")
minishogilib = needs_module("minishogilib")


def _playout_positions(rng: random.Random, variant: str, games: int, max_plies: int):
    for _ in range(games):
        pos = Position.start(variant)
        for _ in range(max_plies):
            moves = pos.legal_moves()
            if not moves:
                break
            yield pos, moves
            captures = [m for m in moves if m.drop is None and pos.piece_at(m.to_square)]
            drops = [m for m in moves if m.drop]
            roll = rng.random()
            pool = captures if captures and roll < 0.5 else drops if drops and roll < 0.7 else moves
            pos.push(rng.choice(pool))


def test_legal_moves_match_cshogi_on_random_9x9_positions() -> None:
    rng = random.Random(20261121)
    board = cshogi.Board()
    checked = drops_seen = promotions_seen = 0
    # 15 games of 160 plies: ~2400 positions, ~1500 with drops and ~1300 with promotions to compare
    for pos, moves in _playout_positions(rng, "shogi", games=15, max_plies=160):
        board.set_sfen(pos.sfen())
        theirs = {cshogi.move_to_usi(m) for m in board.legal_moves}
        ours = {m.usi() for m in moves}
        assert ours == theirs, pos.sfen()
        checked += 1
        drops_seen += any(m.drop for m in moves)
        promotions_seen += any(m.promotion for m in moves)
    assert checked > 2000 and drops_seen > 500 and promotions_seen > 500


def test_legal_moves_match_minishogilib_on_random_5x5_positions() -> None:
    rng = random.Random(5)
    ref = minishogilib.Position()
    checked = drops_seen = peer_misses = 0
    for pos, moves in _playout_positions(rng, "minishogi", games=32, max_plies=120):  # ~2300 positions
        ref.set_sfen(pos.sfen())
        ref_moves = {m.sfen(): m for m in ref.generate_moves()}
        ours = {m.usi() for m in moves}
        assert ours <= set(ref_moves), pos.sfen()
        for extra in set(ref_moves) - ours:
            # minishogilib misses some 打ち歩詰め: accept only pawn drops that really mate
            assert extra.startswith("P*"), (pos.sfen(), extra)
            ref.do_move(ref_moves[extra])
            assert ref.is_in_check() and not ref.generate_moves(), (pos.sfen(), extra)
            ref.undo_move()
            peer_misses += 1
        checked += 1
        drops_seen += any(m.drop for m in moves)
    assert checked > 2000 and drops_seen > 500
    assert peer_misses < checked // 100


def test_check_and_hash_agree_with_cshogi_on_random_9x9_positions() -> None:
    rng = random.Random(7)
    board = cshogi.Board()
    for pos, _ in _playout_positions(rng, "shogi", games=5, max_plies=150):
        board.set_sfen(pos.sfen())
        assert pos.is_check() == board.is_check()
        # two positions with equal SFEN board/hands/side must hash equal (and differ otherwise)
        assert Position.from_sfen(pos.sfen()).zobrist == pos.zobrist
