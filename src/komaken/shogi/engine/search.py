"""The Python face of the engine: :func:`search`, :class:`Engine`, :class:`Limits`, :class:`SearchResult`.

>>> from komaken.shogi import Position
>>> result = search(Position.start("minishogi"), Limits(depth=4))
>>> result.move is not None and result.depth == 4
True

:class:`Engine` keeps its tables between calls (build one per player and reuse it); the
function :func:`search` builds a throw-away one.  Iterative deepening runs here, one numba
call per depth, so every finished depth can be reported (USI ``info`` lines).  With the same
position, limits of depth or nodes and seed, the result is always the same: such a search
starts from cleared tables.  A search bound only by time (a clock, ``movetime`` or
``infinite``) keeps what the previous one learnt, as engines do between the moves of a game:
the hash table still holds the lines it read two plies further on.  ``keep_tables`` says
either way explicitly.
"""

from __future__ import annotations

import dataclasses
import mmap
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError
from komaken.search.result import SearchResult
from komaken.shogi import _kernels as K
from komaken.shogi.engine import _search as S
from komaken.shogi.engine._clock import now_ns
from komaken.shogi.engine._context import (
    NO_NET,
    Context,
    NetArrays,
    NnueState,
    clear_control,
    new_context,
    nnue_state,
    with_network,
)
from komaken.shogi.engine._evalfile import NetChoice, resolve_net
from komaken.shogi.engine._evaluate import TERMS
from komaken.shogi.engine._gameover import KNOWN_WIN
from komaken.shogi.engine._searchparams import SP_ASPIRATION, lmr_table
from komaken.shogi.engine._tt import KEY_HIGH
from komaken.shogi.engine.evalparams import EvalParams, override_values, resolve
from komaken.shogi.engine.skill import Skill
from komaken.shogi.engine.timeman import MIN_SECONDS as _MIN_S
from komaken.shogi.engine.timeman import clock_budget, next_iteration_fits
from komaken.shogi.engine.values import PieceValues
from komaken.shogi.kernel import KernelState
from komaken.shogi.position import Move, Position
from komaken.shogi.variant import Variant, load_variant

MATE = S.MATE
MAX_DEPTH = S.MAX_PLY - 8
MAX_MULTIPV = K.MAX_MOVES  # more lines than any position has moves
_WIDE = 2_000  # an aspiration window wider than this becomes the full window
DEFAULT_TERMS: dict[str, float] = {"mobility": 0.0, "king_safety": 1.0, "psq": 1.0, "noise": 0.0}


@dataclass(frozen=True, slots=True)
class Limits:
    """When to stop thinking.  Times are in **seconds**; ``None`` means no such limit.

    ``movetime`` is a fixed time per move; ``btime``/``wtime`` with ``byoyomi`` or
    ``binc``/``winc`` is a clock (USI ``go``), from which a budget is derived.  With no limit
    at all the search runs until :meth:`Engine.stop` (``infinite``) or to the maximum depth.
    """

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    btime: float | None = None
    wtime: float | None = None
    byoyomi: float | None = None
    binc: float | None = None
    winc: float | None = None
    infinite: bool = False

    def budget(self, side: int, overhead: float = 0.03) -> tuple[float, float] | None:
        """``(soft, hard)`` seconds for ``side`` to move: no new iteration starts after
        ``soft``; the search is stopped at ``hard``.  ``None`` when there is no time limit.
        A clock is read by :func:`komaken.shogi.engine.timeman.clock_budget` (the rules are there).

        >>> [round(t, 3) for t in Limits(movetime=1.0).budget(0)]
        [0.679, 0.97]
        """
        if self.infinite:
            return None
        fixed = None
        if self.movetime is not None:
            hard = max(_MIN_S, self.movetime - overhead)
            fixed = 0.7 * hard, hard
        remaining = self.btime if side == 0 else self.wtime
        inc = (self.binc if side == 0 else self.winc) or 0.0
        byo = self.byoyomi or 0.0
        if remaining is None and not byo and not inc:
            return fixed
        clock = clock_budget(remaining or 0.0, inc, byo, overhead)
        # a movetime under a clock: the shorter of the two (a fixed time never overruns the clock)
        return clock if fixed is None else (min(fixed[0], clock[0]), min(fixed[1], clock[1]))


def _mate(score: int) -> int | None:
    """Plies to mate for a mate score (negative when being mated), else ``None``."""
    if score > S.MATE_BOUND:
        return S.MATE - score
    if score < -S.MATE_BOUND:
        return -(S.MATE + score)
    return None


def _result(move: Move | None, score: int, pv: list[Move] | None = None, depth: int = 0, seldepth: int = 0,
            nodes: int = 0, seconds: float = 0.0, declare: bool = False) -> SearchResult[Move]:
    return SearchResult(move, score, nodes, depth, seldepth, seconds, pv or [], declare=declare, mate=_mate(score))


InfoCallback = Callable[[SearchResult[Move]], None]


class Alarm(threading.Timer):
    """A started daemon timer that calls ``function`` at the moment ``at`` (``time.perf_counter()``).

    A plain :class:`threading.Timer` counts its interval from when its thread first runs, which
    on a busy machine can be tens of milliseconds after it was created; this one does not."""

    def __init__(self, at: float, function: Callable[[], object]) -> None:
        super().__init__(0.0, function)
        self.at = at
        self.daemon = True
        self.start()

    def run(self) -> None:
        if not self.finished.wait(max(0.0, self.at - time.perf_counter())):
            self.function()
        self.finished.set()


def fresh_pages(shape: int | tuple[int, ...], dtype: type[np.generic]) -> np.ndarray:
    """Zeros on anonymous pages of their own, outside the allocator's heap.

    A page costs memory only once it is written, and all of them go back to the system when the
    array is dropped.  ``np.zeros`` gives no such promise for tables of this size: once glibc has
    raised its mmap threshold (after any large block is freed) they are carved from the heap,
    calloc zeroes a reused block by writing it, and every engine made by a long-running server
    then held its tables resident before it ever thought.
    """
    dt = np.dtype(dtype)
    count = int(np.prod(shape))
    return np.frombuffer(mmap.mmap(-1, max(1, count * dt.itemsize)), dtype=dt, count=count).reshape(shape)


class Engine:
    """A reusable searcher for one variant, value table and set of evaluation terms.

    ``terms`` weights the positional terms (``mobility``, ``king_safety``, ``psq``; ``noise``
    adds ± that many units of seeded, per-position noise); pass ``{"mobility": 0, "king_safety": 0,
    "psq": 0}`` for material only.  ``params`` (an :class:`~komaken.shogi.engine.evalparams.EvalParams` or a
    TOML path; default: the variant's shipped file) gives the piece values, term weights and
    tables; ``values`` and ``terms`` override it.  ``net`` (a network for this variant's board,
    :func:`~komaken.shogi.engine._evalfile.load_network`) evaluates with that network instead of
    the linear evaluation, its accumulators updated move by move inside the search (only the
    ``noise`` term still applies); ``None`` evaluates linearly.  The default, ``"default"``, is
    the variant's shipped net where it is the default (minishogi:
    :data:`~komaken.shogi.engine._evalfile.DEFAULT_NETS`) and nothing only the linear evaluation
    has was asked for (``values``, ``params``, a term other than ``noise``); else linear.
    """

    def __init__(self, variant: Variant | str = "shogi", values: PieceValues | Mapping[str, Any] | None = None,
                 terms: Mapping[str, float] | None = None, hash_mb: int = 16, seed: int = 0,
                 overhead: float = 0.03, skill: Skill | None = None,
                 params: EvalParams | str | Path | None = None, net: NetChoice = "default") -> None:
        self.variant = load_variant(variant)
        net = resolve_net(net, self.variant, linear_asked=bool(values) or params is not None
                          or any(k != "noise" for k in terms or {}))
        self.skill = skill  # None or level 20: full strength
        self.params = resolve(params, self.variant)  # checked whole before anything is stored
        unknown = set(terms or {}) - set(TERMS)
        if unknown:
            raise KomakenError(f"unknown evaluation term {sorted(unknown)[0]!r} (known: {', '.join(TERMS)})")
        self.terms = {**self.params.terms, "noise": 0.0, **{k: float(v) for k, v in (terms or {}).items()}}
        self.seed = int(seed)
        self.overhead = float(overhead)  # seconds lost per move to process switches and pipes
        if not isinstance(values, PieceValues):
            values = override_values(self.params.values, values)
        self.values = values
        bval, hval = values.arrays()
        sp = self.params.search_array()
        # the large work tables (2.5 MB besides the hash table) on pages of their own: an engine
        # that never searches (a web session waiting for its person's move) holds none of them
        self._ctx: Context = with_network(new_context(bval, hval, self.params.weights(self.terms), sp, lmr_table(sp),
                                                      _hash_entries(hash_mb), zeros=fresh_pages), self._nn(net))
        self.net = net
        self._tt_fresh = True  # nothing stored yet: no evaluation to forget, no page touched
        self._lock = threading.Lock()
        #: when the last search bound by time was to stop (``time.perf_counter()``); ``None``: no time limit
        self.deadline: float | None = None

    def _nn(self, net: NetArrays | None) -> NnueState | tuple[()]:
        if net is None:
            return NO_NET
        try:
            return nnue_state(net, self.variant.rules)
        except ValueError as exc:
            raise KomakenError(f"network for another board: {exc}") from None

    def set_net(self, net: NetArrays | None) -> None:
        """Evaluate with ``net`` from the next search on (``None``: the linear evaluation)."""
        self._ctx = with_network(self._ctx, self._nn(net))
        self.net = net
        self._forget_evaluations()

    def set_values(self, values: PieceValues | Mapping[str, Any] | None) -> None:
        if not isinstance(values, PieceValues):
            values = override_values(self.params.values, values)
        self.values = values
        bval, hval = values.arrays()
        self._ctx = self._ctx._replace(bval=bval, hval=hval)
        self._forget_evaluations()

    def set_term(self, name: str, weight: float) -> None:
        if name not in TERMS:
            raise KomakenError(f"unknown evaluation term {name!r} (known: {', '.join(TERMS)})")
        self.terms[name] = float(weight)
        self._ctx = self._ctx._replace(w=self.params.weights(self.terms))
        self._forget_evaluations()

    def _forget_evaluations(self) -> None:
        """Drop the static evaluations kept in the hash table: they were made with the old values."""
        if not self._tt_fresh:
            self._ctx.tt_key[:] &= KEY_HIGH

    def set_hash(self, hash_mb: int) -> None:
        """Size the transposition table (16 bytes an entry, rounded down to a power of two)."""
        size = _hash_entries(hash_mb)
        self._ctx = self._ctx._replace(tt_key=fresh_pages(size, np.uint64), tt_data=fresh_pages(size, np.int64))
        self._tt_fresh = True  # nothing stored yet: no evaluation to forget, no page touched

    def clear(self) -> None:
        """Forget everything learnt (hash table, killers, history, correction history)."""
        # fresh pages instead of zeros written: writing them would make every page resident, so a
        # player cleared for a game it has not searched yet (each web session's engine, cleared
        # when the game loop starts) costs no memory until it thinks, and the pages of a used
        # table go back to the system at once
        c = self._ctx
        if not self._tt_fresh:
            c = c._replace(tt_key=fresh_pages(c.tt_key.size, np.uint64), tt_data=fresh_pages(c.tt_data.size, np.int64))
            self._tt_fresh = True
        c.killers[:] = 0
        self._ctx = c._replace(history=fresh_pages(c.history.shape, np.int64), corr=fresh_pages(c.corr.shape, np.int64))

    def stop(self) -> None:
        """Ask a running search (in another thread) to finish now; it returns its best move."""
        self._ctx.ctl["stop"][0] = 1

    def stop_after(self, seconds: float) -> threading.Timer:
        """Stop the running search ``seconds`` from now: the kernel reads the clock itself and
        stops at that moment (no other thread need run for it), and a timer says so again in
        case the search is between two kernel calls then."""
        at = time.perf_counter() + max(0.0, seconds)
        self.stop_at(at)
        return Alarm(at, self.stop)

    def stop_at(self, at: float) -> None:
        """Have the running search's kernel stop itself at the moment ``at``
        (``time.perf_counter()``; the kernel reads the same clock, :mod:`._clock`)."""
        self._ctx.ctl["deadline"][0] = max(1, now_ns() + int((at - time.perf_counter()) * 1e9))
        self.deadline = at

    def search(self, position: Position, limits: Limits | None = None, *, info: InfoCallback | None = None,
               keep_tables: bool | None = None, multipv: int = 1) -> SearchResult[Move]:
        """Search ``position`` (not modified) within ``limits`` and return the best move found.

        ``multipv=k`` searches the best ``k`` root moves each as a line of its own (one full-window
        search per line, each leaving out the moves of the lines before it); the result is line 1
        and its ``lines`` hold all of them, best first, ranked 1..k (fewer when there are fewer
        legal moves).  ``info`` then hears every line of every finished depth.  ``keep_tables``
        (default: only when ``limits`` bound the search by time alone) starts from the tables
        the previous search left instead of clearing them.  With a
        :attr:`skill` below 20 the engine searches less and may play a weaker line
        (:mod:`komaken.shogi.engine.skill`)."""
        limits = limits or Limits(depth=6)
        if isinstance(multipv, bool) or not isinstance(multipv, int) or multipv < 1:
            raise KomakenError(f"multipv must be a positive integer, not {multipv!r}")
        if position.variant != self.variant and position.variant.name != self.variant.name:
            raise KomakenError(f"engine is for {self.variant.name}, position is {position.variant.name}")
        skill = self.skill
        if skill is not None and skill.active:
            limits = skill.limits(limits)
            multipv = max(multipv, skill.multipv)
        if keep_tables is None:
            keep_tables = limits.depth is None and limits.nodes is None
        with self._lock:
            try:
                result = self._search(position, limits, info, keep_tables, multipv)
            finally:  # after the search: its own clear() marks the table fresh before storing
                self._tt_fresh = False
        if skill is not None and skill.active:
            result = skill.choose(result, self.seed, position.zobrist)
        return result

    def _search(self, position: Position, limits: Limits, info: InfoCallback | None, keep: bool,
                multipv: int) -> SearchResult[Move]:
        t0 = time.perf_counter()
        ctl = self._ctx.ctl
        clear_control(ctl)
        self.deadline = None
        ctl["seed"] = self.seed
        ctl["max_nodes"] = limits.nodes or 0
        side = int(position.turn)
        legal = position.legal_codes()
        if len(legal) == 0:
            return _result(None, -S.MATE)
        if position.can_declare():
            return _result(None, KNOWN_WIN, declare=True)
        if not keep:
            self.clear()
        else:
            S.age_history(self._ctx.history)
        state = position.kernel_state(S.MAX_PLY + 8)
        budget = limits.budget(side, self.overhead)
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        k = min(multipv, len(legal))
        timer = None
        if budget is not None:
            if len(legal) == 1:
                return _result(Move(int(legal[0])), 0, [Move(int(legal[0]))], seconds=_since(t0))
            timer = self.stop_after(budget[1] - _since(t0))
        lines: list[SearchResult[Move]] = []
        took = [0.0, 0.0]  # how long the last two iterations took
        try:
            for depth in range(1, max_depth + 1):
                t_iter = time.perf_counter()
                found, complete = self._depth(state, depth, k, lines, t0)
                took = [took[1], _since(t_iter)]
                lines = found
                if not complete:
                    break
                if info is not None:
                    for line in lines:
                        info(line)
                best = lines[0]
                if best.mate is not None and abs(best.mate) <= depth and not limits.infinite:
                    break
                if budget is not None and not next_iteration_fits(_since(t0), took[1], took[0], *budget):
                    break
                if limits.nodes and ctl["nodes"][0] >= limits.nodes:
                    break
        finally:
            if timer is not None:
                timer.cancel()
        if not lines:  # stopped before depth 1 finished: any legal move beats none
            mv = Move(int(legal[0]))
            lines = [_result(mv, 0, [mv], 0, 0, int(ctl["nodes"][0]), _since(t0))]
        return self._final(lines, k, _since(t0))

    def _depth(self, state: KernelState, depth: int, k: int, previous: list[SearchResult[Move]],
               t0: float) -> tuple[list[SearchResult[Move]], bool]:
        """Search ``k`` lines at ``depth``: ``(lines, True)`` when all finished, else the best
        lines known (finished ones of this depth, then the previous depth's) and ``False``."""
        c = self._ctx
        ctl = c.ctl
        found: list[SearchResult[Move]] = []
        for j in range(k):
            ctl["excluded"] = j
            for i, line in enumerate(found):
                c.excl[i] = line.move.code  # type: ignore[union-attr]
            v = self._window(state, depth, int(previous[0].score) if j == 0 and k == 1 and previous else None)
            if ctl["abort"][0]:
                root = int(ctl["root_move"][0])
                if j == 0 and root and (not previous or root != previous[0].move.code):  # type: ignore[union-attr]
                    # a new best move whose subtree finished beats the previous depth's choice
                    found.append(_result(Move(root), int(ctl["root_score"][0]), [Move(root)], depth,
                                         int(ctl["seldepth"][0]), int(ctl["nodes"][0]), _since(t0)))
                codes = {line.move.code for line in found}  # type: ignore[union-attr]
                merged = found + [p for p in previous if p.move.code not in codes]  # type: ignore[union-attr]
                if k > 1:  # lines best first, whichever depth each score comes from (ties: this depth's)
                    merged.sort(key=lambda r: -r.score)
                return merged[:k], False
            n = int(c.pvlen[0])
            pv = [Move(int(m)) for m in c.pv[0, :n]] or [Move(int(ctl["root_move"][0]))]
            found.append(_result(pv[0], int(v), pv, depth, int(ctl["seldepth"][0]), int(ctl["nodes"][0]),
                                 _since(t0)))
        found.sort(key=lambda r: -r.score)
        if k > 1:
            found = [dataclasses.replace(r, rank=i + 1) for i, r in enumerate(found)]
        return found, True

    def _window(self, state: KernelState, depth: int, guess: int | None) -> int:
        """One root search at ``depth``; with an ``aspiration`` setting and a ``guess`` (the last
        depth's score) first within ``guess ± aspiration``, widening ×4 on the side that missed."""
        c = self._ctx
        delta = int(c.sp[SP_ASPIRATION])
        alpha, beta = -S.INF, S.INF
        if delta > 0 and guess is not None and depth >= 4 and abs(guess) < S.MATE_BOUND:
            alpha, beta = guess - delta, guess + delta
        while True:
            v = S.search_depth(state, c, depth, alpha, beta)
            if c.ctl["abort"][0] or alpha < v < beta:
                return int(v)
            delta *= 4
            if v <= alpha:
                alpha = -S.INF if delta > _WIDE else max(-S.INF, int(v) - delta)
            else:
                beta = S.INF if delta > _WIDE else min(S.INF, int(v) + delta)

    def _final(self, lines: list[SearchResult[Move]], k: int, seconds: float) -> SearchResult[Move]:
        nodes = int(self._ctx.ctl["nodes"][0])
        out = [dataclasses.replace(r, nodes=nodes, seconds=seconds, rank=i + 1 if k > 1 else 0)
               for i, r in enumerate(lines)]
        return dataclasses.replace(out[0], lines=out)


def _hash_entries(hash_mb: int) -> int:
    """Transposition-table entries for ``hash_mb`` MiB (16 bytes each, a power of two, at least 1024)."""
    entries = max(1024, int(hash_mb) * (1 << 20) // 16)
    return 1 << (entries.bit_length() - 1)


def _since(t0: float) -> float:
    return time.perf_counter() - t0


_LOADED: set[bool] = set()  # the search kernels loaded in this process: with a network, without


def load_kernels(variant: Variant | str, net: NetArrays | None = None) -> None:
    """Load the compiled search kernels now (with ``net``: the network's; without: the linear
    evaluation's), once per process.

    The first search of a process loads them from numba's cache, a second or two on a busy
    machine.  Players, analysers and ``komaken usi`` call this before any clock runs, so no move's
    time goes to it (at 0.5 s byoyomi it once lost a game).  A throwaway engine with a 1 MiB table
    does the search, so the caller's own tables stay untouched until it searches.
    """
    if (net is not None) not in _LOADED:
        variant = load_variant(variant) if isinstance(variant, str) else variant
        Engine(variant, hash_mb=1, net=net).search(Position.start(variant), Limits(depth=1))
        _LOADED.add(net is not None)


def search(position: Position, limits: Limits | None = None, values: PieceValues | Mapping[str, Any] | None = None,
           *, terms: Mapping[str, float] | None = None, seed: int = 0, hash_mb: int = 16,
           info: InfoCallback | None = None, multipv: int = 1, skill: Skill | None = None,
           params: EvalParams | str | Path | None = None, net: NetChoice = "default") -> SearchResult[Move]:
    """Search ``position`` once with a fresh :class:`Engine` (see there for the arguments)."""
    engine = Engine(position.variant, values, terms, hash_mb=hash_mb, seed=seed, skill=skill, params=params,
                    net=net)
    return engine.search(position, limits, info=info, multipv=multipv)


__all__ = ["DEFAULT_TERMS", "Engine", "Limits", "MATE", "SearchResult", "Skill", "load_kernels", "search"]
