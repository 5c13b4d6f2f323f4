"""Makes what the page draws Japanese with on a machine without Japanese fonts, from the installed
Noto CJK and DejaVu fonts (Debian: fonts-noto-cjk, fonts-dejavu-core):

* ``src/komaken/web/static/pieces.json`` — the outlines of the built-in piece sets
  (:mod:`komaken.web.pieces`);
* ``src/komaken/web/static/komaken-ja.woff`` — Noto Sans CJK JP Regular cut down to the characters
  the page writes (move labels, terminations, hand and check words), the last font the page's
  text falls back to.

    python tools/make_page_glyphs.py
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from komaken.web.pieces import GLYPHS, STATIC

NOTO = "/usr/share/fonts/opentype/noto/"
SOURCES = {
    "serif": (NOTO + "NotoSerifCJK-Bold.ttc", "Noto Serif CJK JP Bold"),
    "sans": (NOTO + "NotoSansCJK-Bold.ttc", "Noto Sans CJK JP Bold"),
    "dejavu": ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVu Sans"),
}
TEXT_FONT = NOTO + "NotoSansCJK-Regular.ttc"  # font number 0: Noto Sans CJK JP
WEB_FONT = STATIC / "komaken-ja.woff"
#: the characters of the page's Japanese text: fullwidth and CJK ones, and the shapes around them
CJK = re.compile(r"[\u2190-\u21ff\u25a0-\u26ff\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")
ROOT = Path(__file__).resolve().parent.parent / "src" / "komaken"
TEXT_SOURCES = ["shogi/notation.py", "shogi/presentation.py", "shogi/display.py", "web/static/app.js",
                "web/static/board.js", "web/static/index.html"]
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


def page_text() -> str:
    """Every Japanese character the page may write: piece names in moves, terminations, the
    words of the shogi presentation and of the page itself."""
    from komaken.game import Color, Termination
    from komaken.shogi._names import KIND_OF_NAME
    from komaken.shogi.variant import shipped_variants

    chars = set("".join(KIND_OF_NAME)) | set("".join(t.japanese for t in Termination))
    chars |= set("".join(c.japanese for c in Color))
    for v in shipped_variants().values():
        chars |= set("".join(v.names.kanji.values())) | set("".join(v.names.kanji_move.values()))
    for name in TEXT_SOURCES:
        chars |= set(CJK.findall((ROOT / name).read_text(encoding="utf-8")))
    return "".join(sorted(chars))


def web_font() -> None:
    subprocess.run([sys.executable, "-m", "fontTools.subset", TEXT_FONT, "--font-number=0", f"--text={page_text()}",
                    "--flavor=woff", "--layout-features=*", f"--output-file={WEB_FONT}"], check=True)
    print(f"wrote {WEB_FONT} ({WEB_FONT.stat().st_size} bytes)")


if __name__ == "__main__":
    GLYPHS.write_text(json.dumps(build(), ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {GLYPHS} ({GLYPHS.stat().st_size} bytes)")
    web_font()

