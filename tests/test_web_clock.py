"""Clocks on the web API: the server keeps the time, ends a game on time with nobody watching,
gives the engine the real clock, writes the loss into the record, and refuses absurd clocks."""

from __future__ import annotations

import warnings

import pytest

from komaken import records
from komaken.clock import MAX_SECONDS
from komaken.game import Termination

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from komaken.web import create_app
from web_support import SAME_ORIGIN, wait_until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    with TestClient(create_app(), headers=SAME_ORIGIN) as c:
        yield c


def new(client, **body):  # type: ignore[no-untyped-def]
    body = {"game": "minishogi", "black": {"kind": "human"}, "white": {"kind": "human"}, **body}
    r = client.post("/api/play", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def state(client, sid):  # type: ignore[no-untyped-def]
    return client.get(f"/api/play/{sid}").json()


def test_the_game_list_sends_the_clock_limits_for_the_page(client) -> None:  # type: ignore[no-untyped-def]
    limits = client.get("/api/games").json()["clock"]
    assert limits["main"] == {"min": 0, "max": MAX_SECONDS, "step": "any"}
    assert set(limits) == {"main", "byoyomi", "increment"}


def test_an_untimed_game_has_no_clock(client) -> None:  # type: ignore[no-untyped-def]
    assert new(client)["clock"] is None


def test_the_clock_runs_for_the_side_to_move_and_byoyomi_resets(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, clock={"main": 0, "byoyomi": 30})
    black, white = st["clock"]
    assert black["running"] and not white["running"] and black["byoyomi"] <= 30 and black["main"] == 0
    after = client.post(f"/api/play/{st['id']}/move", json={"move": "5d5c"}).json()
    black, white = after["clock"]
    assert not black["running"] and white["running"] and black["byoyomi"] == 30  # a whole byoyomi again


def test_per_side_clocks_and_fischer(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, black_clock={"main": 100, "increment": 5}, white_clock={"main": 50, "byoyomi": 10})
    black, white = st["clock"]
    assert black["control"] == {"main": 100, "byoyomi": 0, "increment": 5}
    assert white["control"] == {"main": 50, "byoyomi": 10, "increment": 0}
    after = client.post(f"/api/play/{st['id']}/move", json={"move": "5d5c"}).json()
    assert 104 < after["clock"][0]["main"] <= 105  # 100 - a moment + 5


def test_a_human_loses_on_time_with_the_page_closed(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, clock={"main": 1})
    # nobody asks anything: the server's own game thread ends the game when the time is up
    session = client.app.state.api.sessions._all[st["id"]]
    wait_until(lambda: session.result is not None, 20, "the flag")
    doc = state(client, st["id"])
    assert doc["outcome"]["reason"] == "time forfeit" and doc["outcome"]["winner"] == "white"
    assert doc["outcome"]["japanese"] == "切れ負け" and doc["outcome"]["detail"] == "time up (1 s)"
    assert doc["clock"][0]["flagged"] and doc["clock"][0]["main"] == 0
    r = client.post(f"/api/play/{st['id']}/move", json={"move": "5d5c"})
    assert r.status_code == 400 and "over" in r.json()["error"]
    for fmt, word in (("csa", "%TIME_UP"), ("kif", "切れ負け")):
        data = client.get(f"/api/play/{st['id']}/record?format={fmt}").content
        text = data.decode("utf-8" if fmt == "csa" else "cp932")
        assert word in text
        rec = records.parse(text, fmt)  # type: ignore[arg-type]
        assert rec.result is not None and rec.result.termination is Termination.TIME_FORFEIT


def test_the_engine_is_given_the_real_clock(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, white={"kind": "engine"}, white_clock={"main": 0, "byoyomi": 0.5})
    session = client.app.state.api.sessions._all[st["id"]]
    client.post(f"/api/play/{st['id']}/move", json={"move": "5d5c"})
    after = wait_until(lambda: (lambda s: s if s["ply"] >= 2 or s["outcome"] is not None else None)(
        state(client, st["id"])), 30, "the engine's reply or the game's end")
    engine = session.players[1]
    assert engine.time_left is not None and engine.time_left.byoyomi == 0.5
    # it moved inside its 0.5 s (it would take 1 s without the clock)
    assert after["ply"] >= 2 and after["outcome"] is None, {k: after.get(k) for k in ("ply", "outcome", "clock")}


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"clock": {"main": -1}}, "clock.main", "not within 0..1000000"),
    ({"clock": {"main": 1e7}}, "clock.main", "not within"),
    ({"clock": {"main": "ten"}}, "clock.main", "not a number"),
    ({"clock": {"main": 60, "byoyomi": 5, "increment": 2}}, "clock", "not both"),
    ({"clock": {"main": 0}}, "clock", "no time at all"),
    ({"clock": {"mian": 60}}, "clock.mian", "unknown field"),
    ({"clock": 60}, "clock", "must be an object"),
    ({"white_clock": {"byoyomi": -3}}, "white_clock.byoyomi", "not within"),
])
def test_bad_clocks_are_400_naming_the_field(client, body, field, words) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/api/play", json={"game": "minishogi", **body})
    assert r.status_code == 400, r.text
    assert r.json()["field"] == field and words in r.json()["error"]


def test_nan_and_infinity_in_a_clock_are_400(client) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/api/play", content=b'{"game": "minishogi", "clock": {"main": NaN}}',
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "clock.main" in r.text


def test_the_record_download_carries_the_clocks_and_each_moves_time(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, black_clock={"main": 600, "byoyomi": 30}, white_clock={"main": 300, "byoyomi": 30})
    for move in ("5d5c", "1b1c", "4e4d"):
        assert client.post(f"/api/play/{st['id']}/move", json={"move": move}).status_code == 200
    data = client.get(f"/api/play/{st['id']}/record?format=kif").content
    text = data.decode("cp932")
    assert "持ち時間：先手：10分、秒読み30秒　後手：5分、秒読み30秒" in text and "開始日時：" in text
    rec = records.parse(text, "kif")
    assert len(rec.times) == 3 and all(t is not None and 0 <= t < 30 for t in rec.times)
    session = client.app.state.api.sessions._all[st["id"]]
    assert rec.times == [round(t) for t in session.times] or all(
        abs(a - b) <= 1 for a, b in zip(rec.times, session.times, strict=True))  # KIF keeps whole seconds
    same = new(client, clock={"main": 600, "byoyomi": 30})
    client.post(f"/api/play/{same['id']}/move", json={"move": "5d5c"})
    kif = client.get(f"/api/play/{same['id']}/record?format=kif").content.decode("cp932")
    csa = client.get(f"/api/play/{same['id']}/record?format=csa").text
    assert "持ち時間：各10分、秒読み30秒" in kif and "$TIME_LIMIT:00:10+30" in csa and "\nT" in csa
    assert records.parse(kif, "kif").headers["持ち時間"] == "各10分、秒読み30秒"
