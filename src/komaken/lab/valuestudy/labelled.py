"""Strong labels: the piece values a stronger engine's judgement implies, beside the values the
games' results give on the very same games.

A study's games were played by komaken at its study strength (1000 nodes a move by default),
and method A reads the values off who won them.  A label file (``komaken values label``) holds a
stronger engine's search score of each of their quiet positions; the same regression on those
scores (:func:`~komaken.lab.valuestudy.fit.fit_study` with ``labels``) gives the values that
engine's judgement implies for the positions komaken reached.  :func:`label_comparison` fits the
results and every label file on the games labelled by all of them, so the rows differ by their
targets alone; :func:`format_labels` sets them beside the labelling engine's own material table
where it is Fairy-Stockfish (:func:`~komaken.lab.valuestudy.promoted.reference_tables`) — a
labelled fit that only returned its labeller's table would say nothing about the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from komaken.lab.label import LabelError, load_labels
from komaken.lab.valuestudy.fit import FitResult, fit_study
from komaken.lab.valuestudy.promoted import reference_tables
from komaken.lab.valuestudy.strength import strength_label
from komaken.shogi.engine.tune import LABEL_SCALE


@dataclass(frozen=True)
class LabelComparison:
    """One study's fits on one set of games: the results' first, then each label file's."""

    db: str
    games: int
    fits: tuple[FitResult, ...]

    @property
    def variant(self) -> str:
        return self.fits[0].variant

    @property
    def width(self) -> int:
        return self.fits[0].width


def label_comparison(db: str | Path, label_files: Sequence[str | Path], *, bootstrap: int = 200, seed: int = 0,
                     min_games: int = 200, scale: float = LABEL_SCALE) -> LabelComparison:
    """Fit ``db``'s results and each of ``label_files``' scores on the games every file labelled."""
    if not label_files:
        raise LabelError(f"{db}: no label file to compare with (label it: `komaken values label --db {db} ...`)")
    common: set[int] | None = None
    for f in label_files:
        games = set(load_labels(f, db))
        common = games if common is None else common & games
    assert common is not None
    fits = [fit_study(db, bootstrap=bootstrap, seed=seed, min_games=min_games, games=common)]
    fits += [fit_study(db, bootstrap=bootstrap, seed=seed, min_games=min_games, games=common, labels=f, scale=scale)
             for f in label_files]
    return LabelComparison(str(db), len(common), tuple(fits))


def _labeller_table(targets: str, n: int) -> dict[str, float] | None:
    """The labelling engine's own material table in gold units, where it is Fairy-Stockfish 11.1."""
    if not targets.startswith("fairy-stockfish"):
        return None
    return reference_tables(n, "11.1")[f"Fairy-Stockfish 11.1 ({n}×{n}, as computed)"]


def format_labels(comparisons: Sequence[LabelComparison], pieces: Sequence[str] = ("P", "S", "B", "R", "+P", "+S")
                  ) -> str:
    """The comparisons as one Markdown table, smallest board first: per study, the values from the
    results, from each labelling engine, and that engine's own table (Fairy-Stockfish 11.1)."""
    head = ["board", "targets", "games", "positions", *pieces]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def cell(f: FitResult, p: str) -> str:
        if p not in f.letters:
            return "—"
        est, lo, hi = f.value(p)
        return f"{est:.2f} ({lo:.2f}–{hi:.2f})"

    for c in sorted(comparisons, key=lambda c: (c.width, c.variant)):
        board = f"{c.variant} {c.width}×{c.width}"
        for f in c.fits:
            lines.append("| " + " | ".join([board, describe_targets(f), str(f.games), str(f.quiet_positions)]
                                           + [cell(f, p) for p in pieces]) + " |")
        table = next((t for f in c.fits[1:] if (t := _labeller_table(f.targets, c.width)) is not None), None)
        if table is not None:
            lines.append("| " + " | ".join([board, "Fairy-Stockfish 11.1's own table", "", ""]
                                           + [f"{table[p]:.2f}" if p in table else "—" for p in pieces]) + " |")
    return "\n".join(lines)


def describe_targets(f: FitResult) -> str:
    """``results at 1000 nodes`` or the labelling engine, as a table row names the targets."""
    if f.targets == "results":
        return f"results (komaken at {strength_label(f.config)})"
    return f.targets


__all__ = ["LabelComparison", "describe_targets", "format_labels", "label_comparison"]
