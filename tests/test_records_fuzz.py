"""Fuzzing the record readers inside the suite (a few seconds each; benchmarks/fuzz_records.py runs
10⁵ inputs per format): a mutated KIF, KI2, CSA or USI text either reads or raises RecordError
naming the file; what reads is written back in every format and reads again to the same game.
Plus the bad inputs fuzzing found, one by one."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from komaken.cli import main
from komaken.game import Outcome, Termination
from komaken.records import FORMATS, GameRecord, RecordError, decode, dumps, parse
from records_games import random_game

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

EXTRA = {
    "kif": """#KIF version=2.0 encoding=UTF-8
開始日時：2024/01/01 10:00:00
手合割：平手
先手：A
後手：B
手数----指手---------消費時間--
&しおり
   1 ７六歩(77)   ( 0:01/00:00:01)
*comment
   2 ３四歩(33)   ( 0:7/)
   3 ２二角成(88)   ( 0:03/00:00:04) ( 0:03/00:00:04)
   4 同　銀(31)   ( 0:01/00:00:03)
   5 ５五角打   ( 0:10/00:00:14)
   6 封じ手   (25:00/04:07:00)
まで5手で封じ手

変化：3手
   3 ２六歩(27)
""",
    "ki2": """手合割：左七枚落ち
上手：A
下手：B
△８二銀▲７六歩▽３二金
▲２六歩
まで4手で中断
""",
    "csa": """'encoding=UTF-8
V2.2
N+A
N-B
P1-KY-KE-GI-KI-OU-KI-GI-KE-KY
P2 * -HI *  *  *  *  * -KA *.
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU
P4 *  *  *  *  *  *  *  *  *
P5 *  *  *  *  *  *  *  *  *
P6 *  *  *  *  *  *  *  *  *
P7+FU+FU+FU+FU+FU+FU+FU+FU+FU
P8 * +KA *  *  *  *  * +HI *
P9+KY+KE+GI+KI+OU+KI+GI+KE+KY
+
+7776FU,T3
'** 113 -3334FU +2726FU
-3334FU
T1
%CHUDAN,'* -5000 win
""",
    "usi": "startpos moves 7g7f 3c3d 8h2b+\nsfen 4k/5/5/5/K4 b G 1 moves G*3b\n",
}


@cache
def seed_texts(fmt: str) -> tuple[str, ...]:
    """The texts mutated: made once per format (every example draws from them; read only)."""
    texts = [EXTRA[fmt]]
    for seed in (1, 4, 7):
        texts.append(dumps(random_game(seed, max_plies=30), fmt))  # type: ignore[arg-type]
    texts.append(dumps(random_game(2, "minishogi", max_plies=20), fmt))  # type: ignore[arg-type]
    return tuple(texts)


CHARS = "0123456789+-*/%$:'PINTVKY ,()（）▲△▽同成不打投了まで手：|・v歩金玉一二十〇１９\ufeff²①"
JUNK = st.text(alphabet=st.sampled_from(list(CHARS)) | st.characters(), min_size=1, max_size=4)


@st.composite
def mutated(draw: st.DrawFn, fmt: str) -> str:
    lines = draw(st.sampled_from(seed_texts(fmt))).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        op = draw(st.sampled_from(["drop", "dup", "swap", "insert", "replace", "cut"]))
        if not lines:
            lines = [""]
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op in ("insert", "replace"):
            k = draw(st.integers(0, len(lines[i])))
            gone = draw(st.integers(0, 3)) if op == "replace" else 0
            lines[i] = lines[i][:k] + draw(JUNK) + lines[i][k + gone:]
        else:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
    return "\n".join(lines)


def reads_or_says_where(text: str, fmt: str) -> GameRecord | None:
    """The record, or None after a RecordError that names the file.  Anything else fails the test."""
    try:
        return parse(text, fmt, file="fuzz." + fmt)  # type: ignore[arg-type]
    except RecordError as exc:
        assert exc.file == "fuzz." + fmt and str(exc).startswith("fuzz." + fmt)
        return None


def same_game_in_every_format(rec: GameRecord) -> None:
    for out in FORMATS:
        again = parse(dumps(rec, out), out)  # type: ignore[arg-type]
        assert again.moves == rec.moves, out
        assert again.initial_sfen.split()[:3] == rec.initial_sfen.split()[:3], out


@pytest.mark.parametrize("fmt", FORMATS)
def test_seed_texts_read(fmt: str) -> None:
    for text in seed_texts(fmt):
        rec = parse(text, fmt)  # type: ignore[arg-type]
        same_game_in_every_format(rec)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(FUZZ, max_examples=150)  # a format: 5 seed texts x 6 mutation kinds, each combination several times
@given(data=st.data())
def test_mutated_records_read_or_raise_record_error(fmt: str, data: st.DataObject) -> None:
    rec = reads_or_says_where(data.draw(mutated(fmt)), fmt)
    if rec is not None:
        same_game_in_every_format(rec)


@FUZZ
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".kif", ".kifu", ".ki2", ".csa", ".usi"]),
       bom=st.booleans(), declared=st.sampled_from(["", "#KIF version=2.0 encoding=", "'encoding="]),
       name=st.sampled_from(["UTF-8", "Shift_JIS", "EUC-JP", "punycode", "utf-16", "rot13", "hex", "idna", "x"]))
def test_decode_gives_text_or_record_error(data: bytes, suffix: str, bom: bool, declared: str, name: str) -> None:
    raw = (b"\xef\xbb\xbf" if bom else b"") + ((declared + name + "\n").encode() if declared else b"") + data
    try:
        text = decode(raw, "x" + suffix)
    except RecordError as exc:
        assert exc.file == "x" + suffix
        return
    assert isinstance(text, str)


@settings(FUZZ, max_examples=100)  # each example plays a game of up to 60 plies and writes it 6 times
@given(seed=st.integers(0, 10_000), variant=st.sampled_from(["shogi", "minishogi"]),
       times=st.lists(st.integers(0, 100_000), max_size=5))
def test_random_games_round_trip(seed: int, variant: str, times: list[int]) -> None:
    rec = random_game(seed, variant, max_plies=60)
    if times:  # KIF has a time on every move line or on none
        rec.times = (times * (len(rec.moves) // len(times) + 1))[: len(rec.moves)]
    rec.pad()
    same_game_in_every_format(rec)
    again = parse(dumps(rec, "kif"), "kif")
    assert again.times == rec.times and again.result == rec.result
    assert parse(dumps(rec, "csa"), "csa").times == rec.times


# ---- what fuzzing found ----------------------------------------------------------------------------
@pytest.mark.parametrize("line", ["T nan", "Tinf", "T²", "T-60", "T1e5", "T１２"])
def test_csa_times_are_plain_seconds(line: str) -> None:
    with pytest.raises(RecordError, match=r"^line 4 column 1: bad time"):
        parse(f"PI\n+\n+7776FU\n{line}\n", "csa")


@pytest.mark.parametrize("text", ["PI²²FU\n+\n", "P²-OU\n+\n", "PI\nP+²²FU\n+\n"])
def test_csa_squares_are_ascii_digits(text: str) -> None:
    with pytest.raises(RecordError):
        parse(text, "csa")


def test_a_5x5_csa_with_a_lance_says_so() -> None:
    text = "P1-HI-KA-GI-KI-OU\nP2 *  *  *  * -FU\nP3 *  *  *  *  * \nP4+FU *  *  *  * \nP5+KY+KI+GI+KA+HI\nP-00AL\n+\n"
    with pytest.raises(RecordError, match="minishogi has no KY"):
        parse(text, "csa")


def test_decode_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"^g\.kif: not valid UTF-8 after the BOM"):
        decode(b"\xef\xbb\xbf\xff\xfe", "g.kif")
    assert decode(b"#KIF version=2.0 encoding=punycode\n", "g.kif").startswith("#KIF")  # unknown name: ignored
    with pytest.raises(RecordError, match=r"^g\.csa: cannot decode"):
        decode(b"\x80\xff\xfe\x81", "g.csa")
    assert decode("'対局\n".encode("euc_jp"), "old.csa") == "'対局\n"


def test_kif_hand_counts_must_be_at_least_one() -> None:
    bod = ("後手の持駒：なし\n|v玉 ・ ・ ・ ・|一\n| ・ ・ ・ ・ ・|二\n| ・ ・ ・ ・ ・|三\n| ・ ・ ・ ・ ・|四\n"
           "| ・ ・ ・ ・ 玉|五\n先手の持駒：{}\n")
    with pytest.raises(RecordError, match=r"^line 7: the count of 歩 in hand 〇 is out of range \(1 to 99\)$"):
        parse(bod.format("歩〇"), "kif")
    assert parse(bod.format("金　歩二"), "kif").initial_sfen.split()[2] == "G2P"


def test_negative_times_are_refused_when_written() -> None:
    rec = parse("startpos moves 7g7f", "usi")
    rec.times = [-60]
    for fmt in ("kif", "csa"):
        with pytest.raises(RecordError, match="time -60"):
            dumps(rec, fmt)  # type: ignore[arg-type]
    rec.times = [3600.0]
    assert parse(dumps(rec, "kif"), "kif").times == [3600]


def test_an_empty_usi_file_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "empty.usi").write_text("")
    out = CliRunner().invoke(main, ["convert", str(tmp_path / "empty.usi"), "--to", "kif"])
    assert out.exit_code == 2 and "empty.usi" in out.output and "Traceback" not in out.output


def test_final_illegal_move_is_kept_apart() -> None:
    text = "手合割：平手\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ５五角打\n*反則手にて終局\n"
    rec = parse(text, "kif")
    assert [m.usi() for m in rec.moves] == ["7g7f", "3c3d"] and rec.illegal_move == "５五角打"
    assert rec.result == Outcome(Termination.ILLEGAL_MOVE, rec.position().turn.other)
    assert rec.end_comment == "反則手にて終局"
    for fmt in ("kif", "ki2"):
        again = parse(dumps(rec, fmt), fmt)  # type: ignore[arg-type]
        assert again.moves == rec.moves and again.result == rec.result and again.illegal_move
    with pytest.raises(RecordError, match="line 4: move ５五角打 is illegal"):
        parse(text + "   4 ８四歩(83)\n", "kif")  # not the last move: the record is wrong


def test_kif_and_ki2_endings() -> None:
    assert parse("手合割：八枚落ち\n\n△７二金    ▲７六歩\nまで2手で封じ手\n", "ki2").ending == "封じ手"
    tsume = parse("手合割：平手\n\n▲７六歩\nまで1手詰\n", "ki2").result
    assert tsume is not None and tsume.termination is Termination.CHECKMATE
    rec = parse(EXTRA["kif"], "kif")
    assert rec.ending == "封じ手" and rec.end_time == 1500 and rec.bookmarks == [(0, "しおり")]
    assert rec.result == Outcome(Termination.ABORTED, None)
    text = dumps(rec, "kif")
    assert "   6 封じ手" in text and "(25:00/" in text and "まで5手で封じ手" in text and "&しおり" in text


def test_csa_engine_lines_become_kif_engine_comments() -> None:
    rec = parse(EXTRA["csa"], "csa")
    assert rec.comments[0] == "*対局 評価値 113 読み筋 △３四歩(33) ▲２六歩(27)"
    kif = dumps(rec, "kif")
    assert "**対局 評価値 113 読み筋 △３四歩(33) ▲２六歩(27)" in kif and "***" not in kif
    assert "'** 113 -3334FU +2726FU" in dumps(rec, "csa")
    assert rec.end_comment == "* -5000 win" and rec.result == Outcome(Termination.ABORTED, None)


def test_kif_move_lines_carry_no_funari() -> None:
    rec = parse("startpos moves 7g7f 3c3d 8h2b", "usi")
    text = dumps(rec, "kif")
    assert "２二角(88)" in text and "不成" not in text
    assert parse(text, "kif").moves == rec.moves
    assert parse(text.replace("２二角(88)", "２二角不成(88)"), "kif").moves == rec.moves


def test_an_illegal_move_that_other_formats_cannot_say_becomes_a_comment() -> None:
    # illegal only for its origin: as KI2 text (no origin) it would be a legal move
    kif = parse("手合割：平手\n 1 ７六歩(77)\n 2 ３四歩(33)\n 3 ２六歩(25)\n", "kif")
    csa = parse("PI\n+\n+7776FU\n-3334FU\n+2524FU\n%ILLEGAL_MOVE\n", "csa")
    for rec in (kif, csa):
        assert rec.illegal_move and len(rec.moves) == 2
        for fmt in ("kif", "ki2", "csa"):
            again = parse(dumps(rec, fmt), fmt)  # type: ignore[arg-type]
            assert again.moves == rec.moves and again.result == rec.result, fmt
    assert "*反則手：２六歩(25)" in dumps(kif, "ki2") and "*反則手：+2524FU" in dumps(csa, "kif")
