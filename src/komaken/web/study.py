"""The board-size study on the Reports page: ``komaken values report`` for the study databases
the server was given, as the page's report blocks (see :mod:`komaken.web.reports`).

A study database (``komaken values selfplay``) is told from a lab database by its ``meta``
table (``kind = komaken-values-selfplay``).  The study is read across databases — one per board
size and family — so the report of any one of them covers every study database named with
``--db``, plus the odds databases (``komaken values odds``, lab databases whose experiment is
named ``values-odds:…``) among them.  The study code opens its files for writing, so it is given
a snapshot: each database is copied through a read-only SQLite connection (the backup API) into
a temporary folder, and the originals are never opened otherwise.
"""

from __future__ import annotations

import re
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from komaken.errors import KomakenError
from komaken.lab.valuestudy.odds import NAME_PREFIX
from komaken.lab.valuestudy.report import Loaded, load, markdown, plot
from komaken.web.experiments import Databases, Source, experiment

BOOTSTRAP = 300  # whole-game resamples per study database (the CLI's default is 500)
FIGURE = "values_vs_n"
CAPTION = ("Each piece's value in gold units against the board size n, with 95 % intervals: method A per family, "
           "method B (odds) where given, the (n+3)/12 slider law anchored at 9×9, and the fitted saturation law "
           "c − d·q^(n−5) (a + b/n where fewer than four sizes are measured).")


def members(dbs: Databases) -> list[Source]:
    """The study and odds databases among those the server was given."""
    out = []
    for src in dbs.sources:
        if not src.path.exists():
            continue
        if dbs.kind(src.index) == "study":
            out.append(src)
            continue
        try:
            with dbs.connect(src.index) as db:
                if experiment(db).name.startswith(NAME_PREFIX + ":"):
                    out.append(src)
        except KomakenError:
            continue
    return out


def snapshot(src: Path, dst: Path) -> Path:
    """A consistent copy of ``src`` made through a read-only connection."""
    ro = sqlite3.connect(f"{src.as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        out = sqlite3.connect(dst)
        try:
            ro.backup(out)
        finally:
            out.close()
    finally:
        ro.close()
    return dst


def report(dbs: Databases, index: int) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The study's report document and its figure's SVG."""
    sources = members(dbs)
    notes: list[str] = []
    loaded = Loaded([], [])
    svgs: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="komaken-study-") as tmp:
        for src in sources:
            copy = snapshot(src.path, Path(tmp) / f"{src.index}-{src.name}")
            try:
                one = load([copy], BOOTSTRAP)
            except (KomakenError, ValueError) as exc:
                notes.append(f"{src.name}: not in the report: {str(exc).replace(str(copy), src.name)}")
                continue
            loaded.fits += one.fits
            loaded.odds += one.odds
        text = markdown(loaded)
        if loaded.fits or loaded.odds:
            plot(loaded, Path(tmp))
            svgs[FIGURE] = (Path(tmp) / f"{FIGURE}.svg").read_bytes()
    blocks = markdown_blocks(text, {f"{FIGURE}.png": (FIGURE, CAPTION)} if svgs else {})
    used = ", ".join(s.name for s in sources)
    blocks[1:1] = [{"kind": "p", "text": f"From the study databases given to this server: {used}."}]
    blocks[2:2] = [{"kind": "p", "text": n} for n in notes]
    doc = {"id": index, "name": dbs.source(index).name, "kind": "study", "title": "Piece values against board size",
           "setup": f"{len(loaded.fits)} self-play studies, {len(loaded.odds)} odds databases", "notes": notes,
           "tables": [b for b in blocks if b["kind"] == "table"], "plots": list(svgs), "blocks": blocks}
    return doc, svgs


_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)]+)\)\s*\Z")


def markdown_blocks(text: str, figures: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """The page's blocks from the plain Markdown the study writes: ``#`` headings, ``|`` tables,
    ``*``/``-`` lists, images (those named in ``figures``: file → (name, caption)) and paragraphs."""
    blocks: list[dict[str, Any]] = []
    tables = figs = 0
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if not line:
            i += 1
        elif m := re.match(r"(#{1,3}) (.*)", line):
            blocks.append({"kind": f"h{len(m.group(1))}", "text": m.group(2)})
            i += 1
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(set(c) <= set("-: ") for c in cells):
                    rows.append(cells)
                i += 1
            tables += 1
            blocks.append({"kind": "table", "number": tables, "caption": _caption(blocks), "header": rows[0],
                           "rows": rows[1:]})
        elif m := _IMAGE.match(line):
            if m.group(1) in figures:
                figs += 1
                name, caption = figures[m.group(1)]
                blocks.append({"kind": "figure", "number": figs, "name": name, "caption": caption})
            i += 1
        elif re.match(r"[*-] ", line):
            items = []
            while i < len(lines) and re.match(r"[*-] ", lines[i]):
                items.append(lines[i][2:].strip())
                i += 1
            blocks.append({"kind": "ul", "items": items})
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not re.match(r"#{1,3} |\||[*-] |!\[", lines[i]):
                para.append(lines[i].strip())
                i += 1
            blocks.append({"kind": "p", "text": " ".join(para)})
    return blocks


def _caption(blocks: list[dict[str, Any]]) -> str:
    """A table's caption: the paragraph just before it (which the study writes as its title)."""
    if blocks and blocks[-1]["kind"] == "p" and blocks[-1]["text"].endswith(":"):
        return str(blocks.pop()["text"]).rstrip(":")
    return ""
