"""Method A: piece values from a logistic regression of game results on material (Texel-style).

For every quiet position of every stored game (not in check, and a material-only capture search
gains nothing over the static material count — see docs/piece-values-by-board-size.md §1.5)::

    logit P(black wins) = c + s·[black to move] + Σ_k v_k · (count_k(black) − count_k(white))

one k per unpromoted kind (board and hand pooled) and per promoted kind.  The response is the
game's score for black (1, ½, 0), fitted as a fractional logit with statsmodels' binomial GLM.
Identical rows are merged with frequency weights (material signatures repeat a lot), so a fit
over millions of positions takes milliseconds.

Positions of one game share its result and are strongly dependent, so the 95 % intervals come
from a bootstrap that resamples **whole games**: each resample draws games with replacement,
refits, and the intervals are percentiles of the refitted ratios v_k / v_G (gold units) and
v_k / v_P (pawn units).

**Strong labels.**  Given a label file (:mod:`komaken.lab.label`: a stronger engine's search score
of each quiet position), the response of a position is ``σ(score / scale)`` instead of its game's
result, and only the labelled positions of the labelled games enter.  The same regression then
reads the values off the stronger engine's judgement of the very positions the study's players
reached; the ratios hardly depend on ``scale`` (it divides every coefficient alike).
"""

from __future__ import annotations

import tomllib
import warnings
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError
from komaken.lab.label import describe_labels, label_targets, load_labels
from komaken.lab.storage import ExperimentDB
from komaken.lab.valuestudy.games import open_study, study_games
from komaken.shogi.engine.selfplay import COL_FLAGS, COL_SIDE, NF, NOT_QUIET
from komaken.shogi.engine.tune import LABEL_SCALE
from komaken.shogi.variant import variant_from_dict

UNPROMOTED = ("P", "L", "N", "S", "G", "B", "R")
PROMOTED = ("+P", "+L", "+N", "+S", "+B", "+R")


class FitError(KomakenError):
    """A fit that cannot be made: too few games, a piece that never varies."""


def letter_columns(letter: str) -> list[int]:
    """Feature columns (of black; white's are +20) counted for ``letter``."""
    if letter in UNPROMOTED:
        i = UNPROMOTED.index(letter)
        return [i, 13 + i]  # on the board, in hand
    return [7 + PROMOTED.index(letter)]


def design(feat: np.ndarray, letters: tuple[str, ...]) -> np.ndarray:
    """Material differences (black − white) per letter, then [black to move]: ``int16[rows, k+1]``."""
    f = feat.astype(np.int16)
    cols = [f[:, letter_columns(x)].sum(axis=1) - f[:, [c + 20 for c in letter_columns(x)]].sum(axis=1)
            for x in letters]
    cols.append((f[:, COL_SIDE] == 0).astype(np.int16))
    return np.stack(cols, axis=1)


@dataclass
class Positions:
    """The quiet positions of a study, ready to fit: rows ``x``, response ``y``, game of each row;
    ``scored``: ``y`` is a labelling engine's squashed score, not the game's result."""

    letters: tuple[str, ...]
    x: np.ndarray
    y: np.ndarray
    game: np.ndarray
    games: int
    positions: int
    scored: bool = False


def load_positions(db: ExperimentDB, letters: tuple[str, ...] | None = None,
                   labels: dict[int, dict[int, int]] | None = None, scale: float = LABEL_SCALE,
                   games: Collection[int] | None = None) -> Positions:
    """Read every game's quiet positions (the rows the regression uses); ``games``: only the games
    of these indexes.  Given ``labels`` (:func:`komaken.lab.label.load_labels`), only the labelled
    games and, of them, the positions labelled short of a decided score (|score| < ``LABEL_CAP``),
    each with ``σ(score / scale)``."""
    config = db.config()
    if letters is None:
        letters = variant_letters(config)
    xs, ys, gs = [], [], []
    total = 0
    n_games = 0
    for g in study_games(db):
        if games is not None and g.game_index not in games:
            continue
        scores = None if labels is None else labels.get(g.game_index)
        if labels is not None and not scores:
            continue  # outside the labelled sample
        feat = g.feature_array(config.get("features", NF))
        total += len(feat)
        quiet = (feat[:, COL_FLAGS] & NOT_QUIET) == 0
        y = np.full(int(quiet.sum()), g.score)
        if scores is not None:
            idx = np.flatnonzero(quiet)
            scored, y = label_targets(scores, g.opening_plies + idx, scale)
            quiet[idx[~scored]] = False
        if not quiet.any():
            continue
        xs.append(design(feat[quiet], letters))
        ys.append(y)
        gs.append(np.full(int(quiet.sum()), n_games))
        n_games += 1
    if not xs:
        return Positions(letters, np.zeros((0, len(letters) + 1), np.int16), np.zeros(0), np.zeros(0, np.int64), 0,
                         total, labels is not None)
    return Positions(letters, np.concatenate(xs), np.concatenate(ys), np.concatenate(gs), n_games, total,
                     labels is not None)


def start_design(config: dict[str, Any]) -> str:
    """How a study's games start: ``level``, ``exchange 2`` (``--imbalance``) or ``odds B,R,G remove``."""
    if config.get("odds"):
        return f"odds {','.join(config['odds'])} {config['odds_mode']}"
    n = int(config.get("imbalance", 0))
    return f"{config.get('imbalance_mode', 'remove')} {n}" if n else "level"


def variant_letters(config: dict[str, Any]) -> tuple[str, ...]:
    """The non-king piece letters of the study's variant, promoted ones last."""


    v = variant_from_dict(tomllib.loads(config["variant_toml"]), source="<study>")
    return tuple(x for x in v.piece_letters if x != "K")


@dataclass
class FitResult:
    """Fitted logit coefficients (per unit of material difference) with bootstrap samples."""

    variant: str
    width: int
    config: dict[str, Any]
    letters: tuple[str, ...]
    coef: np.ndarray  # per letter, then the side-to-move term, then the intercept
    boot: np.ndarray  # bootstrap coefficients, shape (B, len(coef))
    games: int
    positions: int
    quiet_positions: int
    dropped: tuple[str, ...] = field(default_factory=tuple)
    seconds: float = 0.0  # summed wall seconds of the games as the workers measured them
    targets: str = "results"  # or the labelling engine: describe_labels()

    @property
    def imbalance(self) -> int:
        """Pieces removed from every start (0: the pre-registered level start)."""
        return int(self.config.get("imbalance", 0))

    @property
    def design(self) -> str:
        """How games start: :func:`start_design`."""
        return start_design(self.config)

    @property
    def level(self) -> bool:
        """Whether games start from the variant's start (the pre-registered design)."""
        return self.design == "level"

    def _ratio(self, letter: str, unit: str, coef: np.ndarray) -> np.ndarray:
        i, j = self.letters.index(letter), self.letters.index(unit)
        return coef[..., i] / coef[..., j]

    def value(self, letter: str, unit: str = "G", level: float = 0.95) -> tuple[float, float, float]:
        """``(estimate, low, high)`` of ``letter`` in units of ``unit`` (gold by default)."""
        if letter not in self.letters or unit not in self.letters:
            return (float("nan"),) * 3  # type: ignore[return-value]
        est = float(self._ratio(letter, unit, self.coef))
        samples = self._ratio(letter, unit, self.boot)
        a = (1 - level) / 2
        lo, hi = np.nanquantile(samples, [a, 1 - a])
        return est, float(lo), float(hi)

    def samples(self, letter: str, unit: str = "G") -> np.ndarray:
        return self._ratio(letter, unit, self.boot)

    def as_dict(self) -> dict[str, Any]:
        def triple(x: str, u: str) -> list[float]:
            return [round(v, 4) for v in self.value(x, u)]

        return {
            "variant": self.variant, "width": self.width, "games": self.games, "positions": self.positions,
            "quiet_positions": self.quiet_positions, "bootstrap": len(self.boot),
            "nodes": self.config.get("nodes"), "depth": self.config.get("depth"), "start": self.design,
            "game_seconds": round(self.seconds, 1), "targets": self.targets,
            "logit": {x: round(float(c), 5) for x, c in zip(self.letters, self.coef, strict=False)},
            "side_to_move": round(float(self.coef[len(self.letters)]), 5),
            "gold_units": {x: triple(x, "G") for x in self.letters},
            "pawn_units": {x: triple(x, "P") for x in self.letters} if "P" in self.letters else {},
            "dropped": list(self.dropped),
        }


def _glm(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    import statsmodels.api as sm

    keep = w > 0
    exog = np.column_stack([x[keep].astype(np.float64), np.ones(int(keep.sum()))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sm.GLM(y[keep], exog, family=sm.families.Binomial(), freq_weights=w[keep]).fit()
    return np.asarray(res.params)


def newton(x: np.ndarray, y: np.ndarray, w: np.ndarray, start: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """The same maximum-likelihood fit as :func:`_glm` by Newton–Raphson from ``start`` (the
    point estimate): a bootstrap replicate converges in a few steps, without statsmodels' per-fit
    overhead.  Each step evaluates the linear predictor once at the point it tries (step halving
    keeps every step uphill) and reuses it for the next gradient.  The tests check it against
    statsmodels."""
    exog = np.column_stack([x.astype(np.float64), np.ones(len(x))])
    beta = start.astype(np.float64).copy()

    def loglik(b: np.ndarray) -> tuple[float, np.ndarray]:
        eta = np.clip(exog @ b, -35, 35)
        return float(np.sum(w * (y * eta - np.logaddexp(0, eta)))), eta

    current, eta = loglik(beta)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-eta))
        grad = exog.T @ (w * (y - p))
        hess = (exog * (w * p * (1 - p))[:, None]).T @ exog
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]  # minimum-norm, like statsmodels' pinv
        t = 1.0
        new, new_eta = loglik(beta + step)
        while t > 1e-4 and new < current - 1e-12:
            t /= 2
            new, new_eta = loglik(beta + t * step)
        beta += t * step
        if abs(new - current) < tol * (1 + abs(new)) and np.max(np.abs(t * step)) < 1e-7:
            break
        current, eta = new, new_eta
    return beta


def unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, axis=0, return_inverse=True)``, several times faster on millions of rows: the
    rows are told apart as blocks of bytes, and only the distinct ones are then sorted into
    ``np.unique``'s order (the fits are order-sensitive when the design is singular)."""
    a = np.ascontiguousarray(a)
    blocks = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
    _, first, inverse = np.unique(blocks, return_index=True, return_inverse=True)
    uniq = a[first]
    order = np.lexsort(uniq.T[::-1])
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return uniq[order], rank[inverse.ravel()]


def fit_positions(p: Positions, *, bootstrap: int = 500, seed: int = 0,
                  row_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Point fit and whole-game bootstrap; letters whose difference never varies are dropped.
    ``row_weight`` weighs each position (default 1; 1/(its game's positions) weighs every game
    once)."""
    varies = [i for i in range(len(p.letters)) if p.x[:, i].std() > 0]
    dropped = tuple(p.letters[i] for i in range(len(p.letters)) if i not in varies)
    # the side to move never varies in some samples (every game's first position, after an even
    # number of opening plies): it is then the intercept itself, and kept would make the design
    # singular, so it leaves the fit and its coefficient is 0
    side = p.x[:, len(p.letters)].std() > 0
    cols = varies + ([len(p.letters)] if side else [])
    if p.scored:
        # continuous targets: rows of one material signature merge into one with their weighted mean
        # target (the binomial likelihood is linear in y, so the fit is the same)
        ux, inverse = unique_rows(p.x[:, cols])

        def merged(w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
            wt = np.bincount(inverse, weights=w, minlength=len(ux)).astype(np.float64)
            wy = np.bincount(inverse, weights=p.y if w is None else w * p.y, minlength=len(ux))
            return np.divide(wy, wt, out=np.zeros_like(wy), where=wt > 0), wt
    else:
        uniq, inverse = unique_rows(np.column_stack([p.x[:, cols], np.round(p.y * 2).astype(np.int16)]))
        ux, halves = uniq[:, :-1], uniq[:, -1] / 2.0

        def merged(w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
            return halves, np.bincount(inverse, weights=w, minlength=len(uniq)).astype(np.float64)

    coef = _glm(ux, *merged(row_weight))
    rng = np.random.default_rng(seed)
    boot = np.empty((bootstrap, len(coef)))
    for b in range(bootstrap):
        gw = rng.multinomial(p.games, np.full(p.games, 1.0 / p.games)).astype(np.float64)
        w = gw[p.game] if row_weight is None else gw[p.game] * row_weight
        boot[b] = newton(ux, *merged(w), coef)
    if not side:  # the layout stays: letters, side to move, intercept
        coef = np.insert(coef, len(varies), 0.0)
        boot = np.insert(boot, len(varies), 0.0, axis=1)
    return coef, boot, dropped


def fit_study(db_path: str | Path, *, bootstrap: int = 500, min_games: int = 200, seed: int = 0,
              labels: str | Path | None = None, scale: float = LABEL_SCALE,
              games: Collection[int] | None = None) -> FitResult:
    """Fit method A on a study database (``FitError`` if it holds too few games); with ``labels``
    (a label file of this study) on the labelling engine's scores of its labelled games;
    ``games``: only the games of these indexes."""
    scores = None if labels is None else load_labels(labels, db_path)
    with open_study(db_path) as db:
        config = db.config()
        p = load_positions(db, labels=scores, scale=scale, games=games)
        seconds = db.seconds()
    if p.games < min_games:
        if labels is not None:
            raise FitError(
                f"{labels}: {p.games} labelled games with quiet positions; the fit needs at least {min_games} "
                f"(label more: `komaken values label --db {db_path} --labels {labels} --games N ...`)")
        raise FitError(
            f"{db_path}: {p.games} games with quiet positions stored; the fit needs at least {min_games} "
            f"(continue it: `komaken values selfplay --db {db_path} --games N ...` with N above {min_games})"
        )
    if "G" not in p.letters or p.x[:, p.letters.index("G")].std() == 0:
        raise FitError(f"{db_path}: the gold difference never varies in the quiet positions; no gold units")
    coef, boot, dropped = fit_positions(p, bootstrap=bootstrap, seed=seed)
    letters = tuple(x for x in p.letters if x not in dropped)
    return FitResult(config["variant"], config["width"], config, letters, coef, boot, p.games, p.positions,
                     len(p.y), dropped, seconds, "results" if labels is None else describe_labels(labels))


def format_fit(r: FitResult) -> str:
    """A plain-text table of the fit."""
    budget = f"{r.config['nodes']} nodes/move" if r.config.get("nodes") else f"depth {r.config.get('depth')}/move"
    if r.imbalance:
        verb = {"transfer": "moved to the other hand", "exchange": "exchanged (black's, white's in turn)"}.get(
            str(r.config.get("imbalance_mode")), "removed")
        budget += f", {r.imbalance} pieces {verb} per start"
    elif not r.level:
        budget += f", {r.design} starts"
    targets = "" if r.targets == "results" else f"; targets: {r.targets}'s scores"
    lines = [f"{r.variant} ({r.width}x{r.width}, {budget}): {r.games} games, {r.positions} positions, "
             f"{r.quiet_positions} quiet{targets}; {len(r.boot)} whole-game bootstrap resamples",
             f"{'piece':>6} {'gold units (95% CI)':>26} {'pawn units (95% CI)':>28}"]
    for x in r.letters:
        g = r.value(x, "G")
        p = r.value(x, "P") if "P" in r.letters else (float("nan"),) * 3
        lines.append(f"{x:>6} {g[0]:8.3f} ({g[1]:6.3f} … {g[2]:6.3f}) {p[0]:9.2f} ({p[1]:7.2f} … {p[2]:7.2f})")
    lines.append(f"side to move (black): {r.coef[len(r.letters)]:+.3f} logit; intercept {r.coef[-1]:+.3f}")
    if r.dropped:
        lines.append(f"never varied (not fitted): {', '.join(r.dropped)}")
    return "\n".join(lines)


def write_values_toml(r: FitResult, path: str | Path, gold: int = 1200) -> Path:
    """Write the fitted values as a :class:`komaken.shogi.engine.PieceValues` TOML (gold = ``gold``)."""
    path = Path(path)
    start = "" if r.level else f", {r.design} starts"
    lines = [f"# Piece values fitted by `komaken values fit` on {r.variant} ({r.games} games{start}, "
             f"{r.quiet_positions} quiet positions); gold anchored at {gold}.",
             "# 95% whole-game bootstrap intervals in gold units after each value."]
    for x in r.letters:
        est, lo, hi = r.value(x, "G")
        key = f'"{x}"' if x.startswith("+") else x
        lines.append(f"{key} = {max(1, round(est * gold))}  # {est:.3f} ({lo:.3f} … {hi:.3f})")
    table = {x: max(1, round(r.value(x, "G")[0] * gold)) for x in r.letters}
    inline = ", ".join(f'"{x}" = {v}' if x.startswith("+") else f"{x} = {v}" for x, v in table.items())
    lines += ["", "# Use: komaken play --sente engine:nodes=1000,values=THIS_FILE ...",
              f"# experiment files: values = {{ {inline} }}",
              "# komaken usi: " + "; ".join(f"setoption name Value_{x} value {v}" for x, v in table.items())]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
