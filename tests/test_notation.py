"""Japanese move text: the federation's marks (直 上 引 寄 右 左, 打), 同, 成/不成, and reading it back."""

from __future__ import annotations

import random

import pytest

from komaken.errors import IllegalMoveError
from komaken.shogi import Move, Position
from komaken.shogi.notation import japanese, japanese_marked, parse_japanese


def board(pieces: dict[str, str], turn: str = "b", hands: str = "-") -> Position:
    """A 9×9 position from {"5i": "G", "5a": "k"} (kings added in the corners when missing)."""
    pieces = dict(pieces)
    if "K" not in pieces.values():
        pieces["1i"] = "K"
    if "k" not in pieces.values():
        pieces["9a"] = "k"
    rows = []
    for r in "abcdefghi":
        row, empty = "", 0
        for f in "987654321":
            p = pieces.get(f + r)
            if p is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + p
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return Position.from_sfen(f"{'/'.join(rows)} {turn} {hands} 1")


def ki2(pos: Position, usi: str) -> str:
    text = japanese(pos, Move.from_usi(usi))
    assert parse_japanese(pos, text) == Move.from_usi(usi), text  # and it reads back
    return text


# ---- each mark ----------------------------------------------------------------------------------
def test_up_and_sideways() -> None:
    pos = board({"4i": "G", "6h": "G"})
    assert ki2(pos, "4i5h") == "５八金上"
    assert ki2(pos, "6h5h") == "５八金寄"


def test_back_and_up() -> None:
    pos = board({"5g": "G", "4i": "G"})
    assert ki2(pos, "5g5h") == "５八金引"
    assert ki2(pos, "4i5h") == "５八金上"


def test_left_and_right() -> None:
    pos = board({"6i": "G", "4i": "G"})
    assert ki2(pos, "6i5h") == "５八金左"
    assert ki2(pos, "4i5h") == "５八金右"


def test_straight_with_left_and_right() -> None:
    pos = board({"6i": "G", "5i": "G", "4i": "G"})
    assert ki2(pos, "5i5h") == "５八金直"
    assert ki2(pos, "6i5h") == "５八金左"
    assert ki2(pos, "4i5h") == "５八金右"


def test_2015_rule_straight_up_is_always_choku() -> None:
    # 上 alone would tell them apart (the other gold moves sideways), but since 2015 it is 直
    pos = board({"5i": "G", "4h": "G"})
    assert ki2(pos, "5i5h") == "５八金直"
    assert ki2(pos, "4h5h") == "５八金寄"
    assert parse_japanese(pos, "５八金上") == Move.from_usi("5i5h")  # the older way still reads


def test_combined_left_up_and_right_up() -> None:
    pos = board({"6i": "G", "4i": "G", "6h": "G"})
    assert ki2(pos, "6i5h") == "５八金左上"
    assert ki2(pos, "4i5h") == "５八金右"
    assert ki2(pos, "6h5h") == "５八金寄"
    pos = board({"6i": "G", "4i": "G", "4h": "G"})
    assert ki2(pos, "4i5h") == "５八金右上"
    assert ki2(pos, "6i5h") == "５八金左"


def test_combined_right_back_with_silvers() -> None:
    pos = board({"6g": "S", "4g": "S", "4i": "S"})
    assert ki2(pos, "4g5h") == "５八銀右引"
    assert ki2(pos, "6g5h") == "５八銀左"
    assert ki2(pos, "4i5h") == "５八銀上"


def test_dragon_and_horse_take_left_right_not_choku() -> None:
    pos = board({"5i": "+R", "4i": "+R"})
    assert ki2(pos, "5i5h") == "５八龍左"
    assert ki2(pos, "4i5h") == "５八龍右"
    pos = board({"5i": "+R", "6i": "+R"})
    assert ki2(pos, "5i5h") == "５八龍右"
    assert ki2(pos, "6i5h") == "５八龍左"
    pos = board({"5i": "+B", "4i": "+B"})
    assert ki2(pos, "5i5h") == "５八馬左"
    assert ki2(pos, "4i5h") == "５八馬右"
    assert parse_japanese(pos, "５八馬左") == Move.from_usi("5i5h")


def test_white_sees_the_board_from_the_other_side() -> None:
    pos = board({"4a": "g", "6a": "g", "1i": "K", "9i": "k"}, turn="w")
    assert ki2(pos, "4a5b") == "５二金左"
    assert ki2(pos, "6a5b") == "５二金右"
    assert japanese_marked(pos, Move.from_usi("4a5b")) == "△５二金左"


def test_drop_is_marked_only_when_a_board_piece_could_go_there() -> None:
    pos = board({"4i": "G"}, hands="G")
    assert ki2(pos, "G*5h") == "５八金打"
    assert ki2(pos, "4i5h") == "５八金"
    assert ki2(pos, "G*5e") == "５五金"
    assert japanese(pos, Move.from_usi("G*5e"), style="kif") == "５五金打"


def test_same_square_and_promotion() -> None:
    pos = Position.start()
    for usi in ("7g7f", "3c3d"):
        pos.push_usi(usi)
    assert ki2(pos, "8h2b+") == "２二角成"
    assert ki2(pos, "8h2b") == "２二角不成"
    assert japanese(pos, Move.from_usi("8h2b+"), style="kif") == "２二角成(88)"
    assert japanese(pos, Move.from_usi("8h2b"), style="kif") == "２二角不成(88)"
    pos.push_usi("8h2b+")
    assert ki2(pos, "3a2b") == "同　銀"
    assert japanese_marked(pos, Move.from_usi("3a2b")) == "△同　銀"
    assert japanese(pos, Move.from_usi("3a2b"), style="kif") == "同　銀(31)"
    assert japanese(pos, Move.from_usi("3a2b"), style="origin") == "同　銀(31)"
    for text in ("同銀", "同　銀", "△同銀", "２二銀", "２二同銀", "同銀(31)", "同　銀(31)"):
        assert parse_japanese(pos, text) == Move.from_usi("3a2b"), text


def test_same_square_with_a_two_character_piece() -> None:
    pos = board({"4d": "+S"})
    previous = Move.from_usi("5b4c")  # as if the opponent had just moved to ４三
    assert japanese(pos, Move.from_usi("4d4c"), previous=previous) == "同成銀"
    assert japanese(pos, Move.from_usi("4d4c"), style="kif", previous=previous) == "同　成銀(44)"


def test_origin_style_shows_marks_and_origin() -> None:
    pos = board({"6i": "G", "5i": "G", "4i": "G"})
    assert japanese(pos, Move.from_usi("5i5h"), style="origin") == "５八金直(59)"
    assert japanese(pos, Move.from_usi("5i5h"), style="kif") == "５八金(59)"


# ---- reading ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["７六歩", "76歩", "七六歩", "▲７六歩", "☗76歩", "７六歩(77)", " 7６歩 "])
def test_spellings_of_one_move(text: str) -> None:
    assert parse_japanese(Position.start(), text) == Move.from_usi("7g7f")


def test_kanji_variants() -> None:
    pos = board({"5h": "K", "4d": "+S", "3d": "+R"})
    assert parse_japanese(pos, "５七王") == parse_japanese(pos, "５七玉") == Move.from_usi("5h5g")
    assert parse_japanese(pos, "４三全") == parse_japanese(pos, "４三成銀") == Move.from_usi("4d4c")
    assert parse_japanese(pos, "３一竜") == parse_japanese(pos, "３一龍") == Move.from_usi("3d3a")
    pos = board({"2d": "S"})
    assert parse_japanese(pos, "２三銀生") == parse_japanese(pos, "２三銀不成") == Move.from_usi("2d2c")
    assert parse_japanese(pos, "２三銀成") == Move.from_usi("2d2c+")


@pytest.mark.parametrize(("sfen_pieces", "text", "message"), [
    ({}, "５五角", "no bishop can reach ５五"),
    ({"6i": "G", "4i": "G"}, "５八金", "ambiguous"),
    ({"6i": "G", "4i": "G"}, "５八金引", "fits"),
    ({}, "５五金打", "no gold in hand"),
    ({}, "同歩", "no previous move"),
    ({}, "△９八玉", "is marked △"),
    ({}, "hello", "not Japanese move text"),
    ({"2d": "+S"}, "２三成銀成", "cannot promote"),
    ({"5e": "G"}, "５四金(66)", "no gold of the mover on ６六"),
])
def test_errors_name_the_text_and_why(sfen_pieces: dict[str, str], text: str, message: str) -> None:
    pos = board(sfen_pieces)
    with pytest.raises(IllegalMoveError, match=message) as info:
        parse_japanese(pos, text)
    assert text.strip() in str(info.value) or text == "hello"


def test_random_games_every_legal_move_reads_back() -> None:
    rng = random.Random(4)
    checked = 0
    for game in range(6):
        pos = Position.start("shogi" if game % 2 else "minishogi")
        for _ in range(80):
            legal = pos.legal_moves()
            if not legal or pos.outcome():
                break
            for move in rng.sample(legal, min(4, len(legal))):  # ~5000 moves written and read
                for style in ("ki2", "kif", "origin"):
                    assert parse_japanese(pos, japanese(pos, move, style=style)) == move
                    checked += 1
            pos.push(rng.choice(legal))
    assert checked > 1000
