"""Piece value against board size: the laws fitted to a study's values, and which study stands
for a variant.

A point is ``(n, value, low, high)``: a board size and a piece's value with its 95 % interval.
The laws are weighted least squares with weights from the interval widths: straight lines
(a + b·n, a + b/n) and a saturation (c − d·q^(n−5)); Fairy-Stockfish's (n+3)/12 slider scale is
the reference the pre-registered hypotheses test against (:mod:`komaken.lab.valuestudy.hypotheses`).
"""

from __future__ import annotations

import numpy as np

from komaken.lab.valuestudy.fit import FitResult

Point = tuple[int, float, float, float]


def fsf_factor(n: int) -> float:
    """Fairy-Stockfish's slider scale for an n×n drop variant, relative to 9×9."""
    return (n + 3) / 12


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


def _standard_errors(points: list[Point]) -> np.ndarray:
    """Each point's standard error from its 95 % interval (width / 3.92), floored above zero."""
    return np.maximum(np.array([(p[3] - p[2]) / 3.92 for p in points]), 1e-6)


def linear_law(points: list[Point], inverse: bool = False) -> dict[str, float] | None:
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


def saturation_law(points: list[Point]) -> dict[str, float] | None:
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


def series(fits: list[FitResult], fam: str, letter: str) -> list[Point]:
    main = [p for v in sorted({f.variant for f in fits if family(f) == fam})
            if (p := primary(fits, v)) is not None]
    return [(f.width, *f.value(letter)) for f in sorted(main, key=lambda f: f.width)
            if not np.isnan(f.value(letter)[0])]



__all__ = ["Point", "budget", "family", "fsf_factor", "linear_law", "primary", "saturation_law", "series"]
