"""Playing strength below the engine's best: ``Skill Level`` 0–20 and ``UCI_Elo``.

A weaker engine must still play *plausible* moves — a beginner learns nothing from an engine that
drops pieces at random.  So a skill level weakens the engine in two ways at once:

1. **It looks less far.**  The search is capped at ``depth ≤ 1 + level // 2`` plies and
   ``nodes ≤ 150 · 1.5^level`` (level 0: depth 1, 150 nodes; level 10: depth 6, 8 649 nodes;
   level 19: depth 10, about 332 000 nodes).  A tighter limit from the caller still applies.
2. **It does not always play its best line.**  It searches ``multipv = 4 + (20 − level) // 5``
   root moves (8 at level 0, 4 from level 15 on) and picks line *i* with probability
   ``∝ exp((score_i − score_best) / T)``, ``T = 30 · (20 − level)`` evaluation units (a pawn is
   100): at level 0 a move a silver worse than the best (≈ 1000) is still chosen now and then,
   at level 19 almost never anything but a near-equal alternative.  A forced mate scores so far
   above the rest that it is always played; a move that walks into mate is never chosen while
   another is not.

Level 20 is full strength (no cap, no choice).  The choice is drawn from a generator seeded with
the engine's seed and the position's Zobrist key, so the same seed, position and limits of
depth/nodes always give the same move.

``UCI_Elo`` (with ``UCI_LimitStrength``) maps to a level: ``level = round((elo − 500) / 100)``,
clamped to 0..20, so 500 is level 0 and 2500 is level 20.  This scale is **not yet calibrated**
against rated players; ``benchmarks/strength.py`` matches against Fairy-Stockfish are the
planned reference.

>>> from komaken.shogi.engine import Limits
>>> Skill(0).limits(Limits(depth=8)).depth, Skill(10).limits(Limits()).nodes, Skill(20).active
(1, 8649, False)
>>> Skill.from_elo(1200).level
7
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from komaken.errors import KomakenError

if TYPE_CHECKING:
    from komaken.search.result import SearchResult
    from komaken.shogi.engine.search import Limits

MAX_LEVEL = 20
ELO_MIN = 500
ELO_MAX = 2500


@dataclass(frozen=True, slots=True)
class Skill:
    """A strength setting: ``level`` 0 (weakest) to 20 (full strength)."""

    level: int = MAX_LEVEL

    def __post_init__(self) -> None:
        if isinstance(self.level, bool) or not isinstance(self.level, int) or not 0 <= self.level <= MAX_LEVEL:
            raise KomakenError(f"skill level must be an integer 0..{MAX_LEVEL}, not {self.level!r}")

    @classmethod
    def from_elo(cls, elo: int) -> Skill:
        """The level for a ``UCI_Elo`` (``ELO_MIN``..``ELO_MAX``, 100 Elo a level)."""
        if isinstance(elo, bool) or not isinstance(elo, int) or not ELO_MIN <= elo <= ELO_MAX:
            raise KomakenError(f"UCI_Elo must be an integer {ELO_MIN}..{ELO_MAX}, not {elo!r}")
        return cls(max(0, min(MAX_LEVEL, round((elo - ELO_MIN) / 100))))

    @property
    def active(self) -> bool:
        return self.level < MAX_LEVEL

    @property
    def max_depth(self) -> int:
        return 1 + self.level // 2

    @property
    def max_nodes(self) -> int:
        return int(150 * 1.5**self.level)

    @property
    def multipv(self) -> int:
        return 4 + (MAX_LEVEL - self.level) // 5

    @property
    def temperature(self) -> float:
        return 30.0 * (MAX_LEVEL - self.level)

    def limits(self, limits: Limits) -> Limits:
        """``limits`` with this level's depth and node caps (the tighter of the two wins)."""
        depth = min(limits.depth or self.max_depth, self.max_depth)
        nodes = min(limits.nodes or self.max_nodes, self.max_nodes)
        return dataclasses.replace(limits, depth=depth, nodes=nodes)

    def probabilities(self, scores: list[float]) -> list[float]:
        """The chance of playing each line (``scores`` best first)."""
        top = max(scores)
        gaps = [(s - top) / self.temperature for s in scores]
        weights = [math.exp(g) if g > -700.0 else 0.0 for g in gaps]  # a mate against us: never
        total = sum(weights)
        return [w / total for w in weights]

    def choose(self, result: SearchResult[Any], seed: int, key: int) -> SearchResult[Any]:
        """One of ``result.lines`` drawn by :meth:`probabilities`, as the result (lines kept)."""
        lines = result.lines
        if len(lines) < 2:
            return result
        rng = np.random.default_rng([int(seed) & (2**63 - 1), int(key) & (2**64 - 1), self.level])
        i = int(rng.choice(len(lines), p=self.probabilities([float(r.score) for r in lines])))
        line = lines[i]
        return dataclasses.replace(result, move=line.move, score=line.score, pv=line.pv, mate=line.mate,
                                   rank=line.rank)


__all__ = ["ELO_MAX", "ELO_MIN", "MAX_LEVEL", "Skill"]
