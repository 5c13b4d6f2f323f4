"""Deprecated name of :mod:`komaken.shogi.engine` (the shogi engine lives with the shogi rules).

``import komaken.engine`` and ``from komaken.engine.search import Engine`` keep working: each
submodule name here is the same module object as its :mod:`komaken.shogi.engine` counterpart.
New code should import from :mod:`komaken.shogi.engine`.
"""

from __future__ import annotations

import importlib
import sys
import warnings

from komaken.shogi.engine import DEFAULT_TERMS, Engine, Limits, PieceValues, SearchResult, search

warnings.warn("komaken.engine is now komaken.shogi.engine; the old name will be removed", DeprecationWarning,
              stacklevel=2)

for _name in ("search", "values", "mate", "_search", "_evaluate", "_thesis", "_dfpn"):
    sys.modules[f"{__name__}.{_name}"] = _module = importlib.import_module(f"komaken.shogi.engine.{_name}")
    if _name != "search":  # ``komaken.engine.search`` stays the function, as it always was
        globals()[_name] = _module

__all__ = ["DEFAULT_TERMS", "Engine", "Limits", "PieceValues", "SearchResult", "search"]
