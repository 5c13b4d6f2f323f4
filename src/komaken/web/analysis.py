"""Analyses on the page: a game searched position by position in the background (:mod:`komaken.analysis`).

``POST /api/analysis`` starts one from a record's text or from a Play session's game; a thread of
its own walks the game while the page listens to ``/api/analysis/{id}/events`` (server-sent
events: the state, then one ``ply`` event per position as the engine finishes it, then ``done``).
At most :data:`MAX_RUNNING` analyses run at once (another is refused with 429 until one ends or is
stopped) and :data:`MAX_KEPT` are kept for their downloads, the least recently used dropped first.
A running analysis that no page has listened to or asked about for :data:`ORPHAN` seconds (its
page was closed) is stopped when another is asked for, so a forgotten one never holds a core.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from komaken.analysis import MAX_MOVES, GameAnalysis, PlyAnalysis, annotated, game_moves, hint
from komaken.game import Game
from komaken.web import _games as G
from komaken.web._sse import stream

MAX_RUNNING = 2  # analyses searching at once: each takes a core
MAX_KEPT = 16  # analyses kept (running or done) for their pages and downloads
ORPHAN = 120.0  # seconds a running analysis may go unwatched before a new one may stop it
MAX_RECORD = 200_000  # characters of record text an analysis takes (a 1000-move KIF is ~40 000)


class Busy(G.GameInputError):
    """Too many analyses are running (HTTP 429)."""


class Job:
    """One analysis: the game's frames for the page, the results so far, the listeners.  Made in any
    thread (a long game's frames take a while); ``loop`` is the server's event loop, where the
    results arrive."""

    def __init__(self, info: G.GameInfo, end: Game[Any], names: tuple[str | None, str | None], seconds: float,
                 multipv: int, loop: asyncio.AbstractEventLoop, original: str | None = None) -> None:
        start, moves = game_moves(end)
        if len(moves) > MAX_MOVES:
            raise G.GameInputError(f"the game has {len(moves)} moves: an analysis takes at most {MAX_MOVES}")
        self.id = secrets.token_urlsafe(12)
        self.info, self.names, self.original = info, names, original
        try:
            self.analysis = GameAnalysis(info.spec, start, moves, seconds=seconds, multipv=multipv)
        except ValueError as exc:
            raise G.GameInputError(str(exc)) from None
        self.loop = loop
        self.listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self.results: list[dict[str, Any]] = []
        self.running = True
        self.error: str | None = None
        self.touched = time.monotonic()
        self.started = time.monotonic()
        walker, labels, western, frames = start.copy(), [], [], [_frame(start, info)]
        for m in moves:
            labels.append(G.move_label(walker, info, m))
            western.append(G.move_label(walker, info, m, western=True))
            walker.push(m)
            frames.append(_frame(walker, info))
        self.labels, self.western, self.frames = labels, western, frames
        self._thread = threading.Thread(target=self._run, daemon=True, name=f"analysis-{self.id}")

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        error = None
        try:
            for item in self.analysis:
                self._post(item)
        except Exception as exc:  # noqa: BLE001 - the engine failed: the page hears why
            error = f"the analysis stopped: {type(exc).__name__}: {exc}"
        try:
            self.loop.call_soon_threadsafe(self._finish, error)
        except RuntimeError:  # the server has shut down
            pass

    def _post(self, item: PlyAnalysis) -> None:
        try:
            self.loop.call_soon_threadsafe(self._add, item.to_json())
        except RuntimeError:
            self.analysis.cancel()

    def _add(self, doc: dict[str, Any]) -> None:
        self.results.append(doc)
        self.publish({"type": "ply", **doc})

    def _finish(self, error: str | None) -> None:
        self.running, self.error = False, error
        self.publish(self.done_event())

    def done_event(self) -> dict[str, Any]:
        return {"type": "done", "done": len(self.results), "total": self.analysis.total,
                "cancelled": self.analysis.cancelled, "error": self.error}

    def stop(self) -> None:
        self.analysis.cancel()

    def publish(self, event: dict[str, Any]) -> None:
        for q in list(self.listeners):
            if q.qsize() < 2048:
                q.put_nowait(event)

    def state(self) -> dict[str, Any]:
        a = self.analysis
        return {"type": "state", "id": self.id, "game": self.info.to_json(), "names": list(self.names),
                "seconds": a.seconds, "multipv": a.multipv, "total": a.total, "labels": self.labels,
                "western": self.western,
                "frames": self.frames, "results": self.results, "running": self.running,
                "cancelled": a.cancelled, "error": self.error,
                "formats": list(_comment_formats(self.info))}

    def record(self, fmt: str) -> str:
        """The game with the analysis so far as engine comments."""
        try:
            return annotated(self.info.spec, self.analysis, fmt, self.names, engine="komaken", original=self.original)
        except ValueError as exc:
            raise G.GameInputError(str(exc)) from None


def _comment_formats(info: G.GameInfo) -> tuple[str, ...]:
    io = info.spec.record_io
    return io.comment_formats if io is not None and io.write_comments is not None else ()


def _frame(pos: Game[Any], info: G.GameInfo) -> dict[str, Any]:
    return {"board": G.board_json(pos, info), "position": G.position_text(info, pos)}


class Jobs:
    """The analyses of this server (see the module's text for the limits)."""

    def __init__(self, running: int = MAX_RUNNING, kept: int = MAX_KEPT, orphan: float = ORPHAN) -> None:
        self.running, self.kept, self.orphan = running, kept, orphan
        self._all: OrderedDict[str, Job] = OrderedDict()

    def check_room(self) -> None:
        now = time.monotonic()
        for job in self._all.values():
            if job.running and not job.listeners and now - job.touched > self.orphan:
                job.stop()  # its page has gone; it ends after the search in progress
        busy = sum(1 for j in self._all.values() if j.running and not j.analysis.cancelled)
        if busy >= self.running:
            raise Busy(f"{busy} analyses are running, the most this server runs at once: wait for one to end "
                       f"or stop it")

    def add(self, job: Job) -> None:
        self.check_room()
        self._all[job.id] = job
        while len(self._all) > self.kept:
            idle = [k for k, j in self._all.items() if not j.running and not j.listeners and k != job.id]
            if not idle:
                break
            del self._all[idle[0]]
        job.start()

    def get(self, aid: str) -> Job | None:
        job = self._all.get(aid)
        if job is not None:
            self._all.move_to_end(aid)
            job.touched = time.monotonic()
        return job

    @property
    def gone(self) -> str:
        return (f"no such analysis: it was never started, or it was dropped (this server keeps the last "
                f"{self.kept}); start it again")

    def close(self) -> None:
        for job in self._all.values():
            job.stop()
        self._all.clear()


async def hint_json(info: G.GameInfo, pos: Game[Any], seconds: float) -> dict[str, Any]:
    """The engine's move for ``pos`` (a copy is searched in a thread)."""
    if info.spec.analyser is None:
        raise G.GameInputError(f"{info.spec.name} has no engine to give a hint")
    if pos.outcome() is not None or not pos.legal_moves():
        raise G.GameInputError("the game is over: there is no move to suggest")
    try:
        h = await asyncio.to_thread(hint, info.spec, pos.copy(), seconds)
    except ValueError as exc:
        raise G.GameInputError(str(exc)) from None
    return {"move": h.move, "words": h.words, "cp": h.cp, "mate": h.mate, "win": round(h.win, 1), "line": h.line,
            "text": h.text(), "turn": int(pos.turn)}


async def event_stream(job: Job, is_disconnected: Any, keepalive: float = 10.0) -> AsyncIterator[str]:
    """Server-sent events: the state now, then each position as it is analysed, then ``done``."""
    first = [job.state()]
    if not job.running:
        first.append(job.done_event())
    try:
        async for text in stream(job.listeners, first, is_disconnected, keepalive, last=lambda e: e["type"] == "done"):
            yield text
    finally:
        job.touched = time.monotonic()  # unwatched from now
