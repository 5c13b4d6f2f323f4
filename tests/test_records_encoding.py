"""Records as the bytes other programs expect, and hostile numbers in records.

* ``.kif``/``.ki2`` (files, ``--to kif|ki2`` on stdout, web downloads, lab exports) are Shift_JIS
  whenever every character fits; ``.kifu``/``.ki2u`` are UTF-8; a ``.kif`` that cannot be
  Shift_JIS is UTF-8 with its ``#KIF`` line saying so and one warning line.
* Every number read from a record is range-checked: a RecordError names the line, the column,
  the field and the allowed range; what the writers write, the readers read.
* ``-o`` replaces the file whole or not at all.
"""

from __future__ import annotations

import io
import locale
import os
import sys
import warnings
from pathlib import Path

import cshogi
import cshogi.KIF
import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.records import (
    MAX_MOVE_SECONDS,
    MAX_PLIES,
    RecordEncodingWarning,
    RecordError,
    dumps,
    encode,
    encode_text,
    parse,
    read,
    read_all,
    save_bytes,
    save_streamed,
    target_of,
    write,
)
from records_games import random_game

GAME = "PI\n+\n+7776FU\nT3\n-3334FU\nT5\n+8822UM\n-3122GI\n+0055KA\n%TORYO\n"
MOVES = ["7g7f", "3c3d", "8h2b+", "3a2b", "B*5e"]
#: a player's name with a character Shift_JIS does not have
NOT_SJIS = "𠮷田"


def usi_moves(parsed: object) -> list[str]:
    return [cshogi.move_to_usi(m) for m in parsed.moves]  # type: ignore[attr-defined]


# ---- which bytes ------------------------------------------------------------------------------------
def test_each_target_gets_its_encoding() -> None:
    rec = parse(GAME, "csa")
    rec.black = "先手さん"
    for target in ("kif", ".kif", "game.KIF", "ki2", "x/y.ki2"):
        data = encode(rec, target)
        text = data.decode("cp932")
        assert text.startswith(("#KIF version=2.0 encoding=Shift_JIS\n", "#KI2 version=2.0 encoding=Shift_JIS\n"))
        assert "先手さん" in text and parse(text).moves == rec.moves
    for target in ("kifu", "ki2u", "csa", "usi", "g.sfen"):
        text = encode(rec, target).decode("utf-8")
        assert "encoding=Shift_JIS" not in text and parse(text).moves == rec.moves
    assert [target_of(t) for t in ("kif", "a.KIFU", ".ki2u", "game.txt", "game")] == ["kif", "kifu", "ki2u", None, None]
    with pytest.raises(RecordError, match="not a record format"):
        encode(rec, "game.txt")


def test_write_takes_format_and_encoding_from_the_name(tmp_path: Path) -> None:
    rec = parse(GAME, "csa")
    with pytest.raises(RecordError, match=r"^x\.kif is a kif file name: cannot write csa into it$"):
        write(rec, tmp_path / "x.kif", "csa")
    assert not (tmp_path / "x.kif").exists()
    write(rec, tmp_path / "x.txt", "kif")  # a name that says no format: the format's own encoding
    assert (tmp_path / "x.txt").read_bytes().decode("cp932").startswith("#KIF version=2.0 encoding=Shift_JIS")
    assert read(tmp_path / "x.txt", format="kif").moves == rec.moves


def test_a_kif_that_cannot_be_shift_jis_is_utf8_and_says_so() -> None:
    rec = parse(GAME, "csa")
    rec.white = NOT_SJIS
    with pytest.warns(RecordEncodingWarning, match=r"game\.kif: written as UTF-8, since '𠮷' \(line 4 column 4\)"):
        data = encode(rec, "game.kif")
    assert data.decode("utf-8").startswith("#KIF version=2.0 encoding=UTF-8\n")
    assert read_back(data, "game.kif").white == NOT_SJIS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert encode(rec, "kifu").decode("utf-8").startswith("#KIF version=2.0 encoding=UTF-8\n")


def read_back(data: bytes, name: str) -> object:
    from komaken.records import decode

    return parse(decode(data, name))


def test_several_games_in_one_text_each_say_shift_jis() -> None:
    text = dumps(random_game(1), "kif") + dumps(random_game(2), "kif")
    encoded = encode_text(text, "kif")
    assert encoded.charset == "Shift_JIS" and encoded.warning is None
    assert encoded.data.decode("cp932").count("#KIF version=2.0 encoding=Shift_JIS\n") == 2


# ---- the command line -------------------------------------------------------------------------------
def test_convert_on_stdout_writes_the_bytes_of_the_target(tmp_path: Path) -> None:
    src = tmp_path / "g.csa"
    src.write_text(GAME, encoding="utf-8")
    for to, encoding, parser in [("kif", "cp932", "kif"), ("ki2", "cp932", "ki2"), ("kifu", "utf-8", "kif"),
                                 ("ki2u", "utf-8", "ki2")]:
        out = CliRunner().invoke(main, ["convert", str(src), "--to", to])
        assert out.exit_code == 0 and out.stderr == ""
        assert [m.usi() for m in parse(out.stdout_bytes.decode(encoding), parser).moves] == MOVES  # type: ignore[arg-type]
        assert (b"encoding=Shift_JIS" in out.stdout_bytes) == (encoding == "cp932")


def test_convert_warns_once_when_a_kif_must_be_utf8(tmp_path: Path) -> None:
    src = tmp_path / "g.csa"
    src.write_text(f"N+{NOT_SJIS}\n" + GAME, encoding="utf-8")
    for args, name in [(["--to", "kif"], "kif output"), (["-o", str(tmp_path / "x.kif")], "x.kif")]:
        out = CliRunner().invoke(main, ["convert", str(src), *args])
        assert out.exit_code == 0
        assert out.stderr.count("\n") == 1 and out.stderr.startswith(f"komaken: warning: {name}: written as UTF-8")
        assert "will fail" in out.stderr
    data = (tmp_path / "x.kif").read_bytes()
    assert data.startswith(b"#KIF version=2.0 encoding=UTF-8\n") and read(tmp_path / "x.kif").black == NOT_SJIS
    out = CliRunner().invoke(main, ["convert", str(src), "-o", str(tmp_path / "x.kifu")])
    assert out.exit_code == 0 and out.stderr == ""


def test_to_and_the_file_name_must_agree(tmp_path: Path) -> None:
    src = tmp_path / "g.csa"
    src.write_text(GAME, encoding="utf-8")
    out = CliRunner().invoke(main, ["convert", str(src), "--to", "csa", "-o", str(tmp_path / "x.kif")])
    assert out.exit_code == 2 and "--to csa but x.kif is a kif file name" in out.output
    assert not (tmp_path / "x.kif").exists()
    # a name that says no format: --to gives format and encoding
    assert CliRunner().invoke(main, ["convert", str(src), "--to", "kif", "-o", str(tmp_path / "x.txt")]).exit_code == 0
    assert (tmp_path / "x.txt").read_bytes().decode("cp932").startswith("#KIF version=2.0 encoding=Shift_JIS")
    # the same format: the file name gives the encoding, as the programs reading it will take it
    assert CliRunner().invoke(main, ["convert", str(src), "--to", "kifu", "-o", str(tmp_path / "y.kif")]).exit_code == 0
    assert (tmp_path / "y.kif").read_bytes().decode("cp932").startswith("#KIF version=2.0 encoding=Shift_JIS")


def test_lab_export_and_web_download_write_kif_as_shift_jis(tmp_path: Path) -> None:
    from komaken.lab import load_experiment, run_experiment
    from komaken.web.app import _download

    (tmp_path / "exp.toml").write_text('[experiment]\nname = "e"\nvariant = "minishogi"\ngames = 2\nseed = 1\n'
                                       'max_plies = 20\n[players.r1]\nengine = "random"\n[players.r2]\n'
                                       'engine = "random"\n[[pairings]]\na = "r1"\nb = "r2"\n', encoding="utf-8")
    run_experiment(load_experiment(tmp_path / "exp.toml"), tmp_path / "e.db", workers=1)
    out = CliRunner().invoke(main, ["experiment", "export", "--db", str(tmp_path / "e.db"), "--format", "kif",
                                    "-o", str(tmp_path / "all.kif")])
    assert out.exit_code == 0, out.output
    text = (tmp_path / "all.kif").read_bytes().decode("cp932")
    assert text.count("#KIF version=2.0 encoding=Shift_JIS\n") == 2 and len(read_all(tmp_path / "all.kif")) == 2
    response = _download(dumps(random_game(3), "kif"), "komaken-shogi.kif")
    assert response.headers["content-type"] == "text/plain; charset=Shift_JIS"
    assert bytes(response.body).decode("cp932").startswith("#KIF version=2.0 encoding=Shift_JIS")
    assert _download("1. e4\n", "game.pgn").headers["content-type"] == "text/plain; charset=UTF-8"


def test_streamed_records_are_shift_jis_until_a_character_does_not_fit(tmp_path: Path) -> None:
    """An export writes game after game: Shift_JIS as long as every character fits; one that does
    not, however late, makes the whole output UTF-8 (said on every #KIF line) with a warning."""
    games = [dumps(random_game(seed), "kif") for seed in range(3)]

    def write(extra: str):  # type: ignore[no-untyped-def]
        def run(out) -> int:  # type: ignore[no-untyped-def]
            for text in games:
                out.write(text)
            out.write(extra)
            return len(games)
        return run

    n, warning = save_streamed(write(""), "kif", tmp_path / "all.kif", io.BytesIO())
    text = (tmp_path / "all.kif").read_bytes().decode("cp932")
    assert (n, warning) == (3, None) and text.count("encoding=Shift_JIS\n") == 3
    assert len(read_all(tmp_path / "all.kif")) == 3
    stdout = io.BytesIO()
    n, warning = save_streamed(write("*lion \U0001F981\n"), "kif", None, stdout)
    assert n == 3 and warning and "'\U0001f981'" in warning and "kif output" in warning
    data = stdout.getvalue().decode("utf-8")
    assert data.count("encoding=UTF-8\n") == 3 and "Shift_JIS" not in data
    n, warning = save_streamed(write(""), "all.kifu", tmp_path / "all.kifu", io.BytesIO())
    assert warning is None and (tmp_path / "all.kifu").read_bytes().decode("utf-8").count("encoding=UTF-8") == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.kif", "all.kifu"]  # no temporary file left


# ---- saving loses nothing ---------------------------------------------------------------------------
def test_save_bytes_replaces_whole_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "g.kif"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    save_bytes(path, b"new")
    assert path.read_bytes() == b"new" and (path.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.kif"]  # no temporary file left
    link = tmp_path / "link.kif"
    link.symlink_to(path)
    save_bytes(link, b"through the link")
    assert link.is_symlink() and path.read_bytes() == b"through the link"


def test_a_failed_write_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "g.csa"
    path.write_bytes(b"saved")

    def broken(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError):
        write(parse(GAME, "csa"), path)
    assert path.read_bytes() == b"saved" and sorted(p.name for p in tmp_path.iterdir()) == ["g.csa"]


# ---- hostile numbers --------------------------------------------------------------------------------
KIF_HEAD = "手合割：平手\n手数----指手---------消費時間--\n"
BIG = "99999999999999999999"


@pytest.mark.parametrize(("fmt", "body", "where", "reason"), [
    ("kif", f"   1 ７六歩(77)   ( {BIG}:01/00:00:01)\n", "line 3 column 16",
     f"minutes {BIG} is out of range (0 to {MAX_MOVE_SECONDS // 60})"),
    ("kif", "   1 ７六歩(77)   ( 0:60/00:00:01)\n", "line 3 column 16", "seconds 60 is out of range (0 to 59)"),
    ("kif", f"   1 ７六歩(77)   ( {MAX_MOVE_SECONDS // 60}:01/)\n", "line 3 column 16", "over 10080:00 (7 days)"),
    ("kif", f"   1 ７六歩(77)   ( 0:01/{BIG}:00:01)\n", "line 3 column 16", "total hours"),
    ("kif", "   1 ７六歩(77)   ( 0:01/8784:00:01)\n", "line 3 column 16", "total is over 8784:00:00 (366 days)"),
    ("kif", "   1 ７六歩(77)   ( 0:01/00:61:00)\n", "line 3 column 16", "total minutes 61 is out of range (0 to 59)"),
    ("kif", "9" * 5000 + " ７六歩(77)\n", "line 3 column 1", "move number 999999999999999999999999… (5000 characters)"),
    ("kif", f"   {MAX_PLIES + 1} ７六歩(77)\n", "line 3 column 4", f"move number {MAX_PLIES + 1} is out of range"),
    ("kif", "   1 ７六歩(77)\n変化：" + "9" * 5000 + "手\n", "line 4 column 4", "変化 move number"),
    ("csa", f"+7776FU\nT{BIG}00\n", "line 4 column 1", f"time T (seconds) {BIG}00 is out of range (0 to 604800)"),
    ("csa", "+7776FU,T604800.5\n", "line 3 column 9", "time T 604800.5 is out of range (0 to 604800)"),
])
def test_hostile_numbers_name_line_column_field_and_range(fmt: str, body: str, where: str, reason: str) -> None:
    text = (KIF_HEAD if fmt == "kif" else "PI\n+\n") + body
    with pytest.raises(RecordError) as info:
        parse(text, fmt)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith(where + ": ") and reason in message, message
    assert len(message) < 200 and "\n" not in message


def test_hand_counts_are_bounded() -> None:
    bod = ("後手の持駒：なし\n|v玉 ・ ・ ・ ・|一\n| ・ ・ ・ ・ ・|二\n| ・ ・ ・ ・ ・|三\n"
           "| ・ ・ ・ ・ ・|四\n| ・ ・ ・ ・ 玉|五\n先手の持駒：{}\n")
    nines = "9" * 24
    with pytest.raises(RecordError, match=rf"^line 7: the count of 歩 in hand {nines}… \(5000 characters\) "
                                          r"is out of range \(1 to 99\)$"):
        parse(bod.format("歩" + "9" * 5000), "kif")


def test_what_the_writers_write_the_readers_read() -> None:
    rec = parse("startpos moves 7g7f 3c3d 2g2f", "usi")
    rec.times = [MAX_MOVE_SECONDS, 0.25, MAX_MOVE_SECONDS]
    for fmt in ("kif", "csa"):
        assert parse(dumps(rec, fmt), fmt).times[0] == MAX_MOVE_SECONDS  # type: ignore[arg-type]
    for bad in (MAX_MOVE_SECONDS + 1, 1e30, float("nan"), -1):
        rec.times = [bad, 0, 0]
        for fmt in ("kif", "csa"):
            with pytest.raises(RecordError, match=r"^move 1: time .* is not a number of seconds from 0 to 604800"):
                dumps(rec, fmt)  # type: ignore[arg-type]
    many = parse(" ".join(["startpos moves"] + ["5i5h 5a5b 5h5i 5b5a"] * 27), "usi")
    many.times = [MAX_MOVE_SECONDS] * len(many.moves)  # 54 moves a side: over 366 days
    with pytest.raises(RecordError, match=r"the player's total: time .* from 0 to 31622400 \(366 days\)"):
        dumps(many, "kif")
    assert parse(dumps(many, "csa"), "csa").times == many.times  # CSA keeps no totals


def test_kif_move_numbers_stop_at_the_limit() -> None:
    rec = parse(" ".join(["startpos moves"] + ["5i5h 5a5b 5h5i 5b5a"] * (MAX_PLIES // 4)), "usi")
    assert len(rec.moves) == MAX_PLIES
    assert parse(dumps(rec, "kif"), "kif").moves == rec.moves
    from komaken.game import Outcome, Termination

    rec.result = Outcome(Termination.ABORTED, None)  # the end line would be move 10001
    with pytest.raises(RecordError, match=f"^move {MAX_PLIES + 1}: KIF move numbers go up to {MAX_PLIES}$"):
        dumps(rec, "kif")


def test_a_hostile_time_on_the_command_line(tmp_path: Path) -> None:
    src = tmp_path / "hostile.kifu"
    src.write_text(KIF_HEAD + f"   1 ７六歩(77)   ( {BIG}:01/00:00:01)\n", encoding="utf-8")
    target = tmp_path / "saved.csa"
    target.write_bytes(b"a game saved before")
    out = CliRunner().invoke(main, ["convert", str(src), "-o", str(target)])
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr == (f"komaken: error: hostile.kifu line 3 column 16: time field ( {BIG}:01/00:00:01): "
                          f"minutes {BIG} is out of range (0 to 10080)\n")
    assert target.read_bytes() == b"a game saved before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.kifu", "saved.csa"]


def test_stdout_is_a_text_stream_over_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a shell gives for ``> x.kif``: a TextIOWrapper in the locale's encoding over the file."""
    src = tmp_path / "g.csa"
    src.write_text(GAME, encoding="utf-8")
    with open(tmp_path / "x.kif", "wb") as raw:
        stream = io.TextIOWrapper(raw, encoding=locale.getpreferredencoding(False))
        monkeypatch.setattr(sys, "stdout", stream)
        main(["convert", str(src), "--to", "kif"], prog_name="komaken")
        stream.flush()
    assert usi_moves(cshogi.KIF.Parser.parse_file(str(tmp_path / "x.kif"))) == MOVES


def test_a_terminal_gets_the_text_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No program reads a terminal as a .kif file: it shows the text in its own encoding."""
    import pty
    import select

    src = tmp_path / "g.csa"
    src.write_text("N+先手さん\n" + GAME, encoding="utf-8")
    master, slave = pty.openpty()
    try:
        with open(slave, "w", encoding="utf-8") as terminal:
            monkeypatch.setattr(sys, "stdout", terminal)
            main(["convert", str(src), "--to", "kif"], prog_name="komaken")
            terminal.flush()
        shown = b""
        while select.select([master], [], [], 10)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other end is closed: everything was read
                break
            if not chunk:
                break
            shown += chunk
            if "まで".encode() in shown and shown.endswith(b"\n"):
                break
    finally:
        os.close(master)
    assert "先手：先手さん" in shown.decode("utf-8")
