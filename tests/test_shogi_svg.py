"""The SVG board: hand labels clear of the file numbers, side to move, last move, check."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from komaken.shogi import Move, Position
from komaken.shogi.display import CHECK_FILL, LAST_MOVE_FILL, TURN_FILL, svg

NS = "{http://www.w3.org/2000/svg}"


def _texts(text: str) -> list[tuple[float, float, float, str]]:
    """(x, y, font-size, content) of every <text>."""
    root = ET.fromstring(text)
    return [(float(t.get("x", 0)), float(t.get("y", 0)), float(t.get("font-size", 0)), t.text or "")
            for t in root.iter(f"{NS}text")]


def _rects(text: str, fill: str) -> list[tuple[float, float, float, float]]:
    root = ET.fromstring(text)
    return [tuple(float(r.get(k, 0)) for k in ("x", "y", "width", "height"))  # type: ignore[misc]
            for r in root.iter(f"{NS}rect") if r.get("fill") == fill]


def test_svg_is_well_formed_and_has_every_piece() -> None:
    pos = Position.start()
    text = pos._repr_svg_()
    pieces = [t for t in _texts(text) if t[3] in "歩香桂銀金角飛玉"]
    assert len(pieces) == 40


def test_gote_hand_label_is_above_the_file_numbers() -> None:
    pos = Position.start()
    for move in ("7g7f", "3c3d", "8h2b+", "3a2b"):  # both sides now hold a bishop
        pos.push_usi(move)
    texts = _texts(svg(pos))
    hand = next(t for t in texts if t[3].startswith("☖"))
    nine = next(t for t in texts if t[3] == "9")
    # the hand text's box (baseline y, height font-size) ends above the digits' top
    assert hand[1] + 0.25 * hand[2] < nine[1] - nine[2]
    assert "後手" in hand[3] and "角" in hand[3]


def test_side_to_move_is_shown() -> None:
    pos = Position.start("minishogi")
    texts = _texts(svg(pos))
    badge = next(t for t in texts if t[3] == "手番")
    sente = next(t for t in texts if t[3].startswith("☗"))
    gote = next(t for t in texts if t[3].startswith("☖"))
    assert abs(badge[1] - sente[1]) < 1 and abs(badge[1] - gote[1]) > 100  # badge on black's band
    pos.push_usi("5d5c")
    texts = _texts(svg(pos))
    badge = next(t for t in texts if t[3] == "手番")
    gote = next(t for t in texts if t[3].startswith("☖"))
    assert abs(badge[1] - gote[1]) < 1
    assert len(_rects(svg(pos), TURN_FILL)) == 1


def test_last_move_highlight() -> None:
    pos = Position.start("minishogi")
    assert not _rects(svg(pos), LAST_MOVE_FILL) and not _rects(pos._repr_svg_(), LAST_MOVE_FILL)
    move = pos.push_usi("5d5c")
    assert not _rects(svg(pos), LAST_MOVE_FILL)  # only when asked for
    shaded = _rects(svg(pos, lastmove=move), LAST_MOVE_FILL)
    assert shaded == _rects(pos._repr_svg_(), LAST_MOVE_FILL) == _rects(pos.svg(lastmove=move), LAST_MOVE_FILL)
    # 5d and 5c: the leftmost file, ranks 4 and 3, one 40-pixel square each
    (x1, y1, w1, h1), (x2, y2, w2, h2) = shaded
    assert x1 == x2 and w1 == h1 == 40 and y1 - y2 == 40
    drop = Position.from_sfen("4k/5/5/5/K4 b S 1")
    m = drop.push_usi("S*3c")
    assert len(_rects(svg(drop, lastmove=m), LAST_MOVE_FILL)) == 1  # a drop shades its square only
    assert isinstance(m, Move)


def test_check_is_shaded() -> None:
    pos = Position.from_sfen("4k/5/4P/5/K4 b G 1")
    assert not _rects(svg(pos), CHECK_FILL)
    pos.push_usi("G*1b")
    assert len(_rects(svg(pos), CHECK_FILL)) == 1


def test_long_hands_widen_the_board_instead_of_overflowing() -> None:
    pos = Position.from_sfen("4k/5/5/5/K4 b 2R2B2G2S2P 1")
    text = svg(pos)
    width = float(re.search(r'width="(\d+)"', text).group(1))  # type: ignore[union-attr]
    hand = next(t for t in _texts(text) if t[3].startswith("☗"))
    assert hand[0] + len(hand[3]) * hand[2] <= width
