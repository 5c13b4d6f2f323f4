"""The web server's front door: what a request must be before any handler sees it.

A request that changes something (``POST``, ``PUT``, ``PATCH``, ``DELETE``) must

* come from the page itself: ``Sec-Fetch-Site: same-origin`` (or ``none``: typed by the user),
  or, from a client that does not send that header, an ``Origin`` naming this very server —
  else 403, so a page on another site cannot start games or play moves (cross-site request
  forgery);
* say ``Content-Type: application/json`` — else 415 (a cross-site form or a ``no-cors`` fetch
  cannot send that type without the browser asking first, and the server never says yes);
* bring at most :data:`MAX_BODY` bytes — else 413.  A ``Content-Length`` over the limit is refused
  before a byte is read; a body without one is read as it arrives and refused the moment it
  passes the limit, so no request ever holds more than :data:`MAX_BODY` bytes of memory.

Every refusal is JSON (``{"error": ...}``) and closes the connection, so the rest of an unread
body is never read.  A client that disconnects before its body is complete is logged in one line.
The body is handed to the application whole; :mod:`komaken.web._fields` checks its contents.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse

MAX_BODY = 1 << 20  # a record of a few thousand moves fits many times over
CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SAME_SITE = frozenset({"same-origin", "none"})
_DEFAULT_PORT = {"http": "80", "https": "443"}

log = logging.getLogger("komaken.web")


class _Refusal(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Gone(Exception):
    """The client disconnected before its body was complete."""


def _origin_netloc(origin: str) -> str | None:
    """``host:port`` of an ``Origin`` header (the scheme's port made explicit), or ``None``."""
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORT or not parts.hostname or parts.path or parts.query:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{port or _DEFAULT_PORT[parts.scheme]}"


def _host_netloc(host: str, scheme: str) -> str:
    host = host.lower()
    bare = host.rsplit("]", 1)[-1] if host.startswith("[") else host
    return host if ":" in bare else f"{host}:{_DEFAULT_PORT.get(scheme, '80')}"


def check_origin(headers: Headers, scheme: str) -> None:
    """Refuse (403) a state-changing request that does not come from this server's own page."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        if site.lower() not in SAME_SITE:
            raise _Refusal(403, f"a request from another site ({site[:20]}) may not change anything here")
        return
    origin = headers.get("origin")
    if origin is None:
        raise _Refusal(403, "a request that changes something must carry an Origin header naming this server "
                            "(the page's own requests do)")
    if _origin_netloc(origin.lower()) != _host_netloc(headers.get("host", ""), scheme):
        raise _Refusal(403, f"origin {origin[:60]!r} may not change anything here")


def check_type(headers: Headers) -> None:
    """Refuse (415) a state-changing request whose body is not declared JSON."""
    declared = headers.get("content-type", "")
    if declared.split(";")[0].strip().lower() != "application/json":
        shown = f"{declared[:40]!r}" if declared else "none"
        raise _Refusal(415, f"Content-Type must be application/json (got {shown})")


def check_length(headers: Headers) -> None:
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and (len(declared) > 12 or int(declared) > MAX_BODY):
        raise _Refusal(413, f"the request body of {declared[:20]} bytes is larger than {MAX_BODY} bytes")


async def read_body(receive: Any) -> bytes:
    """The whole body, read as it arrives: 413 the moment it passes :data:`MAX_BODY`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Gone(f"after {size} bytes")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise _Refusal(413, f"the request body is larger than {MAX_BODY} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def refusal(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers={"Connection": "close"})


class Guard:
    """ASGI middleware applying the rules above to every ``http`` request."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] not in CHANGES:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        try:
            check_origin(headers, scope.get("scheme", "http"))
            check_type(headers)
            check_length(headers)
            body = await read_body(receive)
        except _Refusal as exc:
            await refusal(exc.status, str(exc))(scope, receive, send)
            return
        except _Gone as exc:
            client = scope.get("client") or ("?", 0)
            log.warning("komaken serve: %s:%s disconnected %s of its %s %s body", client[0], client[1], exc,
                        scope["method"], scope.get("path", "")[:80])
            return
        await self.app(scope, _replay(body, receive), send)


def _replay(body: bytes, receive: Any) -> Any:
    """A ``receive`` that gives ``body`` once, then waits on the connection as before (for the
    disconnect a streaming response listens for)."""
    sent = False

    async def again() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
