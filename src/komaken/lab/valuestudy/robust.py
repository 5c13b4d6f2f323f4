"""Model uncertainty beside sampling error: method A refitted under other defensible choices.

The paper's fit (:func:`komaken.lab.valuestudy.fit.fit_study`) makes four choices that the data
do not force: board and hand pieces pooled (a captured bishop counts as a bishop), every quiet
position of a game in the fit (so long games weigh more), only quiet positions, and all phases of
a game together.  :func:`robustness` refits one study under each alternative —

* ``all positions`` instead of the quiet ones;
* ``each game once``: a game's positions weighted 1/(its positions), so every game weighs the same;
* ``first third``, ``middle third``, ``last third``: only the positions in that third of each game
  (by position after the opening plies);
* ``board/hand split``: a piece on the board and the same piece in hand as two terms (the unit
  stays the gold on the board);
* ``start only``: only the first position of each game (after the opening plies), quiet or not —
  the material the game started with, the estimator a material-odds study reads —

each with the same whole-game bootstrap, and gives a headline interval per piece that covers the
spread: from the lowest 95 % lower end to the highest upper end over the specifications that
estimate the same pooled whole-game value (all but the split and the start-only row).  Sampling
error alone is the paper's row.  :func:`format_designs` puts several studies of one variant with
different start designs side by side, with a headline over all of them.

A specification the data cannot identify — a piece whose difference is non-zero in too few games
of a stratum, a piece never in hand — raises :class:`UnidentifiedError` naming it and how many
games would be needed; nothing is written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from komaken.lab.valuestudy.fit import (
    UNPROMOTED,
    FitError,
    Positions,
    fit_positions,
    letter_columns,
    start_design,
    variant_letters,
)
from komaken.lab.valuestudy.games import open_study, study_games
from komaken.shogi.engine.selfplay import COL_FLAGS, COL_SIDE, NF, NOT_QUIET

#: A term enters a fit only when its difference is non-zero in at least this many games of the
#: sample (a few games would give it a coefficient that is the luck of those games).
MIN_TERM_GAMES = 50

HAND = "*"  # a hand term's suffix: "B*" is a bishop in hand when board and hand are split


class UnidentifiedError(FitError):
    """A specification the study's games cannot identify: a piece or a stratum with too few games."""


@dataclass(frozen=True)
class Spec:
    """One modelling choice: which positions enter, how they are weighted, which terms."""

    name: str
    quiet: bool = True
    per_game: bool = False
    third: int | None = None  # 0, 1, 2: only that third of every game
    split_hand: bool = False
    first: bool = False  # only the first position of every game

    @property
    def whole_game(self) -> bool:
        """Whether the specification estimates the pooled whole-game value (the headline's)."""
        return not (self.split_hand or self.first)


SPECS = (
    Spec("paper: quiet positions, each position once, board and hand pooled"),
    Spec("all positions", quiet=False),
    Spec("each game once", per_game=True),
    Spec("first third of each game", third=0),
    Spec("middle third of each game", third=1),
    Spec("last third of each game", third=2),
    Spec("board/hand split", split_hand=True),
    Spec("start only", quiet=False, first=True),
)


#: Short names of the specifications, for choosing some (``komaken values robust --specs``).
SPEC_KEYS = dict(zip(("paper", "all", "game", "first", "middle", "last", "split", "start"), SPECS, strict=True))


def choose_specs(keys: str) -> tuple[Spec, ...]:
    """The specifications named in ``keys`` (comma-separated short names), the paper's always first."""
    names = [k.strip() for k in keys.split(",") if k.strip()]
    unknown = [k for k in names if k not in SPEC_KEYS]
    if unknown:
        raise FitError(f"--specs: unknown {', '.join(unknown)} (choose from {', '.join(SPEC_KEYS)})")
    return (SPECS[0], *(SPEC_KEYS[k] for k in names if k != "paper"))


@dataclass
class Rows:
    """Every stored position of a study: features, game, third of its game, quiet flag, score,
    whether it is its game's first."""

    feat: np.ndarray
    game: np.ndarray
    third: np.ndarray
    quiet: np.ndarray
    score: np.ndarray
    games: int
    first: np.ndarray
    index: np.ndarray  # the stored game index of each game, in the order of ``game``


def load_rows(db_path: str, games: int | None = None) -> tuple[dict, Rows]:
    """Read every position of every game of a study (of its first ``games`` game indexes, when
    given; read only)."""
    with open_study(db_path) as db:
        config = db.config()
        feats, owners, thirds, scores, index = [], [], [], [], []
        n = 0
        for g in study_games(db, games):
            f = g.feature_array(config.get("features", NF))
            if not len(f):
                continue
            feats.append(f)
            owners.append(np.full(len(f), n))
            thirds.append((3 * np.arange(len(f))) // len(f))
            scores.append(np.full(len(f), g.score))
            index.append(g.game_index)
            n += 1
    if not feats:
        raise UnidentifiedError(f"{db_path}: no stored positions to fit")
    feat = np.concatenate(feats)
    game = np.concatenate(owners)
    first = np.ones(len(game), bool)
    first[1:] = game[1:] != game[:-1]
    return config, Rows(feat, game, np.concatenate(thirds), (feat[:, COL_FLAGS] & NOT_QUIET) == 0,
                        np.concatenate(scores), n, first, np.array(index, dtype=np.int64))


def terms(letters: tuple[str, ...], split_hand: bool) -> list[tuple[str, list[int]]]:
    """The model's terms as (name, black's feature columns); white's are +20."""
    out = []
    for x in letters:
        cols = letter_columns(x)
        if split_hand and x in UNPROMOTED:
            out += [(x, cols[:1]), (x + HAND, cols[1:])]
        else:
            out.append((x, cols))
    return out


@dataclass
class SpecFit:
    spec: Spec
    games: int
    positions: int
    values: dict[str, tuple[float, float, float]]  # term -> (estimate, low, high) in board golds


@dataclass
class Robustness:
    variant: str
    design: str  # the study's start design: level, or "exchange 2" and the like
    games: int
    pieces: tuple[str, ...]
    fits: list[SpecFit]
    headline: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # paper estimate, low, high


def _select(rows: Rows, spec: Spec) -> np.ndarray:
    keep = rows.quiet.copy() if spec.quiet else np.ones(len(rows.game), bool)
    if spec.third is not None:
        keep &= rows.third == spec.third
    if spec.first:
        keep &= rows.first
    return keep


def need_games(what: str, where: str, have: int, games: int, floor: int) -> UnidentifiedError:
    """The one-line error for a term or stratum seen in ``have`` of ``games`` games, ``floor`` needed."""
    if have == 0:  # none in `games`: by the rule of three, fewer than 3/games of games have it
        return UnidentifiedError(f"{where}: {what} in none of {games} games; the fit needs {floor}: at least "
                                 f"{math.ceil(floor * games / 3)} games (rule of three)")
    return UnidentifiedError(f"{where}: {what} in {have} of {games} games; the fit needs {floor}: about "
                             f"{math.ceil(floor * games / have)} games")


def fit_spec(rows: Rows, letters: tuple[str, ...], spec: Spec, pieces: tuple[str, ...], *, where: str,
             bootstrap: int, seed: int, min_games: int, min_term_games: int = MIN_TERM_GAMES) -> SpecFit:
    """Fit one specification; :class:`UnidentifiedError` when the games do not identify it."""
    keep = _select(rows, spec)
    stratum = f"{where} ({spec.name})"
    present = np.unique(rows.game[keep])
    if len(present) < min_games:
        raise need_games("positions" + (" (quiet)" if spec.quiet else ""), stratum, len(present), rows.games, min_games)
    feat = rows.feat[keep].astype(np.int16)
    game = np.searchsorted(present, rows.game[keep])
    named = terms(letters, spec.split_hand)
    x = np.stack([feat[:, c].sum(axis=1) - feat[:, [i + 20 for i in c]].sum(axis=1) for _, c in named]
                 + [(feat[:, COL_SIDE] == 0).astype(np.int16)], axis=1)
    games_nonzero = {name: len(np.unique(game[x[:, i] != 0])) for i, (name, _) in enumerate(named)}
    wanted = ["G", *pieces] + ([p + HAND for p in ("G", *pieces) if p in UNPROMOTED] if spec.split_hand else [])
    for name in wanted:
        if name in games_nonzero and games_nonzero[name] < min_term_games:
            label = f"{name[:-1]} in hand" if name.endswith(HAND) else name
            raise need_games(f"a difference in {label}", stratum, games_nonzero[name], len(present), min_term_games)
    # terms too rare to identify in this stratum (and not reported) leave the model, as the
    # paper's fit leaves out a piece whose difference never varies
    fitted = [i for i, (name, _) in enumerate(named) if games_nonzero[name] >= min_term_games]
    names = tuple(named[i][0] for i in fitted)
    weight = 1.0 / np.bincount(game)[game] if spec.per_game else None
    p = Positions(names, x[:, [*fitted, len(named)]], rows.score[keep], game, len(present), len(game))
    coef, boot, dropped = fit_positions(p, bootstrap=bootstrap, seed=seed, row_weight=weight)
    kept = [n for n in names if n not in dropped]
    gold = kept.index("G")
    values = {}
    for name in kept:
        i = kept.index(name)
        samples = boot[:, i] / boot[:, gold]
        lo, hi = np.nanquantile(samples, [0.025, 0.975])
        values[name] = (float(coef[i] / coef[gold]), float(lo), float(hi))
    return SpecFit(spec, len(present), len(game), values)


def robustness(db_path: str, pieces: tuple[str, ...] = ("B", "R", "S"), *, specs: tuple[Spec, ...] = SPECS,
               bootstrap: int = 200, seed: int = 0, min_games: int = 200, games: int | None = None) -> Robustness:
    """Refit a study under every specification (all must be identifiable, else
    :class:`UnidentifiedError`, before any result is given) and the headline intervals.
    ``games``: only the study's first that many game indexes (a large study's prefix)."""
    config, rows = load_rows(str(db_path), games)
    letters = variant_letters(config)
    missing = [p for p in ("G", *pieces) if p not in letters]
    if missing:
        raise FitError(f"{db_path}: the variant {config['variant']} has no {', '.join(missing)}")
    fits = [fit_spec(rows, letters, s, pieces, where=str(db_path), bootstrap=bootstrap, seed=seed,
                     min_games=min_games) for s in specs]
    out = Robustness(config["variant"], start_design(config), rows.games, pieces, fits)
    pooled = [f for f in fits if f.spec.whole_game]
    for piece in pieces:
        ests = [f.values[piece] for f in pooled if piece in f.values]
        if ests:
            out.headline[piece] = (ests[0][0], min(e[1] for e in ests), max(e[2] for e in ests))
    return out


def format_robustness(r: Robustness) -> str:
    """The robustness table as Markdown, then the headline intervals in a sentence each."""
    split = any(f.spec.split_hand for f in r.fits)
    cols = list(r.pieces) + ([p + HAND for p in ("G", *r.pieces) if p in UNPROMOTED] if split else [])
    head = ["specification", "games", "positions"] + [f"{c[:-1]} in hand" if c.endswith(HAND) else c for c in cols]
    lines = [f"{r.variant}, {r.design} starts: {r.games} games; gold units (the gold on the board = 1), "
             "95 % whole-game bootstrap intervals", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in r.fits:
        cells = [f.spec.name, str(f.games), str(f.positions)]
        for c in cols:
            v = f.values.get(c)
            cells.append(f"{v[0]:.3f} ({v[1]:.3f}–{v[2]:.3f})" if v else "")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for piece, (est, lo, hi) in r.headline.items():
        spread = [f.values[piece][0] for f in r.fits if f.spec.whole_game and piece in f.values]
        lines.append(f"- {piece}: {est:.3f} gold in the paper's specification; across the specifications "
                     f"{min(spread):.3f}…{max(spread):.3f}; headline interval {lo:.3f}–{hi:.3f} "
                     f"(±{(hi - lo) / 2:.3f}, sampling and modelling together)")
    return "\n".join(lines)


def format_designs(results: list[Robustness]) -> str:
    """Studies of one variant with different start designs side by side: each design's paper
    value and start-only value per piece, and a headline interval over every whole-game
    specification of every design (the spread of modelling and design choices together)."""
    if len({r.variant for r in results}) > 1:
        raise FitError("start designs compare studies of one variant: got "
                       + ", ".join(sorted({r.variant for r in results})))
    pieces = [p for p in results[0].pieces if all(p in r.pieces for r in results)]
    head = ["start design", "games"] + [f"{p} whole game" for p in pieces] + [f"{p} start only" for p in pieces]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def cell(f: SpecFit | None, p: str) -> str:
        v = f.values.get(p) if f else None
        return f"{v[0]:.3f} ({v[1]:.3f}–{v[2]:.3f})" if v else ""

    for r in results:
        paper = next((f for f in r.fits if f.spec == SPECS[0]), None)
        start = next((f for f in r.fits if f.spec.first), None)
        lines.append("| " + " | ".join([r.design, str(r.games)] + [cell(paper, p) for p in pieces]
                                       + [cell(start, p) for p in pieces]) + " |")
    lines.append("")
    for p in pieces:
        fits = [f.values[p] for r in results for f in r.fits if f.spec.whole_game and p in f.values]
        if fits:
            lines.append(f"- {p}: over {len(results)} start designs and every whole-game specification "
                         f"{min(v[0] for v in fits):.3f}…{max(v[0] for v in fits):.3f}; headline interval "
                         f"{min(v[1] for v in fits):.3f}–{max(v[2] for v in fits):.3f}")
    return "\n".join(lines)


__all__ = ["HAND", "MIN_TERM_GAMES", "SPECS", "SPEC_KEYS", "Robustness", "Spec", "SpecFit", "UnidentifiedError",
           "choose_specs", "fit_spec", "format_designs", "format_robustness", "load_rows", "need_games", "robustness",
           "terms"]
