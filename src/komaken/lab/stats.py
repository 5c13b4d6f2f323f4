"""Statistics of a pairing: score, Wilson interval, Elo, exact p-value, first-move advantage, GSPRT.

A game scores 1 for a win, ½ for a draw and 0 for a loss.  With *n* games the **score** of
player a is ``(wins + draws/2) / n``.

* The 95 % interval of the score is **Wilson's** score interval (the formula: no statistics
  package to import, so ``experiment status`` answers at once).  It behaves
  well near 0 and 1 and for small *n*, unlike the textbook ``p ± 1.96·sqrt(p(1-p)/n)``.  Counting a
  draw as half a success treats each game as a coin flip, which slightly *over*-states the spread
  when there are draws: the interval is conservative.
* The **p-value** is the two-sided **exact sign test** of "the true score is 50 %": the wins
  among the decisive games against a fair coin (twice the smaller binomial tail,
  ``scipy.special.bdtr``), draws set aside.
  The expected score is ``P(win) + P(draw)/2``, which is ½ exactly when ``P(win) = P(loss)``,
  so conditioning on the decisive games tests that hypothesis exactly, at any sample size (a
  normal approximation gives 0 wins in 4 games p = 0.046; the exact test 0.125).  With fewer
  than :data:`MIN_DECISIVE` decisive games no result can reach ``p < 0.05``: the report then says
  "too few games to tell" (:func:`verdict`).  The interval and the test are different procedures
  and can disagree near the 5 % line; the verdict is the test's.
* The **Elo difference** is ``400·log10(s / (1 - s))``; its interval maps the ends of the Wilson
  interval through the same curve (the map is increasing, so the coverage carries over).
  A score of 75 % is +190.85 Elo; a perfect score has no finite Elo: ``None`` in JSON, written
  ``+∞`` (or ``−∞`` for a score of 0) by ``status`` and the report alike (:func:`format_elo`).
* The **first-move advantage** is the score of sente (the side that moves first) over all games.
* The **GSPRT** (generalized sequential probability ratio test, trinomial model) decides between
  H0: ``elo = elo0`` and H1: ``elo = elo1`` with error rates alpha and beta.  With the observed
  mean score ``x`` and per-game variance ``v`` over ``n`` games its log-likelihood ratio is
  ``LLR = n·(s1 - s0)·(2x - s0 - s1) / (2v)`` where ``s0``, ``s1`` are the scores the two Elo
  values predict.  The test accepts H1 when ``LLR ≥ log((1-beta)/alpha)``, accepts H0 when
  ``LLR ≤ log(beta/(1-alpha))`` and otherwise asks for more games.
* With ``model = "pentanomial"`` the same test runs over **game pairs** (each opening played with
  both colours): see :mod:`komaken.lab.pentanomial`.  ``units = "normalized"`` reads elo0/elo1 as
  normalized Elo (the score difference over the match's own standard deviation).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

from komaken.lab.pentanomial import pentanomial_counts, pentanomial_llr

SPRT_MODELS = ("trinomial", "pentanomial")
Z95 = 1.959963984540054
#: the level a verdict of "significantly stronger / weaker" needs
ALPHA = 0.05
#: fewer decisive games cannot reach ``p < ALPHA`` however they went: 5–0 gives p = 0.0625, 6–0 0.031
MIN_DECISIVE = 6


def score(wins: int, losses: int, draws: int) -> float:
    """The score (win = 1, draw = ½, loss = 0) averaged over the games; 0.5 with no games."""
    n = wins + losses + draws
    return (wins + draws / 2) / n if n else 0.5


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n`` (``(0, 1)`` when ``n == 0``).

    The interval always contains ``successes / n`` and lies within 0..1: at 0 % or 100 % the
    floating-point formula can land a hair inside (``0.9999999999999999`` for 10 of 10), which
    would make the distance from the estimate to the bound negative (matplotlib refuses such
    error bars), so the bounds are clamped to the estimate.
    """
    if n <= 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    p = min(1.0, max(0.0, p))
    return (max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p)))


def p_value_even(wins: int, losses: int) -> float:
    """Two-sided exact p-value of "the expected score is 50 %" from ``wins`` and ``losses`` (draws
    do not enter): the sign test, a binomial test of the wins among the decisive games.  Under a
    fair coin the two tails are mirror images, so it is twice the smaller tail, at most 1.

    >>> p_value_even(0, 4), p_value_even(0, 6), p_value_even(3, 3), p_value_even(0, 0)
    (0.125, 0.03125, 1.0, 1.0)
    """
    if wins == losses:
        return 1.0
    from scipy.special import bdtr

    return float(min(1.0, 2.0 * bdtr(min(wins, losses), wins + losses, 0.5)))


def verdict(wins: int, losses: int, p: float) -> str:
    """``"too few"`` below :data:`MIN_DECISIVE` decisive games, else ``"above"`` / ``"below"`` 50 %
    when ``p < ALPHA``, else ``"even"`` (not distinguishable from an even score)."""
    if wins + losses < MIN_DECISIVE:
        return "too few"
    if p < ALPHA:
        return "above" if wins > losses else "below"
    return "even"


def elo_from_score(s: float) -> float | None:
    """Elo difference that predicts score ``s``: ``400·log10(s/(1-s))``; ``None`` at 0 or 1."""
    if s <= 0.0 or s >= 1.0:
        return None
    return 400.0 * math.log10(s / (1.0 - s))


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True, slots=True)
class SPRT:
    """A sequential test: H0 ``elo = elo0`` against H1 ``elo = elo1`` with error rates."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "trinomial"  # or "pentanomial": over game pairs
    units: str = "logistic"  # or "normalized" Elo

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)


def gsprt_llr(wins: int, losses: int, draws: int, elo0: float, elo1: float, units: str = "logistic") -> float:
    """Log-likelihood ratio of the GSPRT (trinomial model, normal approximation).

    ``0.0`` while the sample cannot estimate a variance (no games, or all results equal).
    With ``units="normalized"`` the scores are ``½ + elo·σ/(800/ln 10)``, σ the per-game deviation.
    """
    n = wins + losses + draws
    if n == 0:
        return 0.0
    x = score(wins, losses, draws)
    var = (wins * (1 - x) ** 2 + draws * (0.5 - x) ** 2 + losses * x**2) / n
    if var <= 0:
        return 0.0
    if units == "normalized":
        k = math.sqrt(var) * math.log(10.0) / 800.0
        s0, s1 = 0.5 + elo0 * k, 0.5 + elo1 * k
    else:
        s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2 * x - s0 - s1) / (2 * var)


def sprt_state(wins: int, losses: int, draws: int, test: SPRT, penta: list[int] | None = None) -> dict[str, Any]:
    """LLR, bounds and decision (``"H0"``, ``"H1"`` or ``"continue"``) of ``test``, with the counts
    it was taken on: ``wins``, ``losses``, ``draws`` for a trinomial test.  A pentanomial test
    needs ``penta``, the five pair counts (:func:`komaken.lab.pentanomial.pentanomial_counts`);
    they are part of the answer (``"pentanomial"``)."""
    extra: dict[str, Any] = {}
    if test.model == "pentanomial":
        counts = list(penta or [0] * 5)
        llr = pentanomial_llr(counts, test.elo0, test.elo1, test.units)
        extra = {"pentanomial": counts, "pairs": sum(counts)}
    else:
        llr = gsprt_llr(wins, losses, draws, test.elo0, test.elo1, test.units)
        extra = {"wins": wins, "losses": losses, "draws": draws}
    state = "H1" if llr >= test.upper else "H0" if llr <= test.lower else "continue"
    return {
        **asdict(test),
        **extra,
        "llr": round(llr, 4),
        "lower": round(test.lower, 4),
        "upper": round(test.upper, 4),
        "state": state,
    }


@dataclass(frozen=True, slots=True)
class PairingStats:
    """Everything the lab reports about one pairing (a against b)."""

    name: str
    a: str
    b: str
    games: int
    a_wins: int
    b_wins: int
    draws: int
    a_score: float
    a_score_ci95: tuple[float, float]
    elo: float | None
    elo_ci95: tuple[float | None, float | None]
    p_value: float
    sente_games: int
    sente_score: float
    sente_score_ci95: tuple[float, float]
    a_sente_games: int
    sprt: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """The ``status --json`` form: plain numbers, lists, ``None`` for an infinite Elo."""
        d = asdict(self)
        d["a_score_ci95"] = list(self.a_score_ci95)
        d["elo_ci95"] = list(self.elo_ci95)
        d["sente_score_ci95"] = list(self.sente_score_ci95)
        for key in ("a_score", "p_value", "sente_score"):
            d[key] = round(d[key], 6)
        for key in ("a_score_ci95", "sente_score_ci95"):
            d[key] = [round(v, 6) for v in d[key]]
        d["elo"] = None if self.elo is None else round(self.elo, 2)
        d["elo_ci95"] = [None if v is None else round(v, 2) for v in self.elo_ci95]
        return d


def pairing_stats(
    name: str,
    a: str,
    b: str,
    results: list[tuple[str, str]],
    sprt: SPRT | None = None,
    indexes: list[int] | None = None,
    decision: dict[str, Any] | None = None,
) -> PairingStats:
    """Statistics from ``results``: one ``(result, sente)`` per game, result ``"a" | "b" | "draw"``
    and sente ``"a" | "b"`` (who moved first).  ``indexes`` (the game index of each result) pairs
    the games for a pentanomial test; without them consecutive results are taken as pairs.
    ``decision``, the SPRT's state recorded when the run saw it cross a bound (with ``games``, the
    games counted then), is the test's answer from then on, whatever games were stored after it."""
    wins = sum(1 for r, _ in results if r == "a")
    losses = sum(1 for r, _ in results if r == "b")
    draws = len(results) - wins - losses
    n = len(results)
    s = score(wins, losses, draws)
    lo, hi = wilson_interval(wins + draws / 2, n)
    sente_points = sum(1.0 if r == sente else 0.5 if r == "draw" else 0.0 for r, sente in results)
    return PairingStats(
        name=name,
        a=a,
        b=b,
        games=n,
        a_wins=wins,
        b_wins=losses,
        draws=draws,
        a_score=s,
        a_score_ci95=(lo, hi),
        elo=elo_from_score(s) if n else None,
        elo_ci95=(_elo_or_inf(lo), _elo_or_inf(hi)),
        p_value=p_value_even(wins, losses),
        sente_games=n,
        sente_score=sente_points / n if n else 0.5,
        sente_score_ci95=wilson_interval(sente_points, n),
        a_sente_games=sum(1 for _, sente in results if sente == "a"),
        sprt=None if sprt is None else decision or sprt_state(wins, losses, draws, sprt, _penta(results, indexes)),
    )


def _penta(results: list[tuple[str, str]], indexes: list[int] | None) -> list[int]:
    idx = indexes if indexes is not None else list(range(len(results)))
    return pentanomial_counts(zip(idx, (r for r, _ in results), strict=True))


def _elo_or_inf(s: float) -> float | None:
    return elo_from_score(s)


# ---- wording shared by ``experiment status``, the report and the web pages ----------------------
def display(s: PairingStats) -> dict[str, str]:
    """Every figure of ``s`` as text — the one place that writes them, so ``experiment status``,
    ``report.md``/``.html`` and the web pages print the same digits (``status --json`` carries
    these strings as ``"text"``; they are made from the unrounded numbers)."""
    played = s.games > 0
    dash = "–"
    return {
        "score": format_pct(s.a_score) if played else dash,
        "score_ci95": format_interval(*s.a_score_ci95) if played else dash,
        "elo": format_elo(s.elo, s.a_score if played else None),
        "elo_ci95": format_elo_interval(*s.elo_ci95) if played else dash,
        "p": format_p(s.p_value) if played else dash,
        "sente_score": format_pct(s.sente_score) if played else dash,
        "sente_score_ci95": format_interval(*s.sente_score_ci95) if played else dash,
        "verdict": verdict(s.a_wins, s.b_wins, s.p_value),
    }


def format_pct(x: float) -> str:
    """``0.58`` → ``58.0%``."""
    return f"{100 * x:.1f}%"


def format_interval(lo: float, hi: float) -> str:
    """A score interval: ``48.2–67.2%``."""
    return f"{100 * lo:.1f}–{100 * hi:.1f}%"


def format_estimate(value: float, lo: float, hi: float) -> str:
    """An estimate with its interval, as the piece-values study writes them: ``0.372 (0.301–0.447)``."""
    return f"{value:.3f} ({lo:.3f}–{hi:.3f})"


def format_elo(elo: float | None, score: float | None = None) -> str:
    """``+56``; ``+∞`` / ``−∞`` when the score is 100 % / 0 % (no finite Elo); ``–`` with no games
    (``score`` is ``None``)."""
    if elo is None:
        if score is None:
            return "–"
        return "+∞" if score >= 0.5 else "−∞"
    return f"{elo:+.0f}".replace("-", "−")


def format_elo_interval(lo: float | None, hi: float | None) -> str:
    """``−12 … +95``; an end at a score of 0 or 1 is ``−∞`` / ``+∞``."""
    return f"{format_elo(lo, 0.0)} … {format_elo(hi, 1.0)}"


def format_p(p: float) -> str:
    """``0.034``, or ``1.3e−11`` below 0.001."""
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}".replace("-", "−")
