"""Bad records: RecordError names the file, the line and the reason; strict=False keeps the prefix;
the CLI prints one line and exits 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.records import RecordError, dumps, parse, read, write
from records_games import random_game

KIF = """開始日時：2024/01/01 10:00:00
手合割：平手
先手：A
後手：B
手数----指手---------消費時間--
   1 ７六歩(77)   ( 0:01/00:00:01)
   2 ３四歩(33)   ( 0:01/00:00:01)
   3 ５五飛(28)   ( 0:01/00:00:02)
   4 ８四歩(83)   ( 0:01/00:00:02)
"""


def test_illegal_kif_move_names_file_line_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "game.kifu"
    path.write_text(KIF, encoding="utf-8")
    with pytest.raises(RecordError) as info:
        read(path)
    err = info.value
    assert (err.file, err.line) == ("game.kifu", 8)
    assert str(err) == "game.kifu line 8: move ５五飛(28) is illegal: the rook on ２八 cannot move to ５五"
    assert isinstance(err, ValueError)


def test_ki2_names_the_piece_that_cannot_reach() -> None:
    text = "手合割：平手\n\n▲５五角　△３四歩\n"
    with pytest.raises(RecordError, match=r"^line 3: move ▲５五角 is illegal: no bishop can reach ５五$"):
        parse(text, "ki2")


def test_strict_false_keeps_the_valid_prefix() -> None:
    rec = parse(KIF, "kif", strict=False)
    assert [m.usi() for m in rec.moves] == ["7g7f", "3c3d"]
    assert rec.times == [1, 1] and rec.comments == [None, None]
    assert rec.error is not None and rec.error.line == 8


@pytest.mark.parametrize(("fmt", "text", "line", "reason"), [
    ("kif", "手合割：平手\n   1 ７六歩(77)\n   3 ３四歩(33)\n", 3, "move number 3, expected 2"),
    ("kif", "手合割：平手\n   1 ７六歩\n", 2, "no origin square"),
    ("kif", "手合割：平手\n   1 ７六歩(77\n", 2, "not Japanese move text"),
    ("kif", "手合割：駒落ち\n   1 ７六歩(77)\n", 2, "unknown 手合割"),
    ("kif", "手合割：平手\n   1 ７六歩(77)\nこんにちは\n", 3, "not a KIF move line"),
    ("kif", "手合割：平手\n   1 ７六歩(77)\n変化：5手\n   5 ７五歩(76)\n", 3, "no line with a move 5"),
    ("ki2", "手合割：平手\n\n▲７六歩　▲３四歩\n", 3, "is marked ▲ but △ is to move"),
    ("csa", "PI\n+\n+7776FU\n-3334FU\n+8822KI\n", 5, "is KA, not KI"),
    ("csa", "PI\n+\n+7776FU\n+3334FU\n", 4, "it is -'s turn"),
    ("csa", "PI\n+\n+7775FU\n", 3, "+7775FU is illegal"),
    ("csa", "PI\n+\n+7776XX\n", 3, "unknown piece 'XX'"),
    ("csa", "PI\n+\n%NOPE\n", 3, "unknown result %NOPE"),
    ("csa", "P1-OU\n+\n", 2, "1x1 board"),
    ("usi", "startpos moves 7g7f 7g7f\n", 1, "move 2 (7g7f)"),
    ("usi", "sfen lnsgkgsnl/9 b - 1 moves\n", 1, "no shipped variant has a 2x2 board of its own"),
])
def test_bad_input(fmt: str, text: str, line: int, reason: str) -> None:
    with pytest.raises(RecordError) as info:
        parse(text, fmt)  # type: ignore[arg-type]
    assert info.value.line == line, str(info.value)
    assert reason in str(info.value)


def test_unknown_format_and_undecodable_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot tell"):
        parse("hello world")
    with pytest.raises(RecordError, match="unknown record format"):
        dumps(random_game(1), "pgn")  # type: ignore[arg-type]
    (tmp_path / "x.kif").write_bytes(b"\xff\xfe\xfa\xfb" * 10)
    with pytest.raises(RecordError):
        read(tmp_path / "x.kif")


# ---- CLI -------------------------------------------------------------------------------------
def test_cli_convert(tmp_path: Path) -> None:
    rec = random_game(5)
    write(rec, tmp_path / "g.kif")
    runner = CliRunner()
    out = runner.invoke(main, ["convert", str(tmp_path / "g.kif"), "--to", "usi"])
    assert out.exit_code == 0, out.output
    assert parse(out.output, "usi").moves == rec.moves
    assert out.output.count("\n") == 1 and out.output.startswith(("startpos moves", "sfen "))
    out = runner.invoke(main, ["convert", str(tmp_path / "g.kif"), "-o", str(tmp_path / "g.csa")])
    assert out.exit_code == 0 and out.output == ""
    assert read(tmp_path / "g.csa").moves == rec.moves
    for to, fmt, encoding in [("kif", "kif", "cp932"), ("kifu", "kif", "utf-8"), ("ki2", "ki2", "cp932"),
                              ("ki2u", "ki2", "utf-8"), ("csa", "csa", "utf-8")]:
        out = runner.invoke(main, ["convert", str(tmp_path / "g.csa"), "--to", to])
        assert out.exit_code == 0
        assert parse(out.stdout_bytes.decode(encoding), fmt).moves == rec.moves  # type: ignore[arg-type]


def test_cli_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "game.kifu").write_text(KIF, encoding="utf-8")
    out = CliRunner().invoke(main, ["convert", str(tmp_path / "game.kifu"), "--to", "csa"])
    assert out.exit_code == 2
    assert out.output.strip().count("\n") == 0
    assert "game.kifu line 8: move ５五飛(28) is illegal" in out.output
    out = CliRunner().invoke(main, ["convert", str(tmp_path / "game.kifu")])
    assert out.exit_code == 2 and "--to" in out.output


def test_cli_replay_prints_every_position_when_piped(tmp_path: Path) -> None:
    rec = random_game(6, "minishogi")
    write(rec, tmp_path / "g.kifu")
    out = CliRunner().invoke(main, ["replay", str(tmp_path / "g.kifu")], input="")
    assert out.exit_code == 0, out.output
    assert out.output.count("手番：") == len(rec.moves) + 1
    assert out.output.startswith("開始局面")
    if rec.moves:
        assert f"{len(rec.moves)}手目 " in out.output
