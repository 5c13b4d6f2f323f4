"""Tsume (詰将棋) solving with df-pn: :func:`solve`.

>>> from komaken.shogi import Position
>>> r = solve(Position.from_sfen("4k/5/4P/5/K4 b G 1", "minishogi"))
>>> r.status, r.plies, [m.usi() for m in r.pv]
('mate', 1, ['G*1b'])

The side to move attacks and must check on every move; the defender answers with any legal
move.  Depth limits 1, 3, 5, ... plies are tried in turn, so the first proof is a shortest
mate; the line shown lets the defender resist as long as possible.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from komaken.shogi.engine import _dfpn as D
from komaken.shogi.position import Move, Position

Status = Literal["mate", "nomate", "unknown"]


@dataclass(frozen=True, slots=True)
class MateResult:
    """``status``: ``"mate"`` (``plies`` and ``pv`` set), ``"nomate"`` (no mate within
    ``max_plies``) or ``"unknown"`` (the node limit was reached first)."""

    status: Status
    plies: int | None = None
    pv: list[Move] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0


class _Solver:
    def __init__(self, hash_mb: int, max_nodes: int) -> None:
        size = 1 << max(10, (hash_mb * (1 << 20) // 24).bit_length() - 1)
        self.tk = np.zeros(size, dtype=np.uint64)
        self.tv = np.zeros((size, 2), dtype=np.int64)
        self.max_nodes = max_nodes
        self.nodes = 0
        self.runs = 0
        self.halted = False
        self._ctl: np.ndarray | None = None

    def halt(self) -> None:
        """Make the running and every later proof attempt give up at once (from another thread)."""
        self.halted = True
        if self._ctl is not None:
            self._ctl[2] = 0

    def run(self, pos: Position, depth: int) -> int:
        """1: the side to move mates within ``depth`` plies; -1: not; 0: out of nodes."""
        self.runs += 1  # a new run number instead of a cleared table (_dfpn._key)
        ctl = np.array([0, depth, 0 if self.halted else max(1, self.max_nodes - self.nodes), 0, self.runs],
                       dtype=np.int64)
        self._ctl = ctl
        res = D.dfpn(*pos.kernel_state(depth + 8), self.tk, self.tv, ctl)
        self.nodes += int(ctl[0])
        return int(res)

    def mates_within(self, pos: Position, plies: int) -> bool:
        return plies >= 1 and self.run(pos, plies) == 1

    def defender_lost_within(self, pos: Position, plies: int) -> bool:
        """Every defence (the defender is to move) is mated within ``plies``."""
        for e in pos.legal_moves():
            pos.push(e)
            ok = self.mates_within(pos, plies - 1)
            pos.pop()
            if not ok:
                return False
        return True


def solve(position: Position, max_plies: int = 31, nodes: int = 5_000_000, hash_mb: int = 32, *,
          time_limit: float | None = None, stop: threading.Event | None = None) -> MateResult:
    """Look for a mate by the side to move within ``max_plies`` plies (odd) and ``nodes``.

    ``time_limit`` (seconds) and ``stop`` (set it from another thread) end the search early with
    status ``"unknown"``; once a mate is proven its line is worked out whatever the clock says."""
    t0 = time.perf_counter()
    solver = _Solver(hash_mb, nodes)
    pos = position.copy()
    found = None
    done = threading.Event()
    watcher = threading.Thread(target=_watch, args=(solver, done, t0, time_limit, stop), daemon=True)
    if time_limit is not None or stop is not None:
        watcher.start()
    try:
        for depth in range(1, max_plies + 1, 2):
            res = solver.run(pos, depth)
            if res == 1:
                found = depth
                break
            if solver.nodes >= nodes or solver.halted:
                return MateResult("unknown", nodes=solver.nodes, seconds=_since(t0))
    finally:
        done.set()
        if watcher.is_alive():
            watcher.join()
    solver.halted = False  # a proof was found: the line may take what it needs
    if found is None:
        return MateResult("nomate", nodes=solver.nodes, seconds=_since(t0))
    pv = _line(solver, pos, found)
    return MateResult("mate", found, pv, solver.nodes, _since(t0))


def _watch(solver: _Solver, done: threading.Event, t0: float, limit: float | None,
           stop: threading.Event | None) -> None:
    while not done.wait(0.002):  # halt again until the solver returns: a new proof attempt may have begun
        if (stop is not None and stop.is_set()) or (limit is not None and time.perf_counter() - t0 >= limit):
            solver.halt()


def _line(solver: _Solver, pos: Position, plies: int) -> list[Move]:
    """A mating line: the attacker's first move that keeps the mate within the bound, the
    defender's move that needs the longest mate."""
    line: list[Move] = []
    while plies > 0:
        for m in pos.legal_moves():
            pos.push(m)
            if pos.is_check() and solver.defender_lost_within(pos, plies - 1):
                line.append(m)
                break
            pos.pop()
        else:
            break
        defences = pos.legal_moves()
        if not defences:
            break
        best, best_need = defences[0], -1
        for e in defences:
            pos.push(e)
            need = next((r for r in range(1, plies - 1, 2) if solver.mates_within(pos, r)), plies - 2)
            pos.pop()
            if need > best_need:
                best, best_need = e, need
        pos.push(best)
        line.append(best)
        plies = best_need
    return line


def _since(t0: float) -> float:
    return time.perf_counter() - t0

__all__ = ["MateResult", "solve"]
