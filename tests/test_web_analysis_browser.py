"""The Analysis page in a real browser (Debian's Chromium + Playwright against ``komaken serve``):
a 102-ply corpus game analysed end to end at a laptop's and a phone's size — the graph drawn, the
MultiPV lines shown, a point of the graph clicked, the annotated KIF downloaded and read back by
cshogi with its engine comments — and the Play page's Hint and "Analyse this game" buttons.

Skipped (with the reason) when ``/usr/bin/chromium`` or ``playwright`` is missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import needs_module
from komaken import records
from web_support import Server, launch

T = 30_000  # milliseconds: the longest any single wait may take
#: a pro game of 102 plies in CSA V2.1 (sunfish4's kifu/), read from the shared corpus
GAME = Path("/work/shared/corpus/records/sunfish4/kifu09136.csa")
SIZES = {"laptop": (1366, 768), "phone": (390, 844)}

cshogi_kif = needs_module("cshogi.KIF")
import test_web_browser as shared  # noqa: E402 - Chromium and its arguments (it skips where there is none)

if not GAME.exists():
    pytest.skip(f"no corpus game at {GAME}", allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with Server([], tmp_path_factory.mktemp("analysis") / "server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def chromium():  # type: ignore[no-untyped-def]
    with shared.sync_api.sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


def new_page(browser, server, size: tuple[int, int]):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(T)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, pg, errors


@pytest.mark.parametrize("size", SIZES)
def test_a_corpus_game_analysed_end_to_end(chromium, server, tmp_path: Path, size: str) -> None:  # type: ignore[no-untyped-def]
    ctx, page, errors = new_page(chromium, server, SIZES[size])
    try:
        page.goto(server.url + "/#analysis")
        page.wait_for_selector("#an-game option[value='shogi']", state="attached")
        assert page.get_attribute("#an-seconds", "max") == "60"  # the server's own limits
        assert page.get_attribute("#an-multipv", "max") == "5"
        page.set_input_files("#an-file", str(GAME))  # the file is read by the page (UTF-8 or Shift_JIS)
        page.wait_for_function("document.querySelector('#an-record').value.includes('+7776FU')")
        page.fill("#an-seconds", "0.01")  # the least the server takes: the page is under test, not the search
        page.fill("#an-multipv", "3")
        page.click("#an-start")
        page.wait_for_function("an.job && !an.job.running", timeout=T * 2)
        assert "103 of 103 positions analysed" in page.inner_text("#an-status")
        assert page.locator("#an-svg .pt").count() == 103  # one point a position
        assert page.locator("#an-svg .win-line").count() == 1 and page.locator("#an-svg .cp-line").count() == 1
        axis = page.eval_on_selector_all("#an-svg .y-win", "e => e.map(x => x.textContent)")
        assert {"0%", "50%", "100%"} <= set(axis)
        # a point of the graph takes the board there; its lines are in Japanese, with scores
        page.locator("#an-svg .pt[data-ply='40']").dispatch_event("click")
        assert page.inner_text("#an-ply") == "ply 40 / 102"
        lines = page.locator("#an-lines .line[data-rank]")
        assert lines.count() == 3
        first = lines.nth(0).inner_text()
        assert re.search(r"[+-]\d+|mate", first) and re.search(r"[▲△][１-９同]", first), first
        assert page.locator("#an-moves li.current").get_attribute("data-ply") == "40"
        page.keyboard.press("End")
        assert page.inner_text("#an-ply") == "ply 102 / 102"
        assert page.evaluate("window.scrollY") == 0 or size == "phone"  # Home/End move the board, not the page
        marked = page.locator("#an-moves li[class^='mark-']").count()
        assert marked == page.evaluate("an.results.filter(r => r && r.mark).length") and marked > 0
        with page.expect_download() as dl:
            page.click("#an-dl-kif")
        path = tmp_path / "annotated.kif"
        dl.value.save_as(path)
        parsed = cshogi_kif.Parser.parse_file(str(path))
        assert len(parsed.moves) == 102
        notes = [c for c in parsed.comments if c]
        assert len(notes) >= 100 and all("#評価値=" in c and "#読み筋=" in c for c in notes[:50]), notes[:3]
        ours = records.read(path)
        assert ours.moves == records.read(GAME).moves
        marks = sum(1 for c in ours.comments if c and c.startswith("【"))
        assert marks == marked
    finally:
        ctx.close()
    assert not errors, errors


def test_hint_and_analyse_this_game_from_the_play_page(chromium, server) -> None:  # type: ignore[no-untyped-def]
    ctx, page, errors = new_page(chromium, server, SIZES["laptop"])
    try:
        page.goto(server.url + "/#play")
        page.wait_for_selector("#game-select option[value='minishogi']", state="attached")
        page.select_option("#game-select", "minishogi")
        page.fill("#white-depth", "1")
        page.click("#start-btn")
        page.wait_for_function("!!(play.state && play.state.id && play.state.legal.length)")
        page.click("#hint-btn")
        page.wait_for_function("document.querySelector('#hint').textContent.startsWith('hint: ')")
        suggested = page.inner_text("#hint b + *") if page.locator("#hint b + *").count() else page.inner_text("#hint")
        assert "▲" in suggested and "%" in page.inner_text("#hint")
        move = page.evaluate("play.state.legal[0].id")
        page.evaluate(f"sendMove('{move}')")
        page.wait_for_function("play.state.ply >= 2 && play.state.legal.length > 0")
        page.click("#analyse-game-btn")
        page.wait_for_function("location.hash === '#analysis' && an.job && !an.job.running", timeout=T * 2)
        assert page.locator("#an-svg .pt").count() == page.evaluate("an.job.total") >= 3
    finally:
        ctx.close()
    assert not errors, errors


@pytest.mark.parametrize("size", SIZES)
def test_bad_input_on_the_analysis_page_is_a_clear_message(chromium, server, size: str) -> None:  # type: ignore[no-untyped-def]
    ctx, page, errors = new_page(chromium, server, SIZES[size])
    try:
        page.goto(server.url + "/#analysis")
        page.wait_for_selector("#an-game option[value='shogi']", state="attached")
        options = page.eval_on_selector_all("#an-game option", "e => e.map(o => o.value)")
        assert "reversi" in options and "chess" in options and "tictactoe" not in options  # games with an engine
        page.fill("#an-record", "this is no record at all")
        page.fill("#an-seconds", "0.05")
        page.click("#an-start")
        page.wait_for_selector("#flash:not([hidden])")
        assert "record" in page.inner_text("#flash") and page.locator("#an-view").is_hidden()
        status = page.evaluate("fetch('/api/analysis', {method: 'POST', headers: {'Content-Type': 'application/json'},"
                               " body: JSON.stringify({game: 'tictactoe', record: '5 1'})}).then(r => r.status)")
        assert status == 400
    finally:
        ctx.close()
    assert not errors, errors


def test_a_reversi_game_analysed_with_three_lines(chromium, server) -> None:  # type: ignore[no-untyped-def]
    ctx, page, errors = new_page(chromium, server, SIZES["laptop"])
    try:
        page.goto(server.url + "/#analysis")
        page.wait_for_selector("#an-game option[value='reversi']", state="attached")
        page.select_option("#an-game", "reversi")
        page.fill("#an-record", "f5 d6 c3 d3 c4 f4")
        page.fill("#an-seconds", "0.05")
        page.fill("#an-multipv", "3")
        page.click("#an-start")
        page.wait_for_function("an.job && !an.job.running", timeout=T)
        assert "7 of 7 positions analysed" in page.inner_text("#an-status")
        assert page.locator("#an-svg .pt").count() == 7
        page.locator("#an-svg .pt[data-ply='3']").dispatch_event("click")
        lines = page.locator("#an-lines .line[data-rank]")
        assert lines.count() == 3 and re.search(r"[+-]\d+.*% [a-h][1-8]", lines.nth(0).inner_text())
        assert page.locator("#an-downloads a").count() == 0  # no reversi record holds comments
    finally:
        ctx.close()
    assert not errors, errors
