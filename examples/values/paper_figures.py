"""The figures and tables of docs/piece-values-by-board-size.md that come from this machine's
databases: the out-of-sample test on ``ctrl4`` and the robustness tables.

    python examples/values/paper_figures.py --ctrl4 out/ctrl4-ex2-s1.db --robust out/minishogi-ex2-s1.db \\
        --robust out/ctrl4-ex2-s1.db --out docs/img

Writes ``values_ctrl4_test.png`` (the controlled family's published values, the two laws fitted to
them and their 4×4 predictions, and the measured 4×4 values), ``values_robustness_<variant>.png``
(each specification's B and R with its interval, per database) and prints the Markdown tables.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from komaken.lab.valuestudy.fit import fit_study
from komaken.lab.valuestudy.laws import extrapolate, hill_law, law_value, saturation_law
from komaken.lab.valuestudy.robust import format_robustness, robustness

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


def robustness_figure(db: Path, out: Path) -> str:
    r = robustness(str(db), ("B", "R", "S"), bootstrap=200)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    names = [f.spec.name.split(":")[0] for f in r.fits]
    y = np.arange(len(names))[::-1]
    for dy, letter, color in ((0.15, "B", "tab:blue"), (-0.15, "R", "tab:red")):
        est = np.array([f.values[letter][0] for f in r.fits])
        lo = np.array([f.values[letter][1] for f in r.fits])
        hi = np.array([f.values[letter][2] for f in r.fits])
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
    return format_robustness(r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ctrl4", type=Path)
    ap.add_argument("--robust", type=Path, action="append", default=[])
    ap.add_argument("--out", type=Path, default=Path("."))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.ctrl4:
        ctrl4_figure(args.ctrl4, args.out)
    for db in args.robust:
        print(robustness_figure(db, args.out), end="\n\n")


if __name__ == "__main__":
    main()
