"""Reading a USI ``go`` line: every parameter checked, nothing half-read.

>>> g = parse_go("btime 0 wtime 0 byoyomi 1000".split())
>>> g.byoyomi, g.infinite, g.limits().byoyomi
(1000, False, 1.0)
>>> parse_go(["depth", "inf"])
Traceback (most recent call last):
...
komaken.errors.KomakenError: go depth: 'inf' is not an integer

Times are milliseconds (as USI writes them), integers from -2³¹ to 2³¹-1; a negative time,
which some GUIs send once a clock has run out, counts as 0.  ``depth`` is 1..100, ``nodes``
1..10¹⁵.  ``mate`` takes a time in milliseconds or ``infinite`` (no number: the solver's own
node limit).  A line with any bad parameter is refused as a whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from komaken.errors import KomakenError
from komaken.shogi.engine.search import Limits

MAX_MS = 2**31 - 1
MIN_MS = -(2**31)
MAX_DEPTH = 100
MAX_NODES = 10**15
_TIMES = ("btime", "wtime", "byoyomi", "binc", "winc", "movetime")
_INT = re.compile(r"[+-]?[0-9]{1,40}")


@dataclass(frozen=True)
class Go:
    """A checked ``go`` command.  ``mate`` is ``None`` (a normal search), ``0`` (``go mate``
    with no time), a time in ms, or ``-1`` for ``go mate infinite``."""

    btime: int | None = None
    wtime: int | None = None
    byoyomi: int | None = None
    binc: int | None = None
    winc: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    ponder: bool = False
    mate: int | None = None

    def limits(self, default_depth: int | None = None, *, infinite: bool | None = None) -> Limits:
        """The engine's :class:`~komaken.shogi.engine.search.Limits` for this command: the line's
        milliseconds become seconds here, the one place a ``go`` enters the engine."""

        def f(x: int | None) -> float | None:
            return None if x is None else x / 1000.0

        return Limits(depth=self.depth or default_depth, nodes=self.nodes, movetime=f(self.movetime),
                      btime=f(self.btime), wtime=f(self.wtime), byoyomi=f(self.byoyomi), binc=f(self.binc),
                      winc=f(self.winc), infinite=self.infinite if infinite is None else infinite)


def _int(key: str, text: str | None, low: int, high: int) -> int:
    if text is None:
        raise KomakenError(f"go {key}: a number must follow")
    if not _INT.fullmatch(text):
        raise KomakenError(f"go {key}: {text!r} is not an integer")
    v = int(text)
    if not low <= v <= high:
        raise KomakenError(f"go {key}: {v} is out of range {low}..{high}")
    return v


def parse_go(args: list[str]) -> Go:
    """Check every word of a ``go`` line (without ``go``); raises :class:`KomakenError`."""
    kv: dict[str, int | bool | None] = {}
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a in ("infinite", "ponder"):
            kv[a] = True
            i += 1
        elif a == "mate":
            if nxt == "infinite":
                kv["mate"], i = -1, i + 2
            elif nxt is not None and _INT.fullmatch(nxt):
                kv["mate"], i = _int("mate", nxt, 1, MAX_MS), i + 2
            else:
                kv["mate"], i = 0, i + 1
        elif a in _TIMES:
            kv[a] = max(0, _int(a, nxt, MIN_MS, MAX_MS))
            i += 2
        elif a == "depth":
            kv[a] = _int(a, nxt, 1, MAX_DEPTH)
            i += 2
        elif a == "nodes":
            kv[a] = _int(a, nxt, 1, MAX_NODES)
            i += 2
        elif a == "movestogo":
            _int(a, nxt, 1, 10_000)
            i += 2
        else:
            raise KomakenError(f"go: unknown parameter {a!r}")
    return Go(**kv)  # type: ignore[arg-type]


__all__ = ["Go", "MAX_DEPTH", "MAX_MS", "MAX_NODES", "MIN_MS", "parse_go"]
