"""The designed A-vs-B experiment: method B and method A read off the same games.

An odds study (``komaken values selfplay --odds B,R,S,P``, :func:`~komaken.lab.valuestudy.selfplay.study_config`)
plays material-odds games — one side starts without one piece, removed or moved to the other
side's hand — in the study's own kernel, with the study's player and evaluation.  From its
games :func:`ab_experiment` computes, per piece and with 95 % intervals:

* **method B** (:mod:`komaken.lab.valuestudy.odds`): the handicapped side's score, its Elo deficit
  ``D_X = −400·log10(s/(1 − s))``, and ``D_X / D_G`` in gold units (bootstrap over games);
* **method A from the start only**: the regression on the first position of every game (after the
  random plies) — the same information as method B, through a logistic model of material;
* **method A over the whole game**: the paper's regression (quiet positions, each once);
* **how the handicap evolves**: the handicapped side's material deficit, priced with the
  whole-game fit, at the start and averaged over the game's quiet positions (in golds) — a
  deficit that grows during the game is credited to the start by method B and to the later
  material by method A.

A piece whose games the study holds too few of raises :class:`~komaken.lab.valuestudy.robust.UnidentifiedError`
naming it and how many games would be needed; the database is only read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from komaken.lab.stats import wilson_interval
from komaken.lab.valuestudy.fit import FitError, variant_letters
from komaken.lab.valuestudy.games import open_study
from komaken.lab.valuestudy.odds import elo_deficit, null_deficit, usable_score
from komaken.lab.valuestudy.robust import SPECS, Rows, fit_spec, load_rows, need_games, terms
from komaken.lab.valuestudy.selfplay import odds_game
from komaken.lab.valuestudy.strength import strength_label

#: Fewest games of one odds piece for its score to enter (the fit's floor for a term, too).
MIN_PIECE_GAMES = 50

START_ONLY = next(s for s in SPECS if s.first)
WHOLE_GAME = SPECS[0]

Triple = tuple[float, float, float]  # estimate, 95 % low, high


@dataclass
class ABPiece:
    letter: str
    games: int
    score: Triple  # the handicapped side's mean score (Wilson interval)
    elo: float  # its deficit
    odds: Triple | None  # method B in golds (None: saturated)
    start_only: Triple | None  # method A on the start positions
    whole_game: Triple | None  # method A, the paper's specification
    deficit_start: float  # the handicapped side's material deficit at the start, in golds (whole-game prices)
    deficit_game: float  # the same averaged over the games' quiet positions


@dataclass
class ABResult:
    variant: str
    mode: str  # remove or transfer
    strength: str  # "1000 nodes" or "depth 3"
    games: int
    pieces: list[ABPiece]


def _triple(est: float, samples: np.ndarray) -> Triple:
    lo, hi = np.nanquantile(samples, [0.025, 0.975])
    return float(est), float(lo), float(hi)


def ab_experiment(db_path: str, *, bootstrap: int = 200, seed: int = 0, min_games: int = 200) -> ABResult:
    """Both methods on one odds study (read only)."""
    with open_study(db_path) as db:
        if not db.config().get("odds"):
            raise FitError(f"{db_path}: not an odds study (play one with `komaken values selfplay --odds B,R,S`)")
    config, rows = load_rows(db_path)
    letters: list[str] = list(config["odds"])
    # game index of every stored game, in the order load_rows numbered them
    first = np.flatnonzero(rows.first)
    handicap: dict[str, list[float]] = {x: [] for x in letters}  # the handicapped side's scores, by piece
    colour_of = np.empty(rows.games, dtype=np.int64)
    piece_of: list[str] = []
    for n, gi in enumerate(rows.index):
        letter, color = odds_game(config, int(gi))
        score = float(rows.score[first[n]])
        handicap[letter].append(score if color == 0 else 1.0 - score)
        colour_of[n] = color
        piece_of.append(letter)
    for x in letters:
        if len(handicap[x]) < MIN_PIECE_GAMES:
            raise need_games(f"odds games without {x}", db_path, len(handicap[x]), rows.games, MIN_PIECE_GAMES)
    all_letters = variant_letters(config)
    where = str(db_path)
    others = tuple(x for x in letters if x != "G")
    whole = fit_spec(rows, all_letters, WHOLE_GAME, others, where=where, bootstrap=bootstrap, seed=seed,
                     min_games=min_games)
    start = fit_spec(rows, all_letters, START_ONLY, others, where=where, bootstrap=bootstrap, seed=seed,
                     min_games=min_games)
    deficit = _deficits(rows, all_letters, whole.values, colour_of, piece_of)
    rng = np.random.default_rng(seed)
    boot: dict[str, np.ndarray] = {}
    for x in letters:
        v = np.array(handicap[x])
        boot[x] = v[rng.integers(0, len(v), size=(bootstrap, len(v)))].mean(axis=1)
    gold = np.array(handicap["G"])
    g_usable = usable_score(handicap["G"]) and not null_deficit(handicap["G"])
    out = []
    for x in letters:
        v = np.array(handicap[x])
        s = float(v.mean())
        lo, hi = wilson_interval(float(v.sum()), len(v))
        elo = float(elo_deficit(np.array([s]))[0])
        odds = None
        if g_usable and usable_score(handicap[x]):
            ratio = elo_deficit(boot[x]) / elo_deficit(boot["G"])
            odds = _triple(elo / float(elo_deficit(np.array([gold.mean()]))[0]), ratio)
        out.append(ABPiece(x, len(v), (s, lo, hi), elo, odds, start.values.get(x), whole.values.get(x),
                           *deficit.get(x, (float("nan"), float("nan")))))
    return ABResult(config["variant"], config["odds_mode"], strength_label(config), rows.games, out)


def _deficits(rows: Rows, letters: tuple[str, ...], prices: dict[str, Triple], colour_of: np.ndarray,
              piece_of: list[str]) -> dict[str, tuple[float, float]]:
    """Per odds piece: the handicapped side's material deficit (golds, whole-game prices) at the
    start and over the quiet positions of its games."""
    named = [(name, cols) for name, cols in terms(letters, False) if name in prices]
    f = rows.feat.astype(np.float64)
    black = sum(prices[name][0] * (f[:, cols].sum(axis=1) - f[:, [c + 20 for c in cols]].sum(axis=1))
                for name, cols in named)
    # black's material lead; the handicapped side's deficit is its negative when black is handicapped
    sign = np.where(colour_of[rows.game] == 0, -1.0, 1.0)
    deficit = sign * np.asarray(black)
    out: dict[str, tuple[float, float]] = {}
    pieces = np.array(piece_of)
    for x in set(piece_of):
        games = pieces[rows.game] == x
        out[x] = (float(deficit[games & rows.first].mean()), float(deficit[games & rows.quiet].mean()))
    return out


def format_ab(results: list[ABResult]) -> str:
    """Markdown: per design and piece, method B beside both readings of method A."""

    def cell(t: Triple | None) -> str:
        return f"{t[0]:.3f} ({t[1]:.3f}–{t[2]:.3f})" if t else "saturated"

    head = ["start", "piece", "games", "handicapped score", "Elo deficit", "method B (odds)", "A: start only",
            "A: whole game", "deficit at start", "deficit over game"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        for p in r.pieces:
            lines.append("| " + " | ".join([
                f"{r.variant} {r.mode} ({r.strength})", p.letter, str(p.games),
                f"{p.score[0]:.3f} ({p.score[1]:.3f}–{p.score[2]:.3f})", f"{p.elo:.0f}", cell(p.odds),
                cell(p.start_only) if p.letter != "G" else "1", cell(p.whole_game) if p.letter != "G" else "1",
                f"{p.deficit_start:.2f}", f"{p.deficit_game:.2f}"]) + " |")
    return "\n".join(lines)


__all__ = ["ABPiece", "ABResult", "MIN_PIECE_GAMES", "ab_experiment", "format_ab"]
