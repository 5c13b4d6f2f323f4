"""``komaken values report``: piece values against board size — tables, plots, hypothesis tests.

Give it any number of self-play study databases (method A) and odds databases (method B); it
fits each study, sorts them into the standard variants and the controlled family (``ctrlN``),
and :func:`build` makes the report (:class:`~komaken.lab.document.Report`, the lab's one report
pipeline): tables of the fits and odds, the figure ``values_vs_n`` — the value of each piece in
gold units against the board size n, with 95 % intervals, both methods, Fairy-Stockfish's (n+3)/12
slider law overlaid (anchored at our own 9×9 value) and the fitted laws (:mod:`komaken.lab.valuestudy.laws`)
per piece and family — and the hypotheses of the pre-registration
(docs/piece-values-by-board-size.md §1.7) where the data exist.  ``komaken values report`` writes
it as ``report.md``, ``report.html``, ``report.json`` and the figure as PNG and SVG; the web page
shows the same blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError
from komaken.lab.document import Block, Figure, Report, figure, prose, pyplot
from komaken.lab.stats import format_estimate
from komaken.lab.valuestudy import hypotheses as H
from komaken.lab.valuestudy.fit import FitResult, fit_study
from komaken.lab.valuestudy.games import StudyError, open_study
from komaken.lab.valuestudy.laws import budget, family, fsf_factor, linear_law, saturation_law, series
from komaken.lab.valuestudy.odds import OddsResult, analyse_odds

PIECES = ("B", "R", "S", "P", "+B", "+R", "+P", "+S")
FSF_RG = {5: 1.16, 6: 1.29, 9: 1.65}  # rook/gold ratios quoted for Fairy-Stockfish (issue 11)


@dataclass
class Loaded:
    fits: list[FitResult]
    odds: list[OddsResult]


def load(dbs: list[Path], bootstrap: int = 500) -> Loaded:
    """Fit every self-play study and analyse every odds database among ``dbs``."""
    fits, odds = [], []
    for db in dbs:
        try:
            open_study(db).close()
        except StudyError:
            try:
                odds.append(analyse_odds(db))
            except KomakenError as exc:
                raise KomakenError(f"{db}: neither a self-play study nor an odds database ({exc})") from None
            continue
        fits.append(fit_study(db, bootstrap=bootstrap, min_games=50))
    return Loaded(fits, odds)


def _cell(t: tuple[float, float, float]) -> str:
    return "—" if np.isnan(t[0]) else format_estimate(*t)


def fit_table(fits: list[FitResult], caption: str, unit: str = "G") -> Block:
    head = ["variant", "n", "budget", "games", "positions", "quiet"] + list(PIECES)
    rows = []
    for f in sorted(fits, key=lambda f: (family(f), f.width, f.variant, budget(f))):
        cells = [f.variant, str(f.width), budget(f), str(f.games), str(f.positions), str(f.quiet_positions)]
        rows.append(cells + [_cell(f.value(x, unit)) for x in PIECES])
    return ("table", caption, head, rows)


def odds_table(odds: list[OddsResult]) -> Block:
    head = ["variant", "n", "nodes", "piece", "games", "handicapped score (95% CI)", "Elo deficit",
            "gold units (95% CI)"]
    rows = []
    for r in sorted(odds, key=lambda r: r.width):
        for p in r.pieces:
            val = p.note if p.saturated else format_estimate(p.value, *p.value_ci)
            rows.append([r.variant, str(r.width), str(r.nodes), p.letter, str(p.games),
                         format_estimate(p.score, *p.score_ci), f"{p.elo:.0f}", val])
    return ("table", "Method B (material odds; value = Elo deficit / gold-odds deficit)", head, rows)


CAPTION = ("Each piece's value in gold units against the board size n, with 95 % intervals: method A per family, "
           "method B (odds) where given, the (n+3)/12 slider law anchored at 9×9, and the fitted saturation law "
           "c − d·q^(n−5) (a + b/n where fewer than four sizes are measured).")


def plot(loaded: Loaded) -> Figure:
    """The figure ``values_vs_n``: one panel per piece."""
    plt = pyplot()
    letters = ("B", "R", "S", "+B", "+R", "P")
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    for ax, letter in zip(axes.ravel(), letters, strict=True):
        for fam, marker, color, dx in (("standard", "o", "tab:blue", -0.08), ("controlled", "s", "tab:orange", 0.08)):
            pts = series(loaded.fits, fam, letter)
            if not pts:
                continue
            n = np.array([p[0] for p in pts]) + dx
            v = np.array([p[1] for p in pts])
            err = np.array([[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]])
            ax.errorbar(n, v, yerr=err, fmt=marker, color=color, capsize=3, label=f"A: {fam}")
            xs = np.linspace(5, 9, 41)
            if sat := saturation_law(pts):
                ax.plot(xs, sat["c"] - sat["d"] * sat["q"] ** (xs - 5), "-", color=color, alpha=0.5, lw=1,
                        label=f"c − d·q^(n−5), {fam}")
            elif law := linear_law(pts, inverse=True):
                ax.plot(xs, law["a"] + law["b"] / xs, "--", color=color, alpha=0.4, lw=1, label=f"a + b/n, {fam}")
            nine = [p for p in pts if p[0] == 9]
            if nine and letter in ("B", "R", "+B", "+R"):
                ns = np.arange(5, 10)
                ax.plot(ns, [nine[0][1] * fsf_factor(int(k)) for k in ns], ":", color=color, lw=1.5,
                        label=f"(n+3)/12 law, {fam}")
        opts = [(r.width, p) for r in loaded.odds if (p := r.get(letter)) is not None and not p.saturated]
        if opts:
            ax.errorbar([n + 0.2 for n, _ in opts], [p.value for _, p in opts],
                        yerr=[[p.value - p.value_ci[0] for _, p in opts], [p.value_ci[1] - p.value for _, p in opts]],
                        fmt="D", color="tab:green", capsize=3, label="B: odds")
        if letter == "R":
            ax.plot(list(FSF_RG), list(FSF_RG.values()), "x", color="black", label="FSF quoted R/G")
        ax.axhline(1.0, color="grey", lw=0.5)
        ax.set_title(f"{letter} in gold units")
        ax.set_xlabel("board size n")
        ax.set_xticks(range(5, 10))
        ax.set_xlim(4.6, 9.4)
    figure_legend(fig, axes.ravel())
    return figure(fig, "values_vs_n", CAPTION, dpi=110)


def figure_legend(fig: Any, axes: Any) -> None:
    """One legend below the panels for every series any panel draws (the FSF points are on R's
    only), in as few rows as keep it inside the figure's width, and the panels laid out above it."""
    legend: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
    if not legend:
        fig.tight_layout()
        return
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    for rows in range(1, len(legend) + 1):
        box = fig.legend(list(legend.values()), list(legend), loc="lower center",
                         ncol=-(-len(legend) // rows), fontsize=8)  # rows <= entries: at least one column
        extent = box.get_window_extent(renderer)
        if extent.width <= width or rows == len(legend):
            break
        box.remove()
    fig.tight_layout(rect=(0, min(0.5, extent.height / fig.bbox.height + 0.01), 1, 1))


def laws_table(fits: list[FitResult]) -> Block:
    rows = []
    for letter in ("B", "R", "S", "+B", "+R"):
        for fam in ("standard", "controlled"):
            pts = series(fits, fam, letter)
            for inverse, name in ((False, "a + b·n"), (True, "a + b/n")):
                if law := linear_law(pts, inverse):
                    rows.append([letter, fam, name, f"a = {law['a']:.3f} ± {law['se_a']:.3f}, "
                                 f"b = {law['b']:+.4f} ± {law['se_b']:.4f}", f"{law['chi2_dof']:.2f}",
                                 str(law["points"])])
            if sat := saturation_law(pts):
                rows.append([letter, fam, "c − d·q^(n−5)", f"c = {sat['c']:.3f} ± {sat['se_c']:.3f}, "
                             f"d = {sat['d']:.3f} ± {sat['se_d']:.3f}, q = {sat['q']:.3f} ± {sat['se_q']:.3f}",
                             f"{sat['chi2_dof']:.2f}", str(sat["points"])])
    return ("table", "Fitted laws per piece and family (weighted least squares over the 1000-node studies): a + b·n, "
            "a + b/n, and the saturation c − d·q^(n−5) — a ceiling c approached geometrically, the gap shrinking by "
            "q a size — where there are four sizes or more (the figure draws it, else a + b/n)",
            ["piece", "family", "law", "parameters (± standard error)", "χ²/dof", "sizes"], rows)


TITLE = "Piece values against board size"


def build(loaded: Loaded, notes: list[str] | None = None) -> Report:
    """The report of the fitted studies and analysed odds databases in ``loaded`` (``notes``: paragraphs
    said right after the title, e.g. which databases it covers)."""
    fits = loaded.fits
    blocks: list[Block] = [("h1", TITLE), *(("p", n) for n in notes or [])]
    blocks += [fit_table(fits, "Method A (regression, quiet positions, whole-game bootstrap 95 % intervals), "
                               "gold units"), fit_table(fits, "Pawn units", "P")]
    if loaded.odds:
        blocks.append(odds_table(loaded.odds))
    if fits or loaded.odds:
        blocks.append(("figure", 1, plot(loaded)))
    blocks += [laws_table(fits), H.precision(fits)]
    blocks += [("p", "Level start against imbalance start, same variant and budget (95 % interval of the "
                     "difference):"), *prose(H.designs(fits))]
    blocks += [("p", "Search strength: a larger node budget against the smallest, same variant and start "
                     "(95 % interval of the difference):"), *prose(H.budgets(fits))]
    blocks.append(("h2", "Hypotheses (pre-registered decision rules)"))
    for lines in (H.h1(fits), H.h2(fits), H.h3(fits), H.agreement(fits, loaded.odds)):
        blocks += prose(lines)
    data: dict[str, Any] = {"fits": [f.as_dict() for f in fits],
                            "odds": [{"variant": r.variant, "width": r.width, "nodes": r.nodes,
                                      "pieces": [{k: v for k, v in p.__dict__.items() if k != "samples"}
                                                 for p in r.pieces]} for r in loaded.odds]}
    return Report(TITLE, blocks, data)


__all__ = ["CAPTION", "Loaded", "PIECES", "TITLE", "build", "figure_legend", "fit_table", "laws_table", "load",
           "odds_table", "plot"]
