"""Rebuild every table and figure of docs/piece-values-by-board-size.md from the study databases
in one directory, and say how long each step took.

    python examples/values/reproduce.py out/ --out out/paper

Reads every ``*.db`` there: the piece-values studies (``komaken values selfplay``), the odds
databases (``komaken values odds``) and experiment databases (``komaken experiment run``).  Writes into ``--out``:

* ``report/`` — ``komaken values report`` over the published studies (seed 0) and the odds
  databases: method A's and B's tables, the fitted laws, the hypotheses (H1 also against
  Fairy-Stockfish as it computes) and Figure 1.  Everything below reads the fresh studies played
  after them (seed 1; in a folder of one seed, every study);
* ``experiment-<name>/`` — ``komaken experiment report`` of every experiment database there (the
  validation and perturbation SPRTs of §3.6, each stopped test with its bias-corrected Elo);
* ``robust-<study>.md`` — ``komaken values robust`` of every study (``--analysis-games N``: of
  its first N games), and ``designs-<variant>.md``
  where a variant has studies of several start designs at one search limit (Appendix A, §3.2);
* ``promoted-<study>.md`` — ``komaken values promoted`` of every study whose variant has promoted
  minors: the location and lifetime controls and the outside tables (§4, Appendix A);
* ``values_ctrl4_test.png`` (Figure 3, from a ``ctrl4`` study) and
  ``values_robustness_<variant>.png`` (Figure 2, from each exchange-start study of minishogi);
* ``ab-<variant>.md`` and ``values_ab_<variant>.png`` (§3.5, Figure 5) — ``komaken values ab`` over
  the variant's odds studies (``komaken values selfplay --odds``): method B beside method A;
* ``strength.md`` (§3.7) — ``komaken values strength`` over the fixed-depth studies of each
  (variant, start design), and ``values_strength.png`` (Figure 6): the controlled family against
  board size at every fixed depth, node budget and labelling engine found there;
* ``labels.md`` (§3.7) — every study with label files (``komaken values label``; any ``*.sqlite``
  there that labels it) fitted to the results and to each file's scores on the same games;
* ``played.md`` — from ``played.tsv`` (written by ``examples/values/play.py``, which plays every
  database): the build that played each, its wall and CPU time.

Nothing is written to the databases.  Figure 4 is the experiment report's plot of ``values5x5.db``.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from komaken.errors import KomakenError
from komaken.lab.label import LabelError, load_labels
from komaken.lab.report import build as experiment_report
from komaken.lab.storage import ExperimentDB
from komaken.lab.valuestudy.designed import ABResult, ab_experiment, format_ab
from komaken.lab.valuestudy.fit import fit_study, start_design, variant_letters
from komaken.lab.valuestudy.games import StudyError, open_study
from komaken.lab.valuestudy.labelled import LabelComparison, format_labels, label_comparison
from komaken.lab.valuestudy.laws import extrapolate, hill_law, law_value, saturation_law
from komaken.lab.valuestudy.odds import analyse_odds
from komaken.lab.valuestudy.promoted import MINORS, format_controls, format_reference, promoted_controls
from komaken.lab.valuestudy.report import build, load
from komaken.lab.valuestudy.robust import Robustness, format_designs, format_robustness, robustness
from komaken.lab.valuestudy.strength import StrengthRow, Triple, format_strength, strength_label, strength_trend

#: The controlled family's method-A values (gold units, 95 % intervals) the laws were fitted to,
#: as published on 2026-11-26 and pre-registered in docs/notebooks/2026-11-29-ctrl4-preregistration.md.
PUBLISHED = {
    "B": [(5, 0.969, 0.938, 1.005), (6, 1.376, 1.339, 1.419), (7, 1.552, 1.515, 1.595), (8, 1.618, 1.581, 1.659),
          (9, 1.639, 1.604, 1.679)],
    "R": [(5, 1.160, 1.125, 1.203), (6, 1.712, 1.667, 1.763), (7, 2.001, 1.951, 2.049), (8, 2.106, 2.063, 2.154),
          (9, 2.105, 2.061, 2.152)],
}


def ctrl4_figure(db: Path, out: Path) -> None:
    fit = fit_study(db, bootstrap=500)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    n = np.linspace(3.6, 9.4, 200)
    for ax, letter in zip(axes, ("B", "R"), strict=True):
        pts = PUBLISHED[letter]
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts],
                    yerr=[[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]], fmt="o", color="k",
                    label="5×5…9×9, fitted (published)")
        for law, fitter, color in (("saturation", saturation_law, "tab:blue"), ("hill", hill_law, "tab:orange")):
            params = fitter(pts)
            assert params is not None
            ax.plot(n, [law_value(law, params, x) for x in n], color=color,
                    label="c − d·q^(n−5)" if law == "saturation" else "Hill c·n^h/(k^h+n^h)")
            pred, lo, hi = extrapolate(pts, law, 4, draws=2000, seed=0)[:3]
            ax.errorbar([3.9 if law == "saturation" else 4.1], [pred], yerr=[[pred - lo], [hi - pred]], fmt="s",
                        color=color, capsize=4)
        est, lo, hi = fit.value(letter)
        ax.errorbar([4], [est], yerr=[[est - lo], [hi - est]], fmt="D", color="tab:red", capsize=4,
                    label=f"4×4 measured ({fit.games} games)")
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(f"{letter}: out-of-sample test on ctrl4")
        ax.set_xlabel("board size n")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("value in golds")
    axes[0].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "values_ctrl4_test.png", dpi=100)
    plt.close(fig)


def robustness_figure(r: Robustness, out: Path) -> None:
    fig, ax = plt.subplots(figsize=(8, 4.2))
    fits = [f for f in r.fits if not f.spec.first]
    names = [f.spec.name.split(":")[0] for f in fits]
    y = np.arange(len(names))[::-1]
    for dy, letter, color in ((0.15, "B", "tab:blue"), (-0.15, "R", "tab:red")):
        est = np.array([f.values[letter][0] for f in fits])
        lo = np.array([f.values[letter][1] for f in fits])
        hi = np.array([f.values[letter][2] for f in fits])
        ax.errorbar(est, y + dy, xerr=[est - lo, hi - est], fmt="o", color=color, capsize=3,
                    label=f"{letter} (split row: on the board)")
        h = r.headline[letter]
        ax.axvspan(h[1], h[2], color=color, alpha=0.08)
    ax.set_yticks(y, names)
    ax.set_xlabel("value in golds (95 % intervals; shaded: headline interval)")
    ax.set_title(f"{r.variant}: {r.games} games under each modelling choice")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / f"values_robustness_{r.variant}.png", dpi=100)
    plt.close(fig)


def ab_figure(results: list[ABResult], out: Path) -> None:
    """Figure 5: per start design and piece, method B, the start-only and the whole-game regression."""
    fig, axes = plt.subplots(1, len(results), figsize=(5 * len(results), 4.2), sharey=True, squeeze=False)
    for ax, r in zip(axes[0], results, strict=True):
        pieces = [p for p in r.pieces if p.letter != "G"]
        x = np.arange(len(pieces))
        for dx, what, label, color in ((-0.2, "odds", "method B (odds deficit ratio)", "tab:green"),
                                       (0.0, "start_only", "A: start position only", "tab:orange"),
                                       (0.2, "whole_game", "A: whole game", "tab:blue")):
            for i, p in enumerate(pieces):
                t = getattr(p, what)
                if t is not None:
                    ax.errorbar([x[i] + dx], [t[0]], yerr=[[t[0] - t[1]], [t[2] - t[0]]], fmt="o", color=color,
                                capsize=3, label=label if i == 0 else None)
        ax.set_xticks(x, [p.letter for p in pieces])
        ax.set_title(f"{r.variant}, {r.mode} odds starts, {r.strength}\n{r.games} games", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("value in golds (95 % intervals)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / f"values_ab_{results[0].variant}.png", dpi=100)
    plt.close(fig)


def strength_figure(rows: list[StrengthRow], limits: dict[str, dict[int, Triple]],
                    labelled: list[LabelComparison], out: Path) -> None:
    """Figure 6: the controlled family's bishop and rook against board size at each strength —
    every fixed depth, every node-limited study (``limits``: strength → size → value) and every
    labelling engine's judgement of a study's positions."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), sharey=True)
    for ax, letter in zip(axes, ("B", "R"), strict=True):
        series: dict[str, dict[int, Triple]] = defaultdict(dict)
        for r in rows:
            if r.variant.startswith("ctrl"):
                for strength, value in zip(r.strengths, r.values[letter], strict=True):
                    series[strength][r.width] = value
        for strength, points in limits.items():
            series[strength].update({n: v[letter] for n, v in points.items()})
        for c in labelled:
            if c.variant.startswith("ctrl"):
                for f in c.fits[1:]:
                    series[f"labels: {f.targets.split(',')[0]}"][c.width] = f.value(letter)
        for i, (name, points) in enumerate(sorted(series.items())):
            ns = sorted(points)
            v = [points[n] for n in ns]
            ax.errorbar([n + 0.06 * (i - len(series) / 2) for n in ns], [t[0] for t in v],
                        yerr=[[t[0] - t[1] for t in v], [t[2] - t[0] for t in v]], fmt="o-", capsize=3, label=name)
        ax.set_title(f"{letter}, controlled family, at each strength")
        ax.set_xlabel("board size n")
        ax.set_xticks(range(5, 10))
        ax.set_xlim(4.6, 9.4)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("value in golds (95 % intervals)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "values_strength.png", dpi=100)
    plt.close(fig)


def kind(db: Path) -> str:
    """``study`` (a piece-values study), ``odds`` (a material-odds database), ``match`` (an
    experiment of players in pairings: the SPRTs of §3.6) or ``other``."""
    try:
        with open_study(db):
            return "study"
    except StudyError:
        pass
    try:
        analyse_odds(db)
        return "odds"
    except KomakenError:
        pass
    try:
        with ExperimentDB.open(db, upgrade=False) as store:
            return "match" if store.kind == "match" else "other"
    except KomakenError:
        return "other"


def labels_study(path: Path, db: Path) -> bool:
    """Whether ``path`` is a label file of the study ``db``."""
    try:
        load_labels(path, db)
    except LabelError:
        return False
    return True


def played_summary(log: Path) -> str:
    """``played.tsv`` (written by play.py) as a table: per database, the build that played it and
    its wall and CPU time summed over the runs that made it."""
    steps: dict[str, list[float]] = {}
    builds: dict[str, set[str]] = defaultdict(set)
    for line in log.read_text(encoding="utf-8").splitlines()[1:]:
        name, build, _, wall, cpu, code = line.split("\t")[:6]
        if code != "0":
            continue
        totals = steps.setdefault(name, [0.0, 0.0])
        totals[0] += float(wall)
        totals[1] += float(cpu)
        builds[name].add(build)
    rows = [f"| {n} | {', '.join(sorted(builds[n]))} | {w / 60:.1f} | {c / 3600:.2f} |" for n, (w, c) in steps.items()]
    wall, cpu = (sum(t[i] for t in steps.values()) for i in (0, 1))
    return "\n".join(["| database | build | wall min | CPU-hours |", "|---|---|---|---|", *rows,
                      f"| **all {len(steps)}** | | {wall / 60:.1f} | {cpu / 3600:.2f} |"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="the directory holding the databases")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--bootstrap", type=int, default=500, help="resamples of the report's fits")
    ap.add_argument("--analysis-games", type=int, default=0,
                    help="robust and promoted read each study's first N games (default 0: all of them)")
    args = ap.parse_args()
    prefix = args.analysis_games or None
    args.out.mkdir(parents=True, exist_ok=True)
    kinds = {db: kind(db) for db in sorted(args.folder.glob("*.db"))}
    seeds = {}
    for db in (db for db, k in kinds.items() if k == "study"):
        with open_study(db) as study:
            seeds[db] = int(study.config().get("seed", 0))
    # the report is the published design (seed 0, and the odds databases); §3.2–3.8 read the
    # fresh studies played after it (seed 1) — or every study, in a folder of one seed
    published = [db for db, s in seeds.items() if s == 0] or list(seeds)
    studies = [db for db, s in seeds.items() if s != 0] or list(seeds)
    dbs = published + [db for db, k in kinds.items() if k == "odds"]
    for db in (db for db, k in kinds.items() if k == "other"):
        print(f"{db}: not a study, odds or experiment database; left out", flush=True)
    steps: list[tuple[str, float]] = []
    start = time.perf_counter()

    def done(what: str) -> None:
        nonlocal start
        steps.append((what, time.perf_counter() - start))
        print(f"{what}: {steps[-1][1]:.1f} s", flush=True)
        start = time.perf_counter()

    if dbs:
        build(load(dbs, args.bootstrap)).write(args.out / "report")
        done(f"report over {len(dbs)} databases ({len(published)} studies)")
    for db in (db for db, k in kinds.items() if k == "match"):  # §3.6: SPRTs with their corrected Elo
        with ExperimentDB.open(db, upgrade=False) as store:
            experiment_report(store).write(args.out / f"experiment-{db.stem}")
        done(f"experiment report {db.name}")
    by_variant: dict[tuple[str, str], list[Robustness]] = defaultdict(list)  # (variant, search limit)
    odds_studies: dict[str, list[ABResult]] = defaultdict(list)
    depth_studies: dict[tuple[str, str], list[Path]] = defaultdict(list)
    for db in studies:
        with open_study(db) as study:
            config = study.config()
            letters = variant_letters(config)
        if config.get("odds"):
            odds_studies[config["variant"]].append(ab_experiment(str(db), bootstrap=200))
            done(f"ab {db.name}")
        if config.get("depth"):
            depth_studies[(config["variant"], start_design(config))].append(db)
        pieces = tuple(p for p in ("B", "R", "S") if p in letters)
        r = robustness(str(db), pieces, bootstrap=200, games=prefix)
        limit = strength_label(config)
        by_variant[(r.variant, limit)].append(r)
        (args.out / f"robust-{db.stem}.md").write_text(format_robustness(r) + "\n", encoding="utf-8")
        if r.variant == "minishogi" and r.design.startswith("exchange") and limit == "1000 nodes":
            robustness_figure(r, args.out)
        if r.variant == "ctrl4":
            ctrl4_figure(db, args.out)
        done(f"robust {db.name}")
        if any(x in letters for x in MINORS):
            try:
                c = promoted_controls(str(db), bootstrap=200, games=prefix)
            except KomakenError as exc:  # a study too small for a split: say which, go on
                print(f"promoted {db.name}: {exc}", flush=True)
            else:
                (args.out / f"promoted-{db.stem}.md").write_text(format_controls(c) + "\n\n" + format_reference(c)
                                                                  + "\n", encoding="utf-8")
            done(f"promoted {db.name}")
    for (variant, limit), results in by_variant.items():  # start designs compared at one search limit
        if len({r.design for r in results}) > 1:
            name = variant if limit == "1000 nodes" else f"{variant}-{limit.replace(' ', '')}"
            (args.out / f"designs-{name}.md").write_text(format_designs(results) + "\n", encoding="utf-8")
    for variant, abs_ in odds_studies.items():
        (args.out / f"ab-{variant}.md").write_text(format_ab(abs_) + "\n", encoding="utf-8")
        ab_figure(abs_, args.out)
    trend = [row for group in depth_studies.values() if len(group) > 1
             for row in strength_trend(group, ("B", "R", "S"), bootstrap=200)]
    trend.sort(key=lambda row: row.width)
    if trend:
        (args.out / "strength.md").write_text(format_strength(trend) + "\n", encoding="utf-8")
        done(f"strength over {sum(len(g) for g in depth_studies.values())} fixed-depth studies")
    comparisons = []
    for db in studies:
        files = [f for f in sorted(args.folder.glob("*.sqlite")) if labels_study(f, db)]
        if files:
            comparisons.append(label_comparison(db, files, bootstrap=200))
            done(f"labels {db.name} ({len(files)} label files)")
    if comparisons:
        (args.out / "labels.md").write_text(format_labels(comparisons) + "\n", encoding="utf-8")
    limits: dict[str, dict[int, Triple]] = defaultdict(dict)  # the exchange-start node-limited studies
    for (variant, limit), results in by_variant.items():
        for r in results:
            if variant.startswith("ctrl") and not limit.startswith("depth") and r.design.startswith("exchange"):
                limits[limit][int(variant.removeprefix("ctrl"))] = r.fits[0].values
    if any(x.variant.startswith("ctrl") for x in [*trend, *comparisons]) or limits:  # Figure 6 is of ctrl boards
        strength_figure(trend, limits, comparisons, args.out)
    if (args.folder / "played.tsv").exists():
        (args.out / "played.md").write_text(played_summary(args.folder / "played.tsv") + "\n", encoding="utf-8")
    total = sum(t for _, t in steps)
    print(f"total {total:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
