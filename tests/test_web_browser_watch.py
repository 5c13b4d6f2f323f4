"""Watching in a real browser (Debian's Chromium, Playwright) at a laptop's 1366×768 and a phone's
390×844: an engine-against-engine minishogi game to its end with the score kept on screen, and an
experiment started, followed move by move, paused, resumed and stopped from the Experiments page.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ENV
from komaken.lab import ExperimentDB, live
from test_lab_kill import _state as proc_state
from test_lab_live import SLOW
from test_web_browser import T, browser  # noqa: F401 - the browser fixture, shared
from web_support import Server, wait_until

SIZES = {"laptop": (1366, 768), "phone": (390, 844)}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("watch")


@pytest.fixture(scope="module")
def server(folder: Path, monkeypatch_module: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch_module.setenv("PYTHONPATH", ENV["PYTHONPATH"])  # the run imports the slow player from tests/
    toml = folder / "watched.toml"
    toml.write_text(SLOW, encoding="utf-8")
    with Server(["--experiment", str(toml), str(folder / "watched.db")], folder / "server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def monkeypatch_module():  # type: ignore[no-untyped-def]
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture(params=list(SIZES))
def page(request, browser, server):  # type: ignore[no-untyped-def]  # noqa: F811
    width, height = SIZES[request.param]
    ctx = browser.new_context(viewport={"width": width, "height": height})
    pg = ctx.new_page()
    pg.set_default_timeout(T)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.base = server.url  # type: ignore[attr-defined]
    pg.width = width  # type: ignore[attr-defined]
    yield pg
    ctx.close()
    assert not errors, errors


def visible_in_viewport(page, selector: str) -> bool:  # type: ignore[no-untyped-def]
    return bool(page.evaluate(
        "sel => { const r = document.querySelector(sel).getBoundingClientRect();"
        " return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth + 1; }", selector))


def test_an_engine_match_to_the_end_with_its_score_on_screen(page) -> None:  # type: ignore[no-untyped-def]
    page.goto(page.base + "/#play")
    page.wait_for_selector("#game-select option[value='minishogi']", state="attached")
    page.select_option("#game-select", "minishogi")
    for side in ("black", "white"):  # depth 1: a 15-ply game (depth 2 plays 53), each ply redrawn
        page.select_option(f"#{side}-kind", "engine")
        page.fill(f"#{side}-depth", "1")
    page.click("#start-btn")
    page.wait_for_function("!!(play.state && play.state.id && play.state.game.id === 'minishogi')")
    # between two moves the box shows the last move's score, from sente's side, not an empty box
    page.wait_for_function("!play.state.thinking && !!play.state.score && !play.state.outcome || "
                           "!!play.state.outcome", timeout=30_000)
    page.wait_for_function("!!play.state.outcome", timeout=60_000)
    st = page.evaluate("play.state")
    assert st["ply"] >= 5 and page.locator("#moves li").count() == st["ply"] and st["legal"] == []
    shown = page.inner_text("#thinking")
    assert page.locator("#thinking").is_visible() and shown == st["score"]["text"]
    assert " for ▲ sente · depth " in shown and shown.startswith(st["moves"][st["score"]["ply"] - 1]["label"])
    assert st["outcome"]["reason"] in page.inner_text("#status")
    assert visible_in_viewport(page, "#thinking")


def test_an_experiment_started_watched_and_stopped_from_the_page(page, folder) -> None:  # type: ignore[no-untyped-def]
    db = folder / "watched.db"
    page.goto(page.base + "/#experiments")
    page.wait_for_selector("#exp-0 .run-start", state="visible")
    assert "not running" in page.inner_text("#exp-0 .run-state") or "stopped" in page.inner_text("#exp-0 .run-state")
    page.click("#exp-0 .run-start")
    page.wait_for_function("document.querySelector('#exp-0 .run-state').dataset.state === 'running'")
    assert page.locator("#exp-0 .run-pause").is_visible() and page.locator("#exp-0 .run-stop").is_visible()
    pid = int(page.inner_text("#exp-0 .run-state").split("pid ")[1].split(",")[0])
    # the game in flight, move by move: its ply count and its move list grow, one update at a time
    page.wait_for_selector("#exp-0 .live-game .board-svg", timeout=120_000)
    sizes: list[int] = []
    for _ in range(3):
        last = sizes[-1] if sizes else -1
        handle = page.wait_for_function(
            f"(() => {{ const g = document.querySelector('#exp-0 .live-game');"
            f" const n = g ? Number(g.dataset.plies) : -1; return n > {last} ? n : null; }})()", timeout=30_000)
        sizes.append(int(handle.json_value()))
    assert sizes == sorted(set(sizes)) and len(sizes) == 3
    card = page.locator("#exp-0 .live-game").first
    labels = card.locator(".live-moves li").all_inner_texts()
    assert labels and all(m[0] in "▲△" for m in labels), labels
    assert "s1-vs-s2 #" in card.inner_text() and visible_in_viewport(page, "#exp-0 .live-game .board-svg")
    page.click("#exp-0 .run-pause")
    page.wait_for_function("document.querySelector('#exp-0 .run-state').dataset.state === 'paused'")
    wait_until(lambda: proc_state(pid) == "T", 10, "the run paused")
    page.click("#exp-0 .run-resume")
    page.wait_for_function("document.querySelector('#exp-0 .run-state').dataset.state === 'running'")
    page.click("#exp-0 .run-stop")
    page.wait_for_function("document.querySelector('#exp-0 .run-state').dataset.state === 'stopped'",
                           timeout=30_000)
    page.wait_for_function("!document.querySelector('#exp-0 .live-game')")
    assert proc_state(pid) is None and live.live_games(db) == []
    assert page.locator("#exp-0 .run-start").is_visible()
    with ExperimentDB.open(db) as store:
        assert store.count() == len({(r.pairing, r.game_index) for r in store.games()})
