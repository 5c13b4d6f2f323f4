"""An experiment's results, grouped for reading: the statistics of each pairing, the settings
(pairings that play the same two players with the same colours, counted together), and the
names the report gives them (``角1000 飛1200``).  :mod:`komaken.lab.report` turns them into the
report; ``komaken experiment status`` prints them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from komaken.lab.config import Experiment, Pairing
from komaken.lab.sprt_elo import SPRTElo, sprt_elo
from komaken.lab.stats import PairingStats, pairing_stats
from komaken.lab.storage import ExperimentDB
from komaken.shogi.variant import SHOGI

#: the standard pieces' kanji by letter (``B`` → 角), for labels that name no variant
PIECE_NAMES: Mapping[str, str] = SHOGI.names.kanji


def piece_names(exp: Experiment) -> Mapping[str, str]:
    """The kanji the experiment's variant gives its pieces (どうぶつしょうぎ's giraffe is キ where
    shogi's rook is 飛); the standard ones for a game without variants."""
    return exp.load_variant().names.kanji if exp.spec.has_variants else PIECE_NAMES


def collect(db: ExperimentDB, corrected: bool = False) -> tuple[Experiment, list[PairingStats]]:
    """The stored experiment and the statistics of each of its pairings; an SPRT still running
    when its pairing has played all its games says so (``sprt["undecided"]``).  With ``corrected``,
    every SPRT that has stopped (at a bound, or at its cap of games) also carries its
    bias-corrected Elo under ``sprt["elo_corrected"]`` (:func:`sprt_correction`; seconds each)."""
    exp = db.experiment()
    stats = []
    for p in exp.pairings:
        results, indexes = db.indexed_results(p.name)
        decision = db.decision(p.name) if p.sprt is not None else None
        s = pairing_stats(p.name, p.a, p.b, results, p.sprt, indexes, decision)
        if s.sprt is not None and s.sprt["state"] == "continue" and s.games >= p.games:
            s = replace(s, sprt={**s.sprt, "undecided": True})  # it used every game it was given
        found = sprt_correction(p, s) if corrected else None
        if found is not None:
            s = replace(s, sprt={**(s.sprt or {}), "elo_corrected": found.to_json()})
        stats.append(s)
    return exp, stats


def sprt_correction(p: Pairing, s: PairingStats) -> SPRTElo | None:
    """The bias-corrected Elo (:mod:`komaken.lab.sprt_elo`) of ``p``'s SPRT, from the counts the
    test stopped with; ``None`` while it runs (neither at a bound nor at the pairing's games)."""
    t = s.sprt
    if p.sprt is None or t is None:
        return None
    if t["state"] == "continue" and not t.get("undecided"):
        return None
    if p.sprt.model == "pentanomial":
        counts, cap = list(t["pentanomial"]), p.games // 2
    elif "wins" in t:
        counts, cap = [t["losses"], t["draws"], t["wins"]], p.games
    else:  # a decision recorded without its counts: the stored games stand in for them
        counts, cap = [s.b_wins, s.draws, s.a_wins], p.games
    if sum(counts) == 0:
        return None
    return sprt_elo(p.sprt, counts, max(cap, sum(counts)))


@dataclass(frozen=True, slots=True)
class Setting:
    """The pairings that play the same two players with the same colours, counted together
    (the thesis ran some settings several times, 100 games each)."""

    label: str  # 角1000 飛1200, or "deep vs shallow"
    ascii_label: str  # B1000 R1200 (for figures)
    pairings: list[str]
    a: str
    b: str
    colors: str
    values: dict[str, int | None]  # the varied piece values of player a
    stats: PairingStats
    published: tuple[int, int, int] | None  # summed published W, L, D when every pairing has them


def settings(db: ExperimentDB, exp: Experiment) -> list[Setting]:
    """One entry per distinct setting, in the order of the experiment file."""
    groups: dict[str, list[Any]] = {}
    for p in exp.pairings:
        key = json.dumps([dict(exp.players[p.a].settings), dict(exp.players[p.b].settings), p.colors],
                         sort_keys=True, default=str)
        groups.setdefault(key, []).append(p)
    letters = varied_letters(exp)
    out = []
    for group in groups.values():
        first = group[0]
        results = [r for p in group for r in db.results(p.name)]
        stats = pairing_stats(first.name, first.a, first.b, results)
        pubs = [p.published for p in group]
        published = None
        if all(pubs):
            w, l, d = (sum(int(pb[k]) for pb in pubs if pb) for k in ("wins", "losses", "draws"))
            published = (w, l, d)
        out.append(Setting(
            label=setting_label(exp, first.a, first.b), ascii_label=setting_label(exp, first.a, first.b, ascii=True),
            pairings=[p.name for p in group], a=first.a, b=first.b, colors=first.colors,
            values={x: value_of(exp, first.a, x) for x in letters}, stats=stats,
            published=published,
        ))
    return out


def title(exp: Experiment) -> str:
    """``[report] title`` from the experiment file, else one made from its name:
    ``thesis-table6`` → ``Thesis table 6``."""
    if exp.report.get("title"):
        return str(exp.report["title"])
    words = re.sub(r"(?<=[A-Za-z]{2})(?=\d)|(?<=\d)(?=[A-Za-z]{2})", " ", exp.name.replace("-", " ").replace("_", " "))
    words = " ".join(words.split())
    return words[:1].upper() + words[1:]


def setting_label(exp: Experiment, a: str, b: str, *, ascii: bool = False) -> str:
    """A setting's name from player a's varied piece values: ``角1000 飛1200`` (a promoted piece
    only when its value differs from the unpromoted one: ``角1800 馬2000 飛2000 龍2200``).
    Without varied values: the players' labels, ``deep vs shallow``."""
    letters = varied_letters(exp)
    if not letters:
        return f"{exp.players[a].label} vs {exp.players[b].label}"
    parts, names = [], piece_names(exp)
    for x in letters:
        v = value_of(exp, a, x)
        if v is None or (x.startswith("+") and x[1:] in letters and v == value_of(exp, a, x[1:])):
            continue
        parts.append(f"{x if ascii else names.get(x, x)}{v}")
    label = " ".join(parts) or exp.players[a].label
    if dict(exp.players[a].settings) == dict(exp.players[b].settings):
        label += " (a = b)" if ascii else " (control: a = b)"  # the opponent's own values
    return label


def row_labels(exp: Experiment) -> list[str]:
    """The setting of each pairing, with ``(run 2)``… when a setting is played again.  Pairings
    whose player a is the same but whose opponents differ (one table against several changed
    ones) also name what the opponent changes: ``角1136 飛1397 vs 角1376``."""
    base = [setting_label(exp, p.a, p.b) for p in exp.pairings]
    opponents: dict[str, set[str]] = {}
    for label, p in zip(base, exp.pairings, strict=True):
        opponents.setdefault(label, set()).add(json.dumps(dict(exp.players[p.b].settings), sort_keys=True,
                                                          default=str))
    seen: dict[str, int] = {}
    labels = []
    for label, p in zip(base, exp.pairings, strict=True):
        if len(opponents[label]) > 1:
            label = f"{label} vs {_opponent_change(exp, p.a, p.b)}"
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label} (run {seen[label]})")
    return labels


def _opponent_change(exp: Experiment, a: str, b: str) -> str:
    """The piece values in which player b differs from player a (``角1376``), else b's label."""
    names = piece_names(exp)
    changed = [f"{names.get(x, x)}{value_of(exp, b, x)}" for x in varied_letters(exp)
               if value_of(exp, b, x) != value_of(exp, a, x)]
    return " ".join(changed) or exp.players[b].label


#: the smaller side's games up to which "same as published" is tested exactly (above: χ²)
EXACT_MAX_GAMES = 500


def same_distribution(ours: tuple[int, int, int], theirs: tuple[int, int, int]) -> float:
    """p-value of the test that two W/L/D counts come from the same distribution (a small p: our
    replica and the published program disagree).

    Exact while the smaller side has at most :data:`EXACT_MAX_GAMES` games: the Freeman–Halton
    test (Fisher's exact test extended to a 2×3 table; G. H. Freeman and J. H. Halton, Biometrika
    38 (1951) 141–149) sums the probability, with both sides' totals and the W/L/D totals fixed, of
    every table no more likely than the one observed.  A χ² test needs expected counts of about
    five in every cell, which a draw column of a hundred games seldom has.  Above that size the χ²
    test, whose approximation is then good (and the exact sum too long).

    >>> from math import comb
    >>> round(same_distribution((10, 0, 0), (0, 10, 0)) * comb(20, 10), 9)  # the two extreme tables
    2.0
    """
    cols = [(a, b) for a, b in zip(ours, theirs, strict=True) if a + b > 0]
    if len(cols) < 2 or sum(a for a, _ in cols) == 0 or sum(b for _, b in cols) == 0:
        return 1.0
    table = [[a for a, _ in cols], [b for _, b in cols]]
    small = min(table, key=sum)
    if sum(small) > EXACT_MAX_GAMES:
        return _chi2_p(np.array(table, dtype=np.float64))
    return _freeman_halton(small, [a + b for a, b in cols])


def _chi2_p(table: np.ndarray) -> float:
    """Pearson's χ² test of independence of a 2×k table (no continuity correction)."""
    from scipy.special import chdtrc

    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    return float(chdtrc(table.shape[1] - 1, ((table - expected) ** 2 / expected).sum()))


def _freeman_halton(row: list[int], totals: list[int]) -> float:
    """Two-sided exact p of ``row`` as one row of a 2×k table with column ``totals``: each table's
    probability is the multivariate hypergeometric ``prod C(total_i, x_i) / C(sum totals, n)``."""
    from scipy.special import gammaln

    n = sum(row)
    grids = np.meshgrid(*[np.arange(min(c, n) + 1) for c in totals[:-1]], indexing="ij")
    heads = np.stack([g.ravel() for g in grids], axis=1)
    last = n - heads.sum(axis=1)
    keep = (last >= 0) & (last <= totals[-1])
    tables = np.column_stack([heads[keep], last[keep]])
    m = np.array(totals, dtype=np.float64)

    def log_pmf(x: np.ndarray) -> np.ndarray:
        ways = (gammaln(m + 1) - gammaln(x + 1) - gammaln(m - x + 1)).sum(axis=-1)
        return ways - (gammaln(m.sum() + 1) - gammaln(n + 1) - gammaln(m.sum() - n + 1))

    probs = np.exp(log_pmf(tables.astype(np.float64)))
    observed = float(np.exp(log_pmf(np.array(row, dtype=np.float64))))
    return float(min(1.0, probs[probs <= observed * (1 + 1e-7)].sum()))


def varied_letters(exp: Experiment) -> list[str]:
    """Piece letters whose value for player a differs between pairings or from player b."""
    if "vary" in exp.report:
        return [str(v) for v in exp.report["vary"]]
    order: list[str] = []
    for p in exp.pairings:
        for name in (p.a, p.b):
            for letter in piece_values(exp.players[name]):
                if letter not in order:
                    order.append(letter)
    out = []
    for letter in order:
        seen = set()
        for p in exp.pairings:
            seen.add(value_of(exp, p.a, letter))
            seen.add(value_of(exp, p.b, letter))
        if len(seen) > 1:
            out.append(letter)
    return out


def piece_values(spec: Any) -> dict[str, int]:
    """A player's piece values as validated (a value file named in the experiment is read);
    ``{}`` for a player without them."""
    values = spec.options.get("values")
    return values if isinstance(values, dict) else {}


def value_of(exp: Experiment, player: str, letter: str) -> int | None:
    return piece_values(exp.players[player]).get(letter)


__all__ = ["PIECE_NAMES", "Setting", "piece_names", "collect", "piece_values", "row_labels", "same_distribution",
           "setting_label", "settings", "title", "value_of", "varied_letters"]
