"""``komaken values report``: piece values against board size — tables, plots, hypothesis tests.

Give it any number of self-play study databases (method A) and odds databases (method B); it
fits each study, sorts them into the standard variants and the controlled family (``ctrlN``),
and writes ``report.md``, ``report.html`` (plots embedded), ``report.json`` and
``values_vs_n.png`` / ``.svg``: the value of each piece in gold units against the board size n,
with 95 % intervals, both methods, Fairy-Stockfish's (n+3)/12 slider law overlaid (anchored at
our own 9×9 value) and fitted laws (a + b·n, a + b/n) per piece and family.  The hypotheses of the
pre-registration (docs/piece-values-by-board-size.md §1.7) are evaluated where the data exist.
"""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError
from komaken.lab.stats import format_estimate
from komaken.lab.valuestudy.fit import FitResult, fit_study
from komaken.lab.valuestudy.odds import OddsResult, analyse_odds
from komaken.lab.valuestudy.storage import StudyDB, StudyDBError

PIECES = ("B", "R", "S", "P", "+B", "+R", "+P", "+S")
FSF_RG = {5: 1.16, 6: 1.29, 9: 1.65}  # rook/gold ratios quoted for Fairy-Stockfish (issue 11)


def fsf_factor(n: int) -> float:
    """Fairy-Stockfish's slider scale for an n×n drop variant, relative to 9×9."""
    return (n + 3) / 12


@dataclass
class Loaded:
    fits: list[FitResult]
    odds: list[OddsResult]


def load(dbs: list[Path], bootstrap: int = 500) -> Loaded:
    fits, odds = [], []
    for db in dbs:
        try:
            StudyDB.open(db).close()
        except StudyDBError:
            try:
                odds.append(analyse_odds(db))
            except KomakenError as exc:
                raise KomakenError(f"{db}: neither a self-play study nor an odds database ({exc})") from None
            continue
        fits.append(fit_study(db, bootstrap=bootstrap, min_games=50))
    return Loaded(fits, odds)


def family(f: FitResult) -> str:
    return "controlled" if f.variant.startswith("ctrl") else "standard"


def budget(f: FitResult) -> str:
    """The node budget (or depth), and the start design when it is not the level start."""
    text = f"{f.config['nodes']} nodes" if f.config.get("nodes") else f"depth {f.config.get('depth')}"
    return text + (f", {f.design}" if f.imbalance else "")


def primary(fits: list[FitResult], variant: str, nodes: int = 1000) -> FitResult | None:
    """The study the laws and hypotheses use for ``variant`` at ``nodes``: an imbalance-start
    study when there is one (the more precise design, docs/piece-values-by-board-size.md §3),
    else the level-start one; among several, the one with the most games."""
    cands = [f for f in fits if f.variant == variant and f.config.get("nodes") == nodes]
    return max(cands, key=lambda f: (f.imbalance > 0, f.games), default=None)


def _cell(t: tuple[float, float, float]) -> str:
    return "—" if np.isnan(t[0]) else format_estimate(*t)


def fit_table(fits: list[FitResult], unit: str = "G") -> list[str]:
    head = ["variant", "n", "budget", "games", "positions", "quiet"] + list(PIECES)
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in sorted(fits, key=lambda f: (family(f), f.width, f.variant, budget(f))):
        cells = [f.variant, str(f.width), budget(f), str(f.games), str(f.positions), str(f.quiet_positions)]
        cells += [_cell(f.value(x, unit)) for x in PIECES]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def odds_table(odds: list[OddsResult]) -> list[str]:
    rows = ["| variant | n | nodes | piece | games | handicapped score (95% CI) | Elo deficit | gold units (95% CI) |",
            "|---|---|---|---|---|---|---|---|"]
    for r in sorted(odds, key=lambda r: r.width):
        for p in r.pieces:
            val = p.note if p.saturated else format_estimate(p.value, *p.value_ci)
            rows.append(f"| {r.variant} | {r.width} | {r.nodes} | {p.letter} | {p.games} | "
                        f"{format_estimate(p.score, *p.score_ci)} | {p.elo:.0f} | {val} |")
    return rows


def _standard_errors(points: list[tuple[int, float, float, float]]) -> np.ndarray:
    """Each point's standard error from its 95 % interval (width / 3.92), floored above zero."""
    return np.maximum(np.array([(p[3] - p[2]) / 3.92 for p in points]), 1e-6)


def linear_law(points: list[tuple[int, float, float, float]], inverse: bool = False) -> dict[str, float] | None:
    """Weighted least squares v = a + b·n (``inverse``: v = a + b/n), weights from the interval
    widths: a, b, their standard errors, and χ² per degree of freedom as the goodness of fit."""
    if len({p[0] for p in points}) < 2:
        return None
    n = np.array([1.0 / p[0] if inverse else p[0] for p in points], float)
    v = np.array([p[1] for p in points])
    se = _standard_errors(points)
    w = 1 / se**2
    x = np.column_stack([np.ones_like(n), n])
    cov = np.linalg.inv(x.T @ (w[:, None] * x))
    a, b = cov @ x.T @ (w * v)
    chi2 = float(np.sum(w * (v - a - b * n) ** 2))
    dof = len(n) - 2
    return {"a": float(a), "b": float(b), "se_a": float(np.sqrt(cov[0, 0])), "se_b": float(np.sqrt(cov[1, 1])),
            "chi2_dof": chi2 / dof if dof > 0 else float("nan"), "points": len(n)}


def saturation_law(points: list[tuple[int, float, float, float]]) -> dict[str, float] | None:
    """Weighted non-linear least squares v = c − d·q^(n−5): a value that approaches a ceiling ``c``
    as the board grows, its remaining gap shrinking by the factor ``q`` (0…1) with each step of n
    (``d`` is the gap at n = 5).  ``c``, ``d``, ``q``, their standard errors and χ² per degree of
    freedom.  ``None`` with fewer than four sizes (three parameters), when the fit fails, or when
    its best ``q`` sits at a bound — a straight line (q → 1) or a step (q → 0), not a saturation."""
    from scipy.optimize import curve_fit

    if len({p[0] for p in points}) < 4:
        return None
    n = np.array([p[0] for p in points], float)
    v = np.array([p[1] for p in points])
    se = _standard_errors(points)

    def law(n: np.ndarray, c: float, d: float, q: float) -> np.ndarray:
        return c - d * q ** (n - 5)

    try:
        (c, d, q), cov = curve_fit(law, n, v, p0=(v[-1], v[-1] - v[0], 0.5), sigma=se, absolute_sigma=True,
                                   bounds=([-np.inf, -np.inf, 0.0], [np.inf, np.inf, 1.0]), maxfev=20000)
    except (RuntimeError, ValueError):
        return None
    if not 0.01 < q < 0.99:
        return None
    err = np.sqrt(np.abs(np.diag(cov)))
    chi2 = float(np.sum(((v - law(n, c, d, q)) / se) ** 2))
    return {"c": float(c), "d": float(d), "q": float(q), "se_c": float(err[0]), "se_d": float(err[1]),
            "se_q": float(err[2]), "chi2_dof": chi2 / (len(n) - 3), "points": len(n)}


def series(fits: list[FitResult], fam: str, letter: str) -> list[tuple[int, float, float, float]]:
    main = [p for v in sorted({f.variant for f in fits if family(f) == fam})
            if (p := primary(fits, v)) is not None]
    return [(f.width, *f.value(letter)) for f in sorted(main, key=lambda f: f.width)
            if not np.isnan(f.value(letter)[0])]


def plot(loaded: Loaded, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    paths = [out / "values_vs_n.png", out / "values_vs_n.svg"]
    for path in paths:
        fig.savefig(path, dpi=110)
    plt.close(fig)
    return paths


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


def laws_table(fits: list[FitResult]) -> list[str]:
    rows = ["| piece | family | law | parameters (± standard error) | χ²/dof | sizes |", "|---|---|---|---|---|---|"]
    for letter in ("B", "R", "S", "+B", "+R"):
        for fam in ("standard", "controlled"):
            pts = series(fits, fam, letter)
            for inverse, name in ((False, "a + b·n"), (True, "a + b/n")):
                if law := linear_law(pts, inverse):
                    rows.append(f"| {letter} | {fam} | {name} | a = {law['a']:.3f} ± {law['se_a']:.3f}, "
                                f"b = {law['b']:+.4f} ± {law['se_b']:.4f} | {law['chi2_dof']:.2f} | {law['points']} |")
            if sat := saturation_law(pts):
                rows.append(f"| {letter} | {fam} | c − d·q^(n−5) | c = {sat['c']:.3f} ± {sat['se_c']:.3f}, "
                            f"d = {sat['d']:.3f} ± {sat['se_d']:.3f}, q = {sat['q']:.3f} ± {sat['se_q']:.3f} | "
                            f"{sat['chi2_dof']:.2f} | {sat['points']} |")
    return rows


def markdown(loaded: Loaded) -> str:
    from komaken.lab.valuestudy import hypotheses as H

    fits = loaded.fits
    parts = ["# Piece values against board size", "",
             "Method A (regression, quiet positions, whole-game bootstrap 95 % intervals), gold units:", ""]
    parts += fit_table(fits, "G") + ["", "Pawn units:", ""] + fit_table(fits, "P")
    if loaded.odds:
        parts += ["", "Method B (material odds; value = Elo deficit / gold-odds deficit):", ""]
        parts += odds_table(loaded.odds)
    parts += ["", "![value against board size](values_vs_n.png)", "",
              "Fitted laws per piece and family (weighted least squares over the 1000-node studies): a + b·n, "
              "a + b/n, and the saturation c − d·q^(n−5) — a ceiling c approached geometrically, the gap "
              "shrinking by q a size — where there are four sizes or more (the plot draws it, else a + b/n):", ""]
    parts += laws_table(fits)
    parts += ["", "Precision of B and R and the games a ≤ 0.05-gold half-width needs (scaling as 1/√games):", ""]
    parts += H.precision(fits)
    parts += ["", "Level start against imbalance start, same variant and budget (95 % interval of the difference):", ""]
    parts += H.designs(fits)
    parts += ["", "Search strength: a larger node budget against the smallest, same variant and start "
              "(95 % interval of the difference):", ""]
    parts += H.budgets(fits)
    parts += ["", "## Hypotheses (pre-registered decision rules)", ""]
    for rule in (H.h1, H.h2, H.h3):
        parts += rule(fits) + [""]
    parts += H.agreement(fits, loaded.odds) + [""]
    return "\n".join(parts) + "\n"


def write_report(dbs: list[Path], out: Path, bootstrap: int = 500) -> list[Path]:
    """Fit and analyse every database and write the report files into ``out``."""
    loaded = load(dbs, bootstrap)
    out.mkdir(parents=True, exist_ok=True)
    images = plot(loaded, out)
    md = markdown(loaded)
    (out / "report.md").write_text(md, encoding="utf-8")
    png = base64.b64encode(images[0].read_bytes()).decode()
    body = md.replace("![value against board size](values_vs_n.png)", "@@IMG@@")
    page = ("<!doctype html><meta charset='utf-8'><title>Piece values against board size</title>"
            "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}</style><pre style='white-space:pre-wrap'>"
            + html.escape(body).replace("@@IMG@@", f"</pre><img src='data:image/png;base64,{png}'><pre "
                                        "style='white-space:pre-wrap'>") + "</pre>")
    (out / "report.html").write_text(page, encoding="utf-8")
    data: dict[str, Any] = {"fits": [f.as_dict() for f in loaded.fits],
                            "odds": [{"variant": r.variant, "width": r.width, "nodes": r.nodes,
                                      "pieces": [{k: v for k, v in p.__dict__.items() if k != "samples"}
                                                 for p in r.pieces]} for r in loaded.odds]}
    (out / "report.json").write_text(json.dumps(data, indent=1, default=float), encoding="utf-8")
    return [out / "report.md", out / "report.html", out / "report.json", *images]
