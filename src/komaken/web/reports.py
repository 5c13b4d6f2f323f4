"""The reports for the page: the report of ``komaken experiment report`` (or, for a piece-values
study database, of ``komaken values report``) as JSON blocks, and its figures as SVG.

Both come from the lab's report pipeline (:func:`komaken.lab.report.build`,
:func:`komaken.lab.valuestudy.report.build`): the same words, tables and figures as
``report.md`` and ``report.html``, summary first, as :meth:`Report.json_blocks
<komaken.lab.document.Report.json_blocks>` — ``{"kind": "h1" | "h2" | "p", "text"}``,
``{"kind": "ul", "items"}``, ``{"kind": "table", "number", "caption", "header", "rows"}`` and
``{"kind": "figure", "number", "name", "caption"}`` (the page loads ``/plots/{name}.svg``).
Text may carry ``**bold**`` and ```code``` marks; the page renders them as elements, never as
HTML.  A report is kept in memory, keyed by the database and its game count, so it is redrawn
only when a game was stored since.
"""

from __future__ import annotations

import threading
from typing import Any

from komaken.lab.document import Report
from komaken.lab.report import build
from komaken.web import study
from komaken.web.experiments import Databases, NotFound

_cache: dict[int, tuple[Any, dict[str, Any], Report]] = {}
_lock = threading.Lock()


def report(dbs: Databases, index: Any) -> dict[str, Any]:
    """``{"id", "name", "kind", "title", "blocks": [...]}``."""
    return _build(dbs, index)[0]


def plot_svg(dbs: Databases, index: Any, name: str) -> bytes:
    """The SVG of figure ``name`` of database ``index`` (a name the report listed)."""
    svg = _build(dbs, index)[1].svg(name)
    if svg is None:
        raise NotFound(f"no plot {name[:40]!r}")
    return svg


def _build(dbs: Databases, index: Any) -> tuple[dict[str, Any], Report]:
    src = dbs.source(index)
    is_study = src.path.exists() and dbs.kind(src.index) == "study"
    members = study.members(dbs) if is_study else [src]
    stamp = tuple(dbs.stamp(s.index) for s in members)  # a study report covers every study database
    with _lock:
        hit = _cache.get(src.index)
        if hit is not None and hit[0] == stamp:
            return hit[1], hit[2]
        rep = study.report(dbs) if is_study else _experiment(dbs, src.index)
        doc = {"id": src.index, "name": src.name, "kind": "study" if is_study else "experiment",
               "title": rep.title, "blocks": rep.json_blocks()}
        _cache[src.index] = (stamp, doc, rep)
        return doc, rep


def _experiment(dbs: Databases, index: int) -> Report:
    with dbs.connect(index) as db:
        return build(db)
