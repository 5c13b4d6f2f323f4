"""The rules of seed 000, one named case each."""

from __future__ import annotations

import pytest

from komaken import Color, IllegalMoveError, Termination
from komaken.shogi import Move, Position


def usis(pos: Position) -> set[str]:
    return {m.usi() for m in pos.legal_moves()}


# 打ち歩詰め: white king 1a boxed in by its own knight and pawn; black gold on 2c guards 1b.
UCHIFUZUME = "7nk/7p1/7G1/9/9/9/9/9/4K4 b P 1"


def test_uchifuzume_pawn_drop_mate_is_illegal() -> None:
    pos = Position.from_sfen(UCHIFUZUME)
    moves = usis(pos)
    assert "P*1b" not in moves
    assert "P*1c" in moves  # the same pawn elsewhere is fine
    with pytest.raises(IllegalMoveError):
        pos.push_usi("P*1b")


def test_tsukifuzume_pawn_push_mate_is_legal() -> None:
    pos = Position.from_sfen("7nk/7p1/7GP/9/9/9/9/9/4K4 b - 1")
    pos.push_usi("1c1b")
    outcome = pos.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.CHECKMATE and outcome.winner is Color.BLACK


def test_pawn_drop_check_that_can_be_answered_is_legal() -> None:
    # remove the guard on 1b: the king takes the pawn, so the drop is not mate
    pos = Position.from_sfen("7nk/7p1/9/9/9/9/9/9/4K4 b P 1")
    assert "P*1b" in usis(pos)


def test_nifu_two_pawns_on_a_file() -> None:
    pos = Position.from_sfen("4k4/9/9/9/9/9/4P4/9/4K4 b P 1")
    drops = {m for m in usis(pos) if m.startswith("P*")}
    assert not any(m[2] == "5" for m in drops)
    assert "P*4e" in drops
    # a promoted pawn (と) on the file does not count
    pos = Position.from_sfen("4k4/9/9/9/9/9/4+P4/9/4K4 b P 1")
    assert "P*5e" in usis(pos)


def test_pinned_piece_moves_only_along_the_pin() -> None:
    pos = Position.from_sfen("k3r4/9/9/9/9/9/9/4S4/4K4 b - 1")
    silver = {m for m in usis(pos) if m.startswith("5h")}
    assert silver == {"5h5g"}


def test_pinned_rook_slides_along_the_pin_and_captures_the_pinner() -> None:
    pos = Position.from_sfen("k3r4/9/9/9/9/9/9/4R4/4K4 b - 1")
    rook = {m for m in usis(pos) if m.startswith("5h")}
    assert rook == {"5h5g", "5h5f", "5h5e", "5h5d", "5h5c+", "5h5c", "5h5b+", "5h5b", "5h5a+", "5h5a"}


def test_double_check_only_king_moves() -> None:
    # white rook on 5a and white bishop on 1e both check the black king on 5i
    pos = Position.from_sfen("k3r4/9/9/9/8b/9/9/G8/4K4 b G 1")
    assert pos.is_check()
    moves = pos.legal_moves()
    assert moves and all(m.from_square == (5, 9) for m in moves)


def test_single_check_block_capture_or_move() -> None:
    pos = Position.from_sfen("k3r4/9/9/9/9/9/9/9/4K3R b G 1")
    moves = usis(pos)
    assert "1i5i" not in moves  # cannot capture through the king
    assert {"G*5h", "G*5b", "5i4h"} <= moves
    assert "G*4h" not in moves  # does not block the check


def test_dead_piece_drops_are_not_generated() -> None:
    pos = Position.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b NLP 1")
    moves = usis(pos)
    assert not any(m[2:] in {f"{f}a" for f in range(1, 10)} for m in moves if m[0] in "PL")
    assert not any(m[3] in "ab" for m in moves if m.startswith("N*"))
    assert "N*5c" in moves and "L*5b" in moves and "P*1b" in moves


def test_forced_promotion_of_pawn_lance_knight() -> None:
    pos = Position.from_sfen("8k/4P4/9/L3N4/9/9/9/9/4K4 b - 1")
    moves = usis(pos)
    assert "5b5a+" in moves and "5b5a" not in moves
    assert "5d4b+" in moves and "5d4b" not in moves  # knight to the second-last rank
    assert "9d9a+" in moves and "9d9a" not in moves
    assert "9d9b" in moves and "9d9b+" in moves  # lance on rank b: choice
    assert "9d9c" in moves and "9d9c+" in moves


def test_promotion_also_when_leaving_the_zone() -> None:
    pos = Position.from_sfen("8k/9/4S4/9/9/9/9/9/4K4 b - 1")
    moves = usis(pos)
    assert {"5c4d+", "5c4d", "5c5b+", "5c5b"} <= moves


def _shuffle(pos: Position, cycle: list[str], times: int) -> None:
    for _ in range(times):
        for m in cycle:
            assert pos.outcome() is None
            pos.push_usi(m)


def test_fourfold_repetition_is_a_draw_in_shogi() -> None:
    pos = Position.start("shogi")
    _shuffle(pos, ["5i5h", "5a5b", "5h5i", "5b5a"], 3)
    assert pos.repetition_count() == 3
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION and outcome.winner is None


def test_threefold_is_not_yet_repetition() -> None:
    pos = Position.start("shogi")
    _shuffle(pos, ["5i5h", "5a5b", "5h5i", "5b5a"], 2)
    assert pos.outcome() is None


def test_fourfold_repetition_is_a_loss_for_sente_in_minishogi() -> None:
    pos = Position.start("minishogi")
    _shuffle(pos, ["4e4d", "2a2b", "4d4e", "2b2a"], 3)
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION
    assert outcome.winner is Color.WHITE


def test_perpetual_check_loses() -> None:
    pos = Position.from_sfen("8k/9/R8/9/9/9/9/9/4K4 b - 1")
    pos.push_usi("9c9a")
    _shuffle(pos, ["1a1b", "9a9b", "1b1a", "9b9a"], 3)
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination is Termination.PERPETUAL_CHECK
    assert outcome.winner is Color.WHITE


def test_perpetual_check_by_gote_loses_in_minishogi_too() -> None:
    # white checks with the rook forever; sente would lose a plain repetition, but not this one
    pos = Position.from_sfen("4k/5/5/5/r3K b - 1", "minishogi")
    cycle = ["1e1d", "5e5d", "1d1e", "5d5e"]
    for _ in range(3):
        for m in cycle:
            assert pos.outcome() is None
            pos.push_usi(m)
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination is Termination.PERPETUAL_CHECK
    assert outcome.winner is Color.BLACK


def test_impasse_24_points_draw_when_both_have_enough() -> None:
    pos = Position.from_sfen("9/4K4/9/9/9/9/9/4k4/9 b 2R2B4G4s4n4l18p 1")
    assert pos.impasse_points(Color.BLACK) == 24 and pos.impasse_points(Color.WHITE) == 30
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination is Termination.IMPASSE and outcome.winner is None


def test_impasse_under_24_points_loses() -> None:
    pos = Position.from_sfen("9/4K4/9/9/9/9/9/4k4/9 b 2R2B3Gg4s4n4l18p 1")
    assert pos.impasse_points(Color.BLACK) == 23
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination is Termination.IMPASSE and outcome.winner is Color.WHITE


def test_no_impasse_while_a_king_is_outside_the_camp() -> None:
    pos = Position.from_sfen("9/4K4/9/9/9/4k4/9/9/9 b 2R2B4G4s4n4l18p 1")
    assert pos.outcome() is None


def test_declaration_27_points() -> None:
    from dataclasses import replace

    from komaken.shogi import SHOGI

    v = replace(SHOGI, impasse="27", impasse_points=27)
    # ten pieces in the camp (+R +B: 10 points, 4G 4S: 8) and pawns in hand
    rich = Position.from_sfen("+R+B7/GGGGSSSS1/4K4/9/9/9/9/9/4k4 b 10P 1", v)
    assert rich.can_declare()
    assert rich.declare().termination is Termination.DECLARATION
    poor = Position.from_sfen("+R+B7/GGGGSSSS1/4K4/9/9/9/9/9/4k4 b 9P 1", v)
    assert not poor.can_declare()  # black needs 28 points, has 27
    white = Position.from_sfen("4K4/9/9/9/9/9/4k4/1ssssgggg/7br w 9p 1", v)
    assert white.can_declare()  # white needs only 27
    with pytest.raises(IllegalMoveError):
        poor.declare()


def test_checkmate_outcome_and_no_moves() -> None:
    mate = Position.from_sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1")
    outcome = mate.outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE
    assert outcome.winner is Color.BLACK and mate.is_checkmate()


def test_max_plies_draw() -> None:
    from dataclasses import replace

    from komaken.shogi import MINISHOGI

    pos = Position.start(replace(MINISHOGI, max_plies=4))
    for m in ["4e4d", "2a2b", "4d4e"]:
        pos.push_usi(m)
        assert pos.outcome() is None
    pos.push_usi("2b2a")
    outcome = pos.outcome()
    assert outcome is not None and outcome.termination is Termination.MAX_PLIES and outcome.winner is None


def test_illegal_moves_raise_with_a_reason() -> None:
    pos = Position.start("shogi")
    with pytest.raises(IllegalMoveError, match="no piece on 5e"):
        pos.push_usi("5e5d")
    with pytest.raises(IllegalMoveError, match="not the mover's"):
        pos.push_usi("3c3d")
    with pytest.raises(IllegalMoveError, match="no P in hand"):
        pos.push_usi("P*5e")
    with pytest.raises(IllegalMoveError, match="not a USI move"):
        pos.push_usi("hello")
    with pytest.raises(IllegalMoveError, match="off the 5x5 board"):
        Position.start("minishogi").push_usi("9i9h")
    assert pos.ply == 0


def test_move_objects() -> None:
    m = Move.from_usi("2b3c+")
    assert m.from_square == (2, 2) and m.to_square == (3, 3) and m.promotion and m.drop is None
    d = Move.from_usi("P*5e")
    assert d.drop == "P" and d.from_square is None and str(d) == "P*5e"
    assert Move.from_usi("7g7f") == Move.from_usi("7g7f")
