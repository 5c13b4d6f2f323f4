"""The page's piece sets: glyph outlines shipped as SVG paths, so that pieces draw on any machine
(one without Japanese fonts included).

* ``builtin`` (the default) — every label the boards show (kanji of every shipped variant, the
  kansuji ranks, ☗ ☖, tic-tac-toe's × ○) drawn from outlines of **Noto Serif CJK JP Bold**, and
  chess's figurines from **DejaVu Sans**;
* ``international`` — shogi pieces carry a Latin letter (``K R B G S N L P``; a variant's own
  pieces the first letter of their English name: どうぶつしょうぎ's lion ``L``, giraffe ``G``,
  elephant ``E``, chick ``C``), red with a ``+`` when promoted, from **Noto Sans CJK JP Bold**;
* ``font`` — the labels as text in the system's fonts (the look of a machine with Japanese fonts).

The outlines are made once, when the fonts or the shipped variants change, by
``python tools/make_page_glyphs.py`` (fontTools, which matplotlib already brings, and the Debian
packages ``fonts-noto-cjk`` and ``fonts-dejavu-core``) into ``static/pieces.json``.
Noto CJK is under the SIL Open Font License 1.1 and DejaVu under the Bitstream Vera licence;
both notices are in ``static/FONT-LICENSES.txt``.

Each glyph is ``{"d": path, "w": width, "h": height}`` in a 1000-unit em with y pointing down,
centred on its bounding box (the page scales it into the piece).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from komaken.errors import KomakenError

STATIC = Path(__file__).parent / "static"
GLYPHS = STATIC / "pieces.json"
#: the sets the page offers, in its order; the first is the default
SETS = ("builtin", "international", "font")
DEFAULT = SETS[0]


class UnknownPieceSet(KomakenError):
    """A piece set that does not exist (HTTP 404 naming the ones that do)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown piece set {name[:40]!r} (known: {', '.join(SETS)})")


def piece_set(name: str) -> dict[str, Any]:
    """The set ``name`` as the page takes it: ``{"name", "glyphs": {char: glyph}, "fonts"}``
    (``font`` has no glyphs: the page writes text)."""
    if name not in SETS:
        raise UnknownPieceSet(name)
    if name == "font":
        return {"name": name, "glyphs": {}, "fonts": []}
    data = json.loads(GLYPHS.read_text(encoding="utf-8"))
    return {"name": name, "glyphs": data[name]["glyphs"], "fonts": data[name]["fonts"]}


__all__ = ["DEFAULT", "GLYPHS", "SETS", "UnknownPieceSet", "piece_set"]
