"""Board diagrams: the seeds' Japanese diagram (BOD, as KIF files embed it), ASCII and SVG."""

from __future__ import annotations

from typing import TYPE_CHECKING

from komaken.game import Color
from komaken.shogi._names import STANDARD_NAMES, PieceNames

if TYPE_CHECKING:
    from komaken.shogi.position import Move, Position

ZENKAKU = "０１２３４５６７８９"
KANSUJI = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十",
           "十一", "十二", "十三", "十四", "十五", "十六", "十七", "十八"]


def kansuji(n: int) -> str:
    return KANSUJI[n] if n < len(KANSUJI) else str(n)


def hand_text(hand: dict[str, int], names: PieceNames = STANDARD_NAMES) -> str:
    """``角　歩二`` — or ``なし`` for an empty hand (pieces as ``names`` writes them)."""
    if not hand:
        return "なし"
    return "　".join(names.kanji[k] + (kansuji(n) if n > 1 else "") for k, n in hand.items())


def japanese_diagram(pos: Position) -> str:
    """The board as in the seeds and in KIF files: white's hand above, ``v`` before white's
    pieces, black's hand below."""
    W, H = pos.variant.width, pos.variant.height
    names = pos.variant.names
    lines = [f"後手の持駒：{hand_text(pos.hand(Color.WHITE), names)}"]
    lines.append(" " + "".join(" " + ZENKAKU[f] for f in range(W, 0, -1)))
    lines.append("+" + "-" * (3 * W) + "+")
    for r in range(1, H + 1):
        row = ""
        for f in range(W, 0, -1):
            p = pos.piece_at((f, r))
            if p is None:
                row += " ・"
            else:
                row += ("v" if p.color is Color.WHITE else " ") + names.kanji[p.kind]
        lines.append(f"|{row}|{KANSUJI[r]}")
    lines.append("+" + "-" * (3 * W) + "+")
    lines.append(f"先手の持駒：{hand_text(pos.hand(Color.BLACK), names)}")
    lines.append("手番：" + ("先手" if pos.turn is Color.BLACK else "後手"))
    return "\n".join(lines)


def ascii_diagram(pos: Position) -> str:
    """Plain ASCII: SFEN letters (white lower case), ``.`` for empty, hands as SFEN counts."""
    W, H = pos.variant.width, pos.variant.height

    def hand(c: Color) -> str:
        h = pos.hand(c)
        return " ".join(f"{k}{n}" if n > 1 else k for k, n in h.items()) or "-"

    lines = [f"white hand: {hand(Color.WHITE).lower()}", "   " + "".join(f"{f:>3}" for f in range(W, 0, -1))]
    for r in range(1, H + 1):
        cells = []
        for f in range(W, 0, -1):
            p = pos.piece_at((f, r))
            cells.append(f"{p.symbol() if p else '.':>3}")
        lines.append("   " + "".join(cells) + f"  {chr(ord('a') + r - 1)}")
    lines.append(f"black hand: {hand(Color.BLACK)}")
    lines.append(f"{'black' if pos.turn is Color.BLACK else 'white'} to move")
    return "\n".join(lines)


#: colours of the SVG board
BOARD_FILL, LAST_MOVE_FILL, CHECK_FILL, TURN_FILL = "#f3d9a4", "#e8c35a", "#f08a7a", "#fff3c4"


def svg(pos: Position, size: int = 40, *, lastmove: Move | None = None) -> str:
    """An SVG board: white's (gote's) pieces upside down, gote's hand above the board and
    black's (sente's) below, the side to move's hand band highlighted and marked 手番, the
    squares of ``lastmove`` shaded, a king in check shaded red.  ``Position._repr_svg_`` (how
    Jupyter shows a position) passes the last move pushed.

    >>> from komaken.shogi import Position
    >>> pos = Position.start("minishogi")
    >>> move = pos.push_usi("5d5c")
    >>> text = svg(pos, lastmove=move)
    >>> text.count(LAST_MOVE_FILL), "手番" in text
    (2, True)
    """
    W, H = pos.variant.width, pos.variant.height
    band, coord = round(size * 0.8), round(size * 0.5)  # hand band, file-number band
    x0, y0 = round(size * 0.3), band + coord
    hand_font = round(size * 0.4)
    names = pos.variant.names
    hands = {c: f"{'☗' if c is Color.BLACK else '☖'}{c.japanese}　{hand_text(pos.hand(c), names)}" for c in Color}
    text_width = max(len(t) for t in hands.values()) * hand_font + 3 * hand_font  # full-width glyphs + badge
    width = max(x0 + W * size + round(size * 0.7), x0 + text_width)
    height = y0 + H * size + band + round(size * 0.2)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="serif">',
        f"<title>{pos.sfen()}</title>",
    ]
    out += _hand_bands(pos, hands, width, band, y0 + H * size + round(size * 0.2), hand_font)
    out.append(f'<rect x="{x0}" y="{y0}" width="{W * size}" height="{H * size}" fill="{BOARD_FILL}"/>')
    out += _shaded_squares(pos, lastmove, x0, y0, size)
    out += _grid(W, H, x0, y0, size)
    for sq, p in pos.pieces():
        cx = x0 + (W - sq.file) * size + size / 2
        cy = y0 + (sq.rank - 1) * size + size / 2
        color = "#b00" if p.kind.startswith("+") else "black"
        rot = f' transform="rotate(180 {cx} {cy})"' if p.color is Color.WHITE else ""
        out.append(
            f'<text x="{cx}" y="{cy + size * 0.25}" font-size="{size * 0.7}" text-anchor="middle" '
            f'fill="{color}"{rot}>{names.kanji[p.kind]}</text>'
        )
    out.append("</svg>")
    return "".join(out)


def _hand_bands(pos: Position, hands: dict[Color, str], width: int, band: int, bottom: int, font: int) -> list[str]:
    """Gote's hand above the board, sente's below; the side to move's band is shaded and
    carries a 手番 badge."""
    out = []
    for color, top in ((Color.WHITE, 0), (Color.BLACK, bottom)):
        mover = color is pos.turn
        if mover:
            out.append(f'<rect x="0" y="{top}" width="{width}" height="{band}" fill="{TURN_FILL}"/>')
        weight = ' font-weight="bold"' if mover else ""
        y = top + band / 2 + font * 0.38
        out.append(f'<text x="{font // 2}" y="{y}" font-size="{font}"{weight}>{hands[color]}</text>')
        if mover:
            bx = width - 2.6 * font
            out.append(f'<rect x="{bx}" y="{top + band / 2 - font * 0.65}" width="{2.3 * font}" '
                       f'height="{1.3 * font}" rx="{font * 0.3}" fill="#7a1f1f"/>')
            out.append(f'<text x="{bx + 1.15 * font}" y="{y}" font-size="{font * 0.85}" fill="white" '
                       f'text-anchor="middle">手番</text>')
    return out


def _shaded_squares(pos: Position, lastmove: Move | None, x0: int, y0: int, size: int) -> list[str]:
    W = pos.variant.width
    shaded = []
    if lastmove is not None:
        shaded += [(sq, LAST_MOVE_FILL) for sq in (lastmove.from_square, lastmove.to_square) if sq is not None]
    king = pos.king_square(pos.turn)
    if king is not None and pos.is_check():
        shaded.append((king, CHECK_FILL))
    return [f'<rect x="{x0 + (W - sq.file) * size}" y="{y0 + (sq.rank - 1) * size}" width="{size}" '
            f'height="{size}" fill="{fill}"/>' for sq, fill in shaded]


def _grid(W: int, H: int, x0: int, y0: int, size: int) -> list[str]:
    """Lines, the frame, file numbers above (9..1, right to left) and kanji ranks on the right."""
    out = [f'<rect x="{x0}" y="{y0}" width="{W * size}" height="{H * size}" fill="none" stroke="black" '
           f'stroke-width="2"/>']
    for i in range(1, W):
        x = x0 + i * size
        out.append(f'<line x1="{x}" y1="{y0}" x2="{x}" y2="{y0 + H * size}" stroke="black"/>')
    for i in range(1, H):
        y = y0 + i * size
        out.append(f'<line x1="{x0}" y1="{y}" x2="{x0 + W * size}" y2="{y}" stroke="black"/>')
    font = size * 0.35
    for f in range(W, 0, -1):
        cx = x0 + (W - f) * size + size / 2
        out.append(f'<text x="{cx}" y="{y0 - size * 0.12}" font-size="{font}" text-anchor="middle">{f}</text>')
    for r in range(1, H + 1):
        cy = y0 + (r - 1) * size + size / 2 + size * 0.12
        out.append(f'<text x="{x0 + W * size + 4}" y="{cy}" font-size="{font}">{KANSUJI[r]}</text>')
    return out
