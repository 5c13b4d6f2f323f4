"""Hostile input to the web server: refused with a 4xx JSON answer, never a 5xx, nothing stored changed.

The reproducers of what once answered 500 or was accepted from another site, the field errors
(each naming the field and what it allows), the origin and content-type rules, the body limit
while streaming, a disconnect mid-body, a quick seeded fuzz in-process (``web_fuzzing.py``;
``benchmarks/web_fuzz.py`` runs ten thousand against a real server), and one real
``komaken serve`` for what only a socket shows.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from komaken.web import _fields as F
from komaken.web import _games as G
from komaken.web import create_app
from komaken.web._guard import MAX_BODY
from web_fuzzing import is_json_error, requests, small_db
from web_support import SAME_ORIGIN, Server

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_db(tmp_path_factory.mktemp("guard") / "small.db")


@pytest.fixture(scope="module")
def app(db: Path):  # type: ignore[no-untyped-def]
    return create_app([db])


@pytest.fixture(scope="module")
def client(app):  # type: ignore[no-untyped-def]
    with TestClient(app, headers=SAME_ORIGIN) as c:
        yield c


def new_game(client, game: str = "minishogi") -> dict[str, Any]:  # type: ignore[no-untyped-def]
    r = client.post("/api/play", json={"game": game, "black": {"kind": "human"}, "white": {"kind": "human"}})
    assert r.status_code == 201, r.text
    return dict(r.json())


def stored(app, sids: list[str] | None = None) -> tuple[int, dict[str, tuple[Any, ...]]]:  # type: ignore[no-untyped-def]
    """The number of live sessions and the state of ``sids`` (default: all) — version (it counts
    every change a session published), ply, moves, result: what a refused request must leave."""
    live = app.state.api.sessions._all
    return len(live), {sid: (live[sid].version, live[sid].pos.ply, tuple(live[sid].ids), live[sid].result)
                       for sid in sids or live if sid in live}


# ---- the reproducers -----------------------------------------------------------------------------
@pytest.mark.parametrize(("body", "status", "field", "words"), [
    (b"[" * 100_000, 400, None, "nests deeper than 32"),
    (b'{"game": "chess", "black": {"kind": "engine", "depth": 1e400}}', 400, "black.depth", "1..8"),
    (b'{"game": "chess", "black": {"kind": "engine", "depth": NaN}}', 400, "black.depth", "1..8"),
    (b'{"game": "shogi", "white": {"kind": "engine", "nodes": ' + b"9" * 5000 + b"}}", 400, "white.nodes",
     "1..1000000000000"),
    (b'{"game": "shogi", "white": {"kind": "engine", "movetime": -Infinity}}', 400, "white.movetime", "0.001..86400 s"),
    (b'{"game": "shogi", "white": {"kind": "engine", "depth": true}}', 400, "white.depth", "1..112"),
    (b'{"game": "shogi", "white": {"kind": "thesis", "depth": 113}}', 400, "white.depth", "1..112"),
    (b'{"game": "reversi", "white": {"kind": "engine", "depth": 2.5}}', 400, "white.depth", "1..60"),
    (b'{"game": "tictactoe", "white": {"kind": "engine", "nodes": 3}}', 400, "white.nodes", "known: kind, seed, depth"),
    (b'{"game": "shogi", "white": {"kind": "random", "seed": -1}}', 400, "white.seed", "0..9223372036854775807"),
    (b'{"game": "shogi", "black": {"kind": "wizard"}}', 400, "black.kind", "human, engine, thesis, random"),
    (b'{"game": "shogi", "black": [1]}', 400, "black", "must be an object"),
    (b'{"game": "shogi", "colour": "black"}', 400, "colour", "known: game, start, record, black, white"),
    (b'{"game": 5}', 400, "game", "must be text"),
    (b'{"game": "\\ud800"}', 400, "game", "not valid Unicode"),
    (b'{"game": "shogi", "game": "chess"}', 400, "game", "twice"),
    (b'{"game": "shogi", "start": "' + b"x" * 5000 + b'"}', 400, "start", "0..4096"),
    (b"\xff\xfe{}", 400, None, "not UTF-8"),
    (b"[1, 2]", 400, None, "must be a JSON object"),
    (b'{"game": ', 400, None, "not JSON"),
])
def test_malformed_new_games_are_4xx_naming_the_field_and_nothing_is_stored(app, client, body, status, field,
                                                                            words) -> None:  # type: ignore[no-untyped-def]
    before = stored(app)
    r = client.post("/api/play", content=body, headers=JSON)
    assert r.status_code == status, r.text
    doc = r.json()
    assert words in doc["error"] and doc.get("field") == field, doc
    assert stored(app) == before


@pytest.mark.parametrize(("body", "field", "words"), [
    (b'{"move": ' + b"[" * 5000 + b"]" * 5000 + b"}", None, "nests deeper"),
    (b'{"move": 1e400}', "move", "must be text"),
    (b'{"move": ""}', "move", "1..16"),
    (b'{"move": "7g7f", "promote": true}', "promote", "known: move"),
    (b'{"move": "7g7f", "move": "3c3d"}', "move", "twice"),
    (b'"7g7f"', None, "must be a JSON object"),
])
def test_malformed_moves_leave_the_game_as_it_was(app, client, body, field, words) -> None:  # type: ignore[no-untyped-def]
    st = new_game(client, "shogi")
    r = client.post(f"/api/play/{st['id']}/move", content=body, headers=JSON)
    assert r.status_code == 400 and words in r.json()["error"] and r.json().get("field") == field, r.text
    assert client.get(f"/api/play/{st['id']}").json()["position"] == st["position"]
    r = client.post(f"/api/play/{st['id']}/undo", content=b'{"all": true}', headers=JSON)
    assert r.status_code == 400 and r.json()["field"] == "all"


@pytest.mark.parametrize("params", [{"page": "1e400"}, {"per_page": "201"}, {"min_plies": "-1"}, {"page": "9" * 30},
                                    {"order": "up"}, {"colour": "x"}, {"reason": "x" * 201}])
def test_bad_query_parameters_name_the_parameter(client, params) -> None:  # type: ignore[no-untyped-def]
    r = client.get("/api/dbs/0/games", params=params)
    assert r.status_code == 400 and r.json()["field"] == next(iter(params)), r.text


# ---- who may change something ---------------------------------------------------------------------
@pytest.mark.parametrize(("headers", "status"), [
    ({"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403),
    ({"Origin": "http://evil.example", "Content-Type": "application/json"}, 403),
    ({"Origin": "null", "Content-Type": "application/json"}, 403),
    ({"Origin": "http://testserver.evil.example", "Content-Type": "application/json"}, 403),
    ({"Origin": "https://testserver", "Content-Type": "application/json"}, 403),
    ({"Origin": "http://testserver:8080", "Content-Type": "application/json"}, 403),
    ({"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver", "Content-Type": "application/json"}, 403),
    ({"Sec-Fetch-Site": "same-site", "Content-Type": "application/json"}, 403),
    ({"Content-Type": "application/json"}, 403),  # neither header: not from the page
    ({"Origin": "http://testserver", "Content-Type": "text/plain"}, 415),
    ({"Origin": "http://testserver", "Content-Type": "application/x-www-form-urlencoded"}, 415),
    ({"Origin": "http://testserver"}, 415),
    ({"Sec-Fetch-Site": "same-origin", "Content-Type": "application/jsonx"}, 415),
    ({"Origin": "http://testserver", "Content-Type": "Application/JSON; charset=utf-8"}, 201),
    ({"Origin": "http://testserver:80", "Content-Type": "application/json"}, 201),
    ({"Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}, 201),
    ({"Sec-Fetch-Site": "none", "Content-Type": "application/json"}, 201),
])
def test_state_changes_need_the_page_origin_and_json(app, client, db, headers, status) -> None:  # type: ignore[no-untyped-def]
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    sid = new_game(client)["id"]
    with TestClient(app) as c:  # no default Origin here
        before = stored(app)
        r = c.post("/api/play", content=b'{"game": "minishogi", "white": {"kind": "human"}}', headers=headers)
        assert r.status_code == status, r.text
        if status >= 400:
            assert r.json()["error"] and r.headers["connection"] == "close"
            assert stored(app) == before
            r = c.post(f"/api/play/{sid}/resign", content=b"{}", headers=headers)
            assert r.status_code == status and stored(app) == before
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest


def test_reads_need_no_origin(app) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        assert c.get("/api/games", headers={"Origin": "http://evil.example"}).status_code == 200


# ---- the body limit, and a client that leaves -----------------------------------------------------
def _call(app, method: str, headers: dict[str, str], chunks: Any) -> tuple[int | None, int]:  # type: ignore[no-untyped-def]
    """Run one request through the ASGI app directly: ``(status or None, chunks the app read)``."""
    read = 0
    status: list[int] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        chunk = next(chunks, None)
        if chunk is None:
            return {"type": "http.disconnect"}
        read += 1
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    scope = {"type": "http", "method": method, "path": "/api/play", "raw_path": b"/api/play", "query_string": b"",
             "headers": [(k.lower().encode(), v.encode()) for k, v in {"Host": "testserver", **headers}.items()],
             "client": ("127.0.0.1", 9),
             "server": ("testserver", 80), "scheme": "http", "http_version": "1.1", "root_path": ""}
    asyncio.run(app.middleware_stack(scope, receive, send))
    return (status[0] if status else None), read


def test_a_body_without_a_length_is_refused_once_it_passes_the_limit(app) -> None:  # type: ignore[no-untyped-def]
    app.build_middleware_stack()
    chunk = b" " * 65536
    endless = iter(lambda: chunk, None)  # 64 KiB after 64 KiB, never ending
    status, read = _call(app, "POST", {"Origin": "http://testserver", "Content-Type": "application/json"}, endless)
    assert status == 413
    assert read == MAX_BODY // len(chunk) + 1  # not a chunk more than it takes to pass the limit
    declared = {"Origin": "http://testserver", "Content-Type": "application/json", "Content-Length": "200000000"}
    status, read = _call(app, "POST", declared, endless)
    assert (status, read) == (413, 0)  # refused before a byte is read


def test_a_client_that_leaves_mid_body_is_one_log_line(app, caplog) -> None:  # type: ignore[no-untyped-def]
    app.build_middleware_stack()
    headers = {"Origin": "http://testserver", "Content-Type": "application/json", "Content-Length": "1000"}
    with caplog.at_level(logging.WARNING, logger="komaken.web"):
        status, read = _call(app, "POST", headers, iter([b'{"game": ', b'"shogi"']))
    assert (status, read) == (None, 2)
    (line,) = [r.getMessage() for r in caplog.records]
    assert "127.0.0.1:9 disconnected after 16 bytes of its POST /api/play body" in line and "\n" not in line


# ---- quick fuzz ----------------------------------------------------------------------------------
def test_quick_fuzz_never_answers_5xx_and_refusals_change_nothing(app, client, db) -> None:  # type: ignore[no-untyped-def]
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    counts: dict[str, int] = {}
    with TestClient(app) as raw:
        # the sessions are made through this client too: a session's game loop answers on the
        # event loop it was made on, and each TestClient runs one of its own
        raw.headers.update(SAME_ORIGIN)
        sids = [new_game(raw, g)["id"] for g in ("shogi", "tictactoe", "chess", "reversi")]
        for key in SAME_ORIGIN:
            del raw.headers[key]
        # 120 requests of this seed hold every kind the last line asks for, each at least three times
        for req in requests(seed=35, origin="http://testserver", sids=sids, dbs=1, count=120, heavy=False):
            if req.mode == "leave":
                continue  # the in-process client cannot leave mid-body (see the test above and the real server's)
            headers = dict(req.headers)
            if req.mode == "declare":
                headers["Content-Length"] = "200000000"
                req.body = b"{}"
            before = stored(app, sids)
            body = iter([req.body]) if req.mode == "stream" else req.body  # chunked, without a length
            r = raw.request(req.method, req.path, headers=headers, content=body)
            assert r.status_code in req.expect, (req, r.status_code, r.text[:200])
            if r.status_code >= 400:
                assert is_json_error(r.content), (req, r.text[:200])
                if req.method != "GET":
                    assert stored(app, sids) == before, req
            counts[req.kind] = counts.get(req.kind, 0) + 1
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert set(counts) >= {"shape", "new-game", "deep", "bytes", "type", "origin", "over", "stream", "get", "method"}


# ---- game sessions are bounded in number and in time ----------------------------------------------
class _Watcher:
    """Stands for an open event stream of a session (what ``event_stream`` adds)."""

    def qsize(self) -> int:
        return 0

    def put_nowait(self, event: Any) -> None:
        pass


def test_sessions_beyond_the_limit_or_unused_are_dropped_with_a_404_saying_why() -> None:
    """At most ``limit`` sessions: a new one drops the least recently used that nobody watches,
    and its game stops; one unused for ``expire`` seconds is dropped at the next request."""
    app = create_app()
    sessions = app.state.api.sessions
    sessions.limit = 2
    with TestClient(app, headers=SAME_ORIGIN) as c:
        def start() -> str:  # a person against the engine: the engine never thinks here
            r = c.post("/api/play", json={"game": "minishogi", "white": {"kind": "engine", "depth": 1}})
            assert r.status_code == 201, r.text
            return str(r.json()["id"])

        a, b = start(), start()
        dropped = sessions.get(b)
        sessions.get(a).listeners.add(_Watcher())  # a is watched, b is now the most recently used
        c_ = start()
        assert len(sessions) == 2
        gone = c.get(f"/api/play/{b}")
        assert gone.status_code == 404 and is_json_error(gone.content)
        assert "least recently used of more than 2" in gone.json()["error"]
        assert c.post(f"/api/play/{b}/move", json={"move": "2e2d"}).status_code == 404
        dropped._thread.join(10)
        assert not dropped._thread.is_alive()  # the dropped game's loop ended
        assert [c.get(f"/api/play/{sid}").status_code for sid in (a, c_)] == [200, 200]
        sessions.get(a).listeners.clear()
        sessions.get(a).touched -= sessions.expire + 1
        assert c.get(f"/api/play/{c_}").status_code == 200
        assert c.get(f"/api/play/{a}").status_code == 404 and len(sessions) == 1


# ---- the page offers what the server takes ---------------------------------------------------------
def test_every_setting_the_page_offers_has_its_registry_range_and_it_holds(client) -> None:  # type: ignore[no-untyped-def]
    """The ranges ``GET /api/games`` sends are the player registry's, and the server takes each
    setting at its ends, refuses it just past them (naming the field), and takes nothing the
    registry itself would refuse."""
    from komaken.players.registry import settings_spec

    games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    chess_engine = next(p for p in games["chess"]["players"] if p["kind"] == "engine")
    ranges = [(o["name"], o["low"], o["high"]) for o in chess_engine["settings"]]
    assert ranges == [("depth", 1, 8), ("seed", 0, 2**63 - 1)]
    infos = G.catalog()
    for gid, g in games.items():
        info = infos[gid]
        for p in g["players"]:
            for o in p["settings"]:
                name = o["name"]
                if o["kind"] == "bool":
                    good, wrongs = [True, False], [1, "yes"]
                else:
                    step = 1 if o["kind"] == "int" else 0.0005
                    good, wrongs = [o["low"], o["high"]], [o["low"] - step, o["high"] + step]
                for value in good:
                    side = F.side({"kind": p["kind"], name: value}, "white", info, "human")
                    assert side[name] == value
                    settings_spec(side, info.spec, info.variant)  # the registry takes what the page may send
                for wrong in wrongs:
                    with pytest.raises(F.BadRequest, match=f"white.{name}"):
                        F.side({"kind": p["kind"], name: wrong}, "white", info, "human")
    facets = client.get("/api/dbs/0/facets").json()
    assert facets["limits"]["max_plies"] == {"min": 0, "max": 1_000_000, "step": 1}


# ---- a real server ---------------------------------------------------------------------------------
def _exchange(port: int, head: bytes, body: bytes, leave: bool = False) -> bytes:
    """Send ``head`` and ``body`` on a fresh connection; read the answer (unless ``leave``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head + body)
        if leave:
            return b""
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def test_a_real_server_refuses_cleanly_and_logs_a_leaver_in_one_line(tmp_path: Path) -> None:
    with Server([], tmp_path / "server.log") as srv:
        port, host = srv.port, f"127.0.0.1:{srv.port}"
        evil = (f"POST /api/play HTTP/1.1\r\nHost: {host}\r\nOrigin: http://evil.example\r\n"
                "Content-Type: text/plain\r\nContent-Length: 21\r\n\r\n").encode()
        assert _exchange(port, evil, b'{"game": "minishogi"}').startswith(b"HTTP/1.1 403 ")
        huge = (f"POST /api/play HTTP/1.1\r\nHost: {host}\r\nOrigin: {srv.url}\r\n"
                "Content-Type: application/json\r\nContent-Length: 200000000\r\n\r\n").encode()
        assert _exchange(port, huge, b"[" * 1000).startswith(b"HTTP/1.1 413 ")
        chunked = (f"POST /api/play HTTP/1.1\r\nHost: {host}\r\nOrigin: {srv.url}\r\n"
                   "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
        piece = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
        assert _exchange(port, chunked, piece * 17).startswith(b"HTTP/1.1 413 ")
        leave = (f"POST /api/play HTTP/1.1\r\nHost: {host}\r\nOrigin: {srv.url}\r\n"
                 "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n").encode()
        for _ in range(3):
            _exchange(port, leave, b'{"game": "shogi"', leave=True)
        deadline = time.monotonic() + 10
        while srv.log.read_text().count("disconnected") < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert srv.proc is not None and srv.proc.poll() is None
    log = srv.log.read_text()
    assert log.count("disconnected after 16 bytes of its POST /api/play body") == 3, log
    assert "Traceback" not in log and "Exception" not in log, log
