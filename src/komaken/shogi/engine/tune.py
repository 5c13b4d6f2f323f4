"""Texel tuning: fit a variant's evaluation parameters to the results of self-play games (or of
any game records: :func:`read_records`).

The evaluation is linear in its parameters (:mod:`komaken.shogi.engine._features`), so the Texel
method is a logistic regression: for every quiet position ``i`` of a game with result ``y_i``
(1 black won, ½ draw, 0 white won) the model says ``P(black wins) = σ(K · x_i · θ)`` with ``x_i``
the position's features and ``θ`` the parameters in centipawn-like units.  Steps:

1. games: self-play of the piece-values study (:mod:`komaken.lab.valuestudy.selfplay`, whole games
   in numba), stored in a study database that can be extended and resumed;
2. positions: every position after the random opening that is quiet — not in check and no
   capture sequence gains material (the study stores these flags per position);
3. ``K``: fitted by maximum likelihood with θ fixed at the current parameters ``θ0``, so the
   scale of the units stays that of the current evaluation;
4. θ: minimise the mean cross-entropy plus ``λ · Σ ((θ_j − θ0_j) / 100)²`` (ridge towards the
   current parameters, so a parameter the data say little about stays where it was); ``λ`` is
   chosen from a grid by the cross-entropy of one game in five held out, then the fit is redone
   on all games;
5. the result is rounded to integers and written as a complete parameter file.

The tempo (the bonus of the side to move) is held at its start value unless asked for
(``groups=[..., "tempo"]``): quiescence search lets the side to move stand pat on its static
evaluation, tempo included, while a capture hands the move — and the tempo — to the opponent, so a
capture only beats standing pat when it wins more than twice the tempo.  A fit measures the side
to move's average edge in quiet positions instead (291 on 9×9 against Fairy-Stockfish's scores,
1.5 pawns), and with that much the search stopped seeing a hanging pawn, lance or knight at its
horizon (docs/engine.md, 'Tempo').

Instead of the games' results, the targets can be a stronger engine's search scores of the same
positions (:mod:`komaken.lab.label`, read by
:func:`komaken.lab.valuestudy.positions.read_games` with ``labels``): position ``i`` then has
the target ``y_i = σ(s_i / scale)`` for its score ``s_i`` in black's view, and the same fit
follows — a soft target carries far more about one position than the result of a game decided
many moves later.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
from scipy.special import expit

from komaken import records
from komaken.errors import KomakenError
from komaken.records import format_of
from komaken.shogi._kernels import MAX_MOVES
from komaken.shogi.engine._context import capture_context
from komaken.shogi.engine._evaluate import O_MOB, O_RANK, O_SHIELD, O_TEMPO, O_UNDEFENDED, W_MOBILITY, W_SIZE
from komaken.shogi.engine._features import N_FEATURES, O_BOARD, O_HAND, game_features, record_features
from komaken.shogi.engine._search import MAX_PLY
from komaken.shogi.engine.evalparams import TABLE_RANGE, EvalParams, kind_code
from komaken.shogi.engine.values import MAX_PIECE_VALUE, PieceValues
from komaken.shogi.position import Position

LAMBDAS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6)
#: engine scores as targets: ``σ(score / LABEL_SCALE)``, and positions scored beyond ±LABEL_CAP left out
LABEL_SCALE = 600.0
LABEL_CAP = 3000
_TERMS = ("mobility", "king_safety", "psq")
#: the parameter groups ``tune(groups=...)`` can fit, as feature column ranges
GROUPS = {"material": ((O_BOARD, N_FEATURES),), "king_safety": ((O_SHIELD, O_TEMPO), (O_UNDEFENDED, W_SIZE)),
          "psq": ((O_RANK, O_MOB),), "mobility": ((O_MOB, O_SHIELD),), "tempo": ((O_TEMPO, O_TEMPO + 1),)}
#: the groups fitted when none are named: all but the tempo (see the module docstring)
DEFAULT_GROUPS = tuple(name for name in GROUPS if name != "tempo")


@dataclasses.dataclass
class Dataset:
    """Quiet positions: features ``X`` (black's view), results ``y`` and the game of each row."""

    X: np.ndarray
    y: np.ndarray
    game: np.ndarray
    games: int


@dataclasses.dataclass
class TuneResult:
    params: EvalParams
    k: float
    lam: float
    positions: int
    games: int
    #: mean cross-entropy on the held-out games: the start parameters, the tuned ones
    holdout_before: float
    holdout_after: float
    columns: int


def theta_of(params: EvalParams) -> np.ndarray:
    """The parameter vector the features multiply (term weights folded into the tables)."""
    theta = np.zeros(N_FEATURES, dtype=np.float64)
    w = params.weights()
    theta[O_RANK:W_SIZE] = w[O_RANK:]
    theta[O_MOB:O_MOB + 16] *= w[W_MOBILITY]
    theta[O_RANK:O_MOB] *= w[2]  # psq (rank, file)
    theta[O_TEMPO] *= w[2]  # tempo
    theta[O_MOB + 16:O_TEMPO] *= w[1]  # king safety
    theta[O_UNDEFENDED:W_SIZE] *= w[1]
    bval, hval = params.arrays()
    theta[O_BOARD:O_BOARD + 16] = bval[0x10:0x20]
    theta[O_HAND:O_HAND + 8] = hval[0]
    return theta


def quiet_rows(start: Position, moves: np.ndarray, opening_plies: int, keep: np.ndarray) -> np.ndarray:
    """The feature rows (black's view) of one game's positions that ``keep`` marks, counted from
    ``opening_plies``, the game being ``moves`` (move codes) from ``start``."""
    s = start.kernel_state(len(moves) + 8)
    out = np.zeros((int(keep.sum()), N_FEATURES), dtype=np.float64)
    n = game_features(s.bd, s.hd, s.st, s.hh, s.hist, s.rules, moves.astype(np.int64), opening_plies, keep, out)
    return out[:n]


def collect_positions(games: Iterable[tuple[np.ndarray, float | np.ndarray]], progress: Callable[[int], None] | None,
             empty: str) -> Dataset:
    """One :class:`Dataset` of each game's feature rows, labelled with its result (black's score;
    or one target per row) and its number, so the held-out split keeps a game's positions together; ``empty`` is the
    error when no rows come."""
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    gs: list[np.ndarray] = []
    for x, score in games:
        xs.append(x)
        ys.append(np.broadcast_to(np.asarray(score, dtype=np.float64), (len(x),)))
        gs.append(np.full(len(x), len(gs)))
        if progress is not None:
            progress(len(gs))
    if sum(len(x) for x in xs) == 0:
        raise KomakenError(empty)
    return Dataset(np.concatenate(xs), np.concatenate(ys), np.concatenate(gs), len(xs))


def record_files(paths: Sequence[str | Path]) -> list[Path]:
    """``paths`` with each folder replaced by the record files in it (by suffix, sorted)."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.is_file() and format_of(p) is not None)
        elif path.exists():
            files.append(path)
        else:
            raise KomakenError(f"no such record file or folder: {path}")
    return files


def read_records(paths: Sequence[str | Path], params: EvalParams, skip: int = 0,
                 progress: Callable[[int], None] | None = None) -> Dataset:
    """The quiet positions of game records (any format :mod:`komaken.records` reads; a folder
    stands for its record files) from ply ``skip`` on, each labelled with its game's result.
    A game with no result (中断, an unknown end) is left out; a game of another variant, or a
    record that cannot be read, raises an error naming the file (and the line)."""
    v = params.variant
    bval, hval = params.arrays()
    q = capture_context(bval, hval)
    scratch = np.zeros(MAX_MOVES, dtype=np.int64)

    def rows() -> Iterator[tuple[np.ndarray, float]]:
        for path in record_files(paths):
            for number, rec in enumerate(records.read_all(path), start=1):
                if rec.variant.name != v:
                    raise KomakenError(f"{path}: game {number} is {rec.variant.name}, not {v}")
                if rec.result is None:
                    continue
                start = rec.initial_position()
                moves = np.array([m.code for m in rec.moves], dtype=np.int64)
                s = start.kernel_state(len(moves) + MAX_PLY + 8)  # room for the capture search's plies too
                out = np.zeros((len(moves) + 1, N_FEATURES), dtype=np.float64)
                n = record_features(s, q, scratch, moves, skip, out)
                winner = rec.result.winner
                yield out[:n], 0.5 if winner is None else 1.0 - int(winner)

    return collect_positions(rows(), progress,
                    f"no quiet positions of {v} games with a result in {', '.join(map(str, paths))}")


def _ce(e: np.ndarray, y: np.ndarray) -> float:
    """Mean cross-entropy of results ``y`` under ``σ(e)``."""
    return float(np.mean(np.logaddexp(0.0, e) - y * e))


def fit_k(e0: np.ndarray, y: np.ndarray) -> float:
    """The scale ``K`` (per centipawn) that makes ``σ(K · e0)`` fit the results best."""
    from scipy.optimize import minimize_scalar  # here: scipy.optimize takes most of a second to import

    r = minimize_scalar(lambda k: _ce(k * e0, y), bounds=(1e-6, 0.05), method="bounded",
                        options={"xatol": 1e-8})
    return float(r.x)


def fit_theta(X: np.ndarray, y: np.ndarray, theta0: np.ndarray, k: float, lam: float) -> np.ndarray:
    """Minimise cross-entropy + ``lam · Σ((θ − θ0)/100)²`` over the columns of ``X`` (L-BFGS)."""
    from scipy.optimize import minimize

    n = len(y)
    scale = 100.0  # optimised in steps of 100 units, so the gradient is not tiny when K is small
    e0 = k * (X @ theta0)
    kx = (k * scale) * X

    def loss(d: np.ndarray) -> tuple[float, np.ndarray]:
        e = e0 + kx @ d
        grad = kx.T @ (expit(e) - y) / n + 2.0 * lam * d
        return _ce(e, y) + lam * float(d @ d), grad

    r = minimize(loss, np.zeros(len(theta0)), jac=True, method="L-BFGS-B",
                 options={"maxiter": 5000, "ftol": 1e-13, "gtol": 1e-9})
    return theta0 + scale * np.asarray(r.x)


def _columns(params: EvalParams, X: np.ndarray, mobility: bool, groups: Sequence[str] | None = None) -> np.ndarray:
    """Columns to fit: those that vary, for the variant's pieces (no king value; mobility optional),
    within ``groups`` (names of :data:`GROUPS`; default :data:`DEFAULT_GROUPS`)."""
    used = np.any(X != 0.0, axis=0)
    wanted = np.zeros_like(used)
    for name in DEFAULT_GROUPS if groups is None else groups:
        for lo, hi in GROUPS[name]:
            wanted[lo:hi] = True
    used &= wanted
    used[:O_RANK] = False
    used[O_BOARD + 8] = False  # the king is not material
    if not mobility:
        used[O_MOB:O_MOB + 16] = False
    present = {kind_code(k) for k in params.letters()}
    for code in range(16):
        if code not in present:
            used[O_BOARD + code] = False
    return np.flatnonzero(used)


def tune(params: EvalParams, data: Dataset, *, lambdas: Sequence[float] = LAMBDAS, mobility: bool = True,
         holdout_every: int = 5, log: Callable[[str], None] | None = None,
         groups: Sequence[str] | None = None) -> TuneResult:
    """Fit ``params`` (the start, also the ridge's centre) to ``data``; see the module docstring.
    ``groups`` (names of :data:`GROUPS`; default :data:`DEFAULT_GROUPS`, all but the tempo) fits
    only those parameters, the rest keeps its start values; ``K`` is then fitted on the evaluation
    those columns make."""
    say = log or (lambda _s: None)
    theta0 = theta_of(params)
    if groups is not None and "mobility" not in groups:
        mobility = False
    cols = _columns(params, data.X, mobility, groups)
    X = data.X[:, cols]
    t0 = theta0[cols]
    k = fit_k(X @ t0, data.y)
    held = (data.game % holdout_every) == 0
    if held.all() or not held.any():
        held = np.zeros(len(data.y), dtype=bool)
        held[::holdout_every] = True
    train = ~held
    before = _ce(k * (X[held] @ t0), data.y[held])
    say(f"{len(data.y)} quiet positions from {data.games} games, {len(cols)} parameters, K = {k:.6f}; "
        f"held-out cross-entropy with the start parameters {before:.5f}")
    best = (math.inf, lambdas[0])
    for lam in lambdas:
        t = fit_theta(X[train], data.y[train], t0, k, lam)
        ce = _ce(k * (X[held] @ t), data.y[held])
        say(f"  lambda {lam:g}: held-out cross-entropy {ce:.5f}")
        best = min(best, (ce, lam))
    theta = theta0.copy()
    theta[cols] = fit_theta(X, data.y, t0, k, best[1])
    return TuneResult(_params_of(params, theta, mobility), k, best[1], len(data.y), data.games, before,
                      best[0], len(cols))


def _params_of(params: EvalParams, theta: np.ndarray, mobility: bool) -> EvalParams:
    """Round ``theta`` into a parameter set (term weights 1; mobility 0 when not tuned)."""
    theta = np.round(theta)
    tables = np.clip(theta[O_RANK:W_SIZE], -TABLE_RANGE, TABLE_RANGE)
    board, hand = {}, {}
    for letter in params.letters():
        if letter == "K":
            continue
        board[letter] = int(np.clip(theta[O_BOARD + kind_code(letter)], -MAX_PIECE_VALUE, MAX_PIECE_VALUE))
        if not letter.startswith("+"):
            hand[letter] = int(np.clip(theta[O_HAND + kind_code(letter)], -MAX_PIECE_VALUE, MAX_PIECE_VALUE))
    values = PieceValues({**params.values.board, **board}, {**params.values.hand, **hand})
    terms = {name: 1.0 for name in _TERMS}
    if not mobility:  # mobility stays as it was, weight and table
        terms["mobility"] = params.terms["mobility"]
        tables[O_MOB - O_RANK:O_MOB - O_RANK + 16] = params.tables[O_MOB - O_RANK:O_MOB - O_RANK + 16]
    return params.with_tables(tables, values, terms, source="tuned")


__all__ = ["DEFAULT_GROUPS", "Dataset", "GROUPS", "LABEL_CAP", "LABEL_SCALE", "LAMBDAS", "TuneResult",
           "collect_positions", "fit_k", "fit_theta", "quiet_rows", "read_records",
           "record_files", "theta_of", "tune"]
