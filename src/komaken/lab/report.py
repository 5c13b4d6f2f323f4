"""An experiment's report, and its status as JSON: the public API the CLI and the web page call.

:func:`build` reads a results database and returns a :class:`~komaken.lab.document.Report` — a
report that reads like a paper, figures included (SVG and PNG made in memory).  It opens with a
summary — the question, the answer, the key numbers — then the results table in the layout of
the thesis's Table 6: each row named by its setting (``角1000 飛1200``), 勝 / 負 / 分 and 勝率
(score of player a, a draw counting ½), followed by what the thesis lacked — the 95 % interval,
the Elo difference and the p-value — and, where the experiment file records them, the published
numbers side by side.  Figures vary one thing at a time.  ``komaken experiment report`` writes it
with :meth:`Report.write <komaken.lab.document.Report.write>`; the web page shows its blocks.
"""

from __future__ import annotations

from typing import Any

from komaken.lab.document import Figure, Report
from komaken.lab.plots import score_figure, value_figures
from komaken.lab.report_text import document
from komaken.lab.results import PIECE_NAMES, collect, row_labels, settings, title, varied_letters
from komaken.lab.stats import display
from komaken.lab.storage import ExperimentDB

#: how a figure names a piece: its kanji and letter (``角 B``)
FIGURE_NAMES = {x: f"{PIECE_NAMES.get(x, x)} {x}" for x in PIECE_NAMES}


def build(db: ExperimentDB) -> Report:
    """The report of the experiment stored in ``db`` (a stopped SPRT with its bias-corrected Elo)."""
    exp, stats = collect(db, corrected=True)
    found = settings(db, exp)
    note = None
    try:
        figures: list[Figure] = [f for f in [score_figure(found)] if f is not None]
        figures += value_figures(found, varied_letters(exp), FIGURE_NAMES)
    except ValueError as exc:  # a figure matplotlib refuses must not cost the tables
        figures, note = [], f"The figures could not be drawn: {exc}."
    blocks = document(exp, stats, found, figures, db.seconds())
    if note is not None:
        blocks.insert(1, ("p", note))
    return Report(title(exp), blocks)


def status_json(db: ExperimentDB, corrected: bool = False) -> dict[str, Any]:
    """The ``status --json`` document: ``{"experiment", "games", "target", "pairings": [...]}``;
    ``corrected`` adds each stopped SPRT's bias-corrected Elo (``sprt.elo_corrected``)."""
    exp, stats = collect(db, corrected)
    pairings = []
    for p, s, label in zip(exp.pairings, stats, row_labels(exp), strict=True):
        d = s.to_json()
        d["text"] = display(s)
        d["setting"] = label
        d["target"] = p.games
        d["colors"] = p.colors
        if p.published is not None:
            d["published"] = dict(p.published)
        pairings.append(d)
    return {
        "experiment": exp.name,
        "title": title(exp),
        "games": sum(s.games for s in stats),
        "target": exp.total_games,
        "seconds": round(db.seconds(), 3),
        "pairings": pairings,
    }



__all__ = ["FIGURE_NAMES", "build", "status_json"]
