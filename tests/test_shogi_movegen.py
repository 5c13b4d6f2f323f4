"""The direct legal-move generator: the kernel entry the engine's loops use, checked on random games."""

from __future__ import annotations

import random

import numpy as np
import pytest

from komaken import IllegalMoveError
from komaken.shogi import Move, Position
from komaken.shogi import _kernels as K


def _positions(variant: str, games: int, seed: int):
    rng = random.Random(seed)
    for _ in range(games):
        pos = Position.start(variant)
        for _ in range(120):
            codes = pos.legal_codes()
            if len(codes) == 0:
                break
            yield pos
            captures = [int(c) for c in codes if (c >> 8) & 0xFF and pos._bd[c & 0xFF]]
            pos.push_usi(pos.legal_moves()[list(codes).index(rng.choice(captures))].usi()
                         if captures and rng.random() < 0.5 else rng.choice(pos.legal_moves()).usi())


def test_gen_legal_into_appends_the_same_moves_and_leaves_its_tables_zero() -> None:
    out = np.full(3 * K.MAX_MOVES, -1, dtype=np.int64)
    sc = np.zeros(K.SCRATCH_SIZE, dtype=np.int16)
    checks = 0
    for variant in ("shogi", "minishogi"):
        for pos in _positions(variant, 8, 7):
            s = pos.kernel_state()
            expected = pos.legal_codes()
            end = K.gen_legal_into(s.bd, s.hd, s.st, s.geo, s.rules, out, 100, sc)
            assert list(out[100:end]) == list(expected)
            assert out[99] == -1 and not sc[: K.SC_PINNED + 1].any()
            checks += pos.is_check()
    assert checks > 10  # evasions were exercised


def test_gen_captures_into_is_the_legal_captures_in_the_same_order() -> None:
    """Quiescence search reads only captures: they must be exactly gen_legal's board moves onto an
    enemy piece (promotion choices, pins, evasions and all), in its order, with no drop."""
    out = np.full(K.MAX_MOVES + 10, -1, dtype=np.int64)
    sc = np.zeros(K.SCRATCH_SIZE, dtype=np.int16)
    seen = checks = 0
    for variant in ("shogi", "minishogi", "judkins"):
        for pos in _positions(variant, 8, 3):
            s = pos.kernel_state()
            expected = [int(c) for c in pos.legal_codes() if K.move_from(int(c)) != 0 and s.bd[K.move_to(int(c))]]
            end = K.gen_captures_into(s.bd, s.hd, s.st, s.geo, s.rules, out, 10, sc)
            assert list(out[10:end]) == expected, pos.sfen()
            assert out[9] == -1 and not sc[: K.SC_PINNED + 1].any()
            seen += len(expected)
            checks += pos.is_check() and bool(expected)
    assert seen > 1000 and checks > 3  # captures, and captures of a checking piece, were exercised


def test_every_generated_move_leaves_the_king_safe() -> None:
    for pos in _positions("shogi", 6, 11):
        mover = int(pos._st[K.ST_SIDE])
        for move in pos.legal_moves():
            pos.push(move)
            king = int(pos._st[K.ST_KING + mover])
            assert not K.attacked(pos._bd, king, 1 - mover, pos.variant.rules), (pos.sfen(), move.usi())
            pos.pop()


def test_double_check_allows_only_king_moves() -> None:
    # white's king on 5a checked by the rook on 5i and the knight on 4c; a gold on 6b could take
    # the knight, a silver in hand could block on the file: neither answers both checks
    pos = Position.from_sfen("4k4/3g5/5N3/9/9/9/9/9/K3R4 w S 1")
    assert pos.is_check()
    moves = pos.legal_moves()
    assert moves and all(m.from_square == pos.king_square("white") for m in moves)


def test_gives_check_matches_playing_the_move() -> None:
    """``gives_check`` (the piece set down for one look from the enemy king) says what playing
    the move and asking whether the opponent is in check says — drops, promotions, captures,
    king moves and discovered checks included — and leaves the board as it was."""
    checks = discovered = 0
    for variant in ("shogi", "minishogi", "judkins"):
        for pos in _positions(variant, 6, 11):
            s = pos.kernel_state()
            before = s.bd.copy()
            us = int(s.st[K.ST_SIDE])
            king = int(s.st[K.ST_KING + 1 - us])
            for code in (int(c) for c in pos.legal_codes()):
                quick = K.gives_check(s.bd, s.st, s.rules, code)
                assert pos.gives_check(Move(code)) == quick  # the Position API asks the same kernel
                assert np.array_equal(s.bd, before)
                played = K.push(s.bd, s.hd, s.st, s.hh, s.hist, s.rules, code)
                K.undo_move(s.bd, s.hd, s.st, s.hist)
                assert quick == played, (pos.sfen(), code)
                checks += played
                frm = K.move_from(code)
                if played and frm:
                    lifted = s.bd.copy()
                    lifted[frm] = 0  # the piece's own square emptied: a line from behind it opens
                    discovered += K.attacked(lifted, king, us, s.rules) and not K.attacked(s.bd, king, us, s.rules)
    assert checks > 100 and discovered > 0
    start = Position.start("shogi")
    with pytest.raises(IllegalMoveError, match="7g7e"):
        start.gives_check(Move.from_usi("7g7e"))
