"""Status and reports: statistics per pairing as JSON, and a report that reads like a paper.

``write_report`` writes ``report.md`` and ``report.html`` (one file carrying everything: the
figures are inline SVG) plus each figure as PNG and SVG.  The report opens with a summary — the
question, the answer, the key numbers — then the results table in the layout of the thesis's
Table 6: each row named by its setting (``角1000 飛1200``), 勝 / 負 / 分 and 勝率 (score of
player a, a draw counting ½), followed by what the thesis lacked — the 95 % interval, the Elo
difference and the p-value — and, where the experiment file records them, the published numbers
side by side.  Figures vary one thing at a time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from komaken.lab.config import Experiment
from komaken.lab.stats import PairingStats, display, pairing_stats
from komaken.lab.storage import ExperimentDB
from komaken.shogi._names import KANJI as PIECE_NAMES


def collect(db: ExperimentDB) -> tuple[Experiment, list[PairingStats]]:
    """The stored experiment and the statistics of each of its pairings."""
    exp = db.experiment()
    stats = []
    for p in exp.pairings:
        results, indexes = db.indexed_results(p.name)
        decision = db.decision(p.name) if p.sprt is not None else None
        stats.append(pairing_stats(p.name, p.a, p.b, results, p.sprt, indexes, decision))
    return exp, stats


@dataclass(frozen=True, slots=True)
class Setting:
    """The pairings that play the same two players with the same colours, counted together
    (the thesis ran some settings several times, 100 games each)."""

    label: str  # 角1000 飛1200, or "deep vs shallow"
    ascii_label: str  # B1000 R1200 (for figures)
    pairings: list[str]
    a: str
    b: str
    colors: str
    values: dict[str, int | None]  # the varied piece values of player a
    stats: PairingStats
    published: tuple[int, int, int] | None  # summed published W, L, D when every pairing has them


def settings(db: ExperimentDB, exp: Experiment) -> list[Setting]:
    """One entry per distinct setting, in the order of the experiment file."""
    groups: dict[str, list[Any]] = {}
    for p in exp.pairings:
        key = json.dumps([dict(exp.players[p.a].settings), dict(exp.players[p.b].settings), p.colors],
                         sort_keys=True, default=str)
        groups.setdefault(key, []).append(p)
    letters = varied_letters(exp)
    out = []
    for group in groups.values():
        first = group[0]
        results = [r for p in group for r in db.results(p.name)]
        stats = pairing_stats(first.name, first.a, first.b, results)
        pubs = [p.published for p in group]
        published = None
        if all(pubs):
            published = tuple(sum(int(pb[k]) for pb in pubs) for k in ("wins", "losses", "draws"))  # type: ignore[index]
        out.append(Setting(
            label=setting_label(exp, first.a, first.b), ascii_label=setting_label(exp, first.a, first.b, ascii=True),
            pairings=[p.name for p in group], a=first.a, b=first.b, colors=first.colors,
            values={x: _value(exp, first.a, x) for x in letters}, stats=stats,
            published=published,
        ))
    return out


def title(exp: Experiment) -> str:
    """``[report] title`` from the experiment file, else one made from its name:
    ``thesis-table6`` → ``Thesis table 6``."""
    if exp.report.get("title"):
        return str(exp.report["title"])
    words = re.sub(r"(?<=[A-Za-z]{2})(?=\d)|(?<=\d)(?=[A-Za-z]{2})", " ", exp.name.replace("-", " ").replace("_", " "))
    words = " ".join(words.split())
    return words[:1].upper() + words[1:]


def setting_label(exp: Experiment, a: str, b: str, *, ascii: bool = False) -> str:
    """A setting's name from player a's varied piece values: ``角1000 飛1200`` (a promoted piece
    only when its value differs from the unpromoted one: ``角1800 馬2000 飛2000 龍2200``).
    Without varied values: the players' labels, ``deep vs shallow``."""
    letters = varied_letters(exp)
    if not letters:
        return f"{exp.players[a].label} vs {exp.players[b].label}"
    parts = []
    for x in letters:
        v = _value(exp, a, x)
        if v is None or (x.startswith("+") and x[1:] in letters and v == _value(exp, a, x[1:])):
            continue
        parts.append(f"{x if ascii else PIECE_NAMES.get(x, x)}{v}")
    label = " ".join(parts) or exp.players[a].label
    if dict(exp.players[a].settings) == dict(exp.players[b].settings):
        label += " (a = b)" if ascii else " (control: a = b)"  # the opponent's own values
    return label


def row_labels(exp: Experiment) -> list[str]:
    """The setting of each pairing, with ``(run 2)``… when a setting is played again."""
    seen: dict[str, int] = {}
    labels = []
    for p in exp.pairings:
        label = setting_label(exp, p.a, p.b)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label} (run {seen[label]})")
    return labels


#: the smaller side's games up to which "same as published" is tested exactly (above: χ²)
EXACT_MAX_GAMES = 500


def same_distribution(ours: tuple[int, int, int], theirs: tuple[int, int, int]) -> float:
    """p-value of the test that two W/L/D counts come from the same distribution (a small p: our
    replica and the published program disagree).

    Exact while the smaller side has at most :data:`EXACT_MAX_GAMES` games: the Freeman–Halton
    test (Fisher's exact test extended to a 2×3 table; G. H. Freeman and J. H. Halton, Biometrika
    38 (1951) 141–149) sums the probability, with both sides' totals and the W/L/D totals fixed, of
    every table no more likely than the one observed.  A χ² test needs expected counts of about
    five in every cell, which a draw column of a hundred games seldom has.  Above that size the χ²
    test, whose approximation is then good (and the exact sum too long).

    >>> from math import comb
    >>> round(same_distribution((10, 0, 0), (0, 10, 0)) * comb(20, 10), 9)  # the two extreme tables
    2.0
    """
    cols = [(a, b) for a, b in zip(ours, theirs, strict=True) if a + b > 0]
    if len(cols) < 2 or sum(a for a, _ in cols) == 0 or sum(b for _, b in cols) == 0:
        return 1.0
    table = [[a for a, _ in cols], [b for _, b in cols]]
    small = min(table, key=sum)
    if sum(small) > EXACT_MAX_GAMES:
        from scipy.stats import chi2_contingency

        return float(chi2_contingency(table, correction=False).pvalue)
    return _freeman_halton(small, [a + b for a, b in cols])


def _freeman_halton(row: list[int], totals: list[int]) -> float:
    """Two-sided exact p of ``row`` as one row of a 2×k table with column ``totals``."""
    import numpy as np
    from scipy.stats import multivariate_hypergeom

    n = sum(row)
    grids = np.meshgrid(*[np.arange(min(c, n) + 1) for c in totals[:-1]], indexing="ij")
    heads = np.stack([g.ravel() for g in grids], axis=1)
    last = n - heads.sum(axis=1)
    keep = (last >= 0) & (last <= totals[-1])
    tables = np.column_stack([heads[keep], last[keep]])
    probs = multivariate_hypergeom.pmf(tables, m=totals, n=n)
    observed = multivariate_hypergeom.pmf(row, m=totals, n=n)
    return float(min(1.0, probs[probs <= observed * (1 + 1e-7)].sum()))


def status_json(db: ExperimentDB) -> dict[str, Any]:
    """The ``status --json`` document: ``{"experiment", "games", "target", "pairings": [...]}``."""
    exp, stats = collect(db)
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


def varied_letters(exp: Experiment) -> list[str]:
    """Piece letters whose value for player a differs between pairings or from player b."""
    if "vary" in exp.report:
        return [str(v) for v in exp.report["vary"]]
    order: list[str] = []
    for p in exp.pairings:
        for name in (p.a, p.b):
            for letter in piece_values(exp.players[name]):
                if letter not in order:
                    order.append(letter)
    out = []
    for letter in order:
        seen = set()
        for p in exp.pairings:
            seen.add(_value(exp, p.a, letter))
            seen.add(_value(exp, p.b, letter))
        if len(seen) > 1:
            out.append(letter)
    return out


def piece_values(spec: Any) -> dict[str, int]:
    """A player's piece values as validated (a value file named in the experiment is read);
    ``{}`` for a player without them."""
    values = spec.options.get("values")
    return values if isinstance(values, dict) else {}


def _value(exp: Experiment, player: str, letter: str) -> int | None:
    return piece_values(exp.players[player]).get(letter)


# ---- per-pairing pieces, as ``komaken.web`` calls them ----------------------
def table_rows(exp: Experiment, stats: list[PairingStats]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the results table (one row per pairing, named by its setting)."""
    from komaken.lab.report_text import results_table

    _, _, header, rows = results_table(exp, stats)
    return header, rows


def first_move_line(stats: list[PairingStats], exp: Experiment) -> str:
    """Sente's score pooled over the pairings with alternating colours, as plain text."""
    from komaken.lab.report_text import first_move_line as line

    return line(stats, exp).replace("**", "")


def _setup_line(exp: Experiment, done: int) -> str:
    from komaken.lab.report_text import setup_line

    return f"{setup_line(exp)} Games: {done} of {exp.total_games}."


_FIGURE_NAMES = {x: f"{PIECE_NAMES.get(x, x)} {x}" for x in PIECE_NAMES}


def write_report(db: ExperimentDB, out: str | Path) -> list[Path]:
    """Write ``report.md``, ``report.html`` (self-contained) and the figures into ``out``."""
    from komaken.lab.plots import score_figure, value_figures
    from komaken.lab.report_text import html_page, markdown

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    exp, stats = collect(db)
    found = settings(db, exp)
    figures = [f for f in [score_figure(found, out)] if f is not None]
    figures += value_figures(found, varied_letters(exp), _FIGURE_NAMES, out)
    (out / "report.md").write_text(markdown(exp, stats, found, figures, db.seconds()), encoding="utf-8")
    (out / "report.html").write_text(html_page(exp, stats, found, figures, db.seconds()), encoding="utf-8")
    files = [out / "report.md", out / "report.html"]
    files += [out / f"{f.name}.{ext}" for f in figures for ext in ("png", "svg")]
    return files


__all__ = ["Setting", "collect", "first_move_line", "row_labels",
           "same_distribution", "setting_label", "settings", "status_json", "table_rows", "title", "varied_letters",
           "write_report"]
