"""The shogi engine: piece values, evaluation, α-β search, the thesis replica and a mate solver.

>>> from komaken.shogi import Position
>>> from komaken.shogi.engine import Limits, search
>>> search(Position.start("minishogi"), Limits(depth=3)).move is not None
True
"""

from komaken.shogi.engine.search import DEFAULT_TERMS, Engine, Limits, SearchResult, load_kernels, search
from komaken.shogi.engine.skill import Skill
from komaken.shogi.engine.values import PieceValues

__all__ = ["DEFAULT_TERMS", "Engine", "Limits", "PieceValues", "SearchResult", "Skill", "load_kernels", "search"]
