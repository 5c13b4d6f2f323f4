"""The report of ``komaken experiment report``, for the page: tables as JSON, plots as SVG.

The numbers come from :mod:`komaken.lab.report` (the same functions write ``report.md``); the
plots are drawn by its :func:`~komaken.lab.report.plot` into a temporary folder and kept in
memory, keyed by the database and its game count, so a report is redrawn only when a game was
stored since.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from komaken.web.experiments import Databases, NotFound

_cache: dict[int, tuple[tuple[int, int], dict[str, Any], dict[str, bytes]]] = {}
_lock = threading.Lock()


def report(dbs: Databases, index: Any) -> dict[str, Any]:
    """``{"title", "setup", "tables": [{"title", "header", "rows"}], "notes", "plots": [names]}``."""
    return _build(dbs, index)[0]


def plot_svg(dbs: Databases, index: Any, name: str) -> bytes:
    """The SVG of plot ``name`` of database ``index`` (a name the report listed)."""
    svgs = _build(dbs, index)[1]
    if name not in svgs:
        raise NotFound(f"no plot {name[:40]!r}")
    return svgs[name]


def _build(dbs: Databases, index: Any) -> tuple[dict[str, Any], dict[str, bytes]]:
    from komaken.lab import report as R

    src = dbs.source(index)
    stamp = dbs.stamp(src.index)
    with _lock:
        hit = _cache.get(src.index)
        if hit is not None and hit[0] == stamp:
            return hit[1], hit[2]
        with dbs.connect(src.index) as db:
            exp, stats = R.collect(db)
            settings = R.pooled(db, exp)
        header, rows = R.table_rows(exp, stats)
        tables = [{"title": "Pairings", "header": header, "rows": rows}]
        if settings:
            ph, pr = R.pooled_rows(exp, settings)
            tables.append({"title": "Pooled by setting", "header": ph, "rows": pr})
        tables.append({"title": "First-move advantage", "header": ["pairing", "a was sente", "sente score", "95% CI"],
                       "rows": [[s.name, f"{s.a_sente_games}/{s.games}", R._pct(s.sente_score),
                                 f"{R._pct(s.sente_score_ci95[0])}–{R._pct(s.sente_score_ci95[1])}"] for s in stats]})
        sprts = [s for s in stats if s.sprt]
        if sprts:
            tables.append({"title": "SPRT", "header": ["pairing", "H0 elo", "H1 elo", "LLR", "bounds", "state"],
                           "rows": [[s.name, f"{t['elo0']:g}", f"{t['elo1']:g}", f"{t['llr']:.3f}",
                                     f"[{t['lower']:.3f}, {t['upper']:.3f}]", t["state"]]
                                    for s in sprts for t in [s.sprt or {}]]})
        svgs: dict[str, bytes] = {}
        notes = [R.first_move_line(stats, exp)]
        names: list[str] = []
        with tempfile.TemporaryDirectory(prefix="komaken-report-") as tmp:
            try:
                names = R.plot(exp, stats, Path(tmp))
            except ValueError as exc:  # matplotlib refuses some intervals (a rounding error at 0 % or 100 %)
                notes.append(f"The plots could not be drawn: {exc}.")
            for n in names:
                svgs[n] = (Path(tmp) / f"{n}.svg").read_bytes()
        doc = {"id": src.index, "name": src.name, "title": str(exp.report.get("title", exp.name)),
               "setup": R._setup_line(exp, sum(s.games for s in stats)),
               "notes": notes, "tables": tables, "plots": names}
        _cache[src.index] = (stamp, doc, svgs)
        return doc, svgs
