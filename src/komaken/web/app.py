"""The ASGI application: pages, the JSON API and the server-sent event streams.

:func:`create_app` builds it from the experiment databases and variant files named at start-up
(``komaken serve`` does that); run it with any ASGI server (uvicorn).  Every error a request can
cause is answered as ``{"error": "..."}`` with a 4xx status — a bad move, SFEN, record or query
parameter never reaches the page as a traceback.  A request passes :mod:`komaken.web._guard`
(origin, content type, body size) before any handler, and each handler takes its values
through :mod:`komaken.web._fields` (types and ranges) before it uses them.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from komaken.errors import KomakenError
from komaken.records import encode_text
from komaken.web import _fields as F
from komaken.web import _games as G
from komaken.web import analysis as A
from komaken.web import pieces as P
from komaken.web import reports
from komaken.web._guard import Guard
from komaken.web.experiments import Databases, NotFound
from komaken.web.play import Session, Sessions, event_stream
from komaken.web.runs import RunRefused, Runs

STATIC = Path(__file__).parent / "static"
Handler = Callable[[Request], Awaitable[Response]]


def error(status: int, message: str, field: str | None = None) -> Response:
    """``{"error": message}`` (and ``"field"`` when one field is at fault); ASCII-escaped, so
    no text a request brought back can break the encoding."""
    doc = {"error": message} if field is None else {"error": message, "field": field}
    return Response(json.dumps(doc), status_code=status, media_type="application/json")


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status)


async def _body(request: Request, schema: dict[str, F.Rule]) -> dict[str, Any]:
    return F.fields(F.parse_body(await request.body()), schema)


def _query(request: Request, schema: dict[str, Any]) -> dict[str, Any]:
    return F.query(request.query_params.multi_items(), schema)


class Api:
    """The request handlers, sharing the server's state."""

    def __init__(self, dbs: Databases, games: dict[str, G.GameInfo], runs: Runs | None = None) -> None:
        self.dbs = dbs
        self.games = games
        self.sessions = Sessions()
        self.analyses = A.Jobs()
        self.runs = runs or Runs({})

    # ---- play ------------------------------------------------------------------------------------
    async def game_list(self, request: Request) -> Response:
        return _json({"games": [g.to_json() for g in self.games.values()],
                      "clock": {k: rule.to_json() for k, rule in F.CLOCK.items() if isinstance(rule, F.Num)}})

    def session(self, request: Request) -> Session:
        s = self.sessions.get(request.path_params["sid"])
        if s is None:
            raise NotFound(self.sessions.gone)
        return s

    async def new_game(self, request: Request) -> Response:
        data = await _body(request, F.NEW_GAME)
        gid = data["game"] or "shogi"
        info = self.games.get(gid)
        if info is None:
            raise NotFound(f"unknown game {gid[:40]!r} (known: {', '.join(self.games)})")
        sides = [F.side(data["black"], "black", info, "human"), F.side(data["white"], "white", info, "engine")]
        clocks = F.clocks(data)
        record, start = data["record"] or "", data["start"] or ""
        names = None
        if record.strip():
            pos, names = await asyncio.to_thread(G.from_record, info, record)
        else:
            pos = G.new_position(info, start)
        s = Session(info, pos, sides, names, clocks)
        self.sessions.add(s)
        await s.start()
        return _json(s.state(), 201)

    # ---- piece sets ------------------------------------------------------------------------------
    async def piece_sets(self, request: Request) -> Response:
        return _json({"sets": list(P.SETS), "default": P.DEFAULT})

    async def piece_set(self, request: Request) -> Response:
        try:
            return _json(P.piece_set(request.path_params["name"]))
        except P.UnknownPieceSet as exc:
            raise NotFound(str(exc)) from None

    async def get_state(self, request: Request) -> Response:
        return _json(self.session(request).state())

    async def move(self, request: Request) -> Response:
        s = self.session(request)
        data = await _body(request, F.MOVE)
        await s.play(data["move"] or "")
        return _json(s.state())

    async def undo(self, request: Request) -> Response:
        s = self.session(request)
        await _body(request, F.NOTHING)
        await s.undo()
        return _json(s.state())

    async def resign(self, request: Request) -> Response:
        s = self.session(request)
        await _body(request, F.NOTHING)
        await s.resign()
        return _json(s.state())

    async def play_events(self, request: Request) -> Response:
        s = self.session(request)
        return StreamingResponse(event_stream(s, request.is_disconnected), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    async def play_record(self, request: Request) -> Response:
        s = self.session(request)
        fmt = _query(request, F.RECORD_QUERY)["format"] or s.info.spec.text_formats[0]
        text = G.record_text(s.info, s.pos, fmt, (s.names[0], s.names[1]), s.result, timing=s.timing())
        return _download(text, f"komaken-{s.info.id}.{fmt}")

    async def hint(self, request: Request) -> Response:
        s = self.session(request)
        data = await _body(request, F.HINT)
        return _json(await A.hint_json(s.info, s.pos, data["seconds"] or 1.0))

    # ---- analysis --------------------------------------------------------------------------------
    def job(self, request: Request) -> A.Job:
        job = self.analyses.get(request.path_params["aid"])
        if job is None:
            raise NotFound(self.analyses.gone)
        return job

    async def analysis_limits(self, request: Request) -> Response:
        return _json(F.analysis_limits())

    async def new_analysis(self, request: Request) -> Response:
        data = await _body(request, F.ANALYSE)
        seconds, multipv = data["seconds"] or 1.0, data["multipv"] or 1
        names: tuple[str | None, str | None]
        info: G.GameInfo | None
        original = None
        if data["session"]:
            s = self.sessions.get(data["session"])
            if s is None:
                raise NotFound(self.sessions.gone)
            info, end, names = s.info, s.pos.copy(), (s.names[0], s.names[1])
        else:
            gid = data["game"] or "shogi"
            info = self.games.get(gid)
            if info is None:
                raise NotFound(f"unknown game {gid[:40]!r} (known: {', '.join(self.games)})")
            if not (data["record"] or "").strip():
                raise F.BadRequest("give a record to analyse (KIF, CSA, … or a move list)", "record")
            end, found = await asyncio.to_thread(G.from_record, info, data["record"])
            names, original = (found["black"], found["white"]), data["record"]
        assert info is not None
        if info.spec.analyser is None:
            raise G.GameInputError(f"{info.spec.name} has no engine to analyse with")
        self.analyses.check_room()
        job = await asyncio.to_thread(A.Job, info, end, names, seconds, multipv, asyncio.get_running_loop(), original)
        self.analyses.add(job)
        return _json(job.state(), 201)

    async def get_analysis(self, request: Request) -> Response:
        return _json(self.job(request).state())

    async def stop_analysis(self, request: Request) -> Response:
        job = self.job(request)
        await _body(request, F.NOTHING)
        job.stop()
        return _json({"id": job.id, "stopping": job.running})

    async def analysis_events(self, request: Request) -> Response:
        job = self.job(request)
        return StreamingResponse(A.event_stream(job, request.is_disconnected), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    async def analysis_record(self, request: Request) -> Response:
        job = self.job(request)
        fmt = _query(request, F.RECORD_QUERY)["format"] or "kif"
        text = await asyncio.to_thread(job.record, fmt)
        return _download(text, f"komaken-analysis-{job.info.id}.{fmt}")

    # ---- experiments -----------------------------------------------------------------------------
    async def db_list(self, request: Request) -> Response:
        return _json({"dbs": await asyncio.to_thread(self.dbs.listing)})

    async def db_status(self, request: Request) -> Response:
        return _json(await asyncio.to_thread(self.dbs.status, request.path_params["db"]))

    def live(self, index: Any) -> dict[str, Any]:
        """The games a run is playing into database ``index`` and the state of the page's run."""
        try:
            games = self.dbs.live(index)
        except KomakenError:
            games = []  # no experiment stored yet
        return {"type": "live", "playing": games, "run": self.runs.state(self.dbs.source(index).path)}

    async def db_live(self, request: Request) -> Response:
        index = request.path_params["db"]
        self.dbs.source(index)
        return _json(await asyncio.to_thread(self.live, index))

    async def db_run(self, request: Request) -> Response:
        """Start, pause, resume or stop the run of database ``db`` (loopback clients only)."""
        src = self.dbs.source(request.path_params["db"])
        data = await _body(request, F.RUN)
        if not _loopback(request):
            return error(403, "runs are started and stopped from this machine only (a loopback address)")
        action = data["action"]
        if action is None:
            raise F.BadRequest("missing: one of start, pause, resume, stop", "action")
        if action == "start":
            self.runs.start(src.path, data["workers"] or 1)  # here, not in a thread: see komaken.web.runs
        elif action == "stop":
            await asyncio.to_thread(self.runs.stop, src.path)
        else:
            getattr(self.runs, action)(src.path)
        return _json(await asyncio.to_thread(self.live, src.index))

    async def db_events(self, request: Request) -> Response:
        index = request.path_params["db"]
        self.dbs.source(index)
        interval = 0.5

        async def stream() -> Any:
            last = None
            last_live = ""
            idle = 0.0
            while True:
                try:
                    stamp = await asyncio.to_thread(self.dbs.stamp, index)
                    if stamp != last:
                        doc = await asyncio.to_thread(self.dbs.status, index)
                        last, idle = stamp, 0.0
                        yield "data: " + json.dumps(doc, ensure_ascii=False) + "\n\n"
                except KomakenError as exc:
                    yield "data: " + json.dumps({"error": str(exc)}) + "\n\n"
                live = json.dumps(await asyncio.to_thread(self.live, index), ensure_ascii=False)
                if live != last_live:
                    last_live, idle = live, 0.0
                    yield "event: live\ndata: " + live + "\n\n"  # a named event: status readers skip it
                await asyncio.sleep(interval)
                idle += interval
                if idle >= 5:
                    if await request.is_disconnected():
                        break
                    idle = 0.0
                    yield ": keepalive\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    async def db_games(self, request: Request) -> Response:
        query = _query(request, F.GAMES_QUERY)
        return _json(await asyncio.to_thread(self.dbs.games, request.path_params["db"], query))

    async def db_facets(self, request: Request) -> Response:
        doc = await asyncio.to_thread(self.dbs.facets, request.path_params["db"])
        return _json({**doc, "limits": F.query_limits(F.GAMES_QUERY)})

    async def db_game(self, request: Request) -> Response:
        p = request.path_params
        return _json(await asyncio.to_thread(self.dbs.game, p["db"], p["gid"]))

    async def db_record(self, request: Request) -> Response:
        p = request.path_params
        fmt = _query(request, F.RECORD_QUERY)["format"] or "kif"
        text, name = await asyncio.to_thread(self.dbs.record, p["db"], p["gid"], fmt)
        return _download(text, name)

    async def db_report(self, request: Request) -> Response:
        return _json(await asyncio.to_thread(reports.report, self.dbs, request.path_params["db"]))

    async def db_plot(self, request: Request) -> Response:
        p = request.path_params
        svg = await asyncio.to_thread(reports.plot_svg, self.dbs, p["db"], p["name"])
        return Response(svg, media_type="image/svg+xml")


def _loopback(request: Request) -> bool:
    host = request.client.host if request.client is not None else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _download(text: str, name: str) -> Response:
    encoded = encode_text(text, name)  # game.kif: Shift_JIS, as every .kif reader expects
    return Response(encoded.data, media_type=f"text/plain; charset={encoded.charset}",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


def _wrap(handler: Handler) -> Handler:
    """Turn the errors a request can cause into JSON answers."""

    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except NotFound as exc:
            return error(404, str(exc))
        except A.Busy as exc:
            return error(429, str(exc))
        except RunRefused as exc:
            return error(409, str(exc))
        except F.BadRequest as exc:
            return error(400, str(exc), exc.field)
        except (KomakenError, ValueError) as exc:
            return error(400, str(exc) or type(exc).__name__)

    return run


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, str(exc.detail))


async def _server_error(request: Request, exc: Exception) -> Response:
    return error(500, f"internal error: {type(exc).__name__}")


class HostCheck:
    """Answer 400 (JSON) to requests whose ``Host`` header is not one of ``allowed``: a page on
    another site that resolves its own name to 127.0.0.1 (DNS rebinding) cannot talk to us."""

    def __init__(self, app: Any, allowed: list[str] | None) -> None:
        self.app = app
        self.allowed = None if allowed is None else {h.lower().strip("[]") for h in allowed}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.allowed is not None and scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host", "").lower()
            name = host[1:].split("]")[0] if host.startswith("[") else host.split(":")[0]
            if name not in self.allowed:
                await error(400, f"host {host[:60]!r} is not served here")(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(dbs: list[str | Path] | tuple[str | Path, ...] = (), variants: list[str] | tuple[str, ...] = (),
               *, allowed_hosts: list[str] | None = None, experiments: dict[Path, Path] | None = None) -> Starlette:
    """The web application for the experiment databases ``dbs`` and the variant files ``variants``.

    ``allowed_hosts`` (``Host`` header values) guards a loopback server against DNS rebinding;
    ``None`` accepts any.  ``experiments`` maps a database to the experiment file the page may
    run into it (:mod:`komaken.web.runs`); such a database is shown as if given in ``dbs``.
    """
    runs = Runs(experiments or {})
    paths: list[str | Path] = [Path(d).resolve() for d in dbs]
    paths += [db for db in runs.files if db not in paths]
    api = Api(Databases(paths), G.catalog(list(variants)), runs)
    w = _wrap
    routes = [
        Route("/", index),
        Route("/api/games", w(api.game_list)),
        Route("/api/pieces", w(api.piece_sets)),
        Route("/api/pieces/{name}", w(api.piece_set)),
        Route("/api/play", w(api.new_game), methods=["POST"]),
        Route("/api/play/{sid}", w(api.get_state)),
        Route("/api/play/{sid}/move", w(api.move), methods=["POST"]),
        Route("/api/play/{sid}/undo", w(api.undo), methods=["POST"]),
        Route("/api/play/{sid}/resign", w(api.resign), methods=["POST"]),
        Route("/api/play/{sid}/events", w(api.play_events)),
        Route("/api/play/{sid}/record", w(api.play_record)),
        Route("/api/play/{sid}/hint", w(api.hint), methods=["POST"]),
        Route("/api/analysis", w(api.new_analysis), methods=["POST"]),
        Route("/api/analysis/limits", w(api.analysis_limits)),
        Route("/api/analysis/{aid}", w(api.get_analysis)),
        Route("/api/analysis/{aid}/stop", w(api.stop_analysis), methods=["POST"]),
        Route("/api/analysis/{aid}/events", w(api.analysis_events)),
        Route("/api/analysis/{aid}/record", w(api.analysis_record)),
        Route("/api/dbs", w(api.db_list)),
        Route("/api/dbs/{db}", w(api.db_status)),
        Route("/api/dbs/{db}/events", w(api.db_events)),
        Route("/api/dbs/{db}/live", w(api.db_live)),
        Route("/api/dbs/{db}/run", w(api.db_run), methods=["POST"]),
        Route("/api/dbs/{db}/games", w(api.db_games)),
        Route("/api/dbs/{db}/facets", w(api.db_facets)),
        Route("/api/dbs/{db}/games/{gid}", w(api.db_game)),
        Route("/api/dbs/{db}/games/{gid}/record", w(api.db_record)),
        Route("/api/dbs/{db}/report", w(api.db_report)),
        Route("/api/dbs/{db}/plots/{name}.svg", w(api.db_plot)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(HostCheck, allowed=allowed_hosts), Middleware(Guard)]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        api.sessions.close()
        api.analyses.close()
        await asyncio.to_thread(api.runs.close)

    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={HTTPException: _http_error, Exception: _server_error}, lifespan=lifespan)
    app.state.api = api
    return app
