"""Play sessions: one game per session, played by the one game loop (:func:`komaken.match.play_game`).

Each session runs the loop in a thread of its own with the sides' players from the registry;
a person's side is a :class:`WebHuman`, whose ``choose`` waits for the move the page sends.
Undo and resign are requests to the loop (:class:`komaken.match.Control`), which stops the
player that is thinking.  The loop's observer hands every change to the server's event loop,
where the session keeps a snapshot (a copy of the position, the move labels, who is thinking)
that requests read and every listener of the session hears as it arrives — the engine's
progress (depth, score, principal variation) included.
"""

from __future__ import annotations

import asyncio
import queue
import secrets
import threading
import time
from collections import OrderedDict
from datetime import datetime
from typing import Any

from komaken.clock import Clock, TimeControl, TimeLeft, settle_garbage
from komaken.game import Color, Game, Outcome, Termination
from komaken.games import Timing
from komaken.match import Control, GameResult, Observer, QuitRequest, play_game
from komaken.players.base import Interrupted, Player
from komaken.players.registry import make_player
from komaken.web import _games as G
from komaken.web._sse import stream

MAX_SESSIONS = 64  # game sessions kept; a new one beyond drops the least recently used
EXPIRE = 3600.0  # seconds without a request or an open event stream before a session is dropped
IDLE = 3600.0  # seconds a person may leave a move unplayed before the game is stopped
ANSWER = 30.0  # seconds a request waits for the loop to take it up


class WebHuman:
    """A person at the page: :meth:`choose` waits for :meth:`give` (from the server's thread).

    Under a clock (:attr:`time_left`, set by the game loop) it waits no longer than the time
    left: the loop then ends the game on time, whether or not the page is open."""

    def __init__(self, name: str = "human") -> None:
        self.name = name
        self._inbox: queue.Queue[tuple[int, Any] | None] = queue.Queue()
        self.time_left: TimeLeft | None = None

    def new_game(self, seed: int | None = None) -> None:
        pass

    def give(self, ply: int, move: Any) -> None:
        """The page's move for the position after ``ply`` plies."""
        self._inbox.put((ply, move))

    def choose(self, position: Game[Any]) -> Any:
        deadline = time.monotonic() + IDLE
        flag = None
        t = self.time_left
        if t is not None:
            flag = time.monotonic() + (t.btime if int(position.turn) == 0 else t.wtime) + t.byoyomi
        while True:
            if flag is not None and time.monotonic() > flag:
                raise Interrupted  # the time is up: the loop's clock says so
            until = deadline if flag is None else min(deadline, flag + 0.001)
            try:
                item = self._inbox.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                if flag is not None and until < deadline:
                    continue
                raise QuitRequest(f"no move for {IDLE:g} s: game stopped, nobody resigned") from None
            if item is None:
                raise Interrupted
            ply, move = item
            if ply == position.ply and move in position.legal_moves():
                return move  # a move sent for an earlier position (before an undo) is dropped

    def stop(self) -> None:
        self._inbox.put(None)

    def close(self) -> None:
        pass


class Session:
    """A game being played in the browser; create it on the server's event loop."""

    def __init__(self, info: G.GameInfo, pos: Game[Any], sides: list[dict[str, Any]],
                 names: dict[str, str | None] | None = None,
                 clocks: tuple[TimeControl | None, TimeControl | None] = (None, None)) -> None:
        self.id = secrets.token_urlsafe(12)
        self.info = info
        self.sides = sides  # as komaken.web._fields.side checked them
        self.players: list[Player] = [self._player(i, s, names) for i, s in enumerate(self.sides)]
        self.humans = [Color(i) for i, p in enumerate(self.players) if isinstance(p, WebHuman)]
        # scores are shown from one side throughout: the person's when one side is a person, else the first mover's
        self.view = self.humans[0] if len(self.humans) == 1 else info.spec.first
        words = info.spec.presentation.side_names if info.spec.presentation is not None else info.spec.side_names
        self.view_name: str = "you" if len(self.humans) == 1 else words[self.view]
        self.names = [p.name for p in self.players]
        self.control = Control()
        self.clock = Clock(clocks) if any(c is not None for c in clocks) else None
        self.clocks = clocks
        self.started = datetime.now().astimezone().replace(microsecond=0)
        self.times: list[float | None] = []  # the seconds each move of this game took (its record's times)
        self.loop = asyncio.get_running_loop()
        self.listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self._waiters: list[asyncio.Future[None]] = []
        # the snapshot, changed on the event loop only
        self.pos = pos.copy()
        self.labels: list[str] = []
        self.western: list[str] = []  # the labels in Western letters, for the international piece set
        self.ids: list[str] = []
        self.thinking: dict[str, Any] | None = None
        self.score: dict[str, Any] | None = None  # the last engine move's final score, kept shown
        self.waiting: Color | None = None
        self.result: Outcome | None = None
        self.detail = ""
        self.version = 0
        self.touched = time.monotonic()
        self._thread = threading.Thread(target=self._run, args=(pos,), daemon=True, name=f"game-{self.id}")

    def _player(self, color: int, side: dict[str, Any], names: dict[str, str | None] | None) -> Player:
        if side.get("kind", "human") == "human":
            return WebHuman((names or {}).get(("black", "white")[color]) or "human")
        try:
            return make_player(side, self.info.spec, self.info.variant)
        except ValueError as exc:
            raise G.GameInputError(f"{('black', 'white')[color]}: {exc}") from None

    # ---- the loop's thread ------------------------------------------------------------------
    def _run(self, pos: Game[Any]) -> None:
        if self.clock is not None:
            settle_garbage()  # a full collection during a timed move would be charged to that move
        try:
            play_game(pos, self.players, _Watch(self), game=self.info.spec, control=self.control, clock=self.clock)
        except Exception as exc:  # noqa: BLE001 - a fault outside the players: the page hears it
            self.post(True, result=Outcome(Termination.ABORTED, None), detail=f"crash: {type(exc).__name__}: {exc}",
                      thinking=None, waiting=None)
        finally:
            for p in self.players:
                p.close()

    def post(self, settled: bool = False, **changes: Any) -> None:
        """From the loop's thread: apply ``changes`` to the snapshot on the event loop."""
        try:
            self.loop.call_soon_threadsafe(self._apply, settled, changes)
        except RuntimeError:  # the server's event loop has closed (shut down): nobody is left to tell
            pass

    def _apply(self, settled: bool, changes: dict[str, Any]) -> None:
        info = changes.pop("info", None)
        for key, value in changes.items():
            setattr(self, key, value)
        if info is not None:
            if self.thinking is not None:
                self.thinking = {**self.thinking, **info}
                self.publish({"type": "thinking", **self.thinking})
            return
        if self.result is not None and self.detail.startswith("crash"):
            self.publish({"type": "error", "error": self.detail})
        self.publish_state()
        if settled:
            waiters, self._waiters = self._waiters, []
            for w in waiters:
                if not w.done():
                    w.set_result(None)

    # ---- requests (event loop) --------------------------------------------------------------
    async def start(self) -> None:
        """Start the game; returns once the first player is being asked (or the game is over)."""
        await self._settle(self._thread.start)

    async def _settle(self, action: Any) -> None:
        """Do ``action`` and wait until the loop asks a player for a move or the game ends."""
        done: asyncio.Future[None] = self.loop.create_future()
        self._waiters.append(done)
        action()
        try:
            await asyncio.wait_for(done, ANSWER)
        except TimeoutError:
            raise G.GameInputError(f"the game did not answer within {ANSWER:g} s") from None

    def _human_to_move(self) -> WebHuman | None:
        player = self.players[int(self.pos.turn)]
        if self.result is None and self.waiting is self.pos.turn and isinstance(player, WebHuman):
            return player
        return None

    async def play(self, text: Any) -> None:
        """A person's move (``GameInputError`` if it is not a person's turn or not legal)."""
        if self.result is not None:
            raise G.GameInputError("the game is over")
        human = self._human_to_move()
        if human is None:
            raise G.GameInputError("it is the computer's turn")
        move = G.parse_move(self.pos.copy(), self.info, text)
        ply = self.pos.ply
        await self._settle(lambda: human.give(ply, move))

    def timing(self) -> Timing:
        """The game's move times (those played here; a continued record's moves have none) and clocks."""
        return Timing(list(self.times), self.clocks, self.started)

    def can_undo(self) -> bool:
        return self.result is None and bool(self.ids) and bool(self.humans)

    async def undo(self) -> None:
        """Take back the last move of a person and the computer's replies after it."""
        if not self.can_undo():
            raise G.GameInputError("nothing to take back" if self.result is None else "the game is over")
        await self._settle(lambda: self.control.undo(sides=self.humans))

    async def resign(self) -> None:
        """The person resigns (the side to move when both or neither side is a person)."""
        if self.result is not None:
            raise G.GameInputError("the game is over")
        turn = self.pos.turn
        loser = turn if turn in self.humans or not self.humans else self.humans[0]
        await self._settle(lambda: self.control.resign(loser))

    def close(self) -> None:
        if self.result is None:
            self.control.quit("the game's page session was closed")

    # ---- what the page sees -----------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        pos, info = self.pos, self.info
        return {
            "type": "state", "id": self.id, "game": info.to_json(), "board": G.board_json(pos, info),
            "position": G.position_text(info, pos), "ply": pos.ply, "turn": int(pos.turn),
            "moves": [{"label": lb, "western": w, "id": mid}
                      for lb, w, mid in zip(self.labels, self.western, self.ids, strict=True)],
            "legal": G.legal_json(pos, info) if self._human_to_move() is not None else [],
            "sides": [{"kind": s.get("kind", "human"), "name": n} for s, n in zip(self.sides, self.names, strict=True)],
            "outcome": G.outcome_json(self.result, info, self.detail),
            "thinking": self.thinking, "score": self.score, "can_undo": self.can_undo(), "version": self.version,
            "clock": self.clock.to_json() if self.clock is not None else None,
        }

    def publish(self, event: dict[str, Any]) -> None:
        for q in list(self.listeners):
            if q.qsize() < 256:
                q.put_nowait(event)

    def publish_state(self) -> None:
        """Tell every listener the new state (``version`` orders states that cross in flight)."""
        self.version += 1
        self.publish(self.state())


class _Watch(Observer):
    """The loop's observer: each change goes to the session's snapshot (runs in the loop's thread)."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.labels: list[str] = []
        self.western: list[str] = []
        self.ids: list[str] = []
        self.times: list[float | None] = []
        self.last: dict[str, Any] | None = None  # the thinking player's last finished depth

    def thinking(self, position: Game[Any], player: Player) -> None:
        if isinstance(player, WebHuman):
            self.s.post(True, waiting=position.turn, thinking=None)
        else:
            self.last = None
            self.s.post(True, waiting=None, thinking={"side": int(position.turn), "depth": 0, "score": None,
                                                      "pv": [], "nodes": 0})

    def progress(self, position: Game[Any], player: Player, result: Any) -> None:
        p = self.s.info.spec.presentation
        pv = p.labels(position, list(result.pv)) if p is not None else []
        pv_western = p.labels(position, list(result.pv), western=True) if p is not None else []
        self.last = {"depth": result.depth, "view": score_view(result, position.turn, self.s.view, self.s.view_name)}
        self.s.post(info={"depth": result.depth, "score": result.usi_score(), "nodes": result.nodes,
                          "time": round(result.time_ms / 1000, 3), "pv": pv, "pv_western": pv_western,
                          "view": self.last["view"]})

    def move(self, position: Game[Any], move: Any, player: Player, seconds: float) -> None:
        self.labels.append(G.move_label(position, self.s.info, move))
        self.western.append(G.move_label(position, self.s.info, move, western=True))
        self.ids.append(self.s.info.spec.move_text(move))
        self.times.append(seconds)
        if self.last is not None and not isinstance(player, WebHuman):
            self.s.post(score={**self.last, "side": int(position.turn), "ply": position.ply + 1,
                               "text": f"{self.labels[-1]}: {self.last['view']} · depth {self.last['depth']}"})
        self.last = None

    def played(self, position: Game[Any]) -> None:
        self.s.post(pos=position.copy(), labels=list(self.labels), western=list(self.western), ids=list(self.ids),
                    times=list(self.times),
                    thinking=None, waiting=None)

    def undo(self, position: Game[Any], plies: int) -> None:
        del self.labels[len(self.labels) - plies:]
        del self.western[len(self.western) - plies:]
        del self.ids[len(self.ids) - plies:]
        del self.times[len(self.times) - plies:]
        self.s.post(score=None)
        self.played(position)

    def end(self, position: Game[Any], result: GameResult) -> None:
        self.s.post(True, pos=position.copy(), labels=list(self.labels), western=list(self.western), ids=list(self.ids),
                    times=list(self.times),
                    thinking=None, waiting=None, result=result.outcome, detail=result.detail)


def score_view(result: Any, mover: Color, view: Color, who: str) -> str:
    """A search result's score (from ``mover``'s side) as ``view`` sees it: ``score +120 for ▲ sente``,
    ``mate +3 for you`` (plies)."""
    sign = 1 if mover == view else -1
    if result.mate is not None:
        return f"mate {sign * result.mate:+d} for {who}"
    return f"score {sign * result.score:+.0f} for {who}"


class Sessions:
    """The sessions of this server: at most ``limit``, none left unused for ``expire`` seconds.

    A session is used while a request names it or an event stream of it is open.  A new session
    beyond the limit drops the least recently used one that nobody watches (the least recently
    used of all when every one is watched); a session unused for ``expire`` seconds is dropped at
    the next request.  A dropped session's game stops (its engines' tables are given back), and
    its requests answer 404 with :attr:`gone`.
    """

    def __init__(self, limit: int = MAX_SESSIONS, expire: float = EXPIRE) -> None:
        self.limit = limit
        self.expire = expire
        self._all: OrderedDict[str, Session] = OrderedDict()

    def add(self, s: Session) -> None:
        self._sweep()
        self._all[s.id] = s
        while len(self._all) > self.limit:
            others = [sid for sid in self._all if sid != s.id]
            self._drop(next((sid for sid in others if not self._all[sid].listeners), others[0]))

    def get(self, sid: str) -> Session | None:
        self._sweep()
        s = self._all.get(sid)
        if s is not None:
            self._all.move_to_end(sid)
            s.touched = time.monotonic()
        return s

    @property
    def gone(self) -> str:
        """Why a session is not found, for the 404 answer."""
        return (f"no such game session: it was never started, or it was dropped (unused for {self.expire / 60:g} "
                f"min, or the least recently used of more than {self.limit}); start a new game")

    def __len__(self) -> int:
        return len(self._all)

    def _sweep(self) -> None:
        now = time.monotonic()
        for sid in [sid for sid, s in self._all.items() if not s.listeners and now - s.touched > self.expire]:
            self._drop(sid)

    def _drop(self, sid: str) -> None:
        self._all.pop(sid).close()

    def close(self) -> None:
        for s in self._all.values():
            s.close()
        self._all.clear()


async def event_stream(session: Session, is_disconnected: Any, keepalive: float = 10.0) -> Any:
    """Server-sent events: the state now, then every change (``thinking`` while it thinks)."""
    try:
        async for text in stream(session.listeners, [session.state()], is_disconnected, keepalive):
            yield text
    finally:
        session.touched = time.monotonic()  # the page has gone: the session is unused from now
