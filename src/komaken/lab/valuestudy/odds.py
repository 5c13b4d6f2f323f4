"""Method B: piece values from material-odds games (H. G. Muller's method), run by the lab.

The same engine plays both sides; one side starts without one piece X.  The handicapped side's
score s_X gives an Elo deficit D_X = −400·log10(s_X / (1 − s_X)), and X's value in gold units
is D_X / D_G, the deficit relative to giving gold odds.  Intervals: a bootstrap over games.

Nothing here plays games itself.  :func:`write_odds_experiment` writes the odds starts as an
SFEN openings file and an ordinary lab experiment file beside the database; the lab
(:func:`komaken.lab.run_experiment`) plays them — resumable, kill-safe, Dask-ready — with one
pairing of the engine against itself, colours alternating.  The starts cycle through (piece,
handicapped colour) so every piece is played with the handicap on sente and on gote, each from a
few random plies (seeded) so the games differ; each start is played twice (the lab's alternating
pairs), with different noise seeds.
"""

from __future__ import annotations

import math
import random
import tomllib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from komaken.lab import limits
from komaken.lab.config import experiment_from_dict, load_experiment
from komaken.lab.migrate import SELFPLAY
from komaken.lab.openings import derive_seed
from komaken.lab.runner import run_experiment
from komaken.lab.stats import format_estimate, wilson_interval
from komaken.lab.storage import ExperimentDB, kind_of
from komaken.lab.valuestudy.imbalance import OddsError, odds_start, parse_pieces
from komaken.lab.valuestudy.selfplay import default_max_plies
from komaken.shogi import Position
from komaken.shogi.variant import Variant, load_variant, shipped_id

NAME_PREFIX = "values-odds"
SATURATED = 0.02  # a score interval reaching this close to 0 or 1 cannot be turned into a value


def odds_openings(variant: Variant, letters: tuple[str, ...], games: int, seed: int,
                  random_plies: int = 2) -> list[str]:
    """Start SFENs in the order the lab plays them: opening k is piece ``(k // 2) % len(letters)``
    with the handicap on colour ``k % 2``; games 2k and 2k+1 play opening k."""
    rounds = max(1, math.ceil(games / 4))
    out = []
    for r in range(rounds):
        for letter in letters:
            for color in (0, 1):
                start = odds_start(variant, letter, color)
                out.append(_random_plies(variant, start, random_plies, derive_seed(seed, "odds", letter, color, r)))
    return out


def _random_plies(variant: Variant, sfen: str, plies: int, seed: int) -> str:
    rng = random.Random(seed)
    for _attempt in range(100):
        pos = Position.from_sfen(sfen, variant)
        for _ in range(plies):
            legal = pos.legal_moves()
            if not legal or pos.outcome() is not None:
                break
            pos.push(rng.choice(legal))
        if pos.ply == plies and pos.outcome() is None:
            return pos.sfen()
    return sfen


def write_odds_experiment(variant_spec: str, pieces: str, *, games: int, db: str | Path, nodes: int = 1000,
                          seed: int = 0, noise: float = 10.0) -> Path:
    """Write ``DB.odds/odds.sfen`` and ``DB.odds/experiment.toml``; return the experiment file.

    Everything is checked before a file is written — the pieces, every odds start, and that an
    existing ``db`` holds this very odds study — so a refused run leaves the disk as it was."""
    variant = load_variant(variant_spec)
    letters = parse_pieces(pieces, variant)
    if games % 4 or limits.out_of_range(games, limits.ODDS_GAMES):
        # games 4r .. 4r+3 of a piece: its start with the handicap on black and on white, each played
        # from both sides; any other count would leave some pieces with fewer games than asked, or none
        raise OddsError(f"--games must be a multiple of 4 in {limits.span(limits.ODDS_GAMES)} per piece (the "
                        f"handicap on either colour, each start from both sides), got {games}")
    sfens = odds_openings(variant, letters, games, seed)
    vspec = shipped_id(variant_spec) or str(Path(variant_spec).resolve())
    text = _experiment_text(variant, vspec, letters, games=games, seed=seed, nodes=nodes, noise=noise)
    text = _refuse_another_db(Path(db), text, sfens)
    folder = Path(str(db) + ".odds")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "odds.sfen").write_text(
        f"# odds starts for {variant.name}: opening k lacks {{{','.join(letters)}}}[(k // 2) % {len(letters)}] "
        "of colour k % 2\n" + "\n".join(sfens) + "\n", encoding="utf-8")
    path = folder / "experiment.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _experiment_text(variant: Variant, vspec: str, letters: tuple[str, ...], *, games: int, seed: int,
                     nodes: int, noise: float) -> str:
    return f"""# material odds for {variant.name}: written by `komaken values odds`
[experiment]
name = "{NAME_PREFIX}:{variant.name}:{','.join(letters)}"
variant = "{vspec}"
games = {games * len(letters)}
seed = {seed}
max_plies = {default_max_plies(variant)}

[players.engine]
engine = "engine"
nodes = {nodes}
eval = {{ noise = {noise:g} }}

[[pairings]]
name = "odds"
a = "engine"
b = "engine"
colors = "alternate"

[openings]
file = "odds.sfen"
"""


#: the odds player under its other type name, as stored studies may hold it (nodes only, so
#: the same player); a study stored that way continues that way
_OLD_PLAYER = ('engine = "engine"', 'engine = "komaken"')


def _refuse_another_db(db: Path, text: str, sfens: list[str]) -> str:
    """An existing ``db`` must hold this odds study (the same configuration but for the game count,
    as the lab requires): refuse a self-play study, another odds study or any other file, read-only.
    The experiment text to run: ``text``, or its older spelling when ``db`` was written with that."""
    if not (db.exists() and db.stat().st_size > 0):
        return text

    if kind_of(db) == SELFPLAY:
        raise OddsError(f"{db}: holds a `komaken values selfplay` study, not odds games; refusing to touch it "
                        "(use another --db)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # a study stored with the old player type name
        with ExperimentDB.open(db, upgrade=False) as edb:
            stored = edb.experiment()
        for candidate in (text, text.replace(*_OLD_PLAYER)):
            raw = tomllib.loads(candidate)
            raw["openings"] = {"sfens": sfens}  # as the lab stores an openings file
            new = experiment_from_dict(raw, source=str(db))
            if stored.identity() == new.identity():
                return candidate
    other = "other settings of this study" if stored.name == new.name else f"experiment {stored.name!r}"
    raise OddsError(f"{db}: holds {other}; refusing to mix results (use another --db)")


def run_odds(variant: str, pieces: str, *, games: int, db: str | Path, nodes: int = 1000, workers: int = 1,
             dask: str | None = None, seed: int = 0) -> Any:
    """Write the odds experiment and let the lab play it into ``db``."""

    path = write_odds_experiment(variant, pieces, games=games, db=db, nodes=nodes, seed=seed)
    return run_experiment(load_experiment(path), db, workers=workers, dask=dask)


@dataclass
class OddsPiece:
    letter: str
    games: int
    score: float  # the handicapped side's mean score
    score_ci: tuple[float, float]
    elo: float  # deficit (positive: the handicap hurts)
    value: float  # in gold units (nan when saturated)
    value_ci: tuple[float, float]
    saturated: bool  # no value: its own score too near 0 or 1, or no usable gold scale
    note: str = ""
    samples: np.ndarray | None = None  # bootstrap samples of the value (gold units)


@dataclass
class OddsResult:
    variant: str
    width: int
    nodes: int | None
    pieces: list[OddsPiece]

    def get(self, letter: str) -> OddsPiece | None:
        return next((p for p in self.pieces if p.letter == letter), None)


def elo_deficit(s: np.ndarray) -> np.ndarray:
    """The Elo deficit of a side scoring ``s`` (positive: it loses); ``s`` clipped away from 0 and 1."""
    s = np.clip(s, 1e-9, 1 - 1e-9)
    return -400.0 * np.log10(s / (1 - s))


def analyse_odds(db: str | Path, bootstrap: int = 2000, seed: int = 0) -> OddsResult:
    """Scores, Elo deficits and values (gold units) from an odds database."""

    with ExperimentDB.open(db) as edb:
        exp = edb.experiment()
        if not exp.name.startswith(NAME_PREFIX + ":"):
            raise OddsError(f"{db}: not a `komaken values odds` database (experiment {exp.name!r})")
        _, vname, letters_text = exp.name.split(":")
        letters = letters_text.split(",")
        scores: dict[str, list[float]] = {x: [] for x in letters}
        pairs: dict[str, dict[int, list[float]]] = {x: {} for x in letters}
        for row in edb.games():
            k = row.game_index // 2
            letter, color = letters[(k // 2) % len(letters)], k % 2
            winner = None if row.result == "draw" else (0 if row.result == row.sente else 1)
            score = 0.5 if winner is None else float(winner == color)
            scores[letter].append(score)
            pairs[letter].setdefault(k, []).append(score)
        width = exp.load_variant().width
        nodes = exp.players["engine"].settings.get("nodes")
    # the two games of one start are not independent (same position, same engine): resample starts
    rng = np.random.default_rng(seed)
    boot = {}
    for x in letters:
        groups = list(pairs[x].values())
        if not groups:
            boot[x] = np.full(bootstrap, np.nan)
            continue
        sums = np.array([sum(g) for g in groups])
        sizes = np.array([len(g) for g in groups])
        idx = rng.integers(0, len(groups), size=(bootstrap, len(groups)))
        boot[x] = sums[idx].sum(axis=1) / sizes[idx].sum(axis=1)
    g_ok = usable_score(scores["G"]) and not null_deficit(scores["G"])
    g_mean = float(np.mean(scores["G"])) if scores["G"] else 0.5
    out = []
    for x in letters:
        v = np.array(scores[x])
        n = len(v)
        s = float(v.mean()) if n else float("nan")
        lo, hi = wilson_interval(float(v.sum()), n) if n else (float("nan"), float("nan"))
        sat = not usable_score(scores[x]) or not g_ok
        note = "score saturated" if not usable_score(scores[x]) else ("gold deficit ≈ 0" if not g_ok else "")
        value, ci = float("nan"), (float("nan"), float("nan"))
        ratio = None
        if not sat:
            value = float(elo_deficit(np.array([s]))[0] / elo_deficit(np.array([g_mean]))[0])
            ratio = elo_deficit(boot[x]) / elo_deficit(boot["G"])
            q = np.nanquantile(ratio, [0.025, 0.975])
            ci = (float(q[0]), float(q[1]))
        elo = float(elo_deficit(np.array([s]))[0]) if n else float("nan")
        out.append(OddsPiece(x, n, s, (lo, hi), elo, value, ci, sat, note, ratio))
    return OddsResult(vname, width, nodes, out)


def usable_score(v: list[float]) -> bool:
    """Whether a score can be turned into an Elo deficit: games, and an interval away from 0 and 1."""
    if not v:
        return False
    lo, hi = wilson_interval(float(sum(v)), len(v))
    return lo > SATURATED and hi < 1 - SATURATED


def null_deficit(v: list[float]) -> bool:
    """True when the gold's score interval contains ½: the reference deficit is not distinguishable
    from zero, so no ratio to it is defined."""
    lo, hi = wilson_interval(float(sum(v)), len(v))
    return lo <= 0.5 <= hi


def format_odds(r: OddsResult) -> str:
    lines = [f"{r.variant} material odds ({r.nodes} nodes/move): the handicapped side's score, Elo deficit, "
             "value in gold units (deficit / gold's deficit)",
             f"{'piece':>5} {'games':>6} {'score (95% CI)':>22} {'Elo':>7} {'gold units (95% CI)':>26}"]
    for p in r.pieces:
        val = p.note if p.saturated else format_estimate(p.value, *p.value_ci)
        lines.append(f"{p.letter:>5} {p.games:6d} {format_estimate(p.score, *p.score_ci):>22} {p.elo:7.0f} {val:>26}")
    return "\n".join(lines)
