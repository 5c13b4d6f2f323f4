"""Chess perft: the standard start and the chessprogramming-wiki suite, checked against python-chess.

The deep counts are the published ones; python-chess recounts every depth it can walk in well
under a second, so the reference numbers themselves are also checked here.
"""

from __future__ import annotations

import chess
import pytest

from komaken.chess import Board

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_4_MIRRORED = "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
POSITION_6 = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"

#: fen → leaf counts for depth 1, 2, ... (chessprogramming wiki "Perft Results").
SUITE = {
    START: [20, 400, 8902, 197281, 4865609],
    KIWIPETE: [48, 2039, 97862, 4085603],
    POSITION_3: [14, 191, 2812, 43238, 674624],
    POSITION_4: [6, 264, 9467, 422333],
    POSITION_4_MIRRORED: [6, 264, 9467, 422333],
    POSITION_5: [44, 1486, 62379, 2103487],
    POSITION_6: [46, 2079, 89890, 3894594],
}
CASES = [(fen, depth + 1, n) for fen, counts in SUITE.items() for depth, n in enumerate(counts)]


def reference_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += reference_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize(("fen", "depth", "expected"), CASES, ids=[f"{f.split()[0][:12]}-d{d}" for f, d, _ in CASES])
def test_perft(fen: str, depth: int, expected: int) -> None:
    board = Board(fen)
    assert board.perft(depth) == expected
    assert board.fen() == Board(fen).fen()  # perft leaves the board as it was


@pytest.mark.parametrize(("fen", "depth", "expected"), [c for c in CASES if c[2] < 100_000])
def test_reference_counts_agree_with_python_chess(fen: str, depth: int, expected: int) -> None:
    assert reference_perft(chess.Board(fen), depth) == expected


@pytest.mark.parametrize("fen", list(SUITE))
def test_divide_matches_python_chess(fen: str) -> None:
    """Per first move, so a wrong count would name the move at fault."""
    ours = Board(fen).divide(2)
    ref = chess.Board(fen)
    theirs = {}
    for move in ref.legal_moves:
        ref.push(move)
        theirs[move.uci()] = ref.legal_moves.count()
        ref.pop()
    assert ours == theirs


def test_perft_zero_and_negative() -> None:
    assert Board().perft(0) == 1
    with pytest.raises(ValueError):
        Board().perft(-1)


def test_perft_deep_in_a_long_game_grows_the_history() -> None:
    board = Board()
    for _ in range(70):  # knights out and back: 280 plies, more than the first buffer
        for uci in ("g1f3", "g8f6", "f3g1", "f6g8"):
            board.push_uci(uci)
    assert board.ply == 280
    assert board.perft(3) == 8902
