"""Play sessions: one game in progress per session, its players, and its live event stream.

All changes to a session happen on the server's event loop; a computer player thinks on a
*copy* of the position in a worker thread (the engine's numba kernels release the GIL), and its
progress (depth, score, principal variation) is published to every listener of the session as
it arrives.  A generation counter makes a search that was overtaken (undo, resign) harmless: its
answer is dropped.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from typing import Any

from komaken.game import Color, Outcome, Termination
from komaken.web import _games as G

MAX_SESSIONS = 64


class Session:
    """A game being played in the browser."""

    def __init__(self, info: G.GameInfo, pos: Any, sides: list[dict[str, Any]],
                 names: dict[str, str | None] | None = None) -> None:
        self.id = secrets.token_urlsafe(12)
        self.info = info
        self.pos = pos
        self.sides = sides
        self.players = [G.make_player(info, s) for s in sides]
        self.start_ply = pos.ply
        self.labels: list[str] = []
        self.ids: list[str] = []
        self.result: Outcome | None = None
        self.listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self.thinking: dict[str, Any] | None = None
        self.generation = 0
        self.task: asyncio.Task[None] | None = None
        self.task_generation = -1
        self.names = [self._name(0, names), self._name(1, names)]
        self.touched = time.monotonic()
        self.engine_ms: list[float] = []
        self.version = 0

    def _name(self, color: int, names: dict[str, str | None] | None) -> str:
        p = self.players[color]
        given = (names or {}).get(("black", "white")[color])
        return p.name if p is not None else (given or "human")

    # ---- state ------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        pos, info = self.pos, self.info
        over = self.result or pos.outcome()
        to_move = int(pos.turn)
        human_turn = over is None and self.players[to_move] is None
        return {
            "type": "state", "id": self.id, "game": info.to_json(), "board": G.board_json(pos, info),
            "position": G.position_text(pos), "ply": pos.ply, "turn": to_move,
            "moves": [{"label": lb, "id": mid} for lb, mid in zip(self.labels, self.ids, strict=True)],
            "legal": G.legal_json(pos, info) if human_turn else [],
            "sides": [{"kind": s.get("kind", "human"), "name": n} for s, n in zip(self.sides, self.names, strict=True)],
            "side_names": list(G.side_names(info)), "outcome": G.outcome_json(over, info),
            "thinking": self.thinking, "can_undo": self._can_undo(), "version": self.version,
        }

    def _can_undo(self) -> bool:
        return self.pos.ply > self.start_ply and any(p is None for p in self.players)

    def publish(self, event: dict[str, Any]) -> None:
        for q in list(self.listeners):
            if q.qsize() < 256:
                q.put_nowait(event)

    def publish_state(self) -> None:
        """Tell every listener the new state (``version`` orders states that cross in flight)."""
        self.version += 1
        self.publish(self.state())

    # ---- actions ----------------------------------------------------------------------------
    def _finished(self) -> bool:
        if self.result is None:
            self.result = self.pos.outcome()
        return self.result is not None

    def play(self, text: str) -> None:
        """A human's move (``GameInputError`` if it is not the human's turn or not legal)."""
        if self._finished():
            raise G.GameInputError("the game is over")
        if self.players[int(self.pos.turn)] is not None:
            raise G.GameInputError("it is the computer's turn")
        self._push(G.parse_move(self.pos, self.info, text))

    def _push(self, move: Any) -> None:
        if move not in self.pos.legal_moves():
            raise G.GameInputError(f"illegal move {G.move_id(move)!r} in {G.position_text(self.pos)}")
        label = G.move_label(self.pos, self.info, move)
        self.pos.push(move)
        self.labels.append(label)
        self.ids.append(G.move_id(move))
        self._finished()

    def undo(self) -> None:
        """Take back the last human move and the computer's replies after it."""
        if not self._can_undo():
            raise G.GameInputError("nothing to take back")
        self._cancel()
        self.result = None
        self._pop()
        while self.pos.ply > self.start_ply and self.players[int(self.pos.turn)] is not None:
            self._pop()

    def _pop(self) -> None:
        self.pos.pop()
        self.labels.pop()
        self.ids.pop()

    def resign(self) -> None:
        if self._finished():
            raise G.GameInputError("the game is over")
        self._cancel()
        turn = self.pos.turn
        humans = [c for c in (Color.BLACK, Color.WHITE) if self.players[c] is None]
        loser = turn if turn in humans or not humans else humans[0]
        self.result = Outcome(Termination.RESIGNATION, loser.other)

    def _cancel(self) -> None:
        self.generation += 1
        self.thinking = None
        for p in self.players:
            if p is not None:
                p.stop()

    # ---- the computer's turn ----------------------------------------------------------------
    def kick(self) -> None:
        """Start the computer thinking if it is its turn and it is not already."""
        busy = self.task is not None and not self.task.done() and self.task_generation == self.generation
        if self._finished() or busy:
            return
        player = self.players[int(self.pos.turn)]
        if player is not None:
            self.task_generation = self.generation
            self.task = asyncio.get_running_loop().create_task(self._think(player, self.generation))

    async def _think(self, player: G.Thinker, generation: int) -> None:
        loop = asyncio.get_running_loop()
        self.thinking = {"side": int(self.pos.turn), "depth": 0, "score": None, "pv": [], "nodes": 0}
        self.publish_state()

        def info(d: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(self._on_info, generation, d)

        t0 = time.perf_counter()
        try:
            move = await asyncio.to_thread(player.think, self.pos.copy(), info)
        except Exception as exc:  # a crashed player loses, as in the lab
            if generation == self.generation:
                self.thinking = None
                self.result = Outcome(Termination.ABORTED, None)
                self.publish({"type": "error", "error": f"{player.name} failed: {exc}"})
                self.publish_state()
            return
        if generation != self.generation:
            return
        self.engine_ms.append((time.perf_counter() - t0) * 1000)
        self.thinking = None
        mover = self.pos.turn
        if move == "resign":
            self.result = Outcome(Termination.RESIGNATION, mover.other)
        elif move == "declare":
            self.result = Outcome(Termination.DECLARATION, mover)
        else:
            self._push(move)
        self.publish_state()
        self.kick()

    def _on_info(self, generation: int, d: dict[str, Any]) -> None:
        if generation == self.generation and self.thinking is not None:
            self.thinking = {**self.thinking, **d}
            self.publish({"type": "thinking", **self.thinking})

    def close(self) -> None:
        self._cancel()


class Sessions:
    """The sessions of this server, oldest dropped beyond :data:`MAX_SESSIONS`."""

    def __init__(self) -> None:
        self._all: OrderedDict[str, Session] = OrderedDict()

    def add(self, s: Session) -> None:
        self._all[s.id] = s
        while len(self._all) > MAX_SESSIONS:
            _, old = self._all.popitem(last=False)
            old.close()

    def get(self, sid: str) -> Session | None:
        s = self._all.get(sid)
        if s is not None:
            self._all.move_to_end(sid)
            s.touched = time.monotonic()
        return s

    def close(self) -> None:
        for s in self._all.values():
            s.close()
        self._all.clear()


async def event_stream(session: Session, is_disconnected: Any, keepalive: float = 10.0) -> Any:
    """Server-sent events: the state now, then every change (``thinking`` while it thinks)."""
    import json

    q: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    session.listeners.add(q)
    try:
        yield _sse(json.dumps(session.state(), ensure_ascii=False))
        while True:
            try:
                event = await asyncio.wait_for(q.get(), timeout=keepalive)
            except TimeoutError:
                if await is_disconnected():
                    break
                yield ": keepalive\n\n"
                continue
            yield _sse(json.dumps(event, ensure_ascii=False))
    finally:
        session.listeners.discard(q)


def _sse(data: str) -> str:
    return "data: " + data.replace("\n", "\ndata: ") + "\n\n"
