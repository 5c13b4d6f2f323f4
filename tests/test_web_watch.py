"""Watching from the page, through the API: an experiment run started, paused, resumed and stopped
as a real child process; its games in flight; the engine's score kept after its move.

The server runs in-process (Starlette's TestClient, which also runs its start-up and shut-down);
the run is a real ``komaken experiment run`` subprocess.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import ENV
from komaken.game import Color
from komaken.lab import ExperimentDB, live
from komaken.search.result import SearchResult
from komaken.web import create_app
from komaken.web.play import score_view
from test_lab_kill import _state as proc_state
from test_lab_live import SLOW
from web_support import SAME_ORIGIN, wait_until

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LOOPBACK = ("127.0.0.1", 50123)

@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])  # the run imports the slow player from tests/
    toml = tmp_path / "watched.toml"
    toml.write_text(SLOW, encoding="utf-8")
    return toml, tmp_path / "watched.db"


def run(client: TestClient, action: str, db: int = 0, **body: Any) -> Any:
    return client.post(f"/api/dbs/{db}/run", json={"action": action, **body})


@pytest.fixture
def sigint_ignored() -> Iterator[None]:
    """This process ignores SIGINT, as a server started as a background job or under ``nohup``
    does (and every child it starts inherits that)."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def test_start_pause_resume_stop_and_continue(files: tuple[Path, Path], sigint_ignored: None) -> None:
    toml, db = files
    other = db.with_name("other.db")
    app = create_app([other], experiments={db: toml})
    with TestClient(app, headers=SAME_ORIGIN, client=LOOPBACK) as c:
        dbs = c.get("/api/dbs").json()["dbs"]
        assert [d["name"] for d in dbs] == ["other.db", "watched.db"]  # the run's database is shown too
        assert c.get("/api/dbs/1/live").json() == {"type": "live", "playing": [],
                                                    "run": {"runnable": True, "file": "watched.toml", "state": "idle"}}
        r = run(c, "start", 1, workers=1)
        assert r.status_code == 200, r.text
        st = r.json()["run"]
        assert st["state"] == "running" and st["workers"] == 1
        pid = st["pid"]
        assert run(c, "start", 1).status_code == 409  # one run per database

        def live_game() -> Any:
            games = c.get("/api/dbs/1/live").json()["playing"]
            return games[0] if games and games[0]["plies"] >= 4 else None

        g = wait_until(live_game, 120, "a game in flight with moves", interval=0.2)
        assert g["pairing"] == "s1-vs-s2" and g["a"] == "s1" and g["b"] == "s2"
        assert len(g["labels"]) == g["plies"] and g["labels"][0][0] in "▲△"
        assert g["board"]["width"] == 5 and g["position"].endswith(str(g["plies"] + 1))  # the SFEN after them

        assert run(c, "pause", 1).json()["run"]["state"] == "paused"
        wait_until(lambda: proc_state(pid) == "T", 10, "the run stopped by SIGSTOP")
        before = c.get("/api/dbs/1/live").json()["playing"]
        time.sleep(1.0)
        assert c.get("/api/dbs/1/live").json()["playing"] == before  # nothing moves while paused
        assert run(c, "resume", 1).json()["run"]["state"] == "running"
        wait_until(lambda: c.get("/api/dbs/1/live").json()["playing"] != before, 30, "moves after resuming",
                   interval=0.2)

        stopped = run(c, "stop", 1).json()
        assert stopped["run"]["state"] == "stopped" and stopped["playing"] == []
        assert stopped["run"]["exit"] == 2  # interrupted as by Ctrl-C, not killed after STOP_WAIT
        assert proc_state(pid) is None and live.live_games(db) == []
        assert run(c, "stop", 1).status_code == 409 and run(c, "pause", 1).status_code == 409
        with ExperimentDB.open(db) as store:
            first = store.count()

        assert run(c, "start", 1).json()["run"]["state"] == "running"  # continues the stored experiment
        wait_until(lambda: c.get("/api/dbs/1").json().get("games", 0) > first, 120, "more games stored",
                   interval=0.25)
        second = c.get("/api/dbs/1/live").json()["run"]["pid"]
    # the server's shut-down stops the run it started
    wait_until(lambda: proc_state(second) is None, 20, "the run gone with the server")
    with ExperimentDB.open(db) as store:
        rows = list(store.games())
    assert len(rows) > first and len({r.game_index for r in rows}) == len(rows)


def test_only_a_given_experiment_runs_and_only_from_this_machine(files: tuple[Path, Path], tmp_path: Path) -> None:
    toml, db = files
    plain = tmp_path / "plain.db"
    app = create_app([plain], experiments={db: toml})
    with TestClient(app, headers=SAME_ORIGIN, client=LOOPBACK) as c:
        r = run(c, "start", 0)
        assert r.status_code == 409 and "--experiment FILE DB" in r.json()["error"]
        assert c.get("/api/dbs/0/live").json()["run"] == {"runnable": False, "file": None, "state": "idle"}
        for body, field in (({"action": "launch"}, "action"), ({}, "action"), ({"action": "start", "workers": 0},
                            "workers"), ({"action": "start", "file": "/etc/passwd"}, "file")):
            r = c.post("/api/dbs/1/run", json=body)
            assert r.status_code == 400 and r.json()["field"] == field, r.text
        assert run(c, "start", 7).status_code == 404
        assert c.post("/api/dbs/1/run", json={"action": "start"},
                      headers={"Origin": "http://elsewhere.example"}).status_code == 403
        assert c.get("/api/dbs/1/live").json()["run"]["state"] == "idle"
    with TestClient(app, headers=SAME_ORIGIN) as remote:  # a client that is not on a loopback address
        r = run(remote, "start", 1)
        assert r.status_code == 403 and "loopback" in r.json()["error"]
    assert not db.exists()


def test_a_run_that_fails_says_why(files: tuple[Path, Path]) -> None:
    toml, db = files
    db.write_text("not a database", encoding="utf-8")
    with TestClient(create_app(experiments={db: toml}), headers=SAME_ORIGIN, client=LOOPBACK) as c:
        assert run(c, "start").status_code == 200
        st = wait_until(lambda: (s := c.get("/api/dbs/0/live").json()["run"])["state"] != "running" and s, 60,
                        "the run to fail")
    assert st["state"] == "failed" and st["exit"] == 2 and "not a komaken experiment database" in st["message"]


def test_serve_checks_the_experiment_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bad file through the real console script (its exit status and one stderr line); the
    non-loopback host in-process (the same command code, no second interpreter), with no server started."""
    import uvicorn
    from click.testing import CliRunner

    from komaken.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text("[experiment]\nname = 3\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "komaken", "serve", "--port", "1", "--experiment", str(bad),
                        str(tmp_path / "x.db")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("komaken: error:") and r.stderr.count("\n") == 1, r.stderr
    good = tmp_path / "good.toml"
    good.write_text(SLOW, encoding="utf-8")
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: pytest.fail("served on a non-loopback host"))
    res = CliRunner().invoke(main, ["serve", "--port", "1", "--host", "0.0.0.0", "--experiment", str(good),
                                    str(tmp_path / "x.db")])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.exception
    assert "loopback" in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_the_score_is_told_from_one_named_side() -> None:
    ahead = SearchResult("7g7f", 120, depth=5)
    assert score_view(ahead, Color.BLACK, Color.BLACK, "▲ sente") == "score +120 for ▲ sente"
    assert score_view(ahead, Color.WHITE, Color.BLACK, "▲ sente") == "score -120 for ▲ sente"
    assert score_view(SearchResult("G*1b", 30000, mate=3), Color.WHITE, Color.BLACK, "you") == "mate -3 for you"


def test_the_engines_score_stays_after_its_move(tmp_path: Path) -> None:
    with TestClient(create_app(), headers=SAME_ORIGIN) as c:
        r = c.post("/api/play", json={"game": "minishogi", "black": {"kind": "engine", "depth": 1},
                                      "white": {"kind": "engine", "depth": 1}})  # 15 plies to the end
        sid = r.json()["id"]
        st = wait_until(lambda: (s := c.get(f"/api/play/{sid}").json())["outcome"] and s, 60, "the game's end")
        score = st["score"]
        assert score is not None and st["thinking"] is None  # shown after the engine moved, to the end
        assert score["text"].startswith(st["moves"][score["ply"] - 1]["label"] + ": ")
        assert " for ▲ sente · depth " in score["text"]  # no person plays: the first mover's view
        r = c.post("/api/play", json={"game": "minishogi", "white": {"kind": "engine", "depth": 2}})
        sid = r.json()["id"]
        c.post(f"/api/play/{sid}/move", json={"move": "5d5c"})
        st = wait_until(lambda: (s := c.get(f"/api/play/{sid}").json())["score"] and s, 30, "the reply's score")
        assert st["score"]["side"] == 1 and " for you · depth 2" in st["score"]["text"]
        assert c.post(f"/api/play/{sid}/undo", json={}).status_code == 200
        assert c.get(f"/api/play/{sid}").json()["score"] is None  # the score of a move taken back goes with it


def test_a_real_server_stopping_stops_its_run(files: tuple[Path, Path], tmp_path: Path) -> None:
    """``komaken serve`` ended with SIGTERM (as a service manager does) while a page streams the
    database's events: it cuts the stream, stops the run it started, and the games stay stored."""
    import httpx

    from web_support import Server, sse_events

    toml, db = files
    with Server(["--experiment", str(toml), str(db)], tmp_path / "server.log") as srv:
        r = httpx.post(f"{srv.url}/api/dbs/0/run", json={"action": "start"}, headers=srv.origin, timeout=30)
        assert r.status_code == 200, r.text
        pid = r.json()["run"]["pid"]
        events = sse_events(f"{srv.url}/api/dbs/0/events", time.monotonic() + 120)
        assert any(ev.get("type") == "live" and ev["playing"] for ev in events)  # a game in flight, streamed
        assert proc_state(pid) not in (None, "Z")
    events.close()
    # it shut down by itself (uvicorn takes the signal, shuts down and returns: exit 0), not killed after 10 s
    assert srv.proc is not None and srv.proc.returncode == 0, srv.proc.returncode
    wait_until(lambda: proc_state(pid) in (None, "Z"), 20, "the run gone with the server")
    assert live.live_games(db) == []
    with ExperimentDB.open(db) as store:
        assert store.count() == len({r.game_index for r in store.games()})
