"""Round trips: random games (9×9 and 5×5, standard, handicap and mid-game starts) written in each
format and read back give the same game; files keep their encodings."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from komaken.game import Outcome, Termination
from komaken.records import GameRecord, detect_format, dumps, parse, parse_all, read, read_all, write
from komaken.records import csa as csa_format
from komaken.shogi import Position
from records_games import random_game, same_start

SEEDS = range(30)


@cache
def game(seed: int, variant: str) -> GameRecord:
    """``random_game(seed, variant)``, played once for the four formats (they only read it)."""
    return random_game(seed, variant)


@pytest.mark.parametrize("variant", ["shogi", "minishogi", "judkins"])
@pytest.mark.parametrize("fmt", ["kif", "ki2", "csa", "usi"])
def test_round_trip(fmt: str, variant: str) -> None:
    for seed in SEEDS:
        rec = game(seed, variant)
        text = dumps(rec, fmt)  # type: ignore[arg-type]
        back = parse(text, fmt)  # type: ignore[arg-type]
        assert detect_format(text) == fmt
        where = f"seed {seed}:\n{text}"
        assert back.moves == rec.moves, where
        assert same_start(back, rec), where
        if fmt == "usi":
            continue
        assert back.result == rec.result, where
        assert (back.black, back.white, back.start_time) == (rec.black, rec.white, rec.start_time)
        assert back.comment == rec.comment
        assert back.comments == rec.comments, where
        if fmt != "ki2":
            assert back.times == rec.times, where


def test_handicap_is_written_as_its_name() -> None:
    rec = random_game(0)
    rec.initial_sfen = "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    rec.moves, rec.result = [], None
    rec.pad()
    for fmt in ("kif", "ki2"):
        text = dumps(rec, fmt)
        assert "手合割：角落ち" in text and "上手：" in text and "|" not in text
        assert parse(text).initial_sfen == rec.initial_sfen
    text = dumps(rec, "csa")
    assert "PI22KA\n-\n" in text
    assert parse(text).initial_sfen.split()[:3] == rec.initial_sfen.split()[:3]


def test_minishogi_kif_has_a_5x5_diagram_and_reads_as_minishogi() -> None:
    rec = GameRecord.from_position(Position.start("minishogi"))
    text = dumps(rec, "kif")
    assert "|v飛v角v銀v金v玉|一" in text
    assert parse(text).variant.name == "minishogi"
    assert "P5+OU+KI+GI+KA+HI" in dumps(rec, "csa")
    assert dumps(rec, "usi") == "sfen rbsgk/4p/5/P4/KGSBR b - 1\n"


def test_files_and_encodings(tmp_path: Path) -> None:
    rec = random_game(7)
    for name in ("g.kif", "g.kifu", "g.ki2", "g.ki2u", "g.csa", "g.usi"):
        write(rec, tmp_path / name)
        assert read(tmp_path / name).moves == rec.moves, name
    assert "手合割".encode("cp932") in (tmp_path / "g.kif").read_bytes()
    assert (tmp_path / "g.kifu").read_text(encoding="utf-8").startswith("#KIF version=2.0 encoding=UTF-8")
    # a .kif that is UTF-8 after all: with a BOM, or saying so
    text = dumps(rec, "kif")
    (tmp_path / "bom.kif").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    (tmp_path / "said.kif").write_text("#KIF version=2.0 encoding=UTF-8\n" + text, encoding="utf-8")
    for name in ("bom.kif", "said.kif"):
        assert read(tmp_path / name).moves == rec.moves


def test_csa_several_games_in_one_file(tmp_path: Path) -> None:
    games = [random_game(s, "shogi" if s % 2 else "minishogi") for s in range(4)]
    (tmp_path / "all.csa").write_text(csa_format.dumps_all(games), encoding="utf-8")
    back = read_all(tmp_path / "all.csa")
    assert [g.moves for g in back] == [g.moves for g in games]
    assert read(tmp_path / "all.csa").moves == games[0].moves
    usi_text = "".join(dumps(g, "usi") for g in games)
    assert [g.moves for g in parse_all(usi_text, "usi")] == [g.moves for g in games]


def test_kif_variations_are_read_and_written() -> None:
    text = """手合割：平手
手数----指手---------消費時間--
   1 ７六歩(77)   ( 0:01/00:00:01)
   2 ３四歩(33)   ( 0:02/00:00:02)
*main line comment
   3 ２六歩(27)   ( 0:03/00:00:04)+
   4 ８四歩(83)   ( 0:01/00:00:03)
   5 投了
まで4手で後手の勝ち

変化：3手
   3 ２二角成(88)   ( 0:00/00:00:01)
   4 同　銀(31)   ( 0:00/00:00:02)+
   5 ８八銀(79)   ( 0:00/00:00:01)

変化：4手
   4 同　飛(82)   ( 0:00/00:00:02)

変化：2手
   2 ８四歩(83)   ( 0:00/00:00:00)
"""
    rec = parse(text, "kif")
    assert [m.usi() for m in rec.moves] == ["7g7f", "3c3d", "2g2f", "8c8d"]
    assert rec.comments[1] == "main line comment"
    assert rec.result == Outcome(Termination.RESIGNATION, rec.position().turn.other)
    v = rec.variations
    assert [(x.ply, [m.usi() for m in x.prefix], [m.usi() for m in x.moves]) for x in v] == [
        (3, ["7g7f", "3c3d"], ["8h2b+", "3a2b", "7i8h"]),
        (4, ["7g7f", "3c3d", "8h2b+"], ["8b2b"]),
        (2, ["7g7f"], ["8c8d"]),
    ]
    again = parse(dumps(rec, "kif"), "kif")
    assert again.moves == rec.moves
    assert [(x.ply, x.prefix, x.moves) for x in again.variations] == [(x.ply, x.prefix, x.moves) for x in v]


def test_csa_details() -> None:
    text = """'encoding=Shift_JIS
' a game comment
V2.2
N+先手さん
N-後手さん
$EVENT:test
$START_TIME:2024/05/06 07:08:09
P1-KY-KE-GI-KI-OU-KI-GI-KE-KY
P2 * -HI *  *  *  *  * -KA *
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU
P4 *  *  *  *  *  *  *  *  *
P5 *  *  *  *  *  *  *  *  *
P6 *  *  *  *  *  *  *  *  *
P7+FU+FU+FU+FU+FU+FU+FU+FU+FU
P8 * +KA *  *  *  *  * +HI *
P9+KY+KE+GI+KI+OU+KI+GI+KE+KY
+
+7776FU,T12
'* 30 -3334FU
-3334FU
T5
+8822UM,T1
-3122GI
%TORYO
"""
    rec = parse(text, "csa")
    assert [m.usi() for m in rec.moves] == ["7g7f", "3c3d", "8h2b+", "3a2b"]
    assert rec.times == [12, 5, 1, None]
    assert rec.comments[0] == "* 30 -3334FU"
    assert (rec.black, rec.white, rec.headers["棋戦"]) == ("先手さん", "後手さん", "test")
    assert rec.start_time is not None and rec.start_time.second == 9
    assert rec.comment == " a game comment"
    assert rec.result == Outcome(Termination.RESIGNATION, rec.position().turn.other)
    assert "$EVENT:test" in dumps(rec, "csa")


def test_csa_piece_lines_and_all_the_rest() -> None:
    text = "P-51OU\nP+59OU58KI\nP+00KI00FU\nP-00AL\n-\n"
    rec = parse(text, "csa")
    pos = rec.initial_position()
    assert pos.hand(pos.turn.other) == {"G": 1, "P": 1}
    assert pos.hand(pos.turn) == {"R": 2, "B": 2, "G": 2, "S": 4, "N": 4, "L": 4, "P": 17}
    assert parse(dumps(rec, "csa"), "csa").initial_sfen == rec.initial_sfen


@pytest.mark.parametrize(("word", "termination", "mover_wins"), [
    ("%TORYO", Termination.RESIGNATION, False),
    ("%SENNICHITE", Termination.REPETITION, None),
    ("%JISHOGI", Termination.IMPASSE, None),
    ("%KACHI", Termination.DECLARATION, True),
    ("%TIME_UP", Termination.TIME_FORFEIT, False),
    ("%ILLEGAL_MOVE", Termination.ILLEGAL_MOVE, False),
    ("%-ILLEGAL_ACTION", Termination.ILLEGAL_MOVE, False),
    ("%+ILLEGAL_ACTION", Termination.ILLEGAL_MOVE, True),
    ("%CHUDAN", Termination.ABORTED, None),
    ("%MAX_MOVES", Termination.MAX_PLIES, None),
])
def test_csa_results(word: str, termination: Termination, mover_wins: bool | None) -> None:
    rec = parse(f"PI\n+\n+7776FU\n{word}\n", "csa")  # white is to move at the end
    white, black = rec.position().turn, rec.position().turn.other
    winner = None if mover_wins is None else white if mover_wins else black
    assert rec.result == Outcome(termination, winner)
    for fmt in ("csa", "kif", "ki2"):
        again = parse(dumps(rec, fmt), fmt)  # type: ignore[arg-type]
        assert again.result is not None and again.result.winner == winner, fmt


@pytest.mark.parametrize(("line", "termination", "mover_wins"), [
    ("投了", Termination.RESIGNATION, False),
    ("詰み", Termination.CHECKMATE, False),
    ("千日手", Termination.REPETITION, None),
    ("持将棋", Termination.IMPASSE, None),
    ("切れ負け", Termination.TIME_FORFEIT, False),
    ("反則勝ち", Termination.ILLEGAL_MOVE, True),
    ("反則負け", Termination.ILLEGAL_MOVE, False),
    ("入玉勝ち", Termination.DECLARATION, True),
    ("中断", Termination.ABORTED, None),
])
def test_kif_end_lines(line: str, termination: Termination, mover_wins: bool | None) -> None:
    rec = parse(f"手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 {line}\n", "kif")
    white = rec.position().turn
    winner = None if mover_wins is None else white if mover_wins else white.other
    assert rec.result == Outcome(termination, winner)


def test_kif_header_diagram_start() -> None:
    text = """後手の持駒：飛　角　金四　銀三　桂三　香四　歩十八
  ９ ８ ７ ６ ５ ４ ３ ２ １
+---------------------------+
| ・ ・ ・ ・ ・ ・ ・v桂v玉|一
| ・ ・ ・ ・ ・ ・ ・ ・ ・|二
| ・ ・ ・ ・ ・ ・ 銀 ・ ・|三
| ・ ・ ・ ・ ・ ・ ・ ・ ・|四
| ・ ・ ・ ・ ・ ・ ・ ・ ・|五
| ・ ・ ・ ・ ・ ・ ・ ・ ・|六
| ・ ・ ・ ・ ・ ・ ・ ・ ・|七
| ・ ・ ・ ・ ・ ・ ・ ・ ・|八
| ・ ・ ・ ・ 玉 ・ ・ ・ ・|九
+---------------------------+
先手の持駒：飛　角
手数----指手---------消費時間--
   1 ２二角打
"""
    rec = parse(text)
    assert rec.initial_sfen == "7nk/9/6S2/9/9/9/9/9/4K4 b RBrb4g3s3n4l18p 1"
    assert [m.usi() for m in rec.moves] == ["B*2b"]



def test_ki2_marks_resolve_in_a_game() -> None:
    text = """手合割：平手
先手：A
後手：B

▲５八金右　△５二金右　▲７六歩　　△３四歩　　▲２二角成　△同　銀
▲４八銀　　△４二金寄
まで8手で中断
"""
    rec = parse(text, "ki2")
    assert [m.usi() for m in rec.moves] == ["4i5h", "6a5b", "7g7f", "3c3d", "8h2b+", "3a2b", "3i4h", "5b4b"]
    assert dumps(rec, "ki2").split("\n\n", 1)[1] == text.split("\n\n", 1)[1]
