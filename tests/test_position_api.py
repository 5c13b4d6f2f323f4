"""The python-chess-style conveniences of Position, Move and Color (issue 14), and that the
old spellings still work."""

from __future__ import annotations

import pydoc

import pytest

from komaken.errors import IllegalMoveError, InvalidPositionError, KomakenError
from komaken.game import Color
from komaken.legal import LegalMoves
from komaken.reversi import Reversi
from komaken.shogi import Move, Piece, Position, Square
from komaken.tictactoe import TicTacToe


# ---- legal_moves: a sized, iterable, callable view -------------------------------------------
def test_legal_moves_is_a_sequence_and_still_callable() -> None:
    pos = Position.start("minishogi")
    view = pos.legal_moves
    assert isinstance(view, LegalMoves)
    assert len(view) == 14
    assert view[0] == Move.from_usi("1e1d")
    assert list(view) == pos.legal_moves()
    assert isinstance(pos.legal_moves(), list)
    assert Move.from_usi("5d5c") in view and "5d5c" in view
    assert "5d5b" not in view and "garbage" not in view
    assert view[-1] in view and len(view[2:5]) == 3
    assert bool(view)


def test_legal_moves_view_follows_the_position() -> None:
    pos = Position.start("minishogi")
    view = pos.legal_moves
    before = list(view)
    pos.push_usi("5d5c")
    assert list(view) != before
    assert list(view) == pos.legal_moves()
    pos.pop()
    assert list(view) == before


def test_iterating_while_pushing_uses_a_snapshot() -> None:
    pos = Position.start("minishogi")
    seen = []
    for move in pos.legal_moves:
        pos.push(move)
        seen.append(move)
        pos.pop()
    assert seen == pos.legal_moves()


def test_no_legal_moves_is_falsy_and_empty() -> None:
    pos = Position.from_sfen("4k/4G/4P/5/K4 w - 1")
    assert pos.is_checkmate()
    assert len(pos.legal_moves) == 0 and not pos.legal_moves and pos.legal_moves() == []


def test_reversi_and_tictactoe_views() -> None:
    r = Reversi.start()
    assert len(r.legal_moves) == 4 and "f5" in r.legal_moves and "F5" in r.legal_moves
    assert [str(m) for m in r.legal_moves] == ["d3", "c4", "f5", "e6"] == [str(m) for m in r.legal_moves()]
    t = TicTacToe()
    assert len(t.legal_moves) == 9 and "5" in t.legal_moves and "0" not in t.legal_moves
    t.push(t.legal_moves[4])
    assert "5" not in t.legal_moves and len(t.legal_moves) == 8


# ---- moves ----------------------------------------------------------------------------------
def test_moves_from_the_position_know_their_piece() -> None:
    pos = Position.start("minishogi")
    by_usi = {m.usi(): m for m in pos.legal_moves}
    assert by_usi["5d5c"].piece == Piece("P", Color.BLACK)
    assert by_usi["1e1d"].piece == Piece("R", Color.BLACK)
    assert Move.from_usi("5d5c").piece is None  # text alone does not know it
    assert Move.from_usi("5d5c") == by_usi["5d5c"] and hash(Move.from_usi("5d5c")) == hash(by_usi["5d5c"])
    assert pos.push_usi("5d5c").piece == Piece("P", Color.BLACK)
    assert pos.push_usi("1a2b").piece == Piece("K", Color.WHITE)


def test_piece_of_promotions_drops_pop_peek_and_move_stack() -> None:
    pos = Position.from_sfen("4k/1P3/5/5/K4 b S 1")
    move = pos.push_usi("4b4a+")
    assert move.piece == Piece("P", Color.BLACK)  # the piece before it promoted
    assert pos.peek().piece == Piece("P", Color.BLACK)  # type: ignore[union-attr]
    assert pos.piece_at("4a") == Piece("+P", Color.BLACK)
    assert pos.push_usi("1a1b").piece == Piece("K", Color.WHITE)
    assert pos.push_usi("S*3c").piece == Piece("S", Color.BLACK)
    assert [m.piece for m in pos.move_stack] == [Piece("P", Color.BLACK), Piece("K", Color.WHITE),
                                                 Piece("S", Color.BLACK)]
    assert pos.move_stack == [Move.from_usi(t) for t in ("4b4a+", "1a1b", "S*3c")]
    assert pos.pop().piece == Piece("S", Color.BLACK)
    assert pos.pop().piece == Piece("K", Color.WHITE)
    assert pos.pop().piece == Piece("P", Color.BLACK)


def test_move_japanese_reuses_the_notation_module() -> None:
    pos = Position.start()
    assert Move.from_usi("7g7f").japanese(pos) == "７六歩"
    assert Move.from_usi("7g7f").japanese(pos, marked=True) == "▲７六歩"
    assert Move.from_usi("7g7f").japanese(pos, style="kif") == "７六歩(77)"
    pos.push_usi("7g7f")
    pos.push_usi("3c3d")
    pos.push_usi("8h2b+")
    assert Move.from_usi("3a2b").japanese(pos, marked=True) == "△同　銀"  # 同 + one-character piece: a full-width space


def test_push_japanese() -> None:
    pos = Position.start()
    assert pos.push_japanese("７六歩") == Move.from_usi("7g7f")
    assert pos.push_japanese("△34歩").usi() == "3c3d"
    with pytest.raises(IllegalMoveError, match="not Japanese move text"):
        pos.push_japanese("7g7f")


# ---- misuse names the right call -------------------------------------------------------------
def test_push_of_text_points_to_push_usi_or_push_japanese() -> None:
    pos = Position.start()
    with pytest.raises(IllegalMoveError, match=r"push_usi\('7g7f'\)"):
        pos.push("7g7f")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match=r"push_japanese\('７六歩'\)"):
        pos.push("７六歩")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="takes a Move"):
        pos.push(42)  # type: ignore[arg-type]
    assert pos.ply == 0
    dobutsu = Position.start("dobutsu")  # a variant's own piece names are Japanese move text too
    with pytest.raises(IllegalMoveError, match=r"push_japanese\('２二ヒ'\)"):
        dobutsu.push("２二ヒ")  # type: ignore[arg-type]
    assert dobutsu.push_japanese("２二ヒ").usi() == "2c2b"


# ---- turn and Color ---------------------------------------------------------------------------
def test_turn_prints_as_a_colour_and_stays_an_int() -> None:
    pos = Position.start()
    assert str(pos.turn) == "black" and f"{pos.turn} to move" == "black to move"
    assert repr(pos.turn) == "Color.BLACK" and pos.turn.mark == "▲" and pos.turn.japanese == "先手"
    assert pos.turn == 0 and int(pos.turn) == 0 and f"{pos.turn:d}" == "0" and [10, 20][pos.turn] == 10
    pos.push_usi("7g7f")
    assert str(pos.turn) == "white" and pos.turn.mark == "△" and pos.turn is Color.WHITE


@pytest.mark.parametrize(("text", "color"), [("black", Color.BLACK), ("WHITE", Color.WHITE), ("sente", Color.BLACK),
                                             ("gote", Color.WHITE), ("先手", Color.BLACK), ("後手", Color.WHITE),
                                             ("b", Color.BLACK), ("w", Color.WHITE), (1, Color.WHITE)])
def test_color_parse(text: object, color: Color) -> None:
    assert Color.parse(text) is color


def test_color_parse_errors() -> None:
    with pytest.raises(KomakenError, match="unknown colour 'red'"):
        Color.parse("red")
    with pytest.raises(KomakenError, match="no colour 2"):
        Color.parse(2)
    with pytest.raises(TypeError):
        Color.parse(None)
    with pytest.raises(TypeError):
        Color.parse(True)


# ---- hand, piece_at ---------------------------------------------------------------------------
def test_hand_by_name_or_color() -> None:
    pos = Position.from_sfen("4k/5/5/5/K4 b 2PGr 1")
    assert pos.hand("black") == pos.hand(Color.BLACK) == pos.hand(0) == {"G": 1, "P": 2}
    assert pos.hand("white") == pos.hand("gote") == pos.hand(Color.WHITE) == {"R": 1}
    with pytest.raises(KomakenError, match="unknown colour 'blue'"):
        pos.hand("blue")
    with pytest.raises(KomakenError, match="no colour 2"):
        pos.hand(2)  # was a raw numpy IndexError
    assert pos.impasse_points("black") == 3 and pos.king_square("white") == Square(1, 1)


def test_piece_at_accepts_text_tuples_and_squares() -> None:
    pos = Position.start()
    assert pos.piece_at("7g") == pos.piece_at((7, 7)) == pos.piece_at(Square(7, 7)) == Piece("P", Color.BLACK)
    assert pos.piece_at("７七") == pos.piece_at("77") == Piece("P", Color.BLACK)
    assert pos.piece_at("5a") == Piece("K", Color.WHITE)
    assert pos.piece_at("5e") is None
    with pytest.raises(InvalidPositionError, match="not a square: 'z9'"):
        pos.piece_at("z9")
    with pytest.raises(TypeError, match="a square is"):
        pos.piece_at(77)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match="off the 5x5 board"):
        Position.start("minishogi").piece_at("7g")


# ---- game end ----------------------------------------------------------------------------------
def test_is_checkmate_and_is_repetition() -> None:
    pos = Position.from_sfen("4k/5/4P/5/K4 b G 1")
    assert not pos.is_checkmate()
    pos.push_usi("G*1b")
    assert pos.is_checkmate() and pos.is_check()
    pos = Position.start()
    assert not pos.is_repetition() and not pos.is_repetition(2)
    shuffle = ["5i5h", "5a5b", "5h5i", "5b5a"]
    for n in range(1, 4):
        for m in shuffle:
            pos.push_usi(m)
        assert pos.is_repetition(n + 1)
        assert pos.is_repetition() == (n + 1 >= 4)
    assert pos.outcome() is not None  # 千日手 on the fourth occurrence


# ---- from_sfen infers the board ----------------------------------------------------------------
@pytest.mark.parametrize(("sfen", "name"), [
    ("4k/5/4P/5/K4 b G 1", "minishogi"),
    ("sfen rbsgk/4p/5/P4/KGSBR b - 1", "minishogi"),
    ("rbnsgk/5p/6/6/P5/KGSNBR b - 1", "judkins"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "shogi"),
    ("startpos", "shogi"),
])
def test_from_sfen_infers_the_variant_from_the_board(sfen: str, name: str) -> None:
    assert Position.from_sfen(sfen).variant.name == name


def test_from_sfen_with_an_explicit_variant_still_checks_the_size() -> None:
    with pytest.raises(InvalidPositionError):
        Position.from_sfen("4k/5/4P/5/K4 b G 1", "shogi")
    with pytest.raises(InvalidPositionError, match="7 ranks .* pass variant="):
        Position.from_sfen("7/7/7/7/7/7/7 b - 1")
    assert Position.from_sfen("3k3/7/7/7/7/7/3K3 b - 1", "shogi7x7").variant.height == 7


def test_help_does_not_repeat_the_variant_repr() -> None:
    text = pydoc.render_doc(Position)
    assert "Variant(name=" not in text
    assert "legal_moves" in text and "push_usi" in text
