"""Game-tree search. :mod:`komaken.search.generic` works on any :class:`komaken.game.Game`."""

from komaken.search.generic import SearchResult, best_lines, best_move, negamax

__all__ = ["SearchResult", "best_lines", "best_move", "negamax"]
