"""The words of an experiment's report: one document (summary, setup, tables, figures, methods)
as the blocks of :mod:`komaken.lab.document`, which renders them as Markdown, HTML and JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from komaken.lab.config import Experiment
from komaken.lab.document import Block, Figure
from komaken.lab.results import (
    PIECE_NAMES,
    Setting,
    piece_names,
    piece_values,
    row_labels,
    same_distribution,
    title,
    varied_letters,
)
from komaken.lab.stats import (
    ALPHA,
    MIN_DECISIVE,
    PairingStats,
    display,
    format_interval,
    format_p,
    format_pct,
    p_value_even,
    wilson_interval,
)


def document(exp: Experiment, stats: list[PairingStats], found: list[Setting], figures: Sequence[Figure],
             seconds: float = 0.0) -> list[Block]:
    """The report as blocks, in reading order."""
    blocks: list[Block] = [("h1", title(exp)), ("h2", "Summary")]
    question, answer, numbers = summary(exp, stats, found, seconds)
    blocks += [("p", f"**Question.** {question}"), ("p", f"**Answer.** {answer}"), ("ul", numbers)]
    blocks += [("h2", "Setup"), ("p", setup_line(exp)), ("ul", player_lines(exp))]
    blocks += [("h2", "Results by setting"), results_table(exp, stats), ("p", TABLE_NOTE)]
    if any(len(s.pairings) > 1 for s in found):
        blocks += [("h2", "Every setting, its runs pooled"), pooled_table(found)]
    if figures:
        blocks.append(("h2", "Figures"))
        blocks += [("figure", i, f) for i, f in enumerate(figures, start=1)]
    blocks += [("h2", "First-move advantage"), ("p", first_move_line(stats, exp)), sente_table(exp, stats)]
    sprts = [(label, s) for label, s in zip(row_labels(exp), stats, strict=True) if s.sprt]
    if sprts:
        blocks += [("h2", "Sequential tests (SPRT)"), sprt_table(sprts)]
    blocks += [("h2", "How to read the numbers"), ("ul", METHODS)]
    return blocks


TABLE_NOTE = (
    "勝 / 負 / 分 are player a's wins, losses and draws; 勝率 is a's score (a draw counts ½). A promoted "
    "piece (馬, 龍…) is named only when its value differs from the unpromoted one."
)
METHODS = [
    "The 95% interval of a score is Wilson's score interval (a draw counts as half a win). p is the exact "
    "two-sided sign test of an even score (50%): a's wins among the decisive games against a fair coin, draws "
    "set aside. The two are different procedures and can disagree near the 5% line; the verdicts follow p.",
    f"With fewer than {MIN_DECISIVE} decisive games no result can reach p < {ALPHA:g} (5–0 gives p = 0.0625): "
    "such a setting is reported as too few games to tell.",
    "Elo is 400·log10(s / (1 − s)) for a score s; a score of 100% or 0% has no finite Elo and is written "
    "+∞ or −∞ (in `experiment status` too).",
    "Each setting is tested on its own: with many settings, about 1 in 20 will look significant by chance.",
    "“p same as published” tests that our W/L/D and the published W/L/D come from one distribution: exactly "
    "(Freeman–Halton, Fisher's test for a 2×3 table) up to 500 games on the smaller side, by χ² above.",
]


# ---- summary --------------------------------------------------------------------------------
def summary(exp: Experiment, stats: list[PairingStats], found: list[Setting],
            seconds: float) -> tuple[str, str, list[str]]:
    """The question, the answer and the key numbers."""
    played = [s for s in found if s.stats.games]
    done = sum(s.games for s in stats)
    letters = varied_letters(exp)
    opponents = sorted({s.b for s in found})
    kanji = piece_names(exp)
    names = ", ".join(f"{kanji.get(x, x)} ({x})" for x in letters)
    if letters and len(opponents) == 1:
        question = (f"How does the score of player a against {exp.players[opponents[0]].label} depend on the "
                    f"values it gives to {names}?")
    elif len(found) == 1:
        question = f"Does {exp.players[found[0].a].label} beat {exp.players[found[0].b].label}?"
    else:
        question = "Which setting scores best against its opponent, and by how much?"
    if not played:
        answer = "No games have been played yet."
    elif len(played) == 1:
        answer = _one_answer(played[0], exp)
    else:
        answer = _many_answer(played)
    if done < exp.total_games:
        answer += f" (Partial: {done} of {exp.total_games} games played so far.)"
    numbers = [f"Games: **{done}** of {exp.total_games}, in {len(found)} settings ({len(exp.pairings)} pairings)"
               + (f"; {seconds / 60:.1f} minutes of play, summed over the games." if seconds else ".")]
    numbers.append(first_move_line(stats, exp))
    with_pub = [s for s in played if s.published]
    if with_pub:
        agree = sum(1 for s in with_pub if _same_as_published(s) >= 0.05)
        numbers.append(f"Published counts: ours agree with them (p ≥ 0.05) in **{agree} of {len(with_pub)}** "
                       "settings.")
    return question, answer, numbers


def _score_text(s: PairingStats) -> str:
    t = display(s)
    return f"**{t['score']}** (95% CI {t['score_ci95']}, Elo {t['elo']}) over {s.games} games"


TOO_FEW = (f"too few games to tell (fewer than {MIN_DECISIVE} decisive games, and below that no result can reach "
           f"p < {ALPHA:g})")


def _one_answer(s: Setting, exp: Experiment) -> str:
    a, b = exp.players[s.a].label, exp.players[s.b].label
    if s.label != f"{a} vs {b}":
        a = f"Setting {s.label}"  # named by its piece values
    st = s.stats
    t = display(st)
    if t["verdict"] == "too few":
        verdict = TOO_FEW
    elif t["verdict"] in ("above", "below"):
        verdict = f"significantly {'stronger' if t['verdict'] == 'above' else 'weaker'} (p = {t['p']})"
    else:
        verdict = f"not distinguishable from an even score at the {100 * ALPHA:g}% level (p = {t['p']})"
    return f"{a} scored {_score_text(st)} against {b}: {verdict}."


def _many_answer(played: list[Setting]) -> str:
    best = max(played, key=lambda s: s.stats.a_score)
    worst = min(played, key=lambda s: s.stats.a_score)
    verdicts = [display(s.stats)["verdict"] for s in played]
    above, below, few = (verdicts.count(v) for v in ("above", "below", "too few"))
    m = len(played) - few
    text = (f"Best setting **{best.label}**: {_score_text(best.stats)}. "
            f"Worst **{worst.label}**: {_score_text(worst.stats)}. ")
    if few:
        text += f"{few} of {len(played)} settings have {TOO_FEW}. "
    if not m:
        return text.rstrip()
    if above or below:
        text += (f"{above} of {m} settings score significantly above 50% and {below} below (p < {ALPHA:g} "
                 f"each; by chance alone about {ALPHA * m:.1f} of {m} would).")
    else:
        text += (f"No setting differs significantly from an even score (p < {ALPHA:g}): with these game counts "
                 f"the {m} settings cannot be told apart from 50%.")
    return text


def _same_as_published(s: Setting) -> float:
    assert s.published is not None
    return same_distribution((s.stats.a_wins, s.stats.b_wins, s.stats.draws), s.published)


# ---- setup ----------------------------------------------------------------------------------
def setup_line(exp: Experiment) -> str:
    parts = [f"Game: {exp.game}"]
    if exp.variant:
        parts.append(f"variant {Path(exp.variant).name}")
    if exp.repetition:
        parts.append(f"repetition scored as {exp.repetition}")
    if exp.max_plies:
        parts.append(f"a draw after {exp.max_plies} plies")
    if exp.openings.random_plies:
        parts.append(f"openings: {exp.openings.random_plies} random plies")
    elif exp.openings.sfens:
        parts.append(f"openings: {len(exp.openings.sfens)} SFEN positions")
    parts.append(f"seed {exp.seed}")
    colors = sorted({p.colors for p in exp.pairings})
    parts.append("colours " + " / ".join(colors) + (" (player a always sente)" if colors == ["fixed"] else ""))
    return "; ".join(parts) + f". Experiment file name: `{exp.name}`."


def player_lines(exp: Experiment) -> list[str]:
    """Player b of each setting in full; player a's shared options (its values are the rows)."""
    lines, kanji = [], piece_names(exp)
    for b in sorted({p.b for p in exp.pairings}):
        lines.append(f"Player b, {exp.players[b].label}: {_describe_player(exp.players[b], kanji)}")
    a_names = sorted({p.a for p in exp.pairings})
    skip = ("values", "label")
    shared = {k: v for k, v in exp.players[a_names[0]].settings.items() if k not in skip}
    if all({k: v for k, v in exp.players[n].settings.items() if k not in skip} == shared
           for n in a_names) and len(a_names) > 1:
        lines.append(f"Player a: {_describe(shared, exp.players[a_names[0]].engine)}, with the piece values named "
                     "by each setting (the others as player b's).")
    else:
        lines += [f"Player a, {exp.players[n].label}: {_describe_player(exp.players[n], kanji)}"
                  for n in a_names if n not in {p.b for p in exp.pairings}]
    return lines


def _describe_player(spec: Any, kanji: Mapping[str, str]) -> str:
    """A player's options as written, and its piece values as validated (a value file is read),
    each piece by its ``kanji``."""
    text = _describe({k: v for k, v in spec.settings.items() if k != "values"}, spec.engine, kanji,
                     piece_values(spec))
    if isinstance(spec.settings.get("values"), str):
        text += f" (from {spec.settings['values']})"
    return text


def _describe(settings: Any, engine: str, kanji: Mapping[str, str] = PIECE_NAMES,
              values: dict[str, int] | None = None) -> str:
    opts = [f"{k} {_option(v)}" for k, v in settings.items() if k not in ("values", "label", "engine")]
    values = values or {}
    text = f"{engine} engine" + (f" ({', '.join(opts)})" if opts else "")
    if values:
        order = list(PIECE_NAMES)
        ordered = sorted(values.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
        text += "; piece values " + " ".join(f"{kanji.get(k, k)}{v}" for k, v in ordered)
    return text


def _option(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


# ---- tables ---------------------------------------------------------------------------------
def results_table(exp: Experiment, stats: list[PairingStats]) -> Block:
    published = any(p.published for p in exp.pairings)
    header = ["setting", "games", "勝 W", "負 L", "分 D", "勝率 score", "95% CI", "Elo", "Elo 95% CI", "p"]
    if published:
        header += ["published W-L-D", "published 勝率", "published score"]
    header.append("pairing")
    rows = []
    for p, s, label in zip(exp.pairings, stats, row_labels(exp), strict=True):
        t = display(s)
        row = [label, str(s.games), str(s.a_wins), str(s.b_wins), str(s.draws), t["score"], t["score_ci95"],
               t["elo"], t["elo_ci95"], t["p"]]
        if published:
            pub = p.published or {}
            if pub:
                w, l, d = pub["wins"], pub["losses"], pub["draws"]
                row += [f"{w}-{l}-{d}", str(pub.get("rate", "")), format_pct((w + d / 2) / max(1, w + l + d))]
            else:
                row += ["", "", ""]
        rows.append(row + [p.name])
    return ("table", "Player a's results in each setting, in the order of the experiment file.", header, rows)


def pooled_table(found: list[Setting]) -> Block:
    header = ["setting", "runs", "games", "勝 W", "負 L", "分 D", "勝率 score", "95% CI", "Elo", "p"]
    with_published = any(s.published for s in found)
    if with_published:
        header += ["published W-L-D", "published score", "published 95% CI", "published p", "p same as published"]
    rows = []
    for setting in found:
        s = setting.stats
        t = display(s)
        row = [setting.label, str(len(setting.pairings)), str(s.games), str(s.a_wins), str(s.b_wins), str(s.draws),
               t["score"], t["score_ci95"], t["elo"], t["p"]]
        if with_published:
            if setting.published:
                w, l, d = setting.published
                n = max(1, w + l + d)
                row += [f"{w}-{l}-{d}", format_pct((w + d / 2) / n), format_interval(*wilson_interval(w + d / 2, n)),
                        format_p(p_value_even(w, l)), format_p(_same_as_published(setting))]
            else:
                row += ["", "", "", "", ""]
        rows.append(row)
    return ("table", "Every distinct setting with all its games counted together.", header, rows)


def first_move_line(stats: list[PairingStats], exp: Experiment) -> str:
    """Sente's score pooled over the pairings with alternating colours (the clean estimate)."""
    alt = [s for p, s in zip(exp.pairings, stats, strict=True) if p.colors == "alternate"]
    n = sum(s.games for s in alt)
    if not n:
        return ("First-move advantage: no pairing alternates colours, so it cannot be separated from the players' "
                "strength (sente's score per setting is in the table below).")
    points = sum(s.sente_score * s.games for s in alt)
    lo, hi = wilson_interval(points, n)
    return (f"First-move advantage: sente scored **{format_pct(points / n)}** (95% CI {format_interval(lo, hi)}) "
            f"over {n} games with alternating colours.")


def sente_table(exp: Experiment, stats: list[PairingStats]) -> Block:
    rows = [[label, f"{s.a_sente_games}/{s.games}", display(s)["sente_score"], display(s)["sente_score_ci95"]]
            for label, s in zip(row_labels(exp), stats, strict=True)]
    return ("table", "Sente's score in each setting.", ["setting", "a was sente", "sente score", "95% CI"], rows)


def sprt_table(sprts: list[tuple[str, PairingStats]]) -> Block:
    rows = []
    for label, s in sprts:
        t = s.sprt or {}
        model = t.get("model", "trinomial")
        pairs = " ".join(map(str, t["pentanomial"])) if model == "pentanomial" else "–"
        units = "" if t.get("units", "logistic") == "logistic" else " (normalized)"
        at = f" after {t['games']} games" if t.get("games") is not None and t["games"] < s.games else ""
        c = t.get("elo_corrected")
        corrected = "–" if c is None else f"{c['elo']:+.1f} [{c['lo']:+.1f}, {c['hi']:+.1f}] (plain {c['mle']:+.1f})"
        state = f"none in {s.games} games" if t.get("undecided") else t["state"] + at
        rows.append([label, model, f"{t['elo0']:g}{units}", f"{t['elo1']:g}{units}", pairs, f"{t['llr']:.3f}",
                     f"[{t['lower']:.3f}, {t['upper']:.3f}]", state, corrected])
    return ("table", "Generalized SPRT of each pairing that asked for one; a pentanomial test counts game pairs "
            "(same opening, both colours) scoring 0, ½, 1, 1½, 2 points for a.  A decision is the test's state "
            "when it crossed a bound; games that were still being played then are counted in the other tables.  "
            "A stopped test's plain Elo is biased by the stopping; the corrected Elo is median-unbiased with a 95 % "
            "interval, from simulated runs of the same test (komaken.lab.sprt_elo).",
            ["setting", "model", "H0 Elo", "H1 Elo", "pairs 0–2", "LLR", "bounds", "decision",
             "Elo corrected [95 %]"], rows)


__all__ = ["TOO_FEW", "document", "first_move_line", "results_table", "setup_line", "summary"]
