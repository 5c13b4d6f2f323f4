"""Interoperability with cshogi: its exporters' KIF and CSA read back move for move, and its parsers
read our KIF and CSA to the same moves."""

from __future__ import annotations

import random
from datetime import datetime
from functools import cache
from pathlib import Path

import cshogi
import cshogi.CSA
import cshogi.KIF
import pytest

from komaken.game import Color, Termination
from komaken.records import GameRecord, dumps, read
from komaken.shogi import Position
from records_games import random_game

HANDICAP = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"


@cache
def game(seed: int) -> GameRecord:
    """``random_game(seed)``, played once for both tests below (they only read it)."""
    return random_game(seed)


def cshogi_game(seed: int, sfen: str | None = None) -> tuple[object, list[int]]:
    rng = random.Random(seed)
    board = cshogi.Board(sfen) if sfen else cshogi.Board()
    moves = []
    for _ in range(rng.randrange(1, 150)):
        legal = list(board.legal_moves)
        if not legal or board.is_game_over():
            break
        captures = [m for m in legal if board.piece(cshogi.move_to(m))]
        move = rng.choice(captures if captures and rng.random() < 0.5 else legal)
        board.push(move)
        moves.append(move)
    return board, moves


@pytest.mark.parametrize("suffix", [".kif", ".kifu"])
def test_cshogi_kif_reads_back(tmp_path: Path, suffix: str) -> None:
    for seed in range(25):
        sfen = "sfen " + HANDICAP if seed % 5 == 4 else None
        _, moves = cshogi_game(seed, HANDICAP if sfen else None)
        path = tmp_path / f"g{seed}{suffix}"
        exporter = cshogi.KIF.Exporter(str(path))
        exporter.header(["先手さん", "後手さん"], datetime(2024, 1, 2, 3, 4, 5), sfen)
        total = [0, 0]
        for i, move in enumerate(moves):
            total[i % 2] += i % 7
            exporter.move(move, i % 7, total[i % 2])
        exporter.end("resign", 1, 1)
        exporter.close()
        rec = read(path)
        assert [m.usi() for m in rec.moves] == [cshogi.move_to_usi(m) for m in moves], path.read_text(
            encoding="utf-8" if suffix == ".kifu" else "cp932")
        assert rec.times == [i % 7 for i in range(len(moves))]
        assert (rec.black, rec.white) == ("先手さん", "後手さん")
        assert rec.start_time == datetime(2024, 1, 2, 3, 4, 5)
        assert rec.result is not None and rec.result.termination is Termination.RESIGNATION
        assert rec.result.winner == rec.position().turn.other


def test_cshogi_csa_reads_back(tmp_path: Path) -> None:
    for seed in range(25):
        start = HANDICAP if seed % 5 == 4 else None
        board, moves = cshogi_game(100 + seed, start)
        path = tmp_path / f"g{seed}.csa"
        exporter = cshogi.CSA.Exporter(str(path))
        init = cshogi.Board(start) if start else cshogi.STARTING_SFEN
        exporter.info(init, ["black", "white"], {"EVENT": "interop"}, comment="hello", version="V2.2")
        for i, move in enumerate(moves):
            exporter.move(move, time=i % 5, comment="c" if i == 3 else None)
        exporter.endgame("%TORYO")
        exporter.close()
        rec = read(path)
        assert [m.usi() for m in rec.moves] == [cshogi.move_to_usi(m) for m in moves]
        assert rec.times == [i % 5 for i in range(len(moves))]
        assert (rec.black, rec.white, rec.headers["棋戦"]) == ("black", "white", "interop")
        if len(moves) > 3:
            assert rec.comments[3] == "c"
        if start:
            assert rec.initial_sfen.split()[:3] == HANDICAP.split()[:3]


def test_our_kif_read_by_cshogi() -> None:
    checked = 0
    for seed in range(60):  # 31 of them start as cshogi's KIF reader can read, without 不成
        rec = game(seed)
        if not rec.is_standard_start and rec.initial_sfen != HANDICAP:
            continue  # cshogi's KIF reader knows 手合割 but not board diagrams
        text = dumps(rec, "kif")
        if "不成" in text:
            continue  # cshogi's KIF reader does not know 不成 (Kifu for Windows writes it)
        parsed = cshogi.KIF.Parser.parse_str(text)
        assert [cshogi.move_to_usi(m) for m in parsed.moves] == [m.usi() for m in rec.moves], text
        assert parsed.names == [rec.black, rec.white]
        if any(t is not None for t in rec.times):
            assert parsed.times[: len(rec.moves)] == rec.times
        checked += 1
    assert checked >= 20


def test_our_csa_read_by_cshogi() -> None:
    checked = 0
    for seed in range(40):
        rec = game(seed)
        text = dumps(rec, "csa")
        (parsed,) = cshogi.CSA.Parser.parse_str(text)
        theirs = Position.from_sfen(parsed.sfen).sfen()  # hands in the usual order
        assert theirs.split()[:3] == rec.initial_sfen.split()[:3], text
        assert [cshogi.move_to_usi(m) for m in parsed.moves] == [m.usi() for m in rec.moves]
        assert parsed.names == [rec.black, rec.white]
        if rec.result is not None and rec.result.termination is Termination.RESIGNATION:
            black_won = rec.result.winner == Color.BLACK
            assert parsed.win == (cshogi.BLACK_WIN if black_won else cshogi.WHITE_WIN)
        checked += 1
    assert checked == 40
