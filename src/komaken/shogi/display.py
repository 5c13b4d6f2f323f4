"""Board diagrams: the seeds' Japanese diagram (BOD, as KIF files embed it), ASCII and SVG."""

from __future__ import annotations

from typing import TYPE_CHECKING

from komaken.game import Color

if TYPE_CHECKING:
    from komaken.shogi.position import Position

#: one-character Japanese names used in diagrams
KANJI = {
    "P": "歩", "L": "香", "N": "桂", "S": "銀", "G": "金", "B": "角", "R": "飛", "K": "玉",
    "+P": "と", "+L": "杏", "+N": "圭", "+S": "全", "+B": "馬", "+R": "龍",
}
#: names used in move text (成香 rather than 杏)
KANJI_MOVE = {**KANJI, "+L": "成香", "+N": "成桂", "+S": "成銀"}
ZENKAKU = "０１２３４５６７８９"
KANSUJI = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十",
           "十一", "十二", "十三", "十四", "十五", "十六", "十七", "十八"]


def kansuji(n: int) -> str:
    return KANSUJI[n] if n < len(KANSUJI) else str(n)


def hand_text(hand: dict[str, int]) -> str:
    """``角　歩二`` — or ``なし`` for an empty hand."""
    if not hand:
        return "なし"
    return "　".join(KANJI[k] + (kansuji(n) if n > 1 else "") for k, n in hand.items())


def japanese_diagram(pos: Position) -> str:
    """The board as in the seeds and in KIF files: white's hand above, ``v`` before white's
    pieces, black's hand below."""
    W, H = pos.variant.width, pos.variant.height
    lines = [f"後手の持駒：{hand_text(pos.hand(Color.WHITE))}"]
    lines.append(" " + "".join(" " + ZENKAKU[f] for f in range(W, 0, -1)))
    lines.append("+" + "-" * (3 * W) + "+")
    for r in range(1, H + 1):
        row = ""
        for f in range(W, 0, -1):
            p = pos.piece_at((f, r))
            if p is None:
                row += " ・"
            else:
                row += ("v" if p.color is Color.WHITE else " ") + KANJI[p.kind]
        lines.append(f"|{row}|{KANSUJI[r]}")
    lines.append("+" + "-" * (3 * W) + "+")
    lines.append(f"先手の持駒：{hand_text(pos.hand(Color.BLACK))}")
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


def svg(pos: Position, size: int = 40) -> str:
    """An SVG board (white's pieces upside down), hands beside it: shows a Position in Jupyter."""
    W, H = pos.variant.width, pos.variant.height
    m = size  # margin for hands and coordinates
    width, height = W * size + 2 * m + 20, H * size + 2 * m
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="serif">',
        f'<rect x="{m}" y="{m}" width="{W * size}" height="{H * size}" fill="#f3d9a4" stroke="black"/>',
    ]
    for i in range(1, W):
        x = m + i * size
        out.append(f'<line x1="{x}" y1="{m}" x2="{x}" y2="{m + H * size}" stroke="black"/>')
    for i in range(1, H):
        y = m + i * size
        out.append(f'<line x1="{m}" y1="{y}" x2="{m + W * size}" y2="{y}" stroke="black"/>')
    for f in range(W, 0, -1):
        x = m + (W - f) * size + size / 2
        out.append(f'<text x="{x}" y="{m - 6}" font-size="{size * 0.35}" text-anchor="middle">{f}</text>')
    for r in range(1, H + 1):
        y = m + (r - 1) * size + size / 2 + size * 0.12
        out.append(
            f'<text x="{m + W * size + 4}" y="{y}" font-size="{size * 0.35}">{KANSUJI[r]}</text>'
        )
    for sq, p in pos.pieces():
        cx = m + (W - sq.file) * size + size / 2
        cy = m + (sq.rank - 1) * size + size / 2
        color = "#b00" if p.kind.startswith("+") else "black"
        rot = f' transform="rotate(180 {cx} {cy})"' if p.color is Color.WHITE else ""
        out.append(
            f'<text x="{cx}" y="{cy + size * 0.25}" font-size="{size * 0.7}" text-anchor="middle" '
            f'fill="{color}"{rot}>{KANJI[p.kind]}</text>'
        )
    for color, y in ((Color.WHITE, m / 2 + 6), (Color.BLACK, height - m / 2 + 6)):
        mark = "☗" if color is Color.BLACK else "☖"
        text = hand_text(pos.hand(color))
        out.append(f'<text x="{m}" y="{y}" font-size="{size * 0.4}">{mark} {text}</text>')
    out.append("</svg>")
    return "".join(out)
