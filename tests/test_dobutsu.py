"""どうぶつしょうぎ (dobutsu): the shipped ``dobutsu.toml`` played by the same kernels as every
variant, checked against Fairy-Stockfish's ``dobutsu`` (pyffish) and against hand-worked rules."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from komaken import records
from komaken.game import Color, Termination
from komaken.lab import ExperimentDB, load_experiment, run_experiment
from komaken.lab.report import build
from komaken.records import GameRecord
from komaken.records.record import variant_for_size
from komaken.shogi import Position, load_variant
from komaken.web._games import catalog
from usi_support import DEADLINE, start_engine

DOBUTSU = load_variant("dobutsu")

# pyffish writes files a..c from sente's left (our 3..1), ranks 1..4 from sente's side (our d..a)
# and the pieces as c e g l (+ h for the hen): sente is "w" there, upper case.
_FSF_PIECE = {"C": "P", "E": "B", "G": "R", "L": "K"}


def _usi(fsf: str) -> str:
    """A pyffish move (``b2b3``, ``C@a2``, ``b3b4+``) as komaken's USI."""
    def sq(t: str) -> str:
        return f"{ord('d') - ord(t[0])}{chr(ord('a') + 4 - int(t[1]))}"

    if "@" in fsf:
        return f"{_FSF_PIECE[fsf[0].upper()]}*{sq(fsf[2:4])}"
    return sq(fsf[0:2]) + sq(fsf[2:4]) + ("+" if fsf.endswith("+") else "")


def _fsf_perft(sf: Any, fen: str, moves: list[str], depth: int) -> int:
    ms = sf.legal_moves("dobutsu", fen, moves)
    return len(ms) if depth == 1 else sum(_fsf_perft(sf, fen, [*moves, m], depth - 1) for m in ms)


def test_perft_from_the_start_position() -> None:
    # Fairy-Stockfish's dobutsu gives 4, 17, 123, 976, 8122 (pyffish legal_moves, walked)
    pos = Position.start(DOBUTSU)
    assert [pos.perft(d) for d in range(1, 6)] == [4, 17, 123, 976, 8122]
    assert pos.sfen() == "rkb/1p1/1P1/BKR b - 1"


def test_legal_moves_game_ends_and_perft_match_pyffish_from_random_positions() -> None:
    sf = pytest.importorskip("pyffish")
    start = sf.start_fen("dobutsu")
    ends = {"try": 0, "capture": 0}
    perfts = []
    for seed in range(24):
        rng = random.Random(seed)
        pos = Position.start(DOBUTSU)
        fsf: list[str] = []
        live = (pos.copy(), list(fsf))  # the walk's last position where the game goes on
        for _ in range(rng.randint(6, 60)):
            theirs = sf.legal_moves("dobutsu", start, fsf)
            ours = sorted(m.usi() for m in pos.legal_moves())
            assert ours == sorted(_usi(m) for m in theirs), (pos.sfen(), fsf)
            over, result = sf.is_immediate_game_end("dobutsu", start, fsf)
            outcome = pos.outcome()
            assert over == (outcome is not None and outcome.termination in (Termination.TRY,
                                                                             Termination.KING_CAPTURED))
            if over:  # pyffish scores from the side to move: it may be the one whose try stands
                assert outcome is not None and not theirs
                assert outcome.winner == (pos.turn if result > 0 else pos.turn.other), pos.sfen()
                ends["try" if outcome.termination is Termination.TRY else "capture"] += 1
                break
            if outcome is not None:  # a repetition: pyffish plays on, so the walk stops here
                break
            live = (pos.copy(), list(fsf))
            m = rng.choice(theirs)
            fsf.append(m)
            pos.push_usi(_usi(m))
        # perft from that position agrees too (pyffish from its own FEN of it, without the history)
        here, moves = live
        fen = sf.get_fen("dobutsu", start, moves)
        depth = 3 if seed % 6 == 0 else 2
        ours = Position.from_sfen(here.sfen(), DOBUTSU).perft(depth)
        assert ours == _fsf_perft(sf, fen, [], depth), here.sfen()
        perfts.append(ours)
    assert ends["try"] > 0 and ends["capture"] > 0  # the walks reached both kinds of ending
    assert len(perfts) == 24 and min(perfts) > 0  # from 24 positions where the game goes on


def test_the_lion_may_step_into_attack_and_be_taken() -> None:
    # black's lion on 2c may step next to white's lion (2b is attacked by it); white then takes it
    pos = Position.from_sfen("1k1/3/1K1/3 b - 1", DOBUTSU)
    assert "2c2b" in {m.usi() for m in pos.legal_moves()}
    pos.push_usi("2c2b")
    pos.push_usi("2a2b")
    assert pos.outcome() is not None
    assert (pos.outcome().termination, pos.outcome().winner) == (Termination.KING_CAPTURED, Color.WHITE)
    assert pos.legal_moves() == []  # the game is over: nothing more is generated, as in pyffish


def test_try_wins_only_where_the_enemy_does_not_attack_the_lion() -> None:
    # Worked by hand.  Black's lion on 3b steps to 3a; white's giraffe on 2a attacks 3a.
    pos = Position.from_sfen("1r1/K2/1k1/3 b - 1", DOBUTSU)
    pos.push_usi("3b3a")
    assert pos.outcome() is None  # attacked: white may still take it
    ignored = pos.copy()
    ignored.push_usi("2c1c")  # white ignores it; the giraffe still attacks 3a
    assert ignored.outcome() is None
    pos.push_usi("2a2b")  # the giraffe leaves: nothing attacks 3a any more
    assert pos.outcome() is not None
    assert (pos.outcome().termination, pos.outcome().winner) == (Termination.TRY, Color.BLACK)
    safe = Position.from_sfen("3/K2/1k1/3 b - 1", DOBUTSU)
    safe.push_usi("3b3a")  # unattacked at once: black wins before white moves
    assert safe.outcome() is not None and safe.outcome().termination is Termination.TRY


def test_chicks_promote_on_the_last_rank_and_may_be_doubled_dropped_there_and_mate() -> None:
    pos = Position.from_sfen("k2/1P1/3/2K b P 1", DOBUTSU)
    moves = {m.usi() for m in pos.legal_moves()}
    assert "2b2a+" in moves and "2b2a" not in moves  # the chick must become a hen
    assert {"P*3c", "P*2c", "P*1a", "P*1b"} <= moves  # doubled on file 2, dropped on the last rank
    # a dropped chick may give mate (uchifuzume is not a dobutsu rule): white's lion on 3a is
    # boxed in by the hen on 2a and the giraffe on 1b; a chick dropped on 3b checks it
    mate = Position.from_sfen("k+P1/2R/3/2K b P 1", DOBUTSU)
    mate.push_usi("P*3b")
    assert mate.is_check()


def test_sfen_usi_and_records_round_trip() -> None:
    pos = Position.start(DOBUTSU)
    for usi in ("2c2b", "2a2b", "P*2c", "3a2a"):
        pos.push_usi(usi)
    again = Position.from_sfen(pos.sfen(), DOBUTSU)
    assert again.sfen() == pos.sfen() and again.zobrist == pos.zobrist
    record = GameRecord.from_position(pos)
    texts = {fmt: records.dumps(record, fmt) for fmt in ("usi", "csa", "kif", "ki2")}
    for fmt, text in texts.items():
        back = records.parse(text, fmt, variant=DOBUTSU)
        assert [m.usi() for m in back.moves] == [m.usi() for m in pos.move_stack], fmt
        assert back.position().sfen() == pos.sfen(), fmt
    # KIF and KI2 name dobutsu's pieces (diagram, hands, moves); USI and CSA keep the slot letters
    assert "|vキvラvゾ|一" in texts["kif"] and "   4 ２一キ(31)" in texts["kif"]
    assert "▲２二ヒ　　△同　ラ　　▲２三ヒ　　△２一キ" in texts["ki2"]
    assert "moves 2c2b 2a2b P*2c 3a2a" in texts["usi"] and "+2322FU" in texts["csa"]
    for fmt in ("kif", "ki2"):  # 3x4 is dobutsu's size alone: the board says the game
        back = records.parse(texts[fmt], fmt)
        assert back.variant.name == "dobutsu" and back.position().sfen() == pos.sfen(), fmt
    with pytest.raises(records.RecordError, match=r"no shipped variant has a 8x8 board of its own: name the variant"):
        variant_for_size(8, 8, None, "test")  # ctrl8 shares its army with others: not guessed


def test_usi_server_plays_dobutsu() -> None:
    with start_engine("dobutsu") as eng:  # usi, setoption UCI_Variant, isready: each read with a deadline
        eng.send("position startpos moves 2c2b")
        eng.send("go depth 3")
        best = eng.until("bestmove", DEADLINE)[-1].split()[1]
        pos = Position.start(DOBUTSU)
        pos.push_usi("2c2b")
        assert best in {m.usi() for m in pos.legal_moves()}
        # the engine knows the try: its lion steps to the far rank, where nothing can take it
        eng.send("position sfen 3/K2/2k/3 b - 1")
        eng.send("go depth 2")
        assert eng.until("bestmove", DEADLINE)[-1].split()[1] == "3b3a"
        eng.send("quit")


def test_an_experiment_plays_dobutsu_games(tmp_path: Path) -> None:
    exp = tmp_path / "dobutsu.toml"
    exp.write_text('[experiment]\nname = "dobutsu"\nvariant = "dobutsu"\ngames = 2\nseed = 3\nmax_plies = 120\n'
                   '[players.a]\nengine = "engine"\ndepth = 3\nvalues = { R = 700 }\n'
                   '[players.b]\nengine = "engine"\ndepth = 1\n'
                   '[[pairings]]\na = "a"\nb = "b"\n', encoding="utf-8")
    run_experiment(load_experiment(exp), tmp_path / "games.db", workers=1)
    with ExperimentDB.open(tmp_path / "games.db") as db:
        results = db.results("a-vs-b")
        report = build(db).markdown()
    assert len(results) == 2 and all(r[0] for r in results), results
    assert "キ700" in report and "飛" not in report  # the report names dobutsu's giraffe, not shogi's rook


def test_the_web_page_offers_dobutsu_on_a_three_by_four_board_with_its_pieces() -> None:
    info = catalog()["dobutsu"]
    assert (info.width, info.height) == (3, 4)
    board = info.spec.presentation.board(Position.start(DOBUTSU))  # what the page draws
    labels = [c["piece"]["label"] for c in board["cells"] if c["piece"]]
    assert labels == ["キ", "ラ", "ゾ", "ヒ", "ヒ", "ゾ", "ラ", "キ"]
    svg = Position.start(DOBUTSU).svg()
    assert svg.count("<text") >= 8 + 3 + 4 and svg.count(">ラ</text>") == 2  # pieces, file and rank labels
