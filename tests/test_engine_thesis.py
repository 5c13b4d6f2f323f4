"""The thesis replica against hand-checked cases from the published Java program."""

from __future__ import annotations

import numpy as np

from komaken.players.base import RESIGN
from komaken.players.thesis import ThesisPlayer, hand_lists
from komaken.shogi import Position
from komaken.shogi.engine import _thesis as T


def test_java_random_matches_java() -> None:
    # new java.util.Random(42).nextInt() is -1170105035 (a well-known value): as next(31) that is
    # 3124862261 >> 1 = 1562431130, so nextInt(1000) == 130 and nextInt(10) == 0
    assert T.java_next_int(T.java_seed(42), 1000) == 130
    assert T.java_next_int(T.java_seed(42), 10) == 0
    rs = T.java_seed(7)
    draws = [T.java_next_int(rs, 1000) - 500 for _ in range(2000)]
    assert min(draws) >= -500 and max(draws) <= 499


def test_generation_order_breaks_ties() -> None:
    # Only kings: every move scores the same with no noise, so the program keeps the first
    # move it generates.  From 5e (suji 5, dan 5) direction 0 (suji-1, dan+1), 1 (dan+1),
    # 2 and 3 (suji+1) leave the board; direction 4 (suji-1, dan 0) is 4e: the first move.
    pos = Position.from_sfen("4k/5/5/5/K4 b - 1", "minishogi")
    for depth in (1, 2, 3):
        assert ThesisPlayer("minishogi", {}, depth=depth, noise=0).choose(pos).usi() == "5e4e"
    # The order itself: 4e, then direction 6 (up) 5d, then direction 7 (suji-1, dan-1) 4d
    hv, hn = hand_lists(pos, 1)
    out = np.empty(1024, dtype=np.int64)
    keys = np.empty(1024, dtype=np.int64)
    n = T.ordered_moves(pos._bd, pos._hd, pos._st, pos.variant.geo, pos.variant.rules, hv[0, 0], hn[0, 0], out, keys)
    from komaken.shogi.position import Move

    assert [Move(int(m)).usi() for m in out[:n]] == ["5e4e", "5e5d", "5e4d"]


def test_drops_follow_capture_order_and_promotion_comes_first() -> None:
    pos = Position.from_sfen("4k/5/5/5/K4 b GP 1", "minishogi")
    hv, hn = hand_lists(pos, 1)
    assert list(hv[0, 0, : hn[0, 0]]) == [1, 5]  # pieces in hand at the start: kind order (歩, 金)
    out = np.empty(1024, dtype=np.int64)
    keys = np.empty(1024, dtype=np.int64)
    n = T.ordered_moves(pos._bd, pos._hd, pos._st, pos.variant.geo, pos.variant.rules, hv[0, 0], hn[0, 0], out, keys)
    from komaken.shogi.position import Move

    usi = [Move(int(m)).usi() for m in out[:n]]
    assert usi[:3] == ["5e4e", "5e5d", "5e4d"]
    # pawns first: ranks 2-5 of every file but 5e (the king): 19 drops, then the gold from 1b
    assert usi[3] == "P*1b" and usi[3 + 19] == "G*1b" and len(usi) == 3 + 19 + 23
    silver = Position.from_sfen("k4/3S1/5/5/K4 b - 1", "minishogi")  # silver on 2b
    hv, hn = hand_lists(silver, 1)
    n = T.ordered_moves(silver._bd, silver._hd, silver._st, silver.variant.geo, silver.variant.rules, hv[0, 0],
                        hn[0, 0], out, keys)
    usi = [Move(int(m)).usi() for m in out[:n]]
    assert usi.index("2b1a+") + 1 == usi.index("2b1a")  # promoted first, then unpromoted
    assert usi.index("2b2a+") + 1 == usi.index("2b2a")


def test_captures_material_at_depth_one() -> None:
    # Start position, depth 1, no noise: the only capture is the rook taking the pawn on 1b
    pos = Position.start("minishogi")
    assert ThesisPlayer("minishogi", {}, depth=1, noise=0).choose(pos).usi() == "1e1b"


def test_hand_quirk_counts_hand_pieces_with_both_tables() -> None:
    pos = Position.from_sfen("4k/5/5/5/K4 b G 1", "minishogi")
    plain = ThesisPlayer("minishogi", {"G": 1200}, depth=1, noise=0)
    quirk = ThesisPlayer("minishogi", {"G": 1200}, depth=1, noise=0, hand_quirk=True, opponent_values={"G": 1000})
    plain.choose(pos)
    quirk.choose(pos)
    assert plain.last_score == 1200  # the gold in hand, once
    assert quirk.last_score == 2200  # komaValue_sente[G] + komaValue_gote[G]


def test_leaf_table_is_the_side_to_move_at_the_leaf() -> None:
    # Depth 1: the leaf has white to move, so white's table (the opponent's) scores the leaf
    pos = Position.from_sfen("4k/5/5/5/K4 b G 1", "minishogi")
    p = ThesisPlayer("minishogi", {"G": 1200}, depth=1, noise=0, opponent_values={"G": 900})
    p.choose(pos)
    assert p.last_score == 900


def test_seeded_and_resigns_without_moves() -> None:
    pos = Position.start("minishogi")
    a = [ThesisPlayer("minishogi", {}, seed=3).choose(pos) for _ in range(2)]
    assert a[0] == a[1]
    mated = Position.from_sfen("4k/4G/4P/5/K4 w - 1", "minishogi")
    assert ThesisPlayer("minishogi", {}).choose(mated) is RESIGN


def test_same_seed_same_game() -> None:
    def game(seed: int) -> list[str]:
        pos = Position.start("minishogi")
        players = [ThesisPlayer("minishogi", {}, seed=seed), ThesisPlayer("minishogi", {"R": 1500}, seed=seed + 1)]
        moves = []
        for _ in range(12):
            mv = players[pos.ply % 2].choose(pos)
            if mv is RESIGN:
                break
            pos.push(mv)
            moves.append(mv.usi())
        return moves

    assert game(11) == game(11)
