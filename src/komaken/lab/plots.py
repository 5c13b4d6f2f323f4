"""The report's figures (matplotlib): every setting's score with its interval, and the score
against one piece value with everything else held fixed.

Labels in the figures are ASCII (``B1000 R1200``): the default matplotlib font has no kanji,
and the figures must look the same on every machine.  Each figure is rendered in memory
(:func:`komaken.lab.document.figure`): the report carries its SVG and PNG.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from komaken.lab.document import Figure, figure, pyplot
from komaken.lab.results import Setting


def score_figure(settings: Sequence[Setting]) -> Figure | None:
    """Each setting's score of player a with its 95% interval (published scores as red ×)."""
    played = [s for s in settings if s.stats.games]
    if not played:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.28 * len(played) + 1.2)))
    ys = list(range(len(played)))[::-1]
    x = [s.stats.a_score for s in played]
    err = [[s.stats.a_score - s.stats.a_score_ci95[0] for s in played],
           [s.stats.a_score_ci95[1] - s.stats.a_score for s in played]]
    ax.errorbar(x, ys, xerr=err, fmt="o", capsize=3, label="ours, 95% CI")
    pub = [(y, s.published) for y, s in zip(ys, played, strict=True) if s.published]
    if pub:
        ax.plot([(w + d / 2) / max(1, w + l + d) for _, (w, l, d) in pub], [y for y, _ in pub], "x",
                color="tab:red", label="published")
    ax.axvline(0.5, color="gray", lw=1, ls="--")
    ax.set_yticks(ys, [s.ascii_label for s in played], fontsize=7)
    ax.set_xlim(*_score_range(played))
    ax.set_xlabel("score of player a (win 1, draw 1/2)")
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    return figure(fig, "score_ci", "The score of player a in each setting, with its 95% interval; "
                 "the dashed line is an even score.")


def value_figures(settings: Sequence[Setting], letters: Sequence[str], names: dict[str, str]) -> list[Figure]:
    """For each piece letter, score against its value over settings that differ in that value
    only (one line per combination of the other values)."""
    figures = []
    for letter in letters:
        if letter.startswith("+") and letter[1:] in letters:
            continue  # moves with its unpromoted piece (see _series)
        series = _series(settings, letter, letters)
        if not series:
            continue
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(7.5, 4))
        width = max(v for pts in series.values() for v, _ in pts) - min(v for pts in series.values() for v, _ in pts)
        for k, (label, pts) in enumerate(sorted(series.items())):
            shift = (k - (len(series) - 1) / 2) * width * 0.015  # keep overlapping intervals apart
            xs = [v + shift for v, _ in pts]
            ys = [s.stats.a_score for _, s in pts]
            err = [[s.stats.a_score - s.stats.a_score_ci95[0] for _, s in pts],
                   [s.stats.a_score_ci95[1] - s.stats.a_score for _, s in pts]]
            ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=3, lw=1, ms=4, label=label or "all settings")
        ax.axhline(0.5, color="gray", lw=1, ls="--")
        ax.set_ylim(*_score_range([s for pts in series.values() for _, s in pts]))
        twin = f"+{letter}" in letters
        ax.set_xlabel(f"value of {letter}" + (f" (and +{letter} where equal)" if twin else "") + " for player a")
        ax.set_ylabel("score of player a (95% CI)")
        if len(series) > 1 or next(iter(series)):
            ax.legend(fontsize=7, title="held fixed", title_fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1),
                      ncols=2 if len(series) > 12 else 1)
        fig.tight_layout()
        name = names.get(letter, letter)
        caption = (f"Score against the value of {name}, each line holding every other value fixed "
                   f"(only settings that differ in {name} alone are joined).")
        figures.append(figure(fig, f"score_vs_{letter.replace('+', 'promoted_')}", caption))
    return figures


def _score_range(settings: Sequence[Setting]) -> tuple[float, float]:
    """An axis range around every interval, 50% included, within 0..1."""
    lo = min([0.5] + [s.stats.a_score_ci95[0] for s in settings])
    hi = max([0.5] + [s.stats.a_score_ci95[1] for s in settings])
    pad = max(0.03, (hi - lo) * 0.08)
    return max(0.0, lo - pad), min(1.0, hi + pad)


def _series(settings: Sequence[Setting], letter: str, letters: Sequence[str]) -> dict[str, list[tuple[int, Any]]]:
    """``{label of the fixed values: [(value of letter, setting), ...]}`` for lines of at least
    two points.  The promoted twin (``+B`` for ``B``) moves with it when its offset stays the same."""
    twin = f"+{letter}"
    groups: dict[tuple[Any, ...], list[tuple[int, Any]]] = {}
    fixed_labels: dict[tuple[Any, ...], str] = {}
    for s in settings:
        v = s.values.get(letter)
        if v is None or not s.stats.games:
            continue
        others = tuple((x, s.values.get(x)) for x in letters if x not in (letter, twin))
        offset = None
        if twin in letters and s.values.get(twin) is not None:
            offset = s.values[twin] - v  # type: ignore[operator]
        key = (s.b, s.colors, others, offset)
        groups.setdefault(key, []).append((v, s))
        fixed = " ".join(f"{x}{val}" for x, val in others if val is not None and not _tied(x, s))
        if offset:
            fixed += f" ({twin} = {letter}{offset:+d})"
        fixed_labels[key] = fixed.strip()
    out = {}
    for key, pts in groups.items():
        if len({v for v, _ in pts}) >= 2:
            out[fixed_labels[key]] = sorted(pts, key=lambda p: p[0])
    return out


def _tied(letter: str, s: Setting) -> bool:
    """A promoted letter whose value equals its unpromoted one (left out of labels)."""
    return letter.startswith("+") and s.values.get(letter) == s.values.get(letter[1:])


__all__ = ["Figure", "score_figure", "value_figures"]
