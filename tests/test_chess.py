"""Chess rules, notation, bad input, display and search on the komaken framework."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from komaken.chess import KNIGHT, QUEEN, Board, Move, Piece, best_move, evaluate
from komaken.errors import IllegalMoveError, InvalidPositionError
from komaken.game import Color, Game, Termination
from komaken.search.generic import is_win


def moves(board: Board) -> set[str]:
    return {m.uci() for m in board.legal_moves()}


def test_is_a_game() -> None:
    board = Board.start()
    assert isinstance(board, Game)
    assert board.turn is Color.WHITE and board.ply == 0
    board.push_san("e4")
    assert board.turn is Color.BLACK and board.ply == 1


# ---- castling ------------------------------------------------------------------------------
def test_castling_both_sides_and_the_rook_moves_too() -> None:
    board = Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert {"e1g1", "e1c1"} <= moves(board)
    board.push_san("O-O")
    assert board.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    board.push_san("O-O-O")
    assert board.fen() == "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"
    board.pop()
    board.pop()
    assert board.fen() == "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize(
    ("fen", "short", "long"),
    [
        ("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1", False, True),  # f1 attacked: cannot pass through
        ("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1", False, True),  # g1 attacked: cannot land in check
        ("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", True, True),  # b1 attacked: the king does not cross it
        ("3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1", True, False),  # d1 attacked
        ("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1", False, False),  # in check
        ("4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1", False, False),  # pieces in the way
        ("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", False, False),  # no rights
    ],
)
def test_castling_rules(fen: str, short: bool, long: bool) -> None:
    legal = moves(Board(fen))
    assert ("e1g1" in legal) is short
    assert ("e1c1" in legal) is long


def test_castling_rights_go_when_king_or_rook_moves_or_the_rook_is_taken() -> None:
    board = Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    board.push_uci("a1a8")  # takes the a8 rook: white loses Q, black loses q
    assert board.castling == "Kk"
    board.push_uci("e8e7")
    assert board.castling == "K"
    board.push_uci("h1h2")
    assert board.castling == "-"


# ---- en passant ----------------------------------------------------------------------------
def test_en_passant_capture_removes_the_passed_pawn() -> None:
    board = Board()
    for san in ("e4", "a6", "e5", "d5"):
        board.push_san(san)
    assert board.ep_square == 43  # d6
    assert board.san(Move.from_uci("e5d6")) == "exd6"
    board.push_san("exd6")
    assert board.piece_at(35) is None  # d5 emptied
    assert board.fen().startswith("rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3")


def test_en_passant_that_exposes_the_king_is_illegal() -> None:
    # both pawns would leave the fifth rank and open it for the rook on h5
    board = Board("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1")
    assert "e5d6" not in moves(board)
    assert board.fen().split()[3] == "-"  # no legal capture, so no en-passant square
    with pytest.raises(IllegalMoveError, match="e5d6"):
        board.push_uci("e5d6")
    assert "e5d6" in moves(Board("8/8/8/K2pP3/8/8/8/7k w - d6 0 1"))  # without the rook it is legal
    played = Board("8/3p4/8/K3P2r/8/8/8/7k b - - 0 1")
    played.push_san("d5")
    with pytest.raises(IllegalMoveError, match="e5d6: leaves the white king in check"):
        played.push_uci("e5d6")


def test_en_passant_square_counts_only_when_the_capture_is_legal() -> None:
    with_square = Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    without = Board("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1")
    assert "e5d6" in moves(with_square) and "e5d6" not in moves(without)
    assert with_square.key != without.key
    nobody_adjacent = Board("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1")
    assert nobody_adjacent.key == Board("4k3/8/8/3p4/8/8/8/4K3 w - - 0 1").key


# ---- promotion -----------------------------------------------------------------------------
def test_promotion_to_any_piece() -> None:
    board = Board("8/P7/8/8/8/8/8/k6K w - - 0 1")
    assert {"a7a8q", "a7a8r", "a7a8b", "a7a8n"} <= moves(board)
    assert "a7a8" not in moves(board)
    board.push_san("a8=N")
    assert board.piece_at(56) == Piece(KNIGHT, Color.WHITE)
    board.pop()
    assert board.piece_at(48) == Piece(1, Color.WHITE)
    with pytest.raises(IllegalMoveError, match="must promote"):
        board.push_uci("a7a8")
    with pytest.raises(IllegalMoveError, match="must promote"):
        board.push_san("a8")
    assert board.parse_move("a8Q") == Move(48, 56, QUEEN)
    assert board.san(Move(48, 56, QUEEN)) == "a8=Q+"


# ---- game end ------------------------------------------------------------------------------
def test_fools_mate() -> None:
    board = Board()
    for san in ("f3", "e5", "g4"):
        board.push_san(san)
    assert board.san(Move.from_uci("d8h4")) == "Qh4#"
    board.push_san("Qh4#")
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE
    assert outcome.winner is Color.BLACK and board.result() == "0-1"
    assert board.is_checkmate() and board.is_game_over() and board.legal_moves() == []


def test_stalemate_is_a_draw() -> None:
    board = Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert board.is_stalemate() and not board.is_check()
    outcome = board.outcome()
    assert outcome is not None and (outcome.termination, outcome.winner) == (Termination.STALEMATE, None)
    assert board.result() == "1/2-1/2" and Termination.STALEMATE.japanese == "ステイルメイト"


@pytest.mark.parametrize(
    ("fen", "insufficient"),
    [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),  # K v K
        ("4k3/8/8/8/8/8/8/4KB2 w - - 0 1", True),  # K+B v K
        ("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", True),  # K+N v K
        ("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", True),  # bishops on the same colour
        ("4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", False),  # opposite colours: a mate exists
        ("4kn2/8/8/8/8/8/8/4KN2 w - - 0 1", False),  # K+N v K+N: a helpmate exists
        ("4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", False),  # two knights
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", False),  # a pawn
    ],
)
def test_insufficient_material(fen: str, insufficient: bool) -> None:
    board = Board(fen)
    assert board.is_insufficient_material() is insufficient
    outcome = board.outcome()
    assert (outcome is not None and outcome.termination is Termination.INSUFFICIENT_MATERIAL) is insufficient


def test_fifty_move_rule_and_mate_first() -> None:
    board = Board("4k3/8/8/8/8/8/R7/4K3 w - - 99 80")
    assert board.outcome() is None
    board.push_uci("a2a3")
    outcome = board.outcome()
    assert outcome is not None and (outcome.termination, outcome.winner) == (Termination.FIFTY_MOVES, None)
    board.pop()
    board.push_uci("e1e2")
    assert board.outcome() is not None
    mate = Board("6k1/5ppp/8/8/8/8/8/R3K3 w - - 99 80")
    mate.push_san("Ra8#")
    outcome = mate.outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE  # mate beats the count


def test_threefold_repetition() -> None:
    board = Board()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for uci in shuffle * 2:
        assert board.outcome() is None
        board.push_uci(uci)
    outcome = board.outcome()
    assert outcome is not None and (outcome.termination, outcome.winner) == (Termination.REPETITION, None)
    assert board.is_repetition(3) and not board.is_repetition(4)
    board.pop()
    assert board.outcome() is None


# ---- FEN -----------------------------------------------------------------------------------
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("", "4 to 6 fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6 .*bad character '9'"),
        ("rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6 .* 7 squares"),
        ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 .*bad character 'x'"),
        ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "two digits"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move 'x'"),
        ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "black must have exactly one king"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w - - 0 1", r"white .*one king \(found 2: d1, e1\)"),
        ("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "'k' needs the black king on e8 and a rook on h8"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KX - 0 1", "bad letter 'X'"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KK - 0 1", "'K' given twice"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "e3 must be on rank 6"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "e3: no white pawn"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1", "'z9' is not a square"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove clock '-1'"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove number '0'"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999999999999", "fullmove number"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ٣ 1", "halfmove clock"),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "white pawn on a8"),
        ("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1", "black has 9 pawns"),
        ("4k3/8/8/8/8/8/8/4RK2 w - - 0 1", "black is not to move but its king on e8 is in check"),
    ],
)
def test_bad_fen_names_what_and_where(fen: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Board.from_fen(fen)


def test_fen_forms() -> None:
    assert Board.from_fen("startpos") == Board()
    assert Board.from_text(START[: -len(" 0 1")]).fen() == START  # clocks may be left out
    assert Board().to_text() == START


# ---- moves as text -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("e2e5", "white pawn on e2 cannot move there"),
        ("e3e4", "no piece on e3"),
        ("e7e5", "not white's"),
        ("zz", "is not SAN"),
        ("Nf6", "no legal white move matches"),
        ("O-O", "cannot castle"),
        ("g1f3q", "cannot promote"),
    ],
)
def test_illegal_move_text(text: str, message: str) -> None:
    board = Board()
    with pytest.raises(IllegalMoveError, match=message):
        board.push_text(text)
    assert board == Board() and board.ply == 0  # nothing changed


def test_moves_into_check_and_non_moves() -> None:
    board = Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    with pytest.raises(IllegalMoveError, match="leaves the white king in check"):
        board.push_uci("e1f2")
    with pytest.raises(IllegalMoveError, match="not a chess Move"):
        board.push("e1e2")  # type: ignore[arg-type]
    with pytest.raises(IndexError):
        board.pop()


def test_san_disambiguation_and_ambiguity() -> None:
    board = Board("4k3/8/8/8/8/R7/8/R3K3 w - - 0 1")
    assert board.san(Move.from_uci("a1a2")) == "R1a2"
    assert board.san(Move.from_uci("a3a2")) == "R3a2"
    knights = Board("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")
    assert knights.san(Move.from_uci("b1d2")) == "Nbd2"
    with pytest.raises(IllegalMoveError, match="ambiguous: Nbd2, Nfd2"):
        knights.push_san("Nd2")
    queens = Board("8/8/7k/8/Q7/8/8/Q2Q3K w - - 0 1")  # a1, a4 and d1 all reach d4
    assert queens.san(Move.from_uci("a1d4")) == "Qa1d4"
    pinned = Board("4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1")  # the e2 knight is pinned
    assert pinned.san(Move.from_uci("b1c3")) == "Nc3"


def test_parse_move_reads_uci_and_san() -> None:
    board = Board()
    assert board.parse_move("g1f3") == board.parse_move("Nf3") == board.parse_move("Ng1f3") == Move(6, 21)
    assert board.move_text(Move(6, 21)) == "Nf3" and board.move_text(Move(6, 21), "uci") == "g1f3"
    castle = Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert castle.parse_move("0-0-0") == castle.parse_move("e1c1") == Move(4, 2)


# ---- state ---------------------------------------------------------------------------------
def test_copy_equality_and_transpositions() -> None:
    a, b = Board(), Board()
    for san in ("Nf3", "Nf6", "Nc3"):
        a.push_san(san)
    for san in ("Nc3", "Nf6", "Nf3"):
        b.push_san(san)
    assert a == b and a.key == b.key and a.move_stack != b.move_stack
    c = a.copy()
    c.push_san("e5")
    assert c != a and a.ply == 3 and c.peek() == Move.from_uci("e7e5")


# ---- display -------------------------------------------------------------------------------
def test_text_boards() -> None:
    board = Board()
    text = board.board_text()
    assert text.splitlines()[0] == "8 r n b q k b n r"
    assert text.splitlines()[-1] == "white to move"
    assert board.board_text("unicode").splitlines()[7] == "1 ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖"
    assert board.board_text(coordinates=False).splitlines()[0] == "r n b q k b n r"
    for san in ("f3", "e5", "g4", "Qh4#"):
        board.push_san(san)
    assert board.board_text().splitlines()[-1] == "checkmate, black wins"


def test_svg_board() -> None:
    board = Board()
    board.push_san("e4")
    root = ET.fromstring(board._repr_svg_())
    ns = "{http://www.w3.org/2000/svg}"
    solid = [t for t in root.iter(f"{ns}text") if t.text and t.text[0] in "♚♛♜♝♞♟"]
    outline = [t for t in root.iter(f"{ns}text") if t.text and t.text[0] in "♔♕♖♗♘♙"]
    assert len(solid) == 32 and len(outline) == 16  # white pieces: a white solid glyph, outlined
    assert sum(t.get("fill") == "#000000" for t in solid) == 16
    highlighted = [r for r in root.iter(f"{ns}rect") if r.get("fill") == "#cdd26a"]
    assert len(highlighted) == 2  # e2 and e4
    checked = Board("R3k3/8/8/8/8/8/8/4K3 b - - 0 1")
    checked_root = ET.fromstring(checked.svg(flipped=True))
    assert len(list(checked_root.iter(f"{ns}circle"))) == 1


# ---- evaluation and the generic search ----------------------------------------------------
def mirrored(fen: str) -> str:
    """The same position with colours swapped and the board turned round."""
    parts = fen.split()
    board = "/".join(reversed(parts[0].split("/"))).swapcase()
    side = "b" if parts[1] == "w" else "w"
    castling = "".join(sorted(parts[2].swapcase(), key="KQkq".index)) if parts[2] != "-" else "-"
    return f"{board} {side} {castling} - {parts[4]} {parts[5]}"


@pytest.mark.parametrize(
    "fen",
    [
        START,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ],
)
def test_evaluation_is_colour_symmetric(fen: str) -> None:
    assert evaluate(Board(fen)) == evaluate(Board(mirrored(fen)))
    assert Board(fen).perft(2) == Board(mirrored(fen)).perft(2)


def test_generic_search_finds_mate_and_wins_material() -> None:
    mate = Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    result = best_move(mate, depth=2)
    assert result.move == Move.from_uci("a1a8") and is_win(result.score)
    hanging = Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    assert best_move(hanging, depth=2).move == Move.from_uci("d1d5")
    assert evaluate(Board()) == 0


def test_a_whole_game_between_generic_players() -> None:
    """The search plays white against a seeded random player until the game ends."""
    from komaken.players.boardgames import RandomPlayer

    board, opponent = Board(), RandomPlayer(seed=7)
    while board.outcome() is None and board.ply < 200:
        if board.turn is Color.WHITE:
            move = best_move(board, depth=1, seed=board.ply).move
        else:
            move = opponent.choose(board)
        assert move is not None
        board.push(move)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Color.WHITE  # material greed beats random moves


@pytest.mark.parametrize("module", ["komaken.chess", "komaken.chess._board", "komaken.chess._evaluate"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
