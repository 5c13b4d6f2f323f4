"""The pre-registered decision rules (docs/piece-values-by-board-size.md §1.7), applied to fits.

Each function returns a list of Markdown lines: the numbers the rule looks at and the verdict
("rejected", "not rejected", or "not tested" when the data the rule needs are missing).
Ratios of two studies pair their bootstrap samples (independent studies, same resample count).
"""

from __future__ import annotations

import numpy as np

from komaken.lab.document import Block
from komaken.lab.stats import format_estimate
from komaken.lab.valuestudy.fit import FitResult
from komaken.lab.valuestudy.laws import fsf_factor, fsf_ratio, linear_law, primary, series

#: Fairy-Stockfish as it computes values (the slider scale, then the saturation): the versions
#: H1's formula is compared with beside the pre-registered (n+3)/12.
FSF_VERSIONS = ("master", "11.1")


def _main(fits: list[FitResult], variant: str) -> FitResult | None:
    return primary(fits, variant)


def h1(fits: list[FitResult]) -> list[str]:
    out = ["**H1 (slider law (n+3)/12, controlled family, Bonferroni over 8 tests: 99.375 % intervals)**", ""]
    nine = _main(fits, "ctrl9")
    if nine is None:
        return out + ["not tested: no ctrl9 study at 1000 nodes"]
    rejected, tested = False, 0
    outside_fsf = dict.fromkeys(FSF_VERSIONS, 0)
    for letter in ("B", "R"):
        for n in (5, 6, 7, 8):
            f = _main(fits, f"ctrl{n}")
            if f is None or letter not in f.letters or letter not in nine.letters:
                continue
            k = min(len(f.boot), len(nine.boot))
            ratio = f.samples(letter)[:k] / nine.samples(letter)[:k]
            lo, hi = np.nanquantile(ratio, [0.003125, 0.996875])
            est = f.value(letter)[0] / nine.value(letter)[0]
            inside = lo <= fsf_factor(n) <= hi
            tested += 1
            rejected |= not inside
            as_computed = []
            for version in FSF_VERSIONS:  # middle and end game values: inside when either is
                mg, eg = fsf_ratio(letter, n, version, 0), fsf_ratio(letter, n, version, 1)
                within = lo <= mg <= hi or lo <= eg <= hi
                outside_fsf[version] += not within
                as_computed.append(f"FSF {version} {min(mg, eg):.3f}–{max(mg, eg):.3f} "
                                   f"{'inside' if within else 'outside'}")
            out.append(f"- {letter}: v(ctrl{n})/v(ctrl9) = {format_estimate(est, lo, hi)}; law {fsf_factor(n):.3f} "
                       f"{'inside' if inside else '**outside**'} (as computed: {'; '.join(as_computed)})")
    if not tested:
        return out + ["not tested: no smaller controlled member"]
    return out + ["", f"H1: **{'rejected' if rejected else 'not rejected'}** ({tested} of 8 comparisons available); "
                  "against Fairy-Stockfish's values as it computes them (slider scale, then v·7000/(7000+v)): "
                  + ", ".join(f"{v} {k} of {tested} outside" for v, k in outside_fsf.items())]


def _slope_rule(pts: list[tuple[int, float, float, float]], label: str) -> tuple[list[str], bool | None]:
    law = linear_law(pts)
    if law is None:
        return [f"- {label}: not tested (fewer than two sizes)"], None
    lo, hi = law["b"] - 1.96 * law["se_b"], law["b"] + 1.96 * law["se_b"]
    change = 4 * law["b"]
    rejected = (lo > 0 or hi < 0) and abs(change) > 0.1
    return [f"- {label}: slope {law['b']:+.4f}/size ({lo:+.4f}…{hi:+.4f}), change 5→9 {change:+.3f} gold, "
            f"χ²/dof {law['chi2_dof']:.2f} → {'**rejected**' if rejected else 'not rejected'}"], rejected


def h2(fits: list[FitResult]) -> list[str]:
    out = ["**H2 (step movers size-independent: slope CI excludes 0 and |change 5→9| > 0.1 gold rejects)**", ""]
    verdicts = []
    for fam in ("controlled", "standard"):
        for letter in ("S", "+S", "+P"):
            lines, v = _slope_rule(series(fits, fam, letter), f"{letter}, {fam}")
            out += lines
            if v is not None:
                verdicts.append(v)
    if not verdicts:
        return out + ["", "H2: not tested"]
    return out + ["", f"H2: **{'rejected' if any(verdicts) else 'not rejected'}**"]


def h3(fits: list[FitResult]) -> list[str]:
    out = ["**H3 (a) minishogi: v_B, v_R not above 1.3 and B ≤ R; (b) ctrl: v_R(9)/v_R(5) < 1.5, R slope > 0**", ""]
    mini = _main(fits, "minishogi")
    verdict_a = None
    if mini is not None and {"B", "R"} <= set(mini.letters):
        b, r = mini.value("B"), mini.value("R")
        diff = mini.samples("R") - mini.samples("B")
        dlo, dhi = np.nanquantile(diff, [0.025, 0.975])
        verdict_a = b[1] > 1.3 or r[1] > 1.3 or dhi < 0
        out.append(f"- (a) B {format_estimate(*b)}, R {format_estimate(*r)}, "
                   f"R−B {r[0] - b[0]:+.3f} ({dlo:+.3f}…{dhi:+.3f}) → "
                   f"{'**rejected**' if verdict_a else 'not rejected'}")
    else:
        out.append("- (a) not tested: no minishogi study at 1000 nodes")
    c5, c9 = _main(fits, "ctrl5"), _main(fits, "ctrl9")
    verdict_b = None
    if c5 is not None and c9 is not None:
        k = min(len(c5.boot), len(c9.boot))
        ratio = c9.samples("R")[:k] / c5.samples("R")[:k]
        lo, hi = np.nanquantile(ratio, [0.025, 0.975])
        law = linear_law(series(fits, "controlled", "R"))
        slope_hi = law["b"] + 1.96 * law["se_b"] if law else float("nan")
        verdict_b = lo > 1.5 or slope_hi <= 0
        out.append(f"- (b) v_R(ctrl9)/v_R(ctrl5) = {format_estimate(c9.value('R')[0] / c5.value('R')[0], lo, hi)}; "
                   f"R slope upper bound {slope_hi:+.4f} → {'**rejected**' if verdict_b else 'not rejected'}")
    else:
        out.append("- (b) not tested: ctrl5 and ctrl9 studies needed")
    verdicts = [v for v in (verdict_a, verdict_b) if v is not None]
    word = "not tested" if not verdicts else ("**rejected**" if any(verdicts) else "**not rejected**")
    return out + ["", f"H3: {word}" + (" (partly tested)" if 0 < len(verdicts) < 2 else "")]


def precision(fits: list[FitResult], target: float = 0.05) -> Block:
    """A table: half-widths of B and R and the games a ≤ ``target`` half-width would need (∝ 1/√games)."""
    rows = []
    for f in sorted(fits, key=lambda f: (f.variant.startswith("ctrl"), f.width, f.variant, f.design)):
        hw = [(f.value(x)[2] - f.value(x)[1]) / 2 for x in ("B", "R") if x in f.letters]
        if not hw:
            continue
        need = int(np.ceil(f.games * (max(hw) / target) ** 2))
        cells = [f"{(f.value(x)[2] - f.value(x)[1]) / 2:.3f}" if x in f.letters else "—" for x in ("B", "R")]
        budget = f.config.get("nodes") or "d" + str(f.config.get("depth"))
        rows.append([f.variant, str(budget), f.design, str(f.games), f"{f.seconds:.0f}", *cells,
                     "**yes**" if max(hw) <= target else "no", str(need)])
    return ("table", f"Precision of B and R and the games a ≤ {target:g}-gold half-width needs (scaling as "
            "1/√games)", ["variant", "budget", "start", "games", "game seconds", "B half-width", "R half-width",
                          f"≤ {target:g} met", f"games needed for ≤ {target:g}"], rows)


def _differences(f: FitResult, g: FitResult, name_f: str, name_g: str) -> list[str]:
    """One line per piece both studies fit: g's value − f's, with the 95 % interval of the difference
    (independent bootstraps, paired by index) and whether it contains 0."""
    out = []
    for letter in (x for x in ("B", "R", "S", "P", "+B", "+R") if x in f.letters and x in g.letters):
        k = min(len(f.boot), len(g.boot))
        lo, hi = np.nanquantile(g.samples(letter)[:k] - f.samples(letter)[:k], [0.025, 0.975])
        out.append(f"- {f.variant} {letter}: {name_g} {g.value(letter)[0]:.3f} − {name_f} "
                   f"{f.value(letter)[0]:.3f} = {g.value(letter)[0] - f.value(letter)[0]:+.3f} "
                   f"({lo:+.3f}…{hi:+.3f}) → {'consistent' if lo <= 0 <= hi else '**differ**'}")
    return out


def designs(fits: list[FitResult]) -> list[str]:
    """The bias check of the imbalance start: its values against the level start's, per piece,
    where a variant has both at the same budget."""
    out = []
    for f in sorted(fits, key=lambda f: (f.width, f.variant)):
        if not f.level:
            continue
        for g in (g for g in fits if g.variant == f.variant and not g.level and g.config.get("nodes") ==
                  f.config.get("nodes") and g.config.get("depth") == f.config.get("depth")):
            out += _differences(f, g, "level", g.design)
    return out or ["not tested: no variant has studies of both designs"]


def budgets(fits: list[FitResult]) -> list[str]:
    """How search strength moves the values (issue 11 §6): per variant and start design, every
    study at a larger node budget against the one at the smallest, per piece."""
    out = []
    nodes = [f for f in fits if f.config.get("nodes")]
    for f in sorted(nodes, key=lambda f: (f.width, f.variant, f.design, f.config["nodes"])):
        weakest = min((g for g in nodes if g.variant == f.variant and g.design == f.design),
                      key=lambda g: g.config["nodes"])
        if f.config["nodes"] > weakest.config["nodes"]:
            strong = f"{f.config['nodes']} nodes, {f.design}"
            out += _differences(weakest, f, f"{weakest.config['nodes']} nodes", strong)
    return out or ["not tested: no variant has studies of one design at two node budgets"]


def agreement(fits: list[FitResult], odds: list) -> list[str]:
    """Methods agree for X on a variant if the 95 % interval of v_X(A) − v_X(B) contains 0
    (independent bootstraps, samples paired by index)."""
    out = ["**Methods A and B (agree when the 95 % interval of A − B contains 0)**", ""]
    rows = 0
    for r in odds:
        f = _main(fits, r.variant)
        if f is None:
            out.append(f"- {r.variant}: no method-A study at 1000 nodes")
            continue
        for p in r.pieces:
            if p.letter == "G" or p.letter not in f.letters:
                continue
            if p.samples is None:
                out.append(f"- {r.variant} {p.letter}: method B gave no value ({p.note})")
                continue
            k = min(len(f.boot), len(p.samples))
            diff = f.samples(p.letter)[:k] - p.samples[:k]
            lo, hi = np.nanquantile(diff, [0.025, 0.975])
            est = f.value(p.letter)[0] - p.value
            out.append(f"- {r.variant} {p.letter}: A − B = {est:+.3f} ({lo:+.3f}…{hi:+.3f}) → "
                       f"{'agree' if lo <= 0 <= hi else '**disagree**'}")
            rows += 1
    return out if rows or len(out) > 2 else out + ["not tested: no odds database"]
