"""Server-sent event streams: what a page hears from a game or an analysis as it changes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

Event = dict[str, Any]


async def stream(listeners: set[asyncio.Queue[Event]], first: Iterable[Event], is_disconnected: Any,
                 keepalive: float = 10.0, last: Callable[[Event], bool] = lambda event: False) -> AsyncIterator[str]:
    """The ``first`` events, then every event put on the queue this stream adds to ``listeners``
    (removed when the page goes), until one is ``last``; a comment line every ``keepalive``
    seconds of quiet keeps proxies from closing the connection."""
    q: asyncio.Queue[Event] = asyncio.Queue()
    listeners.add(q)
    try:
        for event in first:
            yield sse(event)
            if last(event):
                return
        while True:
            try:
                event = await asyncio.wait_for(q.get(), timeout=keepalive)
            except TimeoutError:
                if await is_disconnected():
                    break
                yield ": keepalive\n\n"
                continue
            yield sse(event)
            if last(event):
                break
    finally:
        listeners.discard(q)


def sse(event: Event) -> str:
    """One event: ``data:`` lines of its JSON (a newline inside never ends the event)."""
    return "data: " + json.dumps(event, ensure_ascii=False).replace("\n", "\ndata: ") + "\n\n"
