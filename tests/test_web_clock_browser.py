"""Clocks in a real browser (Debian Chromium + Playwright against ``komaken serve``), at a laptop's
1366×768 and a phone's 390×844: a human game lost on time, and the engine moving inside the clock."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import needs_module
from web_support import CHROMIUM, Server, launch

T = 20_000  # milliseconds: the longest any single wait may take
SIZES = [(1366, 768), (390, 844)]

sync_api = needs_module("playwright.sync_api")
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)", allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with Server([], tmp_path_factory.mktemp("clock") / "server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    with sync_api.sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


@pytest.fixture(params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def page(request, browser, server):  # type: ignore[no-untyped-def]
    w, h = request.param
    ctx = browser.new_context(viewport={"width": w, "height": h})
    pg = ctx.new_page()
    pg.set_default_timeout(T)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server.url + "/#play")
    pg.wait_for_selector("#game-select option[value='minishogi']", state="attached")
    pg.select_option("#game-select", "minishogi")
    yield pg
    ctx.close()
    assert not errors, errors


def test_the_clock_inputs_carry_the_servers_limits(page) -> None:  # type: ignore[no-untyped-def]
    limits = page.evaluate("fetch('/api/games').then(r => r.json()).then(d => d.clock)")
    for name in ("main", "byoyomi", "increment"):
        box = page.locator(f"#clock-{name}")
        assert float(box.get_attribute("min")) == limits[name]["min"]
        assert float(box.get_attribute("max")) == limits[name]["max"]
    page.fill("#clock-main", "-5")
    page.click("#start-btn")
    page.wait_for_selector("#flash:not([hidden])")
    assert "clock.main" in page.inner_text("#flash") and "not within" in page.inner_text("#flash")


def test_a_human_game_lost_on_time(page) -> None:  # type: ignore[no-untyped-def]
    page.fill("#clock-main", "2")
    page.fill("#clock-byoyomi", "0")
    page.click("#start-btn")
    page.wait_for_function("!!(play.state && play.state.id && play.state.clock)")
    assert page.locator("#clock-bottom").is_visible() and page.locator("#clock-top").is_visible()
    assert page.locator("#clock-bottom.running").count() == 1  # the human (sente, at the bottom) is to move
    first = page.inner_text("#clock-bottom .clock-main")
    page.wait_for_function(f"document.querySelector('#clock-bottom .clock-main').textContent !== '{first}'")
    # nobody moves: the server ends the game and the page hears it
    page.wait_for_function("!!play.state.outcome", timeout=T)
    status = page.inner_text("#status")
    assert "切れ負け (time forfeit)" in status and "wins" in status and "time up (2 s)" in status
    assert page.locator("#clock-bottom.flagged").count() == 1
    assert page.inner_text("#clock-bottom .clock-main") == "0:00.0"
    box = page.locator("#clock-bottom").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    if page.viewport_size["width"] == 1366:
        page.screenshot(path=str(Path(os.environ.get("KOMAKEN_SHOTS", "/tmp")) / "web-clock-lost.png"))


def test_the_engine_moves_inside_its_clock(page) -> None:  # type: ignore[no-untyped-def]
    page.fill("#clock-main", "0")
    page.fill("#clock-byoyomi", "1")
    page.click("#start-btn")
    page.wait_for_function("!!(play.state && play.state.id && play.state.legal.length)")
    target = page.evaluate("play.state.legal.find(m => m.id === '5d5c') ? '5d5c' : play.state.legal[0].id")
    page.evaluate(f"sendMove('{target}')")
    page.wait_for_function("play.state.ply >= 2 || !!play.state.outcome", timeout=T)
    st = page.evaluate("play.state")
    assert st["outcome"] is None or st["outcome"]["reason"] != "time forfeit"
    assert st["ply"] >= 2
    white = st["clock"][1]
    assert white["control"]["byoyomi"] == 1 and not white["flagged"]


def test_each_side_its_own_clock_from_the_form(page) -> None:  # type: ignore[no-untyped-def]
    assert page.locator("#clock-white-row").is_hidden() and page.inner_text("#clock-who") == "both"
    page.check("#clock-apart")
    assert page.locator("#clock-white-row").is_visible()
    assert page.inner_text("#clock-who") == page.inner_text("#black-legend")
    assert page.inner_text("#clock-white-who") == page.inner_text("#white-legend")
    page.fill("#clock-main", "600")
    page.fill("#clock-byoyomi", "30")
    page.fill("#clock-white-main", "120")
    page.fill("#clock-white-increment", "5")
    page.click("#start-btn")
    page.wait_for_function("!!(play.state && play.state.id && play.state.clock)")
    black, white = page.evaluate("play.state.clock")
    assert black["control"] == {"main": 600, "byoyomi": 30, "increment": 0}
    assert white["control"] == {"main": 120, "byoyomi": 0, "increment": 5}
    assert "+30s" in page.inner_text("#clock-bottom") and "+5s/move" in page.inner_text("#clock-top")
    # the download carries both clocks and each move's time
    sid = page.evaluate("play.state.id")
    page.evaluate("sendMove('5d5c')")
    page.wait_for_function("play.state.ply >= 1")
    kif = page.evaluate(f"fetch('/api/play/{sid}/record?format=kif').then(r => r.arrayBuffer())"
                        ".then(b => new TextDecoder('shift_jis').decode(b))")
    assert "持ち時間：先手：10分、秒読み30秒　後手：2分、1手ごとに5秒加算" in kif and "( 0:0" in kif
    # one side only: the other plays without a clock
    page.click("#setup-toggle")
    page.fill("#clock-main", "")
    page.fill("#clock-byoyomi", "")
    page.click("#start-btn")
    page.wait_for_function(f"play.state.id !== '{sid}' && !!play.state.clock")
    black, white = page.evaluate("play.state.clock")
    assert black is None and white["control"]["main"] == 120
    assert "no clock" in page.inner_text("#clock-bottom")
