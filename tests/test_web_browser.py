"""The web page in a real browser: Debian's Chromium driven by Playwright against ``komaken serve``.

Skipped (with the reason) when ``/usr/bin/chromium`` or the ``playwright`` package is missing;
``.ci/run`` installs Chromium.  Every wait has a timeout.
"""

from __future__ import annotations

import http.server
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from conftest import needs_module
from komaken import records
from komaken.lab import ExperimentDB
from komaken.lab.report import status_json
from komaken.shogi import Position
from web_support import CHROMIUM, Server, launch, play_experiment, write_experiment, your_move

T = 15_000  # milliseconds: the longest any single wait may take

sync_api = needs_module("playwright.sync_api")
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)", allow_module_level=True)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser")


@pytest.fixture(scope="module")
def server(folder: Path):  # type: ignore[no-untyped-def]
    finished = folder / "finished.db"
    play_experiment(write_experiment(folder, 4), finished)
    with Server(["--db", str(finished), "--db", str(folder / "live.db")], folder / "server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    with sync_api.sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(T)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.base = server.url  # type: ignore[attr-defined]
    yield pg
    ctx.close()
    assert not errors, errors


def start_game(page, game: str, white: str = "engine", **opts: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(page.base + "/#play")
    page.wait_for_selector("#game-select option[value='shogi']", state="attached")
    page.select_option("#game-select", game)
    page.select_option("#white-kind", white)
    for key, value in opts.items():
        if key == "start":
            page.click("details summary")
            page.fill("#start-text", value)
        else:
            page.fill(f"#white-{key}", value)
    page.click("#start-btn")
    page.wait_for_function("!!(play.state && play.state.id)")  # the new game, not the page's empty board
    page.wait_for_selector("#board svg")
    your_move(page)


def square_box(page, sq: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Where square ``sq`` is drawn, measured in one step inside the page once it is drawn: the board
    re-renders as the game starts or flips, and a square found before a re-render has no box after it."""
    handle = page.wait_for_function(
        "sq => { const r = document.querySelector(`#board [data-sq='${sq}'] rect`);"
        " if (!r) return null; const b = r.getBoundingClientRect();"
        " return b.width > 0 ? {x: b.x, y: b.y, width: b.width, height: b.height} : null; }", arg=sq)
    return handle.json_value()


def moves(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector_all("#moves li", "els => els.map(e => e.textContent)")


def wait_moves(page, n: int) -> list[str]:  # type: ignore[no-untyped-def]
    page.wait_for_function(f"document.querySelectorAll('#moves li').length === {n}", timeout=T)
    return moves(page)


def test_full_tictactoe_game_against_the_engine_by_clicking(page) -> None:  # type: ignore[no-untyped-def]
    start_game(page, "tictactoe")
    for ply in range(0, 9, 2):
        if page.evaluate("!!play.state.outcome"):
            break
        target = page.evaluate("play.state.legal[0].id")
        page.click(f"#board [data-sq='{target}']")
        # the reply is shown before the loop asks the person again (legal moves then): wait for both
        page.wait_for_function(f"(play.state.ply >= {ply + 2} && play.state.legal.length > 0) || !!play.state.outcome",
                               timeout=T)
    page.wait_for_function("!!play.state.outcome", timeout=T)
    status = page.inner_text("#status")
    assert status.startswith("game over: ") and "終局" not in status  # tic-tac-toe's words, not shogi's
    assert "draw" in status or "O wins" in status
    assert page.evaluate("play.state.outcome.winner") in (None, "white")


def test_shogi_promotion_drop_undo_and_kif_download(page, folder) -> None:  # type: ignore[no-untyped-def]
    start_game(page, "minishogi", depth="1", start="k4/2S2/5/5/4K b S 1")
    page.click("#board [data-sq='3b']")
    assert page.locator("#board .target").count() >= 3  # legal destinations are marked
    page.click("#board [data-sq='3a']")
    page.wait_for_selector("#promo:not([hidden])")
    page.click("#promo [data-choice='成']")
    first = wait_moves(page, 2)
    assert first[0] == "▲３一銀成"
    # a drop from the hand: select the silver, then an empty square the drop may go to
    page.wait_for_function("play.state.legal.length > 0")
    target = page.evaluate("play.state.legal.find(m => m.drop === 'S').to")
    page.click("#hand-bottom [data-kind='S']")
    page.click(f"#board [data-sq='{target}']")
    after_drop = wait_moves(page, 4)
    assert after_drop[2].startswith("▲") and "銀" in after_drop[2]
    page.wait_for_function("play.state.legal.length > 0 && document.querySelector('#undo-btn').disabled === false")
    page.click("#undo-btn")
    assert wait_moves(page, 2) == first
    with page.expect_download(timeout=T) as dl:
        page.click("#dl-kif")
    path = folder / "game.kif"
    dl.value.save_as(path)
    rec = records.read(path)
    assert [m.usi() for m in rec.moves] == page.evaluate("play.state.moves.map(m => m.id)")
    assert rec.initial_sfen.split()[:3] == ["k4/2S2/5/5/4K", "b", "S"]


def test_drag_and_drop_a_piece_and_the_engine_replies(page) -> None:  # type: ignore[no-untyped-def]
    start_game(page, "shogi", movetime="1")
    # every text the thinking box shows, recorded as it is drawn: on a busy machine the engine's
    # reports can arrive together, and a poll between animation frames would see only the last
    page.evaluate("""() => { window.shown = []; const box = document.querySelector('#thinking');
        new MutationObserver(() => { if (!box.hidden) window.shown.push(box.innerText); })
            .observe(box, {childList: true, subtree: true, characterData: true, attributes: true}); }""")
    src, dst = square_box(page, "7g"), square_box(page, "7f")
    page.mouse.move(src["x"] + src["width"] / 2, src["y"] + src["height"] / 2)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(src["x"] + src["width"] / 2, src["y"] + src["height"] / 2 - k * (src["y"] - dst["y"]) / 5)
    page.mouse.up()
    # while the engine thinks, each finished depth shows with its score and principal variation
    deep = page.wait_for_function("window.shown.find(t => /depth ([2-9]|[1-9][0-9])/.test(t)) || null").json_value()
    assert "score" in deep and "△" in deep, deep
    got = wait_moves(page, 2)
    page.wait_for_function("!play.state.thinking && !!play.state.score")  # the reply's score stays, from your side
    kept = page.inner_text("#thinking")
    assert kept.startswith(got[1] + ": ") and " for you · depth " in kept, kept
    assert got[0] == "▲７六歩" and got[1].startswith("△")
    assert page.inner_text("#position-text").endswith("b - 3")
    assert square_box(page, "7g")["y"] > square_box(page, "7c")["y"]  # black at the bottom
    page.click("#flip-btn")  # flipped: 7g is now drawn in the top half (a timeout if it never is)
    page.wait_for_function(
        "() => { const y = sq => { const r = document.querySelector(`#board [data-sq='${sq}'] rect`);"
        " return r ? r.getBoundingClientRect().y : NaN; }; return y('7g') < y('7c'); }")


def test_an_illegal_click_leaves_the_board(page) -> None:  # type: ignore[no-untyped-def]
    start_game(page, "shogi", white="human")
    before = page.inner_text("#position-text")
    page.click("#board [data-sq='7g']")
    page.click("#board [data-sq='7d']")  # not a pawn move
    page.click("#board [data-sq='5e']")
    assert moves(page) == [] and page.inner_text("#position-text") == before


def test_a_running_experiment_counts_up_live(page, server, folder) -> None:  # type: ignore[no-untyped-def]
    # against the random player the games take milliseconds, often over before the page has read its
    # first count; against an engine of 30 000 nodes a move each of the 6 takes a second or more, and
    # the page sees them come in
    toml = write_experiment(folder, 3, opponent='engine = "engine"\nnodes = 30000')
    run = subprocess.Popen([sys.executable, "-m", "komaken", "experiment", "run", str(toml), "--db",
                            str(folder / "live.db"), "-j", "1", "-q"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        page.goto(page.base + "/#experiments")
        page.wait_for_selector("#exp-1 .games-count", timeout=60_000)
        first = int(page.inner_text("#exp-1 .games-count"))
        page.wait_for_function(f"Number(document.querySelector('#exp-1 .games-count').textContent) > {first}",
                               timeout=60_000)
        page.wait_for_function("Number(document.querySelector('#exp-1 .games-count').textContent) === 6",
                               timeout=90_000)
        row = page.locator("#exp-1 tr[data-pairing='d1-vs-rnd'] td").all_inner_texts()
        assert row[2] == "3/3" and int(row[3]) + int(row[4]) + int(row[5]) == 3
    finally:
        run.wait(120)
    assert run.returncode == 0
    with ExperimentDB.open(folder / "live.db") as db:  # the page prints status's and the report's digits
        text = next(p["text"] for p in status_json(db)["pairings"] if p["name"] == "d1-vs-rnd")
    assert row[6:9] == [f"{text['score']} ({text['score_ci95']})", f"{text['elo']} ({text['elo_ci95']})", text["p"]]


def test_replay_a_stored_game_to_its_last_ply(page, folder) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(folder / "finished.db") as conn:
        gid, mv = conn.execute("SELECT id, moves FROM games ORDER BY plies DESC LIMIT 1").fetchone()
    pos = Position.start("minishogi")
    for m in mv.split():
        pos.push_usi(m)
    page.goto(page.base + "/#games/0")
    page.wait_for_selector(f"tr[data-id='{gid}']")
    page.click(f"tr[data-id='{gid}']")
    page.wait_for_selector("#replay:not([hidden])")
    for _ in range(len(mv.split())):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(f"document.querySelector('#r-ply').textContent === 'ply {len(mv.split())} / "
                           f"{len(mv.split())}'")
    assert page.inner_text("#r-position") == pos.sfen()
    page.keyboard.press("ArrowLeft")
    page.locator("#r-slider").fill("0")
    assert page.inner_text("#r-position") == Position.start("minishogi").sfen()


def test_reports_page_shows_the_report_summary_first(page) -> None:  # type: ignore[no-untyped-def]
    page.goto(page.base + "/#reports/0")
    page.wait_for_selector("#report[data-ready] table.report")
    assert page.inner_text("#report h1") == "Web small"
    heads = page.eval_on_selector_all("#report h2", "els => els.map(e => e.textContent)")
    assert heads[:3] == ["Summary", "Setup", "Results by setting"] and "Figures" in heads
    first_p = page.locator("#report .report-doc > p").first
    assert first_p.inner_text().startswith("Question.") and first_p.locator("strong").count() == 1
    assert "**" not in page.inner_text("#report")
    rows = page.locator("#report table.report").first.locator("tbody tr")
    assert rows.count() == 2
    page.wait_for_function("[...document.querySelectorAll('#report figure img')].length > 0 && "
                           "[...document.querySelectorAll('#report figure img')].every(i => i.naturalWidth > 0)")
    assert page.inner_text("#report figcaption").startswith("Figure 1.")


def test_reversi_by_clicking_against_the_engine(page) -> None:  # type: ignore[no-untyped-def]
    start_game(page, "reversi", depth="2")
    assert page.locator("#board .target").count() == 4  # black's four opening moves are marked
    page.click("#board [data-sq='f5']")
    got = wait_moves(page, 2)
    assert got[0] == "●f5" and got[1].startswith("○")
    assert "discs" in page.inner_text("#status")
    black, white = page.evaluate("play.state.board.note").split()[1].split("–")
    assert int(black) + int(white) == 6


def test_chess_by_clicking_and_dragging_with_a_promotion_choice(page, folder) -> None:  # type: ignore[no-untyped-def]
    page.goto(page.base + "/#play")
    page.wait_for_selector("#game-select option[value='chess']", state="attached")
    page.select_option("#game-select", "chess")
    assert page.input_value("#white-kind") == "human" and page.input_value("#black-kind") == "engine"
    # the depth box offers what the server takes for a chess engine (the registry's 1..8), not another game's range
    assert page.eval_on_selector("#black-depth", "e => [e.min, e.max, e.step]") == ["1", "8", "1"]
    page.fill("#black-depth", "1")
    page.click("#start-btn")
    page.wait_for_selector("#board [data-sq='e7'] rect")  # the chess board, not the page's previous one
    your_move(page)
    # white at the bottom: e2 is drawn below e7
    assert square_box(page, "e2")["y"] > square_box(page, "e7")["y"]
    page.click("#board [data-sq='e2']")
    marked = page.eval_on_selector_all("#board .target", "els => els.map(e => e.closest('[data-sq]').dataset.sq)")
    assert sorted(marked) == ["e3", "e4"]
    page.click("#board [data-sq='e4']")
    got = wait_moves(page, 2)
    assert got[0] == "1. e4" and got[1].startswith("1… ")
    assert page.locator("#board [data-sq='e4'] .piece").count() == 1
    your_move(page)  # the same by dragging the knight
    src, dst = square_box(page, "g1"), square_box(page, "f3")
    page.mouse.move(src["x"] + src["width"] / 2, src["y"] + src["height"] / 2)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(src["x"] + src["width"] / 2 + k * (dst["x"] - src["x"]) / 5,
                        src["y"] + src["height"] / 2 + k * (dst["y"] - src["y"]) / 5)
    page.mouse.up()
    assert wait_moves(page, 4)[2] == "2. Nf3"
    server_fen = page.evaluate("fetch(`/api/play/${play.state.id}`).then(r => r.json()).then(s => s.position)")
    assert server_fen == page.inner_text("#position-text") and server_fen.split()[1] == "w"


def test_chess_promotion_choice_from_a_fen_start(page, folder) -> None:  # type: ignore[no-untyped-def]
    page.goto(page.base + "/#play")
    page.wait_for_selector("#game-select option[value='chess']", state="attached")
    page.select_option("#game-select", "chess")
    page.select_option("#black-kind", "human")
    page.click("details summary")
    page.fill("#start-text", "8/P6k/8/8/8/8/8/K7 w - - 0 1")
    page.click("#start-btn")
    page.wait_for_selector("#board svg")
    your_move(page)
    page.click("#board [data-sq='a7']")
    page.click("#board [data-sq='a8']")
    page.wait_for_selector("#promo:not([hidden])")
    assert sorted(page.eval_on_selector_all("#promo [data-choice]", "els => els.map(e => e.dataset.choice)")) == \
        ["B", "N", "Q", "R"]
    page.click("#promo [data-choice='R']")
    assert wait_moves(page, 1) == ["1. a8=R"]
    state = page.evaluate("fetch(`/api/play/${play.state.id}`).then(r => r.json())")
    assert state["position"] == "R7/7k/8/8/8/8/8/K7 b - - 0 1" and state["board"]["last"] == {"from": "a7", "to": "a8"}
    your_move(page)
    page.click("#board [data-sq='h7']")
    page.click("#board [data-sq='h6']")
    wait_moves(page, 2)
    page.click("#undo-btn")
    assert wait_moves(page, 1) == ["1. a8=R"]
    with page.expect_download(timeout=T) as dl:
        page.click("#dl-pgn")
    path = folder / "game.pgn"
    dl.value.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert '[FEN "8/P6k/8/8/8/8/8/K7 w - - 0 1"]' in text and "1. a8=R *" in text
    page.click("#resign-btn")
    page.wait_for_function("!!play.state.outcome")
    assert "resign" in page.inner_text("#status")


EVIL = """<!doctype html><title>another site</title>
<form method="post" enctype="text/plain" action="{url}">
<input name='{{"move": "5", "x": "' value='"}}'></form>"""


def test_another_site_cannot_play_a_move(page, server) -> None:  # type: ignore[no-untyped-def]
    """A page on another origin posts a move (a form whose text/plain body reads as JSON, and a
    no-cors fetch): the server refuses both and the game stays as it was."""
    game = {"game": "tictactoe", "black": {"kind": "human"}, "white": {"kind": "human"}}
    st = httpx.post(server.url + "/api/play", json=game, headers=server.origin, timeout=10).json()
    url = f"{server.url}/api/play/{st['id']}/move"

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the handler's name is http.server's
            body = EVIL.format(url=url).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
        page.evaluate("url => fetch(url, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},"
                      " body: JSON.stringify({move: '5'})}).then(() => 1, () => 0)", url)
        with page.expect_navigation(timeout=T):
            page.evaluate("document.forms[0].submit()")
        assert "may not change anything here" in page.content()  # the server's own refusal, shown
    finally:
        evil.shutdown()
        evil.server_close()
    after = httpx.get(f"{server.url}/api/play/{st['id']}", timeout=10).json()
    assert after["ply"] == 0 and after["moves"] == []


#: the games played engine against engine to the end: one of every game, and every shogi variant whose
#: pieces or end rules are its own; the rest differ from a played one in board size only (each costs
#: 5-30 s a game at depth 1, so all of them would add 90 s to the suite)
PAGE_GAMES = ["minishogi", "shogi", "dobutsu", "chess", "reversi", "tictactoe"]


def test_every_game_the_page_offers_is_played_or_differs_only_in_size() -> None:
    from komaken.web._games import catalog

    for gid, info in catalog().items():
        v = info.variant
        assert gid in PAGE_GAMES or (v is not None and not v.pieces and not (v.king_capture or v.try_rule)), gid


def test_dobutsu_by_clicking_with_its_own_pieces_and_a_drop(page) -> None:  # type: ignore[no-untyped-def]
    start_game(page, "dobutsu", depth="1")
    labels = page.eval_on_selector_all("#board .piece [data-char]", "els => els.map(e => e.dataset.char)")
    assert sorted(t for t in labels if t in "ラキゾヒ") == sorted("ララキキゾゾヒヒ"), labels  # no 玉 飛 角 歩
    page.click("#board [data-sq='2c']")
    page.click("#board [data-sq='2b']")  # the chick takes the chick
    got = wait_moves(page, 2)
    assert got[0] == "▲２二ヒ" and got[1].startswith("△"), got
    assert page.locator("#hand-bottom .hand-piece path[data-char='ヒ']").count() == 1
    page.wait_for_function("play.state.legal.length > 0 || !!play.state.outcome")
    target = page.evaluate("(play.state.legal.find(m => m.drop === 'P') || {}).to || null")
    assert target, (got, page.inner_text("#status"))
    page.click("#hand-bottom .hand-piece")
    page.click(f"#board [data-sq='{target}']")
    # the engine answers at depth 1 at once: the page may show the drop and the reply in one update
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 3", timeout=T)
    got = moves(page)
    assert got[2].startswith("▲") and "ヒ" in got[2], got


#: where a game starts when its whole game from the initial position is long: shogi's depth-1 game
#: from the start runs 124 plies (each redrawn by the page); this is its position after ply 100, from
#: which the same two engines play 24 plies to the same checkmate
LATE_STARTS = {"shogi": "ln6l/1k7/1rs1+P4/p1p1+B1p1p/7+b1/PpPG2S1P/1s2S2+p1/1KG6/LNG1P3+r b GN2Pnl5p 101"}


@pytest.mark.parametrize("game", PAGE_GAMES)
def test_every_game_engine_against_engine_to_the_end(page, game) -> None:  # type: ignore[no-untyped-def]
    """Both sides engines (depth 1): the one game loop plays on by itself to the game's end and the
    page shows every move, the final position and the result (shogi from a late position of its game,
    :data:`LATE_STARTS`, as the page's start box gives it)."""
    page.goto(page.base + "/#play")
    page.wait_for_selector(f"#game-select option[value='{game}']", state="attached")
    page.select_option("#game-select", game)
    for side in ("black", "white"):
        page.select_option(f"#{side}-kind", "engine")
        page.fill(f"#{side}-depth", "1")
    if game in LATE_STARTS:
        page.click("details summary")
        page.fill("#start-text", LATE_STARTS[game])
    page.click("#start-btn")
    page.wait_for_function(f"!!(play.state && play.state.id && play.state.game.id === '{game}')")
    page.wait_for_function("!!play.state.outcome", timeout=30_000)
    st = page.evaluate("play.state")
    # choosing white's player keeps black's settings (it once drew both sides' settings again, empty)
    assert all("depth=1" in s["name"] for s in st["sides"]), st["sides"]
    assert st["ply"] >= 5 and len(moves(page)) == st["ply"] and st["legal"] == []
    assert st["outcome"]["reason"] in page.inner_text("#status")
    server = page.evaluate("fetch(`/api/play/${play.state.id}`).then(r => r.json())")
    assert server["position"] == page.inner_text("#position-text") and server["outcome"] == st["outcome"]
    assert page.locator("#resign-btn").is_disabled() and page.locator("#undo-btn").is_disabled()
