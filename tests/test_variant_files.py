"""Variants as data: the shipped files, ``inherits``, the one resolver, and a variant's name never
being a path (the engine's parameter files are found by the game itself)."""

from __future__ import annotations

import dataclasses
import logging
import random
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from komaken.errors import VariantError
from komaken.shogi import Position
from komaken.shogi._variant_files import SHIPPED_DIR
from komaken.shogi.engine.evalparams import EvalParams, defaults_notice, params_id
from komaken.shogi.engine.search import Engine
from komaken.shogi.variant import BUILTIN, load_variant, same_game, shipped_id, shipped_variants, variant_from_toml
from komaken.usi.options import OPTIONS
from usi_support import DEADLINE, start_engine

SEVEN = """name = "{name}"
width = 7
height = 7
promotion_zone = 2
start = "rbsgksr/7/ppppppp/7/PPPPPPP/7/RSKGSBR b - 1"
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# ---- the shipped files ----------------------------------------------------------------------------
def test_every_shipped_variant_is_a_file_that_loads_by_its_id() -> None:
    ids = list(shipped_variants())
    assert ids == ["shogi", "minishogi", "judkins", "ctrl4", "ctrl5", "ctrl6", "ctrl7", "ctrl8", "ctrl9", "dobutsu",
                   "shogi7x7"]
    for vid, v in shipped_variants().items():
        assert v.name == vid and (SHIPPED_DIR / f"{vid}.toml").is_file()
        assert load_variant(vid.upper()) is v
    ctrl7 = load_variant("ctrl7")
    assert (ctrl7.width, ctrl7.height, ctrl7.promotion_zone, ctrl7.repetition) == (7, 7, 1, "draw")
    assert Position.start("ctrl7").sfen() == "2rbsgk/6p/7/7/7/P6/KGSBR2 b - 1"
    assert BUILTIN == {k: shipped_variants()[k] for k in ("shogi", "minishogi", "judkins")}
    assert load_variant("5x5") is BUILTIN["minishogi"] and load_variant("9x9") is BUILTIN["shogi"]


def test_the_family_inherits_instead_of_copying() -> None:
    raw = {vid: tomllib.loads((SHIPPED_DIR / f"{vid}.toml").read_text(encoding="utf-8")) for vid in shipped_variants()}
    assert raw["ctrl5"]["inherits"] == "minishogi" and raw["shogi7x7"]["inherits"] == "shogi"
    for n in (4, 6, 7, 8, 9):
        assert raw[f"ctrl{n}"]["inherits"] == "ctrl5"
        assert set(raw[f"ctrl{n}"]) == {"inherits", "name", "description", "width", "height", "start"}
    # ctrl5 is minishogi with 千日手 a draw, and nothing else
    assert dataclasses.replace(load_variant("minishogi"), repetition="draw") == dataclasses.replace(
        load_variant("ctrl5"), name="minishogi", description=load_variant("minishogi").description)
    games = list(shipped_variants().values())
    assert not any(same_game(a, b) for i, a in enumerate(games) for b in games[i + 1:])


_CTRL4_FSF = """[ctrl4:minishogi]
maxRank = 4
maxFile = d
startFen = rbgk/3p/P3/KGBR[-] w 0 1
promotionRegionWhite = *4
promotionRegionBlack = *1
"""


def test_ctrl4_is_the_family_army_without_the_silver_and_its_perft_agrees_with_pyffish() -> None:
    ctrl4 = load_variant("ctrl4")
    assert (ctrl4.width, ctrl4.height, ctrl4.promotion_zone, ctrl4.repetition) == (4, 4, 1, "draw")
    start = Position.start("ctrl4")
    assert start.sfen() == "rbgk/3p/P3/KGBR b - 1"
    # by hand at depth 1: K 3c; P 4b; G 3c 2c; B 3c 4b 1c; R 1c 1xb (the white pawn) = 9
    assert [start.perft(d) for d in (1, 2)] == [9, 61]
    sf = pytest.importorskip("pyffish")
    sf.load_variant_config(_CTRL4_FSF)  # minishogi's rules on 4x4, its zone the far rank

    def fsf_perft(fen: str, moves: list[str], depth: int) -> int:
        ms = sf.legal_moves("ctrl4", fen, moves)
        return len(ms) if depth == 1 else sum(fsf_perft(fen, [*moves, m], depth - 1) for m in ms)

    assert [start.perft(d) for d in (3, 4)] == [fsf_perft(sf.start_fen("ctrl4"), [], d) for d in (3, 4)]
    # and from positions along random games, where pieces are in hand and promoted (perft from the
    # SFEN: pyffish's files a..d are our 4..1, its ranks 1..4 our d..a, so the SFEN reads alike)
    hands = 0
    for seed in range(12):
        rng = random.Random(seed)
        pos = Position.start("ctrl4")
        for _ in range(rng.randint(4, 24)):
            moves = pos.legal_moves()
            if not moves or pos.outcome() is not None:
                break
            pos.push(rng.choice(moves))
        if not pos.legal_moves() or pos.outcome() is not None:
            continue
        board, turn, hand, _ = pos.sfen().split()
        hands += hand != "-"
        held = "".join(letter * int(count or 1) for count, letter in re.findall(r"(\d*)(\D)", hand.strip("-")))
        fen = f"{board}[{held}] {'w' if turn == 'b' else 'b'} 0 1"
        assert pos.perft(2) == fsf_perft(fen, [], 2), pos.sfen()
    assert hands > 0


# ---- inheritance in files of one's own ----------------------------------------------------------------
def test_a_file_inherits_a_shipped_variant_or_a_file_next_to_it(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", 'inherits = "minishogi"\n[rules]\nmax_plies = 300\n')
    child = write(tmp_path, "child.toml", 'inherits = "base.toml"\ndescription = "mine"\n[rules]\nnifu = false\n')
    v = load_variant(child)
    mini = load_variant("minishogi")
    assert (v.name, v.description, v.width, v.start_sfen) == ("child", "mine", 5, mini.start_sfen)
    assert (v.repetition, v.max_plies, v.nifu) == ("sente_loses", 300, False)  # [rules] merged key by key
    text = 'inherits = "judkins"\nname = "j2"\n[rules]\nimpasse = "27"\n'
    assert variant_from_toml(text, "t.toml") == dataclasses.replace(load_variant("judkins"), name="j2",
                                                                    description="", impasse="27")


@pytest.mark.parametrize(("files", "bad", "expected"), [
    ({"a.toml": 'inherits = "nope"\n'}, "a.toml", "a.toml: inherits: unknown variant 'nope'"),
    ({"a.toml": 'inherits = "b.toml"\n', "b.toml": 'inherits = "a.toml"\n'}, "a.toml",
     "inherits: circular inheritance (a.toml -> b.toml -> a.toml)"),
    ({"a.toml": 'inherits = "a.toml"\n'}, "a.toml", "inherits: circular inheritance (a.toml -> a.toml)"),
    ({"a.toml": 'inherits = "gone.toml"\n'}, "a.toml", "a.toml: inherits: variant file not found"),
    ({"a.toml": "inherits = 5\n"}, "a.toml", "a.toml: inherits: must be a variant id or a .toml file name, not 5"),
    ({"a.toml": 'inherits = "minishogi"\ncolour = "red"\n'}, "a.toml", "a.toml: unknown key 'colour'"),
    ({"a.toml": 'inherits = "minishogi"\n[rules]\nnifu = 1\n'}, "a.toml", "a.toml: rules.nifu must be true or false"),
    ({"a.toml": 'inherits = "b.toml"\n', "b.toml": 'inherits = "shogi"\nwidth = 99\n'}, "a.toml",
     "b.toml: variant 'b': board 99x9 not within 3x3..9x9"),
    ({"a.toml": 'inherits = "b.toml"\n', "b.toml": 'inherits = "shogi"\n[rules]\nko = 1\n'}, "a.toml",
     "b.toml: unknown key rules.ko"),
    ({"a.toml": 'inherits = "shogi"\naliases = ["x"]\n'}, "a.toml", "a.toml: aliases: only the shipped variant files"),
])
def test_bad_inheritance_is_one_variant_error_naming_file_key_and_reason(
        tmp_path: Path, files: dict[str, str], bad: str, expected: str) -> None:
    for name, text in files.items():
        write(tmp_path, name, text)
    with pytest.raises(VariantError) as info:
        load_variant(tmp_path / bad)
    assert expected in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(("files", "expected"), [
    ({"a.toml": 'inherits = "b.toml"\n', "b.toml": 'inherits = "a.toml"\n'},
     "a.toml: inherits: circular inheritance (a.toml -> b.toml -> a.toml)"),
    ({"a.toml": 'inherits = "dobutsu2"\n'}, "a.toml: inherits: unknown variant 'dobutsu2' (shipped: shogi, "),
    ({"a.toml": 'inherits = "dobutsu"\nstart = "r1b/1p1/1P1/B1R b - 1"\n[rules]\nking_capture = false\n'},
     "a.toml: variant 'a': rules.try_rule needs one king (K) on each side in the start position, not 0 and 0"),
])
def test_the_cli_says_a_bad_variant_file_in_one_line_and_exits_2(
        tmp_path: Path, files: dict[str, str], expected: str) -> None:
    """The first case through a real ``komaken`` process (its exit status), the others in this process."""
    from click.testing import CliRunner

    from komaken.cli import main

    for name, text in files.items():
        write(tmp_path, name, text)
    args = ["show", "--variant", str(tmp_path / "a.toml")]
    if "circular" in expected:
        out = subprocess.run([sys.executable, "-m", "komaken", *args], capture_output=True, text=True, timeout=120)
        code, stdout, stderr = out.returncode, out.stdout, out.stderr
    else:
        result = CliRunner().invoke(main, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        code, stdout, stderr = result.exit_code, result.stdout, result.stderr
    assert code == 2 and stdout == ""
    assert stderr.count("\n") == 1 and expected in stderr, stderr


def test_komaken_variants_lists_the_shipped_ones_and_resolves_a_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from komaken.cli import main

    listing = CliRunner().invoke(main, ["variants"])
    assert listing.exit_code == 0
    assert [line.split()[0] for line in listing.output.splitlines()] == list(shipped_variants())
    assert "[also 5x5, gogo]" in listing.output
    child = write(tmp_path, "c.toml", 'inherits = "ctrl7"\nname = "c"\n[rules]\nmax_plies = 200\n')
    shown = CliRunner().invoke(main, ["variants", str(child)])
    assert shown.exit_code == 0 and "inherits" not in shown.output
    assert variant_from_toml(shown.output) == load_variant(child) == dataclasses.replace(
        load_variant("ctrl7"), name="c", description="", max_plies=200)


def test_unknown_names_are_refused_and_not_read_as_files() -> None:
    for spec in ("ctrl10", "", "x" * 300, "../params/shogi"):
        with pytest.raises(VariantError, match="unknown variant"):
            load_variant(spec)
    assert shipped_id("Minishogi") == "minishogi" and shipped_id("../params/shogi") is None


# ---- a variant's identity is not a path ---------------------------------------------------------------
def test_parameter_files_follow_the_game_not_the_name(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    renamed = dataclasses.replace(load_variant("minishogi"), name="x" * 300)
    assert params_id(renamed) == "minishogi" and EvalParams.default(renamed).source == "params/minishogi.toml"
    assert Engine(renamed, hash_mb=1).params.variant == "x" * 300
    sneaky = dataclasses.replace(load_variant("shogi"), name="../params/shogi")
    assert EvalParams.default(sneaky).source == "params/shogi.toml"
    # game-end rules do not change the evaluation: an experiment's max_plies keeps the file
    assert params_id(dataclasses.replace(load_variant("minishogi"), max_plies=300, repetition="draw")) == "minishogi"
    assert params_id("ctrl5") == "minishogi" and params_id("ctrl7") is None and defaults_notice("ctrl7") is None
    caplog.set_level(logging.WARNING, logger="komaken.engine")
    for name in ("../params/shogi", "minishogi", "y" * 300):
        v = load_variant(write(tmp_path, "v.toml", SEVEN.format(name=name)))
        assert v.name == name and params_id(v) is None
        p = EvalParams.default(v)
        assert (p.source, p.variant, p.width) == ("built-in", name, 7)
        assert p.values.board == EvalParams.legacy(v).values.board
        Engine(v, hash_mb=1)
    notes = [r.getMessage() for r in caplog.records if r.name == "komaken.engine"]
    assert len(notes) == 1  # the three are one game: said once
    assert "has no shipped net or evaluation parameters" in notes[0] and "7x7" in notes[0]


def test_a_parameter_file_written_for_an_odd_name_reads_back(tmp_path: Path) -> None:
    odd = dataclasses.replace(load_variant("minishogi"), name='a "quoted" \\ name\x7f' + "z" * 300)
    f = tmp_path / "p.toml"
    EvalParams.default(odd).write(f)
    back = EvalParams.load(f, odd)
    assert back.variant == odd.name and back.values.board == EvalParams.default("minishogi").values.board


def test_a_parameter_file_may_name_the_shipped_game_it_was_made_for(tmp_path: Path) -> None:
    renamed = dataclasses.replace(load_variant("judkins"), name="mine")
    f = write(tmp_path, "p.toml", 'variant = "judkins"\nboard = [6, 6]\n[values]\nP = 150\n')
    assert EvalParams.load(f, renamed).values.board["P"] == 150
    other = load_variant(write(tmp_path, "v.toml", SEVEN.format(name="judkins").replace("RSKGSBR", "RSGKSBR")))
    with pytest.raises(ValueError, match="the file is for a 6x6 board"):
        EvalParams.load(f, other)


# ---- USI -------------------------------------------------------------------------------------------------
def test_usi_offers_every_shipped_variant_and_says_when_a_file_plays_the_defaults(tmp_path: Path) -> None:
    assert OPTIONS["UCI_Variant"].choices == tuple(shipped_variants())
    assert OPTIONS["UCI_Variant"].parse("5X5") == "minishogi" and OPTIONS["UCI_Variant"].parse("ctrl9") == "ctrl9"
    custom = write(tmp_path, "v.toml", SEVEN.format(name="minishogi"))
    eng = start_engine()
    try:
        eng.send(f"setoption name UCI_Variant value {custom}")
        eng.send("isready")
        lines = eng.until("readyok", DEADLINE)
        eng.send("setoption name UCI_Variant value ctrl7")
        eng.send("isready")
        quiet = eng.until("readyok", DEADLINE)
    finally:
        eng.close(timeout=DEADLINE)
    notes = [x for x in lines if x.startswith("info string")]
    assert len(notes) == 1 and "'minishogi' (7x7) has no shipped net or evaluation parameters" in notes[0]
    assert not any(x.startswith("info string") for x in quiet)
