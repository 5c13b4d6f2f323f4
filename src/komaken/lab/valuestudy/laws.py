"""Piece value against board size: the laws fitted to a study's values, and which study stands
for a variant.

A point is ``(n, value, low, high)``: a board size and a piece's value with its 95 % interval.
The laws are weighted least squares with weights from the interval widths: straight lines
(a + b·n, a + b/n) and a saturation (c − d·q^(n−5)); Fairy-Stockfish's (n+3)/12 slider scale is
the reference the pre-registered hypotheses test against (:mod:`komaken.lab.valuestudy.hypotheses`).
"""

from __future__ import annotations

import numpy as np

from komaken.lab.valuestudy.fit import FitError, FitResult

Point = tuple[int, float, float, float]


def fsf_factor(n: int) -> float:
    """Fairy-Stockfish's slider scale for an n×n drop variant, relative to 9×9."""
    return (n + 3) / 12


#: Fairy-Stockfish's base values (middle game, end game) of the pieces the study compares, as in
#: its source's piece-value table (the master branch; 11.1 differs for the gold: 640, 640).
FSF_BASE = {"master": {"B": (825, 915), "R": (1276, 1380), "G": (720, 700), "S": (660, 640), "P": (90, 100)},
            "11.1": {"B": (825, 915), "R": (1276, 1380), "G": (640, 640), "S": (630, 630), "P": (90, 100)}}


def fsf_value(letter: str, n: int, version: str = "master", phase: int = 0) -> float:
    """A piece's value as Fairy-Stockfish computes it for an n×n drop variant (before its
    piece-square term; ``phase`` 0 middle game, 1 end game), in its internal units:

    * a slider's (B, R) base value times (5 + r)/12 — r = (maxRank + maxFile)/2 with 0-based
      coordinates, less one for a drop variant on the master branch (so (n+3)/12, 1 on 9×9), not
      on 11.1 (so (n+4)/12, 13/12 on 9×9);
    * then, for every drop variant, v·7000/(7000 + v), a saturation that compresses the big values;
    * then halved.

    Integer arithmetic as in the engine.  11.1's behaviour is the Debian binary's (11.1-1+b1),
    whose evaluation trace gives exactly these values plus a constant (45, 10) for a piece in hand."""
    base = FSF_BASE[version][letter][phase]
    if letter in ("B", "R"):
        base = base * (n + (3 if version == "master" else 4)) // 12
    return (base * 7000 // (7000 + base)) // 2


def fsf_ratio(letter: str, n: int, version: str = "master", phase: int = 0) -> float:
    """v(n)/v(9) of a piece as Fairy-Stockfish computes it (what hypothesis H1 compares with)."""
    return fsf_value(letter, n, version, phase) / fsf_value(letter, 9, version, phase)


def family(f: FitResult) -> str:
    return "controlled" if f.variant.startswith("ctrl") else "standard"


def budget(f: FitResult) -> str:
    """The node budget (or depth), and the start design when it is not the level start."""
    text = f"{f.config['nodes']} nodes" if f.config.get("nodes") else f"depth {f.config.get('depth')}"
    return text + ("" if f.level else f", {f.design}")


def primary(fits: list[FitResult], variant: str, nodes: int = 1000) -> FitResult | None:
    """The study the laws and hypotheses use for ``variant`` at ``nodes``: an imbalance-start
    study when there is one (the more precise design, docs/piece-values-by-board-size.md §2.5),
    else the level-start one (never an odds study); among several, the one with the most games."""
    cands = [f for f in fits if f.variant == variant and f.config.get("nodes") == nodes and not f.config.get("odds")]
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


def hill_law(points: list[Point]) -> dict[str, float] | None:
    """Weighted non-linear least squares of the Hill curve v = c·n^h / (k^h + n^h): a value that
    rises from 0 on a board of no size to the ceiling ``c``, half of it at n = ``k``, ``h`` the
    steepness.  The alternative to :func:`saturation_law` with as many parameters (three), and so
    the same fit to the five sizes measured but a different extrapolation outside them.  ``c``,
    ``k``, ``h``, their standard errors and χ² per degree of freedom; ``None`` with fewer than four
    sizes or when the fit fails."""
    from scipy.optimize import curve_fit

    if len({p[0] for p in points}) < 4:
        return None
    n = np.array([p[0] for p in points], float)
    v = np.array([p[1] for p in points])
    se = _standard_errors(points)
    try:
        (c, k, h), cov = curve_fit(_hill, n, v, p0=(v[-1], float(np.median(n)), 4.0), sigma=se, absolute_sigma=True,
                                   bounds=([0.0, 0.0, 0.0], [np.inf, np.inf, 100.0]), maxfev=20000)
    except (RuntimeError, ValueError):
        return None
    err = np.sqrt(np.abs(np.diag(cov)))
    chi2 = float(np.sum(((v - _hill(n, c, k, h)) / se) ** 2))
    return {"c": float(c), "k": float(k), "h": float(h), "se_c": float(err[0]), "se_k": float(err[1]),
            "se_h": float(err[2]), "chi2_dof": chi2 / (len(n) - 3), "points": len(n)}


def _hill(n: np.ndarray | float, c: float, k: float, h: float) -> np.ndarray:
    return np.asarray(c * n**h / (k**h + n**h))


def law_value(law: str, params: dict[str, float], n: float) -> float:
    """The value a fitted law (``"saturation"`` or ``"hill"``) gives on an n×n board."""
    if law == "saturation":
        return params["c"] - params["d"] * params["q"] ** (n - 5)
    if law == "hill":
        return float(_hill(float(n), params["c"], params["k"], params["h"]))
    raise FitError(f"law {law!r}: expected 'saturation' or 'hill'")


def extrapolate(points: list[Point], law: str, n: int, draws: int = 2000,
                seed: int = 0) -> tuple[float, float, float, int]:
    """A law's prediction for an n×n board it was not fitted to, with a 95 % interval: the value
    of the law fitted to ``points`` at ``n``, and the 2.5 and 97.5 percentiles over ``draws``
    refits to points drawn from normal distributions about the measured values (each with its
    standard error from its interval, scaled up by √(χ²/dof) when the law fits worse than the
    errors allow).  Also returns how many refits failed (they are left out)."""
    fit = {"saturation": saturation_law, "hill": hill_law}.get(law)
    best = fit(points) if fit else None
    if fit is None or best is None:
        raise FitError(f"the {law!r} law cannot be fitted to these {len(points)} points (laws: 'saturation', 'hill')")
    se = _standard_errors(points) * np.sqrt(max(1.0, best["chi2_dof"]))
    rng = np.random.default_rng(seed)
    preds, failed = [], 0
    for _ in range(draws):
        values = rng.normal([p[1] for p in points], se)
        again = fit([(p[0], float(v), float(v - 1.96 * s), float(v + 1.96 * s))
                     for p, v, s in zip(points, values, se, strict=True)])
        if again is None:
            failed += 1
        else:
            preds.append(law_value(law, again, n))
    lo, hi = np.percentile(preds, [2.5, 97.5])
    return law_value(law, best, n), float(lo), float(hi), failed


def series(fits: list[FitResult], fam: str, letter: str) -> list[Point]:
    main = [p for v in sorted({f.variant for f in fits if family(f) == fam})
            if (p := primary(fits, v)) is not None]
    return [(f.width, *f.value(letter)) for f in sorted(main, key=lambda f: f.width)
            if not np.isnan(f.value(letter)[0])]



__all__ = ["FSF_BASE", "Point", "budget", "extrapolate", "family", "fsf_factor", "fsf_ratio", "fsf_value", "hill_law",
           "law_value", "linear_law", "primary", "saturation_law", "series"]
