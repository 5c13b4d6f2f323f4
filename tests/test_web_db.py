"""The web server's experiment endpoints: status, games paging, replay, records, reports; only the
databases named at start are readable, never written; live readers while a run writes."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import click
import httpx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from komaken import records
from komaken.lab import ExperimentDB, GameRow, load_experiment
from komaken.shogi import Position

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from komaken.web import create_app
from web_support import SAME_ORIGIN, Server, play_experiment, sse_events, write_experiment

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A finished experiment, a synthetic one of 1234 games, and a path where no DB exists."""
    folder = tmp_path_factory.mktemp("webdbs")
    small = folder / "small.db"
    play_experiment(write_experiment(folder, 6), small)
    synth = folder / "synth.db"
    exp = load_experiment(write_experiment(folder, 1000))
    with ExperimentDB.create(synth, exp) as db:
        for i in range(1234):
            db.insert(GameRow("d1-vs-rnd" if i % 2 else "rnd-vs-d1", i, "d1", "rnd", ("a", "b", "draw")[i % 3],
                              "checkmate" if i % 5 else "max plies", "a" if i % 2 else "b", "5e4d", 1 + i % 97, 0, "",
                              0.5, i, 1000.0 + i))
    return small, synth, folder / "missing.db"


@pytest.fixture(scope="module")
def client(dbs):  # type: ignore[no-untyped-def]
    with TestClient(create_app(list(dbs)), headers=SAME_ORIGIN) as c:
        yield c


def test_listing_and_status(client, dbs) -> None:  # type: ignore[no-untyped-def]
    listing = client.get("/api/dbs").json()["dbs"]
    assert [d["name"] for d in listing] == ["small.db", "synth.db", "missing.db"]
    assert listing[0]["games"] == 12 and listing[0]["experiment"] == "web-small"
    assert "error" in listing[2]
    st = client.get("/api/dbs/0").json()
    assert st["games"] == 12 and st["target"] == 12
    p = {x["name"]: x for x in st["pairings"]}
    assert set(p) == {"d1-vs-rnd", "rnd-vs-d1"}
    d1 = p["d1-vs-rnd"]
    assert d1["a_wins"] + d1["b_wins"] + d1["draws"] == d1["games"] == 6
    assert len(d1["a_score_ci95"]) == 2 and len(d1["elo_ci95"]) == 2
    assert d1["sprt"]["state"] in ("H0", "H1", "continue") and p["rnd-vs-d1"]["sprt"] is None
    with sqlite3.connect(dbs[0]) as conn:
        wins = conn.execute("SELECT COUNT(*) FROM games WHERE pairing='d1-vs-rnd' AND result='a'").fetchone()[0]
    assert d1["a_wins"] == wins


@pytest.mark.parametrize("ref", ["3", "-1", "abc", "0x0", "1.0", "%2e%2e", "...", "..%2F..%2Fetc%2Fpasswd",
                                 "%2Fetc%2Fpasswd", "00", " 0", "99999999999999999999"])
def test_databases_are_addressed_by_index_only(client, ref) -> None:  # type: ignore[no-untyped-def]
    for tail in ("", "/games", "/facets", "/report", "/games/1", "/games/1/record"):
        r = client.get(f"/api/dbs/{ref}{tail}")
        assert r.status_code == 404, (ref, tail, r.text)
        assert "error" in r.json()


def test_paths_in_parameters_never_reach_the_filesystem(client) -> None:  # type: ignore[no-untyped-def]
    for params in ({"db": "/etc/passwd"}, {"path": "../../x.db"}, {"file": "/tmp/small.db"}):
        r = client.get("/api/dbs/0/games", params=params)
        assert r.status_code == 400 and r.json()["field"] == next(iter(params)), r.text
        assert "unknown parameter" in r.json()["error"] and "per_page" in r.json()["error"]
    assert client.get("/api/dbs/0/plots/..%2F..%2Fetc%2Fpasswd.svg").status_code == 404
    assert client.get("/api/dbs/0/plots/%2Fetc%2Fpasswd.svg").status_code == 404


def test_games_paging_and_filters_match_sql(client, dbs) -> None:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(dbs[1])
    seen = []
    page = 1
    while True:
        d = client.get("/api/dbs/1/games", params={"page": page, "per_page": 200, "order": "asc"}).json()
        assert d["total"] == 1234 and d["pages"] == 7 and len(d["games"]) <= 200
        seen += [g["id"] for g in d["games"]]
        if page == d["pages"]:
            break
        page += 1
    assert seen == sorted(seen) and len(set(seen)) == 1234
    for params, sql in [
        ({"result": "draw"}, "result='draw'"),
        ({"pairing": "d1-vs-rnd", "result": "a"}, "pairing='d1-vs-rnd' AND result='a'"),
        ({"reason": "max plies"}, "reason='max plies'"),
        ({"min_plies": "10", "max_plies": "20"}, "plies BETWEEN 10 AND 20"),
    ]:
        d = client.get("/api/dbs/1/games", params={**params, "per_page": 7}).json()
        assert d["total"] == conn.execute(f"SELECT COUNT(*) FROM games WHERE {sql}").fetchone()[0], params
        assert len(d["games"]) == 7
        assert [g["id"] for g in d["games"]] == sorted((g["id"] for g in d["games"]), reverse=True)
    conn.close()


@pytest.mark.parametrize("params", [{"page": "0"}, {"page": "x"}, {"per_page": "1000"}, {"per_page": "-5"},
                                    {"result": "win"}, {"min_plies": "ten"}, {"order": "sideways"},
                                    {"page": "1e9"}, {"max_plies": "1" * 40}])
def test_bad_query_parameters_are_400(client, params) -> None:  # type: ignore[no-untyped-def]
    r = client.get("/api/dbs/0/games", params=params)
    assert r.status_code == 400 and r.json()["error"]


def test_sql_looking_filters_are_just_text(client) -> None:  # type: ignore[no-untyped-def]
    for v in ("' OR 1=1 --", "checkmate%", "_"):
        d = client.get("/api/dbs/0/games", params={"reason": v}).json()
        assert d["total"] == 0
        d = client.get("/api/dbs/0/games", params={"pairing": v}).json()
        assert d["total"] == 0


def test_facets(client) -> None:  # type: ignore[no-untyped-def]
    f = client.get("/api/dbs/1/facets").json()
    assert [p["name"] for p in f["pairings"]] == ["d1-vs-rnd", "rnd-vs-d1"]
    assert f["reasons"] == ["checkmate", "max plies"]


def test_replay_frames_end_at_the_stored_game(client, dbs) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(dbs[0]) as conn:
        gid, moves, plies = conn.execute("SELECT id, moves, plies FROM games ORDER BY plies DESC LIMIT 1").fetchone()
    doc = client.get(f"/api/dbs/0/games/{gid}").json()
    assert len(doc["frames"]) == len(moves.split()) + 1 == plies + 1
    pos = Position.start("minishogi")
    for m in moves.split():
        pos.push_usi(m)
    assert doc["frames"][-1]["position"] == pos.sfen()
    assert doc["frames"][0]["position"] == Position.start("minishogi").sfen()
    assert doc["labels"][0][0] in "▲△" and len(doc["labels"]) == plies
    for bad in ("999999", "abc", "-1", "1.5"):
        assert client.get(f"/api/dbs/0/games/{bad}").status_code in (400, 404)


@pytest.mark.parametrize("fmt", ["kif", "ki2", "csa", "usi"])
def test_stored_game_records_read_back(client, dbs, fmt) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(dbs[0]) as conn:
        gid, moves = conn.execute("SELECT id, moves FROM games LIMIT 1").fetchone()
    r = client.get(f"/api/dbs/0/games/{gid}/record", params={"format": fmt})
    assert r.status_code == 200
    rec = records.parse(r.text, fmt, variant=Position.start("minishogi").variant)
    assert [m.usi() for m in rec.moves] == moves.split()
    assert client.get(f"/api/dbs/0/games/{gid}/record", params={"format": "exe"}).status_code == 400


def test_report_tables_and_plots(client) -> None:  # type: ignore[no-untyped-def]
    r = client.get("/api/dbs/0/report").json()
    # the document of `experiment report`: summary first, then headings, tables and figures
    kinds = [(b["kind"], b.get("text")) for b in r["blocks"]]
    assert kinds[:3] == [("h1", "Web small"), ("h2", "Summary"), ("p", kinds[2][1])]
    assert kinds[2][1].startswith("**Question.**")
    heads = [t for k, t in kinds if k == "h2"]
    assert heads[:3] == ["Summary", "Setup", "Results by setting"] and "Sequential tests (SPRT)" in heads
    tables = [b for b in r["blocks"] if b["kind"] == "table"]
    assert [t["number"] for t in tables] == list(range(1, len(tables) + 1)) and len(tables[0]["rows"]) == 2
    figures = [b for b in r["blocks"] if b["kind"] == "figure"]
    assert [f["name"] for f in figures] == ["score_ci"] and figures[0]["caption"]
    r = client.get("/api/dbs/1/report").json()
    assert [b["name"] for b in r["blocks"] if b["kind"] == "figure"] == ["score_ci"]
    svg = client.get("/api/dbs/1/plots/score_ci.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.content.lstrip().startswith(b"<?xml")
    assert client.get("/api/dbs/0/plots/nothing.svg").status_code == 404
    assert client.get("/api/dbs/2/report").status_code == 404


def test_requests_never_write_to_the_databases(client, dbs) -> None:  # type: ignore[no-untyped-def]
    before = {p: digest(p) for p in dbs[:2]}
    for url in ("/api/dbs", "/api/dbs/0", "/api/dbs/1/games?page=3", "/api/dbs/0/facets", "/api/dbs/0/report",
                "/api/dbs/0/games/1", "/api/dbs/0/games/1/record"):
        assert client.get(url).status_code == 200
        assert client.post(url, json={}).status_code in (404, 405)
    assert {p: digest(p) for p in dbs[:2]} == before
    assert not dbs[2].exists()


def test_a_host_header_from_elsewhere_is_refused(dbs) -> None:  # type: ignore[no-untyped-def]
    app = create_app(list(dbs), allowed_hosts=["127.0.0.1", "localhost", "::1"])
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get("/api/dbs").status_code == 200
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", "[::2]:80"):
            r = c.get("/api/dbs", headers={"Host": host})
            assert r.status_code == 400 and "not served here" in r.json()["error"]
        assert c.get("/api/dbs", headers={"Host": "localhost:8000"}).status_code == 200
        assert c.get("/api/dbs", headers={"Host": "[::1]:8000"}).status_code == 200


# ---- the command ----------------------------------------------------------------------------------
def _serve(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[click.testing.Result, list[dict]]:  # type: ignore[type-arg]
    import uvicorn

    from komaken.cli import main

    calls: list[dict] = []  # type: ignore[type-arg]
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    return CliRunner().invoke(main, ["serve", *args], catch_exceptions=False), calls


def test_serve_binds_loopback_by_default(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    result, calls = _serve(monkeypatch)
    assert calls == [{"host": "127.0.0.1", "port": 8000, "log_level": "warning", "timeout_graceful_shutdown": 2}]
    assert "warning" not in result.output


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::"])
def test_a_non_loopback_host_prints_a_warning(monkeypatch, host) -> None:  # type: ignore[no-untyped-def]
    result, calls = _serve(monkeypatch, "--host", host)
    assert calls[0]["host"] == host
    assert "warning: listening on" in result.output


def test_serve_reports_a_bad_variant_file(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """In-process (the command's own code; the exit status of the real console script on a bad
    ``serve`` argument is checked in ``test_web_watch.py``): one error line, exit 2, no server."""
    import uvicorn

    from komaken.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text("name = 3\n", encoding="utf-8")
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: pytest.fail("served despite a bad variant file"))
    r = CliRunner().invoke(main, ["serve", "--variant", str(bad), "--port", "1"])
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.exception
    assert r.stderr.startswith("komaken: error:") and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


# ---- live: a real server while a run writes -------------------------------------------------------------
def test_readers_while_a_run_writes(tmp_path: Path) -> None:
    toml = write_experiment(tmp_path, 12)
    db = tmp_path / "live.db"
    with Server(["--db", str(db)], tmp_path / "server.log") as srv:
        run = subprocess.Popen([sys.executable, "-m", "komaken", "experiment", "run", str(toml), "--db", str(db),
                                "-j", "1", "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        errors: list[str] = []
        counts: list[list[int]] = [[] for _ in range(3)]

        def reader(k: int) -> None:
            deadline = time.monotonic() + 120
            with httpx.Client(base_url=srv.url, timeout=30) as c:
                while run.poll() is None and time.monotonic() < deadline:
                    for url in ("/api/dbs/0", "/api/dbs/0/games?per_page=5", "/api/dbs/0/facets"):
                        r = c.get(url)
                        if r.status_code == 404 and not counts[k]:
                            continue  # the run has not created the database yet
                        if r.status_code != 200:
                            errors.append(f"{url}: {r.status_code} {r.text}")
                        elif url == "/api/dbs/0":
                            counts[k].append(r.json()["games"])

        threads = [threading.Thread(target=reader, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        events = sse_events(f"{srv.url}/api/dbs/0/events", time.monotonic() + 120)
        seen = []
        for ev in events:
            if "games" in ev:
                seen.append(ev["games"])
                if ev["games"] == 24:
                    break
        try:
            run.wait(120)
        finally:
            for t in threads:
                t.join(130)
        assert run.returncode == 0, run.stderr.read() if run.stderr else ""
        assert not errors, errors[:3]
        assert seen == sorted(seen) and seen[-1] == 24 and len(seen) >= 2
        for c in counts:
            assert c == sorted(c)
        assert httpx.get(f"{srv.url}/api/dbs/0", timeout=10).json()["games"] == 24


def test_play_events_stream_the_engine_thinking(tmp_path: Path) -> None:
    with Server([], tmp_path / "server.log") as srv:
        st = httpx.post(f"{srv.url}/api/play", json={"game": "shogi", "black": {"kind": "human"},
                                                     "white": {"kind": "engine", "depth": 4}},
                        headers=srv.origin, timeout=10).json()
        got_thinking, final = [], None
        stream = sse_events(f"{srv.url}/api/play/{st['id']}/events", time.monotonic() + 60)
        first = next(stream)
        assert first["type"] == "state" and first["ply"] == 0
        assert httpx.post(f"{srv.url}/api/play/{st['id']}/move", json={"move": "7g7f"}, headers=srv.origin,
                          timeout=10).status_code == 200
        for ev in stream:
            if ev["type"] == "thinking":
                got_thinking.append(ev)
            if ev["type"] == "state" and ev["ply"] == 2:
                final = ev
                break
        assert final is not None and final["thinking"] is None
        assert [t["depth"] for t in got_thinking if t["depth"]] == [1, 2, 3, 4]
        deepest = got_thinking[-1]
        assert deepest["pv"] and deepest["pv"][0].startswith("△") and deepest["score"].split()[0] in ("cp", "mate")
        assert final["moves"][1]["label"] == deepest["pv"][0]



_KEYS = st.sampled_from(["page", "per_page", "pairing", "result", "reason", "min_plies", "max_plies", "order", "x"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(params=st.dictionaries(_KEYS, st.one_of(st.text(max_size=12), st.integers(-5, 10**7).map(str)), max_size=5),
       gid=st.one_of(st.text(min_size=1, max_size=8).filter(lambda s: "/" not in s and s not in (".", "..")),
                     st.integers(-3, 10**6).map(str)))
def test_fuzzed_queries_are_answered_with_json(client, params, gid) -> None:  # type: ignore[no-untyped-def]
    r = client.get("/api/dbs/1/games", params=params)
    assert r.status_code in (200, 400), (params, r.text)
    assert ("games" in r.json()) == (r.status_code == 200)
    from urllib.parse import quote

    r = client.get(f"/api/dbs/0/games/{quote(gid, safe='')}")
    assert r.status_code in (200, 400, 404), (gid, r.text)
    assert r.headers["content-type"] == "application/json"
