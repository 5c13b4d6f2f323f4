"""The one :class:`SearchResult` every searcher returns (generic negamax, reversi, shogi).

>>> r = SearchResult("7g7f", 35, nodes=1200, depth=4, seconds=0.01, pv=["7g7f", "3c3d"])
>>> r.score_cp, r.nps, r.usi_info()
(35, 120000, 'info depth 4 seldepth 4 score cp 35 nodes 1200 nps 120000 time 10 pv 7g7f 3c3d')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

M = TypeVar("M")


@dataclass(frozen=True, slots=True)
class SearchResult(Generic[M]):
    """What a search found.

    ``move`` is ``None`` when the side to move has no move (shogi: it has lost, USI
    ``bestmove resign``).  ``score`` is from the side to move's view, in the searcher's units;
    ``mate`` is set for a forced mate (plies to mate, negative when being mated) and ``exact``
    when the score is the game's solved value.  ``declare``: the side to move wins by declaring
    (shogi's 入玉宣言, USI ``bestmove win``).  ``seconds`` is the time the search took.
    """

    move: M | None
    score: float
    nodes: int = 0
    depth: int = 0
    seldepth: int = 0
    seconds: float = 0.0
    pv: list[M] = field(default_factory=list)
    exact: bool = False
    declare: bool = False
    mate: int | None = None
    rank: int = 0  # MultiPV: this line's rank (1 = best); 0 when only one line was asked for
    lines: list[SearchResult[M]] = field(default_factory=list)  # MultiPV: every line, best first

    @property
    def score_cp(self) -> float | None:
        """The score in centipawn-like units, ``None`` for a mate score."""
        return None if self.mate is not None else self.score

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0

    @property
    def time_ms(self) -> float:
        """:attr:`seconds` in milliseconds (what a USI ``info time`` carries)."""
        return self.seconds * 1000.0

    def usi_score(self) -> str:
        """``cp 123`` or ``mate 5`` / ``mate -4`` (plies, as USI counts them)."""
        if self.mate is not None:
            return f"mate {self.mate}"
        return f"cp {max(-30000, min(30000, int(self.score)))}"

    def usi_info(self) -> str:
        """One USI ``info`` line for this result (times in milliseconds, as USI has them)."""
        pv = " ".join(str(m) for m in self.pv)
        rank = f" multipv {self.rank}" if self.rank else ""
        return (f"info depth {self.depth} seldepth {max(self.seldepth, self.depth)}{rank} score {self.usi_score()} "
                f"nodes {self.nodes} nps {self.nps} time {int(self.time_ms)}" + (f" pv {pv}" if pv else ""))


__all__ = ["SearchResult"]
