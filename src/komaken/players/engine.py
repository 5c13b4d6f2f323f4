"""Our engine as a :class:`~komaken.players.base.Player`.

>>> from komaken.shogi import Position
>>> player = EnginePlayer("minishogi", depth=3)
>>> player.choose(Position.start("minishogi")) in Position.start("minishogi").legal_moves()
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from komaken.clock import TimeLeft
from komaken.errors import KomakenError
from komaken.game import Game
from komaken.players.base import DECLARE, RESIGN, PlayerAction
from komaken.shogi.engine._evalfile import NetChoice
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.search import Engine, Limits, SearchResult, load_kernels
from komaken.shogi.engine.skill import Skill
from komaken.shogi.position import Move, Position
from komaken.shogi.variant import Variant

DEFAULT_MOVETIME = 1.0  # seconds


class EnginePlayer:
    """Plays the engine's best move within ``depth`` plies, ``nodes`` nodes and/or ``movetime``
    seconds (none given: 1 s a move).  ``values`` overrides piece values (``{"R": 1500}``);
    keyword arguments weight evaluation terms (``mobility=1, king_safety=0, psq=0, noise=50``).
    ``seed`` feeds the noise term and the skill choice, so equal seeds and depth/node limits repeat
    the same games.  ``skill`` (0..20) or ``elo`` (500..2500) plays weaker
    (:mod:`komaken.shogi.engine.skill`); give one of them, not both.  ``params`` is an evaluation
    parameter file (default: the variant's, :mod:`komaken.shogi.engine.evalparams`); ``net`` a
    network to evaluate with instead (:func:`~komaken.shogi.engine._evalfile.load_network`),
    ``None`` the linear evaluation; by default the variant's default net where it has one and no
    ``values``, ``params`` or term weights ask for the linear evaluation (:class:`Engine`).

    Under a game clock (the game loop sets :attr:`time_left` before each move) the engine plans
    its time from the clock (:mod:`komaken.shogi.engine.timeman`) instead of the 1 s default;
    a ``depth``, ``nodes`` or ``movetime`` given as well still bounds each move.
    """

    def __init__(self, variant: Variant | str, depth: int | None = None, nodes: int | None = None,
                 movetime: float | None = None, values: Mapping[str, int] | None = None, seed: int = 0,
                 hash_mb: int = 16, skill: int | None = None, elo: int | None = None,
                 params: EvalParams | str | Path | None = None, net: NetChoice = "default",
                 **eval_terms: float) -> None:
        for key, v in (("depth", depth), ("nodes", nodes), ("movetime", movetime)):
            if v is not None and v <= 0:
                raise KomakenError(f"engine {key} must be positive, got {v}")
        self.own_limits = Limits(depth=depth, nodes=nodes, movetime=movetime)
        if depth is None and nodes is None and movetime is None:
            movetime = DEFAULT_MOVETIME
        self.limits = Limits(depth=depth, nodes=nodes, movetime=movetime)
        #: the game clock as the loop tells it before each move (``None``: no clock)
        self.time_left: TimeLeft | None = None
        self.seed = int(seed)
        if skill is not None and elo is not None:
            raise KomakenError("engine: give skill or elo, not both")
        strength = Skill.from_elo(elo) if elo is not None else Skill(skill) if skill is not None else None
        self.engine = Engine(variant, values, eval_terms, hash_mb=hash_mb, seed=seed, skill=strength, params=params,
                             net=net)
        parts = [f"{k}={v:g}" for k, v in (("depth", depth), ("nodes", nodes), ("movetime", movetime)) if v]
        parts += [f"{k}={v}" for k, v in (("skill", skill), ("elo", elo)) if v is not None]
        self.name = "engine(" + ", ".join(parts) + ")"
        self.last: SearchResult | None = None
        #: called with each finished depth's result while :meth:`choose` searches (the web page's
        #: thinking box); the game loop sets it
        self.on_progress: Callable[[SearchResult], None] | None = None
        self._stop_asked = False
        load_kernels(self.engine.variant, self.engine.net)  # now, so no game clock pays for it

    def new_game(self, seed: int | None = None) -> None:
        """Forget the previous game's tables; a ``seed`` replaces the noise seed."""
        if seed is not None:
            self.engine.seed = int(seed)
        self.engine.clear()

    def choose(self, position: Game[Any]) -> Move | PlayerAction:
        if not isinstance(position, Position):
            raise KomakenError("the engine plays shogi variants only")
        try:
            result = self.engine.search(position, self.move_limits(), info=self._depth_done)
        finally:
            self._stop_asked = False
        self.last = result
        if result.declare:
            return DECLARE
        return RESIGN if result.move is None else result.move

    def move_limits(self) -> Limits:
        """The limits of the next move: the player's own, or under a clock the clock (and any
        depth, nodes or movetime the player was given)."""
        t = self.time_left
        if t is None:
            return self.limits
        return replace(self.own_limits, btime=t.btime, wtime=t.wtime, byoyomi=t.byoyomi or None,
                       binc=t.binc or None, winc=t.winc or None)

    def _depth_done(self, result: SearchResult) -> None:
        if self._stop_asked:  # asked before the search had begun (which clears the engine's flag)
            self.engine.stop()
        if self.on_progress is not None:
            self.on_progress(result)

    def stop(self) -> None:
        """End a :meth:`choose` in progress (another thread, even just before it starts): it
        answers the best move so far."""
        self._stop_asked = True
        self.engine.stop()

    def close(self) -> None:
        """Give the engine's tables back to the system (a web session's player stays referenced
        after its game ended); the player still works, from empty tables."""
        self.engine.clear()


class EngineAnalyser:
    """The engine as an analysis asks it (:class:`komaken.games.Analyser`): a position searched for
    ``seconds`` with ``multipv`` lines, the hash table kept from position to position.  A position
    with one legal move is scored too (a search bound by time answers such a move at once, with no
    score): the move is played and the position after it searched."""

    def __init__(self, variant: Variant | str, hash_mb: int = 64) -> None:
        # no time set aside for pipes and process switches: nothing stands between us and the engine
        self.engine = Engine(variant, hash_mb=hash_mb, overhead=0.002)
        load_kernels(self.engine.variant, self.engine.net)  # now, so no position's time goes to it

    def analyse(self, position: Any, seconds: float, multipv: int = 1, forced: int = 0) -> SearchResult:
        if not isinstance(position, Position):
            raise KomakenError("the engine analyses shogi variants only")
        legal = position.legal_moves()
        if len(legal) == 1 and not position.can_declare():
            after = position.copy()
            after.push(legal[0])
            if forced < 8 and after.outcome() is None and len(after.legal_moves()):
                reply = self.analyse(after, seconds, 1, forced + 1)
                mate = None if reply.mate is None else (-(reply.mate + 1) if reply.mate > 0 else 1 - reply.mate)
                line = dataclasses.replace(reply, move=legal[0], score=-reply.score, pv=[legal[0], *reply.pv],
                                           depth=reply.depth + 1, mate=mate, lines=[], rank=0)
                return dataclasses.replace(line, lines=[line])
            return self.engine.search(position, Limits(depth=2), multipv=1)
        return self.engine.search(position, Limits(movetime=seconds), multipv=multipv)

    def stop(self) -> None:
        self.engine.stop()

    def close(self) -> None:
        self.engine.clear()


__all__ = ["EngineAnalyser", "EnginePlayer"]
