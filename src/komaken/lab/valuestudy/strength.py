"""Strength-matched values: one design played at several search strengths, per board.

A node budget is a shallower search on a bigger board, so a values-against-size curve at fixed
nodes mixes board size with playing strength.  Studies played at a fixed *depth*
(``komaken values selfplay --depth D``) hold the search's horizon fixed across sizes instead.
:func:`strength_trend` fits each study (method A, the paper's specification, whole-game
bootstrap), groups the studies by variant, orders each group by strength (depth, then nodes) and
gives per piece the value at every strength and the change from the weakest to the strongest,
with a 95 % interval from the two studies' independent bootstraps.

A piece the chosen studies cannot price (absent from the variant, or its difference never varies
in a study) raises :class:`~komaken.lab.valuestudy.fit.FitError` naming the piece and the study;
the databases are only read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from komaken.lab.valuestudy.fit import FitError, FitResult, fit_study, start_design

Triple = tuple[float, float, float]


def strength_label(config: dict) -> str:
    """``"depth 3"`` or ``"1000 nodes"``: the study's search limit."""
    return f"depth {config['depth']}" if config.get("depth") else f"{config['nodes']} nodes"


_STRENGTH_KEYS = ("nodes", "depth", "games", "seed")


def _design(config: dict) -> str:
    """Everything of a study's configuration but its strength, size and seed, as a short text."""
    rest = {k: v for k, v in config.items() if k not in _STRENGTH_KEYS}
    start = start_design(config)
    same = {k: v for k, v in rest.items() if k not in ("odds", "odds_mode", "imbalance", "imbalance_mode")}
    return f"{start} starts, configuration {hashlib.sha256(repr(sorted(same.items())).encode()).hexdigest()[:8]}"


def _order(fit: FitResult) -> tuple[int, int]:
    c = fit.config
    return (0, int(c["depth"])) if c.get("depth") else (1, int(c["nodes"]))


@dataclass
class StrengthRow:
    variant: str
    width: int
    strengths: list[str]  # weakest first
    games: list[int]
    values: dict[str, list[Triple]]  # piece -> value at each strength
    change: dict[str, Triple]  # piece -> strongest − weakest


def strength_trend(dbs: list[str | Path], pieces: tuple[str, ...] = ("B", "R", "S"), *, bootstrap: int = 200,
                   seed: int = 0, min_games: int = 200) -> list[StrengthRow]:
    """Fit every study and compare the strengths of each variant (read only)."""
    fits = [fit_study(db, bootstrap=bootstrap, seed=seed, min_games=min_games) for db in dbs]
    for db, f in zip(dbs, fits, strict=True):
        for p in pieces:
            if p not in f.letters:
                why = "never varies in its quiet positions" if p in f.dropped else f"is not a piece of {f.variant}"
                raise FitError(f"{db}: {p} {why}; no value at {strength_label(f.config)}")
    groups: dict[str, list[FitResult]] = {}
    for f in fits:
        groups.setdefault(f.variant, []).append(f)
    rows = []
    for variant, group in sorted(groups.items(), key=lambda kv: kv[1][0].width):
        group.sort(key=_order)
        labels = [strength_label(f.config) for f in group]
        designs = {_design(f.config) for f in group}
        if len(designs) > 1:
            raise FitError(f"{variant}: studies of {len(designs)} designs (" + "; ".join(sorted(designs))
                           + "); strengths compare one design, the search limit alone differing")
        if len(set(labels)) < len(labels):
            raise FitError(f"{variant}: two studies at {', '.join(sorted({x for x in labels if labels.count(x) > 1}))}"
                           "; give one study per strength")
        values = {p: [f.value(p) for f in group] for p in pieces}
        change: dict[str, Triple] = {}
        if len(group) > 1:
            weak, strong = group[0], group[-1]
            for p in pieces:
                n = min(len(weak.boot), len(strong.boot))
                diff = strong.samples(p)[:n] - weak.samples(p)[:n]  # independent studies: paired draws
                lo, hi = np.nanquantile(diff, [0.025, 0.975])
                change[p] = (strong.value(p)[0] - weak.value(p)[0], float(lo), float(hi))
        rows.append(StrengthRow(variant, group[0].width, labels, [f.games for f in group], values, change))
    return rows


def format_strength(rows: list[StrengthRow]) -> str:
    """Markdown: per variant and strength the values, then the change per piece."""
    pieces = list(rows[0].values) if rows else []
    head = ["variant", "strength", "games", *pieces]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        for i, label in enumerate(r.strengths):
            lines.append("| " + " | ".join([f"{r.variant} ({r.width}×{r.width})", label, str(r.games[i])]
                                           + [f"{r.values[p][i][0]:.3f} ({r.values[p][i][1]:.3f}–"
                                              f"{r.values[p][i][2]:.3f})" for p in pieces]) + " |")
        if r.change:
            lines.append("| " + " | ".join([f"{r.variant} ({r.width}×{r.width})",
                                            f"{r.strengths[-1]} − {r.strengths[0]}", ""]
                                           + [f"{r.change[p][0]:+.3f} ({r.change[p][1]:+.3f}…{r.change[p][2]:+.3f})"
                                              for p in pieces]) + " |")
    return "\n".join(lines)


__all__ = ["StrengthRow", "format_strength", "strength_label", "strength_trend"]
