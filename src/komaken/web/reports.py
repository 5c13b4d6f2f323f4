"""The reports for the page: the document of ``komaken experiment report`` as JSON blocks, and
its figures as SVG.

The blocks are those of :func:`komaken.lab.report_text.document` — the same words, tables and
figures as ``report.md`` and ``report.html``, summary first — each made a JSON object:
``{"kind": "h1" | "h2" | "p", "text"}``, ``{"kind": "ul", "items"}``,
``{"kind": "table", "number", "caption", "header", "rows"}`` and
``{"kind": "figure", "number", "name", "caption"}`` (the page loads ``/plots/{name}.svg``).
Text may carry ``**bold**`` and ```code``` marks; the page renders them as elements, never as
HTML.  A report is kept in memory, keyed by the database and its game count, so it is redrawn
only when a game was stored since.  A piece-values study database gets the study's report
instead (:mod:`komaken.web.study`).
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from komaken.lab import report as R
from komaken.lab.plots import score_figure, value_figures
from komaken.lab.report_text import document
from komaken.web import study
from komaken.web.experiments import Databases, NotFound

_cache: dict[int, tuple[Any, dict[str, Any], dict[str, bytes]]] = {}
_lock = threading.Lock()


def report(dbs: Databases, index: Any) -> dict[str, Any]:
    """``{"id", "name", "kind", "title", "blocks": [...]}`` plus, for older callers, ``setup``,
    ``notes``, ``tables`` and ``plots`` (the figure names)."""
    return _build(dbs, index)[0]


def plot_svg(dbs: Databases, index: Any, name: str) -> bytes:
    """The SVG of figure ``name`` of database ``index`` (a name the report listed)."""
    svgs = _build(dbs, index)[1]
    if name not in svgs:
        raise NotFound(f"no plot {name[:40]!r}")
    return svgs[name]


def blocks_json(blocks: list[tuple[Any, ...]]) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    """:func:`komaken.lab.report_text.document`'s blocks as JSON, and the figures' SVG by name."""
    out: list[dict[str, Any]] = []
    svgs: dict[str, bytes] = {}
    tables = 0
    for block in blocks:
        tag = block[0]
        if tag in ("h1", "h2", "p"):
            out.append({"kind": tag, "text": block[1]})
        elif tag == "ul":
            out.append({"kind": "ul", "items": list(block[1])})
        elif tag == "table":
            tables += 1
            _, caption, header, rows = block
            out.append({"kind": "table", "number": tables, "caption": caption, "header": list(header),
                        "rows": [list(r) for r in rows]})
        elif tag == "figure":
            _, n, fig = block
            svgs[fig.name] = ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n' + fig.svg).encode("utf-8")
            out.append({"kind": "figure", "number": n, "name": fig.name, "caption": fig.caption})
    return out, svgs


def _build(dbs: Databases, index: Any) -> tuple[dict[str, Any], dict[str, bytes]]:
    src = dbs.source(index)
    is_study = src.path.exists() and dbs.kind(src.index) == "study"
    members = study.members(dbs) if is_study else [src]
    stamp = tuple(dbs.stamp(s.index) for s in members)  # a study report covers every study database
    with _lock:
        hit = _cache.get(src.index)
        if hit is not None and hit[0] == stamp:
            return hit[1], hit[2]
        doc, svgs = study.report(dbs, src.index) if is_study else _experiment(dbs, src.index)
        _cache[src.index] = (stamp, doc, svgs)
        return doc, svgs


def _experiment(dbs: Databases, index: int) -> tuple[dict[str, Any], dict[str, bytes]]:
    src = dbs.source(index)
    with dbs.connect(index) as db:
        exp, stats = R.collect(db)
        found = R.settings(db, exp)
        seconds = db.seconds()
    notes = [R.first_move_line(stats, exp)]
    with tempfile.TemporaryDirectory(prefix="komaken-report-") as tmp:
        try:
            figures = [f for f in [score_figure(found, Path(tmp))] if f is not None]
            figures += value_figures(found, R.varied_letters(exp), R._FIGURE_NAMES, Path(tmp))
        except ValueError as exc:  # a figure matplotlib refuses must not cost the tables
            figures = []
            notes.append(f"The figures could not be drawn: {exc}.")
    blocks, svgs = blocks_json(document(exp, stats, found, figures, seconds))
    if len(notes) > 1:
        blocks.insert(1, {"kind": "p", "text": notes[-1]})
    header, rows = R.table_rows(exp, stats)
    tables = [{"title": b["caption"], "header": b["header"], "rows": b["rows"]} for b in blocks if b["kind"] == "table"]
    doc = {"id": index, "name": src.name, "kind": "experiment", "title": R.title(exp),
           "setup": R._setup_line(exp, sum(s.games for s in stats)), "notes": notes,
           "tables": [{"title": "Pairings", "header": header, "rows": rows}] + tables,
           "plots": list(svgs), "blocks": blocks}
    return doc, svgs
