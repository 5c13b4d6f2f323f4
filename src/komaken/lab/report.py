"""Status and reports: statistics per pairing as JSON, Markdown and HTML tables, plots.

The tables follow the thesis's Table 6: the piece values that vary, then 勝 / 負 / 分 and 勝率
(score of player a, a draw counting ½), followed by what the thesis lacked — the 95 % interval,
the Elo difference and the p-value — and, where the experiment file records them, the published
numbers side by side.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from komaken.lab.config import Experiment
from komaken.lab.stats import PairingStats, p_value_half, pairing_stats, wilson_interval
from komaken.lab.storage import ExperimentDB

PIECE_NAMES = {
    "P": "歩", "L": "香", "N": "桂", "S": "銀", "G": "金", "B": "角", "R": "飛", "K": "玉",
    "+P": "と", "+L": "杏", "+N": "圭", "+S": "全", "+B": "馬", "+R": "龍",
}  # fmt: skip


def collect(db: ExperimentDB) -> tuple[Experiment, list[PairingStats]]:
    """The stored experiment and the statistics of each of its pairings."""
    exp = db.experiment()
    return exp, [pairing_stats(p.name, p.a, p.b, db.results(p.name), p.sprt) for p in exp.pairings]


@dataclass(frozen=True, slots=True)
class PooledSetting:
    """Pairings that play the same two players with the same colours, counted together
    (the thesis ran some settings several times, 100 games each)."""

    pairings: list[str]
    stats: PairingStats
    published: tuple[int, int, int] | None  # summed published W, L, D when every pairing has them


def pooled(db: ExperimentDB, exp: Experiment) -> list[PooledSetting]:
    """One entry per distinct setting, or ``[]`` when no setting was run more than once."""
    groups: dict[str, list[Any]] = {}
    for p in exp.pairings:
        key = json.dumps([dict(exp.players[p.a].settings), dict(exp.players[p.b].settings), p.colors],
                         sort_keys=True, default=str)
        groups.setdefault(key, []).append(p)
    if all(len(g) == 1 for g in groups.values()):
        return []
    out = []
    for group in groups.values():
        results = [r for p in group for r in db.results(p.name)]
        first = group[0]
        stats = pairing_stats(first.name, first.a, first.b, results)
        pubs = [p.published for p in group]
        published = None
        if all(pubs):
            published = tuple(sum(int(pb[k]) for pb in pubs) for k in ("wins", "losses", "draws"))  # type: ignore[index]
        out.append(PooledSetting([p.name for p in group], stats, published))  # type: ignore[arg-type]
    return out


def same_distribution(ours: tuple[int, int, int], theirs: tuple[int, int, int]) -> float:
    """p-value of the χ² test that two W/L/D counts come from the same distribution (a small p:
    our replica and the published program disagree)."""
    from scipy.stats import chi2_contingency

    cols = [(a, b) for a, b in zip(ours, theirs, strict=True) if a + b > 0]
    if len(cols) < 2 or sum(a for a, _ in cols) == 0 or sum(b for _, b in cols) == 0:
        return 1.0
    table = [[a for a, _ in cols], [b for _, b in cols]]
    return float(chi2_contingency(table, correction=False).pvalue)


def pooled_rows(exp: Experiment, settings: list[PooledSetting]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the pooled table (same columns as :func:`table_rows`)."""
    letters = varied_letters(exp)
    header = ["pairings"] + [f"{PIECE_NAMES.get(x, x)} {x}" for x in letters]
    header += ["games", "勝 W", "負 L", "分 D", "勝率 score", "95% CI", "Elo", "p"]
    with_published = any(ps.published for ps in settings)
    if with_published:
        header += ["published W-L-D", "published score", "published 95% CI", "published p", "p same as published"]
    rows = []
    for ps in settings:
        s = ps.stats
        a = exp.pairing(ps.pairings[0]).a
        lo, hi = s.a_score_ci95
        row = [", ".join(ps.pairings)] + [str(_value(exp, a, x) or "") for x in letters]
        row += [str(s.games), str(s.a_wins), str(s.b_wins), str(s.draws), _pct(s.a_score),
                f"{_pct(lo)}–{_pct(hi)}", _elo(s.elo, lo_side=s.a_score < 0.5), _p(s.p_value)]
        if with_published:
            if ps.published:
                w, l, d = ps.published
                n = max(1, w + l + d)
                plo, phi = wilson_interval(w + d / 2, n)
                row += [f"{w}-{l}-{d}", _pct((w + d / 2) / n), f"{_pct(plo)}–{_pct(phi)}",
                        _p(p_value_half(w + d / 2, n)), _p(same_distribution((s.a_wins, s.b_wins, s.draws), (w, l, d)))]
            else:
                row += ["", "", "", "", ""]
        rows.append(row)
    return header, rows


def status_json(db: ExperimentDB) -> dict[str, Any]:
    """The ``status --json`` document: ``{"experiment", "games", "target", "pairings": [...]}``."""
    exp, stats = collect(db)
    pairings = []
    for p, s in zip(exp.pairings, stats, strict=True):
        d = s.to_json()
        d["target"] = p.games
        d["colors"] = p.colors
        if p.published is not None:
            d["published"] = dict(p.published)
        pairings.append(d)
    return {
        "experiment": exp.name,
        "games": sum(s.games for s in stats),
        "target": exp.total_games,
        "seconds": round(db.seconds(), 3),
        "pairings": pairings,
    }


def varied_letters(exp: Experiment) -> list[str]:
    """Piece letters whose value for player a differs between pairings or from player b."""
    if "vary" in exp.report:
        return [str(v) for v in exp.report["vary"]]
    order: list[str] = []
    for p in exp.pairings:
        for name in (p.a, p.b):
            for letter in exp.players[name].settings.get("values", {}):
                if letter not in order:
                    order.append(letter)
    out = []
    for letter in order:
        seen = set()
        for p in exp.pairings:
            seen.add(_value(exp, p.a, letter))
            seen.add(_value(exp, p.b, letter))
        if len(seen) > 1:
            out.append(letter)
    return out


def _value(exp: Experiment, player: str, letter: str) -> int | None:
    return exp.players[player].settings.get("values", {}).get(letter)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _elo(x: float | None, lo_side: bool = False) -> str:
    if x is None:
        return "−∞" if lo_side else "+∞"
    return f"{x:+.0f}"


def _p(x: float) -> str:
    return f"{x:.3f}" if x >= 0.001 else f"{x:.1e}"


def table_rows(exp: Experiment, stats: list[PairingStats]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the Table 6-style results table."""
    letters = varied_letters(exp)
    published = any(p.published for p in exp.pairings)
    header = ["pairing"] + [f"{PIECE_NAMES.get(x, x)} {x}" for x in letters]
    header += ["勝 W", "負 L", "分 D", "勝率 score", "95% CI", "Elo", "Elo 95% CI", "p"]
    if published:
        header += ["published W-L-D", "published 勝率", "published score"]
    rows = []
    for p, s in zip(exp.pairings, stats, strict=True):
        row = [p.name] + [str(_value(exp, p.a, x) if _value(exp, p.a, x) is not None else "") for x in letters]
        if s.games:
            lo, hi = s.a_score_ci95
            elo_lo, elo_hi = s.elo_ci95
            row += [
                str(s.a_wins),
                str(s.b_wins),
                str(s.draws),
                _pct(s.a_score),
                f"{_pct(lo)}–{_pct(hi)}",
                _elo(s.elo, lo_side=s.a_score < 0.5),
                f"{_elo(elo_lo, True)} … {_elo(elo_hi)}",
                _p(s.p_value),
            ]
        else:
            row += ["0", "0", "0", "-", "-", "-", "-", "-"]
        if published:
            pub = p.published or {}
            if pub:
                w, l, d = pub["wins"], pub["losses"], pub["draws"]
                row += [f"{w}-{l}-{d}", str(pub.get("rate", "")), _pct((w + d / 2) / max(1, w + l + d))]
            else:
                row += ["", "", ""]
        rows.append(row)
    return header, rows


def first_move_line(stats: list[PairingStats], exp: Experiment) -> str:
    """Sente's score pooled over the pairings with alternating colours (the clean estimate)."""
    alt = [s for p, s in zip(exp.pairings, stats, strict=True) if p.colors == "alternate"]
    n = sum(s.games for s in alt)
    if not n:
        return (
            "No pairing alternates colours, so the first-move advantage cannot be separated from "
            "the players' strength (see the per-pairing sente score below)."
        )
    points = sum(s.sente_score * s.games for s in alt)
    lo, hi = wilson_interval(points, n)
    return (
        f"Sente (the first player) scored {_pct(points / n)} (95% CI {_pct(lo)}–{_pct(hi)}) "
        f"over {n} games with alternating colours."
    )


def markdown(exp: Experiment, stats: list[PairingStats], plots: list[str],
             settings: list[PooledSetting] | None = None) -> str:
    """The report as Markdown (``settings``: the pooled table, see :func:`pooled`)."""
    header, rows = table_rows(exp, stats)
    done = sum(s.games for s in stats)
    lines = [
        f"# {exp.report.get('title', exp.name)}",
        "",
        _setup_line(exp, done),
        "",
        "勝 / 負 / 分 are player a's wins, losses and draws; 勝率 is a's score (a draw counts ½). "
        "The 95% interval is Wilson's; p tests a score of 50%.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    if settings:
        pheader, prows = pooled_rows(exp, settings)
        lines += ["", "## Pooled by setting", "",
                  "Pairings that play the same two players with the same colours, counted together.", "",
                  "| " + " | ".join(pheader) + " |", "|" + "|".join("---" for _ in pheader) + "|"]
        lines += ["| " + " | ".join(prow) + " |" for prow in prows]
    lines += ["", "## First-move advantage", "", first_move_line(stats, exp), ""]
    lines += ["| pairing | a was sente | sente score | 95% CI |", "|---|---|---|---|"]
    for s in stats:
        lo, hi = s.sente_score_ci95
        lines.append(f"| {s.name} | {s.a_sente_games}/{s.games} | {_pct(s.sente_score)} | {_pct(lo)}–{_pct(hi)} |")
    sprts = [s for s in stats if s.sprt]
    if sprts:
        lines += [
            "",
            "## SPRT",
            "",
            "| pairing | H0 elo | H1 elo | LLR | bounds | state |",
            "|---|---|---|---|---|---|",
        ]
        for s in sprts:
            t = s.sprt or {}
            lines.append(
                f"| {s.name} | {t['elo0']:g} | {t['elo1']:g} | {t['llr']:.3f} | "
                f"[{t['lower']:.3f}, {t['upper']:.3f}] | {t['state']} |"
            )
    if plots:
        lines += ["", "## Plots", ""] + [f"![{p}]({p}.svg)" for p in plots]
    return "\n".join(lines) + "\n"


def _setup_line(exp: Experiment, done: int) -> str:
    parts = [f"game: {exp.game}"]
    if exp.variant:
        parts.append(f"variant: {Path(exp.variant).name}")
    if exp.repetition:
        parts.append(f"repetition: {exp.repetition}")
    if exp.max_plies:
        parts.append(f"max plies: {exp.max_plies}")
    if exp.openings.random_plies:
        parts.append(f"openings: {exp.openings.random_plies} random plies")
    elif exp.openings.sfens:
        parts.append(f"openings: {len(exp.openings.sfens)} SFEN positions")
    parts.append(f"seed: {exp.seed}")
    parts.append(f"games: {done} of {exp.total_games}")
    return " · ".join(parts)


def html_page(exp: Experiment, stats: list[PairingStats], plots: list[str],
              settings: list[PooledSetting] | None = None) -> str:
    """The report as one self-contained HTML page (plots linked as SVG files)."""
    header, rows = table_rows(exp, stats)
    esc = html.escape
    out = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{esc(exp.name)}</title>",
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "th,td{border:1px solid #999;padding:2px 8px;text-align:right}th{background:#eee}"
        "td:first-child{text-align:left}</style></head><body>",
        f"<h1>{esc(str(exp.report.get('title', exp.name)))}</h1>",
        f"<p>{esc(_setup_line(exp, sum(s.games for s in stats)))}</p>",
        "<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>",
    ]
    out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows]
    out.append("</table>")
    if settings:
        pheader, prows = pooled_rows(exp, settings)
        out += ["<h2>Pooled by setting</h2><table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in pheader) + "</tr>"]
        out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in prows]
        out.append("</table>")
    out += [f"<h2>First-move advantage</h2><p>{esc(first_move_line(stats, exp))}</p>"]
    out += [f"<h2>{esc(p)}</h2><img src='{esc(p)}.svg' alt='{esc(p)}'>" for p in plots]
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def plot(exp: Experiment, stats: list[PairingStats], out: Path) -> list[str]:
    """Write the PNG and SVG plots into ``out``; return their base names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names: list[str] = []
    played = [(p, s) for p, s in zip(exp.pairings, stats, strict=True) if s.games]
    if not played:
        return names

    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.3 * len(played) + 1)))
    ys = list(range(len(played)))[::-1]
    x = [s.a_score for _, s in played]
    err = [
        [s.a_score - s.a_score_ci95[0] for _, s in played],
        [s.a_score_ci95[1] - s.a_score for _, s in played],
    ]
    ax.errorbar(x, ys, xerr=err, fmt="o", capsize=3, label="score of a, 95% CI")
    pub = [(y, p.published) for y, (p, _) in zip(ys, played, strict=True) if p.published]
    if pub:
        ax.plot(
            [(d["wins"] + d["draws"] / 2) / max(1, d["wins"] + d["losses"] + d["draws"]) for _, d in pub],
            [y for y, _ in pub],
            "x",
            color="tab:red",
            label="published",
        )
    ax.axvline(0.5, color="gray", lw=1, ls="--")
    ax.set_yticks(ys, [p.name for p, _ in played], fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_xlabel("score of player a")
    ax.legend(loc="lower right", fontsize=7)
    ax.set_title(exp.name)
    fig.tight_layout()
    _save(fig, out, "score_ci", names)
    plt.close(fig)

    for letter in varied_letters(exp):
        pts = [(_value(exp, p.a, letter), s) for p, s in played]
        pts = [(v, s) for v, s in pts if v is not None]
        if len({v for v, _ in pts}) < 2:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        xs = [v for v, _ in pts]
        ax.errorbar(
            xs,
            [s.a_score for _, s in pts],
            yerr=[
                [s.a_score - s.a_score_ci95[0] for _, s in pts],
                [s.a_score_ci95[1] - s.a_score for _, s in pts],
            ],
            fmt="o",
            capsize=3,
            alpha=0.8,
        )
        ax.axhline(0.5, color="gray", lw=1, ls="--")
        ax.set_ylim(0, 1)
        ax.set_xlabel(f"value of {letter} for player a")  # CJK glyphs are not in the default font
        ax.set_ylabel("score of player a (95% CI)")
        ax.set_title(f"{exp.name}: score against the value of {letter}")
        fig.tight_layout()
        _save(fig, out, f"score_vs_{_safe(letter)}", names)
        plt.close(fig)
    return names


def _safe(letter: str) -> str:
    return letter.replace("+", "promoted_")


def _save(fig: Any, out: Path, name: str, names: list[str]) -> None:
    fig.savefig(out / f"{name}.png", dpi=120)
    fig.savefig(out / f"{name}.svg")
    names.append(name)


def write_report(db: ExperimentDB, out: str | Path) -> list[Path]:
    """Write ``report.md``, ``report.html`` and the plots into directory ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    exp, stats = collect(db)
    settings = pooled(db, exp)
    plots = plot(exp, stats, out)
    (out / "report.md").write_text(markdown(exp, stats, plots, settings), encoding="utf-8")
    (out / "report.html").write_text(html_page(exp, stats, plots, settings), encoding="utf-8")
    files = [out / "report.md", out / "report.html"]
    files += [out / f"{p}.{ext}" for p in plots for ext in ("png", "svg")]
    return files


__all__ = ["PooledSetting", "collect", "html_page", "markdown", "plot", "pooled", "pooled_rows", "status_json",
           "table_rows", "write_report"]
