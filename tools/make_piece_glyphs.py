"""Makes ``src/komaken/web/static/pieces.json``: the outlines of the page's built-in piece sets
(:mod:`komaken.web.pieces`) from the installed Noto CJK and DejaVu fonts.

    python tools/make_piece_glyphs.py [FILE]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from komaken.web.pieces import GLYPHS

NOTO = "/usr/share/fonts/opentype/noto/"
SOURCES = {
    "serif": (NOTO + "NotoSerifCJK-Bold.ttc", "Noto Serif CJK JP Bold"),
    "sans": (NOTO + "NotoSansCJK-Bold.ttc", "Noto Sans CJK JP Bold"),
    "dejavu": ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVu Sans"),
}
KANSUJI = "一二三四五六七八九十"
FIGURINES = "♔♕♖♗♘♙♚♛♜♝♞♟"


def _kanji() -> str:
    from komaken.shogi._names import KANJI, KIND_OF_NAME
    from komaken.shogi.variant import shipped_variants

    chars = set("".join(KANJI.values())) | {k for k in KIND_OF_NAME if len(k) == 1}
    for v in shipped_variants().values():
        chars |= set("".join(v.names.kanji.values()))
    return "".join(sorted(chars)) + KANSUJI + "☗☖×○なし"


def _font(key: str) -> Any:
    from fontTools.ttLib import TTCollection, TTFont

    path, name = SOURCES[key]
    fonts = TTCollection(path).fonts if path.endswith(".ttc") else [TTFont(path)]
    for f in fonts:
        if f["name"].getDebugName(4) == name:
            return f
    raise SystemExit(f"{path}: no font named {name!r}")


def _outlines(key: str, chars: Iterable[str]) -> dict[str, dict[str, Any]]:
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.pens.svgPathPen import SVGPathPen
    from fontTools.pens.transformPen import TransformPen

    font = _font(key)
    cmap, glyphs = font.getBestCmap(), font.getGlyphSet()
    scale = 1000 / font["head"].unitsPerEm
    out = {}
    for ch in chars:
        if ord(ch) not in cmap:
            raise SystemExit(f"{SOURCES[key][1]} has no {ch!r}")
        g = glyphs[cmap[ord(ch)]]
        bounds = BoundsPen(glyphs)
        g.draw(bounds)
        x0, y0, x1, y1 = bounds.bounds
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        pen = SVGPathPen(glyphs, ntos=lambda x: str(round(x)))
        g.draw(TransformPen(pen, (scale, 0, 0, -scale, -cx * scale, cy * scale)))
        out[ch] = {"d": pen.getCommands(), "w": round((x1 - x0) * scale), "h": round((y1 - y0) * scale)}
    return out


def build() -> dict[str, Any]:
    """Both sets' outlines from the installed fonts."""
    builtin = {**_outlines("serif", _kanji()), **_outlines("dejavu", FIGURINES)}
    letters = {**_outlines("sans", "ABCDEFGHIJKLMNOPQRSTUVWXYZ+"), **_outlines("serif", KANSUJI + "☗☖×○なし"),
               **_outlines("dejavu", FIGURINES)}
    return {"builtin": {"fonts": [SOURCES["serif"][1], SOURCES["dejavu"][1]], "glyphs": builtin},
            "international": {"fonts": [SOURCES["sans"][1], SOURCES["serif"][1], SOURCES["dejavu"][1]],
                              "glyphs": letters}}


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else GLYPHS
    target.write_text(json.dumps(build(), ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {target} ({target.stat().st_size} bytes)")

