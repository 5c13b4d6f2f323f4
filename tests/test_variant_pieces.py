"""Pieces as data (``[pieces]`` in a variant file) and the two end rules, king capture and try."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from komaken import VariantError
from komaken.shogi import Position
from komaken.shogi.variant import MINISHOGI, variant_from_toml

_HEAD = 'width = 5\nheight = 5\npromotion_zone = 1\nstart = "rbsgk/4p/5/P4/KGSBR b - 1"\n'


@pytest.mark.parametrize(("tail", "message"), [
    ('[pieces.R]\nsteps = []\n', r"pieces\.R: a piece given no moves"),
    ('[pieces.R]\nslides = []\nsteps = []\n', r"pieces\.R: a piece given no moves"),
    ('[pieces.Q]\nsteps = ["N"]\n', r"pieces\.Q: unknown piece slot 'Q'"),
    ('[pieces.R]\nsteps = ["up"]\n', r"pieces\.R\.steps: unknown direction 'up'"),
    ('[pieces.R]\nslides = ["NNE"]\n', r"pieces\.R\.slides: unknown direction 'NNE'"),
    ('[pieces.R]\nsteps = ["N", "N"]\n', r"pieces\.R\.steps: a direction is listed twice"),
    ('[pieces.R]\nmoves = ["N"]\n', r"pieces\.R: unknown key 'moves'"),
    ('[pieces.K]\nslides = ["N"]\n', r"pieces\.K\.slides: the king \(K\) moves by steps only"),
    ('[pieces.G]\npromotes = true\n', r"pieces\.G\.promotes: only P L N S B R can promote"),
    ('[pieces.R]\npromotes = false\n[pieces."+R"]\nsteps = ["N"]\n', r"pieces\.\+R: R does not promote"),
    ('[pieces.P]\nsteps = ["S"]\n', r"rules\.uchifuzume needs the pawn \(P\) to move one step forward"),
    ('[rules]\ntry_rule = 1\n', r"rules\.try_rule must be true or false"),
    ('[pieces.R]\nkanji = "キリ"\n', r"pieces\.R\.kanji must be one character, not 'キリ'"),
    ('[pieces.R]\nkanji = ""\n', r"pieces\.R\.kanji must be one character, not ''"),
    ('[pieces.R]\nkanji_move = "キ2"\n', r"pieces\.R\.kanji_move: '2' cannot be part of a piece name"),
    ('[pieces.R]\nkanji = 5\n', r"pieces\.R\.kanji must be a string, not 5"),
    ('[pieces.R]\nname = " rook"\n', r"pieces\.R\.name must be one line without spaces around it"),
    ('[pieces.R]\nkanji = "金"\n', r"pieces\.R\.kanji: '金' names G too"),
    ('[pieces.R]\nkanji = "キ"\n[pieces.B]\nkanji_move = "キ"\n', r"pieces\.B\.kanji_move: 'キ' names R too"),
])
def test_bad_piece_tables_and_rules_name_the_file_and_key(tail: str, message: str) -> None:
    with pytest.raises(VariantError, match=r"my\.toml: .*" + message):
        variant_from_toml(_HEAD + tail, "my.toml")


def test_try_or_king_capture_needs_one_king_a_side() -> None:
    text = 'width = 3\nheight = 3\npromotion_zone = 1\nstart = "r2/3/2R b - 1"\n[rules]\ntry_rule = true\n'
    with pytest.raises(VariantError, match=r"k\.toml: .*rules\.try_rule needs one king \(K\) on each side"):
        variant_from_toml(text, "k.toml")
    with pytest.raises(VariantError, match=r"rules\.king_capture needs one king"):
        variant_from_toml(text.replace("try_rule", "king_capture"), "k.toml")


def test_the_cli_reports_a_bad_variant_file_in_one_line_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(_HEAD + '[pieces.B]\nsteps = []\nslides = []\n', encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "komaken", "perft", "-d", "1", "--variant", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [f"komaken: error: {path}: pieces.B: a piece given no moves "
                                               "(steps and slides both empty)"]


def test_a_slot_moves_as_its_table_says_and_the_file_reads_back() -> None:
    # minishogi with the rook replaced by a one-step "wazir" and the bishop by a knight-jumping
    # piece that does not promote: the moves from a bare position are counted by hand
    text = (_HEAD.replace("rbsgk/4p/5/P4/KGSBR", "4k/5/2R2/5/K3B") + "[rules]\nuchifuzume = false\n"
            '[pieces.R]\nname = "wazir"\nsteps = ["N", "E", "W", "S"]\npromotes = false\n'
            '[pieces.B]\nsteps = ["NNE", "NNW"]\nslides = ["S"]\n')
    v = variant_from_toml(text, "w.toml")
    assert v.names.english["R"] == "wazir" and "+R" not in v.piece_letters
    pos = Position.from_sfen("4k/5/2R2/5/K3B b - 1", v)
    by_piece: dict[str, set[str]] = {}
    for m in pos.legal_moves():
        by_piece.setdefault(m.usi()[:2], set()).add(m.usi())
    assert by_piece["3c"] == {"3c3b", "3c3d", "3c2c", "3c4c"}  # one step each way, no promotion
    assert by_piece["1e"] == {"1e2c"}  # the other jump is off the board, so is the slide back
    assert variant_from_toml(v.to_toml(), "again.toml") == v


def test_a_variant_names_its_pieces_for_every_surface() -> None:
    # minishogi whose rook is a "wazir" (ワ on boards, ワジ in moves): the names reach the diagram,
    # the page, move text read and written, hands, records and messages; SFEN keeps the letter
    from komaken import IllegalMoveError, records
    from komaken.records import GameRecord
    from komaken.shogi.display import japanese_diagram
    from komaken.shogi.presentation import PRESENTATION

    v = variant_from_toml(MINISHOGI.to_toml() + '[pieces.R]\nname = "wazir"\nkanji = "ワ"\nkanji_move = "ワジ"\n'
                          '[pieces."+R"]\nkanji = "騎"\n', "w.toml")
    assert (v.names.english["R"], v.names.kanji["R"], v.names.kanji_move["R"]) == ("wazir", "ワ", "ワジ")
    assert (v.names.kanji["+R"], v.names.kanji_move["+R"], v.names.english["+R"]) == ("騎", "騎", "dragon")
    pos = Position.from_sfen("4k/5/5/4r/K4 b R 1", v)
    diagram = japanese_diagram(pos)
    assert "| ・ ・ ・ ・vワ|四" in diagram and "先手の持駒：ワ" in diagram and ">ワ</text>" in pos.svg()
    board = PRESENTATION.board(pos)
    assert board["hands"][0] == [{"kind": "R", "label": "ワ", "n": 1, "letter": "W"}]  # W: the international set
    assert {c["piece"]["label"] for c in board["cells"] if c["piece"]} == {"ワ", "玉"}
    with pytest.raises(IllegalMoveError, match="no wazir can reach ３三"):
        pos.push_japanese("３三ワジ成")
    assert pos.push_japanese("▲２四飛打").usi() == "R*2d"  # the standard names still read
    assert pos.pop().japanese(pos) == "２四ワジ"
    assert pos.push_japanese("２四ワジ").usi() == "R*2d"
    rec = GameRecord.from_position(pos)
    for fmt in ("kif", "ki2"):
        text = records.dumps(rec, fmt)
        assert "ワジ" in text and "vワ|四" in text and "飛" not in text, text
        back = records.parse(text, fmt, variant=v)
        assert back.position().sfen() == pos.sfen()
    assert variant_from_toml(v.to_toml(), "again.toml") == v


def test_standard_movement_is_the_default_data() -> None:
    # spelling out the standard rook and pawn changes nothing the kernels receive
    text = MINISHOGI.to_toml() + '[pieces.R]\nslides = ["N", "E", "W", "S"]\n[pieces.P]\nsteps = ["N"]\n'
    spelled = variant_from_toml(text, "m.toml")
    assert (spelled.rules == MINISHOGI.rules).all()
    assert variant_from_toml(MINISHOGI.to_toml(), "m.toml") == MINISHOGI
