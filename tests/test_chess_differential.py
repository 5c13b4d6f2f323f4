"""Chess against python-chess on thousands of positions from seeded random games.

In every position of every game: the legal move set, check, the game's end (reason and
winner), the FEN, the SAN of every legal move (and reading python-chess's SAN back), and that
equal positions get equal keys exactly when python-chess says they are the same position.
"""

from __future__ import annotations

import random

import chess
import pytest

from komaken.chess import Board, Move
from komaken.game import Color, Termination
from test_chess_perft import KIWIPETE, POSITION_3, POSITION_4, POSITION_5, START

STARTS = [START, KIWIPETE, POSITION_3, POSITION_4, POSITION_5]
#: seeds 22..39: 18 games, ~3200 positions and ~59000 legal moves (SAN written and read back), from
#: every start, with en passant and promotions, among them games that end in checkmate (seed 38),
#: stalemate (23), the fifty-move rule (22), repetition (39) and insufficient material: every verdict
#: of ``expected_outcome`` is compared where it happens, and no verdict anywhere else
FIRST_SEED = 22
GAMES = 18


def expected_outcome(ref: chess.Board) -> tuple[Termination, Color | None] | None:
    """python-chess's verdict in komaken's terms (draws end at once, as in our ``outcome``)."""
    if ref.is_checkmate():
        return Termination.CHECKMATE, Color.WHITE if ref.turn == chess.BLACK else Color.BLACK
    if ref.is_insufficient_material():
        return Termination.INSUFFICIENT_MATERIAL, None
    if ref.is_stalemate():
        return Termination.STALEMATE, None
    if ref.is_fifty_moves():
        return Termination.FIFTY_MOVES, None
    if ref.is_repetition(3):
        return Termination.REPETITION, None
    return None


def compare(board: Board, ref: chess.Board, keys: dict[object, int]) -> list[chess.Move]:
    ref_moves = list(ref.legal_moves)
    assert sorted(m.uci() for m in board.legal_moves()) == sorted(m.uci() for m in ref_moves), ref.fen()
    assert board.fen() == ref.fen()
    assert board.is_check() == ref.is_check()
    assert board.turn == (Color.WHITE if ref.turn == chess.WHITE else Color.BLACK)
    outcome = board.outcome()
    assert (None if outcome is None else (outcome.termination, outcome.winner)) == expected_outcome(ref), ref.fen()
    for move in ref_moves:
        ours = Move.from_uci(move.uci())
        text = ref.san(move)
        assert board.san(ours) == text, (ref.fen(), move.uci())
        assert board.parse_san(text) == ours
    transposition = ref._transposition_key()
    assert keys.setdefault(transposition, board.key) == board.key, ref.fen()
    return ref_moves


def play(seed: int, keys: dict[object, int]) -> int:
    """One random game from one of the suite's starts; returns the positions compared."""
    rng = random.Random(seed)
    fen = STARTS[seed % len(STARTS)]
    board, ref = Board(fen), chess.Board(fen)
    positions = 0
    while True:
        ref_moves = compare(board, ref, keys)
        positions += 1
        if board.outcome() is not None or positions > 400:
            return positions
        # favour captures and promotions a little so games reach endgames and odd material
        weighted = [m for m in ref_moves if ref.is_capture(m) or m.promotion] * 3 + ref_moves
        move = rng.choice(weighted)
        board.push(Move.from_uci(move.uci()))
        ref.push(move)


@pytest.mark.parametrize("block", range(4))
def test_random_games_match_python_chess(block: int) -> None:
    keys: dict[object, int] = {}
    seeds = range(FIRST_SEED + block * GAMES // 4, FIRST_SEED + (block + 1) * GAMES // 4)
    positions = sum(play(seed, keys) for seed in seeds)
    assert positions > 500
    assert len(set(keys.values())) == len(keys)  # different positions, different keys


def test_random_games_reach_every_ending() -> None:
    seen = set()
    for seed in range(120):  # the last of the five endings comes at seed 54 (stalemate); 120 doubles that
        rng = random.Random(seed)
        board = Board()
        while (outcome := board.outcome()) is None:
            moves = board.legal_moves()
            board.push(rng.choice(moves))
        seen.add(outcome.termination)
    assert seen >= {
        Termination.CHECKMATE,
        Termination.STALEMATE,
        Termination.INSUFFICIENT_MATERIAL,
        Termination.FIFTY_MOVES,
        Termination.REPETITION,
    }
