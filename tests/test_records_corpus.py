"""The real-record corpus (``../shared/corpus/records`` next to the repository, 341 files from 11
public projects, see its SOURCES.md): every file reads to the moves and start its ``truth.json``
gives (agreed by cshogi, python-shogi and rsshogi, or judged by reading the file); the two marked
malformed give a RecordError naming the file and line; the endings map to results; each record
written back as KIF, CSA and KI2 reads again to the same game; cshogi reads what we write."""

from __future__ import annotations

import io
import json
import locale
import os
import subprocess
import sys
import warnings
from dataclasses import replace
from functools import cache
from pathlib import Path

import cshogi
import cshogi.CSA
import cshogi.KIF
import pytest

from komaken.cli import main
from komaken.errors import KomakenError
from komaken.game import Color, Termination
from komaken.records import GameRecord, RecordError, decode, dumps, encode, parse, read
from komaken.shogi import Position

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "records"
TRUTH = CORPUS / "truth.json"
NAMES = sorted(json.loads(TRUTH.read_text(encoding="utf-8"))) if TRUTH.is_file() else []
needs_corpus = pytest.mark.skipif(not NAMES, reason=f"the record corpus is not at {CORPUS} (CI has it there)")

#: the corpus' "terminal" words (rsshogi's names) and what our results say
TERMINATION = {"RESIGN": Termination.RESIGNATION, "INTERRUPT": Termination.ABORTED, "MATE": Termination.CHECKMATE,
               "LOSE_BY_ILLEGAL_MOVE": Termination.ILLEGAL_MOVE, "WIN_BY_ILLEGAL_MOVE": Termination.ILLEGAL_MOVE,
               "REPETITION_DRAW": Termination.REPETITION, "IMPASSE": Termination.IMPASSE,
               "TIMEOUT": Termination.TIME_FORFEIT, "WIN_BY_DECLARATION": Termination.DECLARATION}
#: where we judged truth.json's result wrong or a reader's convention (see docs/records.md)
RESULT_EXCEPTIONS = {
    # 81Dojo's "194 Time-up" line: white, to move, lost on time; the other readers skip the word
    "mog-core/002.kif",
}


@cache
def truth() -> dict[str, dict[str, object]]:
    return json.loads(TRUTH.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def record(name: str) -> GameRecord:
    return read(CORPUS / name)


def start_of(rec: GameRecord) -> str:
    return " ".join(rec.initial_sfen.split()[:3])


def test_the_corpus_is_there_or_the_skip_says_why() -> None:
    if not NAMES:
        pytest.skip(f"the record corpus is not at {CORPUS} (CI has it there)")
    assert len(NAMES) == 341


@needs_corpus
@pytest.mark.parametrize("name", NAMES)
def test_reads_to_the_truth(name: str) -> None:
    t = truth()[name]
    if t.get("malformed"):
        with pytest.raises(RecordError) as info:
            read(CORPUS / name)
        assert info.value.file == Path(name).name and info.value.line, str(info.value)
        return
    rec = record(name)
    assert [m.usi() for m in rec.moves] == t["moves"]
    assert start_of(rec) == t["sfen"]
    if "illegal_last_move" in t:
        assert rec.illegal_move and rec.result is not None
        assert rec.result.termination is Termination.ILLEGAL_MOVE
        assert rec.result.winner == rec.position().turn.other  # the mover of the illegal move lost


@needs_corpus
@pytest.mark.parametrize("name", NAMES)
def test_endings_map_to_results(name: str) -> None:
    t = truth()[name]
    if t.get("malformed") or name in RESULT_EXCEPTIONS:
        return
    rec = record(name)
    terminal, result = t.get("terminal"), str(t.get("result"))
    if result in ("BLACK_WIN", "WHITE_WIN") or result.startswith(("BLACK_WIN_", "WHITE_WIN_")):
        assert rec.result is not None
        assert rec.result.winner == (Color.BLACK if result.startswith("BLACK") else Color.WHITE)
    elif result.startswith("DRAW"):
        assert rec.result is not None and rec.result.winner is None
    if terminal in TERMINATION and rec.result is not None:
        want = TERMINATION[str(terminal)]
        got = rec.result.termination
        # a KI2 "まで…の勝ち" over a mate on the board is 詰み for us, 投了 for rsshogi
        assert got is want or (want is Termination.RESIGNATION and got is Termination.CHECKMATE)
    elif terminal in TERMINATION:
        # rsshogi calls a KI2 with no まで line 中断; it says nothing, so we say nothing
        assert terminal == "INTERRUPT" and t["format"] == "ki2"


@needs_corpus
@pytest.mark.parametrize("name", NAMES)
def test_written_back_reads_the_same(name: str) -> None:
    if truth()[name].get("malformed"):
        return
    rec = record(name)
    for fmt in ("kif", "csa", "ki2"):
        text = dumps(rec, fmt)  # type: ignore[arg-type]
        again = parse(text, fmt)  # type: ignore[arg-type]
        assert again.moves == rec.moves, (fmt, text)
        assert start_of(again) == start_of(rec), fmt
        assert same_result(again, rec, fmt), (fmt, again.result, rec.result)
        if fmt == "kif":
            assert text.startswith("#KIF version=2.0 encoding=UTF-8\n")
            assert not any("不成" in line for line in text.splitlines() if line[:4].strip().isdigit())
            assert again.times == rec.times and again.comments == rec.comments
            assert len(again.variations) == len(rec.variations)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = encode(rec, fmt)  # type: ignore[arg-type]
        decoded = decode(data, f"x.{fmt}")
        # the bytes hold the text read back above, but for the header's encoding and the few characters
        # Shift_JIS writes in another form (〜 as ～ in a comment): only then is there more to read
        if decoded.split("\n", 1)[1] != text.split("\n", 1)[1]:
            assert parse(decoded, fmt).moves == rec.moves  # type: ignore[arg-type]
        assert bool(caught) == data.split(b"\n", 1)[0].endswith(b" encoding=UTF-8"), fmt  # a .kif/.ki2 as UTF-8


def same_result(again: GameRecord, rec: GameRecord, fmt: str) -> bool:
    """The result survives a round trip, up to what the format can say: KI2's まで line does not
    tell 投了 from 詰み (a mate on the board reads as 詰み); 持将棋 stands for a ply-limit draw too."""
    if again.result is None or rec.result is None:
        return again.result is rec.result
    if again.result.winner != rec.result.winner:
        return False
    pairs = {(again.result.termination, rec.result.termination)}
    kinds = {Termination.MAX_PLIES, Termination.IMPASSE}
    if fmt == "ki2":
        return bool(pairs & {(t, t) for t in Termination}) or pairs <= {
            (Termination.CHECKMATE, Termination.RESIGNATION), (Termination.RESIGNATION, Termination.CHECKMATE)}
    a, b = again.result.termination, rec.result.termination
    return a is b or {a, b} <= kinds


def cshogi_knows(rec: GameRecord) -> bool:
    """cshogi's KIF reader takes a 手合割 from its table (it skips BOD diagrams)."""
    return start_of(rec) in {" ".join(s.split()[:3]) for s in cshogi.KIF.Parser.HANDYCAP_SFENS.values() if s}


def legal_start(rec: GameRecord) -> bool:
    try:
        Position.from_sfen(rec.initial_sfen, rec.variant)
    except KomakenError:
        return False  # a composed 二歩 start: cshogi's CSA reader crashes on it
    return True


@needs_corpus
def test_cshogi_reads_our_kif_and_csa() -> None:
    kif_checked = csa_checked = 0
    for name in NAMES:
        if truth()[name].get("malformed"):
            continue
        rec = record(name)
        ours = [m.usi() for m in rec.moves]
        if cshogi_knows(rec):
            parsed = cshogi.KIF.Parser.parse_str(dumps(replace(rec, variations=[]), "kif"))  # it reads 変化 as moves
            theirs = [cshogi.move_to_usi(m) for m in parsed.moves]
            assert theirs[: len(ours)] == ours, name
            assert len(theirs) == len(ours) + (1 if rec.illegal_move else 0), name
            kif_checked += 1
        if legal_start(rec):
            (parsed,) = cshogi.CSA.Parser.parse_str(dumps(rec, "csa"))
            assert [cshogi.move_to_usi(m) for m in parsed.moves] == ours, name
            assert Position.from_sfen(parsed.sfen).sfen().split()[:3] == rec.initial_sfen.split()[:3], name
            csa_checked += 1
    assert kif_checked > 250 and csa_checked > 300


@needs_corpus
def test_shift_jis_kif_files_are_read_by_cshogi(tmp_path: Path) -> None:
    from komaken.records import write

    checked = 0
    for name in NAMES[::7]:
        if truth()[name].get("malformed"):
            continue
        rec = record(name)
        if not cshogi_knows(rec):
            continue
        path = tmp_path / "game.kif"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            write(rec, path)
        data = path.read_bytes()
        assert bool(caught) == data.startswith(b"#KIF version=2.0 encoding=UTF-8")
        try:
            data.decode("cp932")
        except UnicodeDecodeError:
            assert data.startswith(b"#KIF version=2.0 encoding=UTF-8")  # a character Shift_JIS lacks
            continue
        parsed = cshogi.KIF.Parser.parse_file(str(path))
        assert [cshogi.move_to_usi(m) for m in parsed.moves][: len(rec.moves)] == [m.usi() for m in rec.moves]
        assert read(path).moves == rec.moves
        checked += 1
    assert checked > 20


@needs_corpus
def test_a_real_kif_or_ki2_file_is_one_game() -> None:
    """Splitting text into games (KIF/KI2 written one after another) never cuts a real record:
    every well-formed KIF and KI2 file of the corpus is one game, the same as :func:`read` gives."""
    from komaken.records import format_of, read_all, split_games

    checked = 0
    for name in NAMES:
        path = CORPUS / name
        if truth()[name].get("malformed") or format_of(path) not in ("kif", "ki2"):
            continue
        assert len(split_games(decode(path.read_bytes(), path))) == 1, name
        assert [m.usi() for m in read_all(path)[0].moves] == [m.usi() for m in record(name).moves]
        checked += 1
    assert checked > 200


@needs_corpus
def test_kif_games_one_after_another_read_as_each_game(tmp_path: Path) -> None:
    """Two real KIF records in one file read as the two games; an error in the second names the
    file's line number, not the line within the second game."""
    from komaken.records import read_all

    kifs = [n for n in NAMES if n.endswith(".kif") and not truth()[n].get("malformed")
            and not truth()[n].get("illegal_last_move") and truth()[n]["moves"]][:2]
    texts = [decode((CORPUS / n).read_bytes(), CORPUS / n).lstrip("\ufeff") for n in kifs]
    path = tmp_path / "two.kifu"
    path.write_text(texts[0].rstrip("\n") + "\n\n" + texts[1], encoding="utf-8")
    games = read_all(path)
    assert [[m.usi() for m in g.moves] for g in games] == [truth()[n]["moves"] for n in kifs]
    lines = path.read_text(encoding="utf-8").splitlines()
    first_move = len(texts[0].rstrip("\n").splitlines()) + 1 + next(
        i for i, ln in enumerate(texts[1].splitlines()) if ln.strip().startswith("1 "))
    lines[first_move] = "   1 ５五飛打"  # the second game's first move: no rook in hand
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RecordError) as info:
        read_all(path)
    assert info.value.line == first_move + 1, str(info.value)


# ---- `komaken convert` to .kif, as a shell user runs it -----------------------------------------------
def convert_in_process(args: list[str], stdout: Path | None, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run ``komaken convert ARGS`` through the CLI's entry point in this process, stdout going to
    ``stdout`` the way ``> file`` gives it (a text stream in the locale's encoding over the file);
    returns what went to stderr."""
    err = io.StringIO()
    with monkeypatch.context() as m, open(stdout or os.devnull, "wb") as raw:
        out = io.TextIOWrapper(raw, encoding=locale.getpreferredencoding(False))
        m.setattr(sys, "stdout", out)
        m.setattr(sys, "stderr", err)
        m.setattr(os, "fsync", lambda fd: None)  # -o's flush to the disk: 339 of them cost seconds
        main(["convert", *args], prog_name="komaken")
        out.flush()
    return err.getvalue()


def check_kif_file(path: Path, name: str, warned: str) -> str:
    """``path`` (a .kif we wrote for corpus game ``name``) reads to its moves; returns how: in
    cshogi, or — for a start cshogi's KIF reader cannot take — in ours."""
    rec, t = record(name), truth()[name]
    data = path.read_bytes()
    try:
        data.decode("cp932")
    except UnicodeDecodeError:  # a character Shift_JIS lacks: UTF-8, said on the #KIF line and on stderr
        assert data.startswith(b"#KIF version=2.0 encoding=UTF-8\n") and "will fail" in warned, name
        path = path.rename(path.with_suffix(".kifu"))  # what the warning advises: cshogi then reads it
    else:
        assert data.startswith(b"#KIF version=2.0 encoding=Shift_JIS\n") and not warned, name
    if not cshogi_knows(rec):
        assert [m.usi() for m in read(path).moves] == t["moves"], name
        return "ours"
    theirs = [cshogi.move_to_usi(m) for m in cshogi.KIF.Parser.parse_file(str(path)).moves]
    assert theirs[: len(rec.moves)] == t["moves"], name  # cshogi reads 変化 lines as more moves
    if not rec.variations:
        assert len(theirs) == len(rec.moves) + (1 if rec.illegal_move else 0), name
    return "cshogi"


@needs_corpus
def test_every_game_converted_to_kif_reads_in_cshogi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every corpus game through ``komaken convert``: ``--to kif`` into a redirected stdout and
    ``-o x.kif`` give the same bytes, which cshogi's ``KIF.Parser.parse_file`` reads to the game's
    moves (Shift_JIS, as it takes every .kif)."""
    how: dict[str, int] = {}
    for i, name in enumerate(NAMES):
        if truth()[name].get("malformed"):
            continue
        piped, saved = tmp_path / f"{i}-piped.kif", tmp_path / f"{i}-saved.kif"
        warned = convert_in_process([str(CORPUS / name), "--to", "kif"], piped, monkeypatch)
        assert convert_in_process([str(CORPUS / name), "-o", str(saved)], None, monkeypatch).replace(
            saved.name, "kif output") == warned, name
        assert piped.read_bytes() == saved.read_bytes(), name
        way = check_kif_file(piped, name, warned)
        how[way] = how.get(way, 0) + 1
    assert how["cshogi"] > 250 and sum(how.values()) == 339, how


#: a sample for real shells (a process each: ~2 s of CPU): a KIF (a handicap), a KI2 and a CSA in,
#: .kif and .ki2 out.  What goes through the redirect is the same for every game; that every corpus
#: game converts to a .kif cshogi reads is checked in-process above.
SHELL_SAMPLE = [("kifu-for-js/20081220kyoochi.kif", "kif"), ("shogi-player/08731.KI2", "kif"),
                ("sunfish4/kifu001.csa", "ki2")]


@needs_corpus
def test_a_shell_redirect_gives_a_file_cshogi_reads(tmp_path: Path) -> None:
    """``sh -c 'komaken convert GAME --to kif > x.kif'`` in real processes (a few at a time, each
    with a deadline).  cshogi's KI2 reader fails on the corpus' own KI2 files, so the .ki2 is read
    by ours, after checking it is Shift_JIS."""
    jobs = []
    for i, (name, to) in enumerate(SHELL_SAMPLE):
        out = tmp_path / f"{i}.{to}"
        command = '"$0" -m komaken convert "$1" --to "$2" > "$3"'
        jobs.append((name, out, subprocess.Popen(["sh", "-c", command, sys.executable, str(CORPUS / name), to,
                                                  str(out)], stderr=subprocess.PIPE)))
        while sum(p.poll() is None for _, _, p in jobs) >= 4:
            jobs[-4][2].wait(timeout=120)
    for name, out, proc in jobs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and err == b"", (name, err)
        if out.suffix == ".ki2":
            text = out.read_bytes().decode("cp932")
            assert text.startswith("#KI2 version=2.0 encoding=Shift_JIS\n")
            assert [m.usi() for m in parse(text, "ki2").moves] == truth()[name]["moves"]
        else:
            assert cshogi_knows(record(name)) and check_kif_file(out, name, "") == "cshogi"
