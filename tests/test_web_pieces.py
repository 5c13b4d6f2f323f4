"""Piece sets, layout and naming on the page, in Debian's Chromium driven by Playwright.

"No CJK font" is a Chromium started with ``FONTCONFIG_FILE`` naming a configuration that lists
only the DejaVu folder: there the system-font set draws every kanji as the same missing-glyph box,
and the built-in sets must still draw each piece from its outlines (``<path>``s).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import needs_module
from komaken.shogi.display import KANSUJI
from komaken.shogi.variant import shipped_variants
from web_support import CHROMIUM, Server, boxes, launch, play_experiment, your_move

T = 15_000
LATIN_ONLY = Path("/usr/share/fonts/truetype/dejavu")

sync_api = needs_module("playwright.sync_api")
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)", allow_module_level=True)

VALUES_TOML = """
[experiment]
name = "values-web"
variant = "minishogi"
games = 2
seed = 3
max_plies = 60

[report]
vary = ["B", "R"]

[players.standard]
engine = "thesis"
depth = 1
values = { P = 100, S = 1000, G = 1200, B = 1800, R = 2000, "+P" = 1200, "+S" = 1200, "+B" = 2000, "+R" = 2200 }

[players.b2500-pb2500-r2500-pr2500]
engine = "thesis"
depth = 1
values = { P = 100, S = 1000, G = 1200, B = 2500, R = 2500, "+P" = 1200, "+S" = 1200, "+B" = 2500, "+R" = 2500 }

[[pairings]]
name = "row01"
a = "b2500-pb2500-r2500-pr2500"
b = "standard"
colors = "alternate"
"""


def cjk_font_installed() -> bool:
    out = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True, check=False).stdout
    return bool(out.strip())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("pieces")
    (folder / "values.toml").write_text(VALUES_TOML, encoding="utf-8")
    play_experiment(folder / "values.toml", folder / "values.db")
    with Server(["--db", str(folder / "values.db")], folder / "server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def no_cjk_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fonts")
    conf = folder / "fonts.conf"
    conf.write_text(f"<?xml version='1.0'?><!DOCTYPE fontconfig SYSTEM 'fonts.dtd'><fontconfig>"
                    f"<dir>{LATIN_ONLY}</dir><cachedir>{folder / 'cache'}</cachedir></fontconfig>", encoding="utf-8")
    return conf


@pytest.fixture(scope="module")
def browsers(no_cjk_config: Path):  # type: ignore[no-untyped-def]
    """``{"fonts": the machine's fonts, "none": no CJK font}``."""
    with sync_api.sync_playwright() as pw:
        out = {"fonts": launch(pw),
               "none": launch(pw, env={**os.environ, "FONTCONFIG_FILE": str(no_cjk_config)})}
        yield out
        for b in out.values():
            b.close()


#: mean absolute difference per channel (0..255) of two pictures of one square: the same piece
#: drawn a fraction of a pixel apart stays under SAME; another drawing is over DIFFERENT
SAME, DIFFERENT = 2.0, 6.0


SNAP = """() => { const b = document.querySelector('#board'), r = b.getBoundingClientRect();
  b.style.top = `${Math.round(r.y) - r.y}px`; b.style.left = `${Math.round(r.x) - r.x}px`; }"""


def differ(a: bytes, b: bytes) -> float:
    import io

    import numpy as np
    from PIL import Image

    x, y = (np.asarray(Image.open(io.BytesIO(p)).convert("L"), dtype=float) for p in (a, b))
    h, w = min(x.shape[0], y.shape[0]), min(x.shape[1], y.shape[1])
    return float(np.abs(x[:h, :w] - y[:h, :w]).mean())


#: the browser contexts the current test opened: closed when it ends, passed or failed
_OPEN_CONTEXTS: list[Any] = []


@pytest.fixture(autouse=True)
def _close_contexts():  # type: ignore[no-untyped-def]
    yield
    while _OPEN_CONTEXTS:
        _OPEN_CONTEXTS.pop().close()


def open_page(browsers, server, which: str = "fonts", width: int = 1366, height: int = 768):  # type: ignore[no-untyped-def]
    ctx = browsers[which].new_context(viewport={"width": width, "height": height})
    _OPEN_CONTEXTS.append(ctx)
    page = ctx.new_page()
    page.set_default_timeout(T)
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    return page


def start(page, base: str, pieces: str, variant: str = "shogi") -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base}/?pieces={pieces}#play")
    page.wait_for_selector(f"body[data-pieces='{pieces}']", state="attached")
    page.wait_for_selector(f"#game-select option[value='{variant}']", state="attached")
    page.select_option("#game-select", variant)
    page.select_option("#white-kind", "human")
    page.click("#start-btn")
    page.wait_for_selector("#board .piece")
    your_move(page)


def faces(page) -> list[dict]:  # type: ignore[no-untyped-def]
    """Every piece on the board and in the hands: its <text>s and the sizes of its <path>s."""
    return page.evaluate("""() => [...document.querySelectorAll('#board .piece, .hand .hand-piece, .hand-mark')]
      .map(p => ({texts: [...p.querySelectorAll('text')].length + (p.tagName === 'text' ? 1 : 0),
                  paths: [...p.querySelectorAll('path')].map(e => [e.getBBox().width, e.getBBox().height]),
                  html: p.tagName === 'BUTTON' || p.tagName === 'SPAN' ? p.textContent.replace(/[0-9]/g, '') : ''}))""")


# ---- the API ------------------------------------------------------------------------------------
def test_the_sets_and_an_unknown_set(server) -> None:  # type: ignore[no-untyped-def]
    listing = httpx.get(server.url + "/api/pieces").json()
    assert listing == {"sets": ["builtin", "international", "font"], "default": "builtin"}
    glyphs = httpx.get(server.url + "/api/pieces/builtin").json()["glyphs"]
    kanji = {c for v in shipped_variants().values() for name in v.names.kanji.values() for c in name}
    assert kanji | set("".join(KANSUJI[1:10])) | set("☗☖なし") <= set(glyphs)
    assert all(g["d"].startswith("M") and g["w"] > 0 and g["h"] > 0 for g in glyphs.values())
    letters = httpx.get(server.url + "/api/pieces/international").json()["glyphs"]
    assert set("KRBGSNLPCE+") <= set(letters)
    r = httpx.get(server.url + "/api/pieces/kirin")
    assert r.status_code == 404
    assert r.json()["error"] == "unknown piece set 'kirin' (known: builtin, international, font)"


# ---- pieces without CJK fonts ---------------------------------------------------------------------
@pytest.mark.parametrize("pieces", ["builtin", "international"])
@pytest.mark.parametrize("variant", ["shogi", "dobutsu"])
def test_no_piece_needs_a_system_font(browsers, server, pieces: str, variant: str) -> None:  # type: ignore[no-untyped-def]
    page = open_page(browsers, server, "none")
    start(page, server.url, pieces, variant)
    if variant == "dobutsu":  # a capture puts a chick in sente's hand: ヒ (or C) on a button
        page.click("#board [data-sq='2c']")
        page.click("#board [data-sq='2b']")
        page.wait_for_selector("#hand-bottom .hand-piece")
    shown = faces(page)
    assert len(shown) >= (40 if variant == "shogi" else 8)
    for f in shown:
        assert f["texts"] == 0 and f["html"] == "", f
        assert f["paths"] and all(w > 1 and h > 1 for w, h in f["paths"]), f
    if pieces == "international":
        chars = page.evaluate("[...document.querySelectorAll('#board .piece path')].map(p => p.dataset.char).join('')")
        assert set(chars) == (set("KRBGSNLP") if variant == "shogi" else set("LGEC"))
        marks = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#board [data-sq]')]
          .filter(g => g.querySelector('.moves-marks')).map(g => [g.dataset.sq, ['circle', 'line']
          .map(t => g.querySelectorAll(`.moves-marks ${t}`).length).join('/')]))""")
        if variant == "shogi":  # the lance slides forward, the knight has two jumps, the gold six steps
            shown = (marks["9i"], marks["8i"], marks["6i"], marks["5i"], marks["2h"])
            assert shown == ("0/1", "2/0", "6/0", "8/0", "0/4"), marks
        else:  # the lion eight steps, the chick one, the giraffe four, the elephant four (diagonal)
            assert (marks["2d"], marks["2b"], marks["1d"], marks["3d"]) == ("8/0", "1/0", "4/0", "4/0"), marks
        ranks = page.eval_on_selector_all("#board text.coord", "els => els.map(e => e.textContent).join('')")
        assert ranks.endswith("abcdefghi" if variant == "shogi" else "abcd"), ranks  # USI's ranks
    assert not page.errors


def test_moves_and_words_fall_back_to_the_shipped_font(browsers, server) -> None:  # type: ignore[no-untyped-def]
    """Without Japanese fonts the move list is written in the page's own cut of Noto Sans CJK JP,
    which the browser had to load for it; each character is as wide as in that font (a missing
    glyph box is narrower than a fullwidth character)."""
    page = open_page(browsers, server, "none")
    start(page, server.url, "builtin")
    page.click("#board [data-sq='7g']")
    page.click("#board [data-sq='7f']")
    page.wait_for_selector("#moves li[data-ply='1']")
    assert page.inner_text("#moves li[data-ply='1']") == "▲７六歩"
    page.wait_for_function("[...document.fonts].some(f => f.family.replace(/\"/g, '') === 'komaken-ja' "
                           "&& f.status === 'loaded')")
    widths = page.evaluate("""() => { const s = document.createElement('span'); document.body.append(s);
      return ['歩', '投了', 'なし', '７'].map(t => {
        s.textContent = t; return s.getBoundingClientRect().width / [...t].length; }); }""")
    assert all(abs(w - 15) < 0.5 for w in widths), widths  # 15 px: the page's font size, one em each
    # 駒研 in the header: laid out while the font was loading, Chromium kept two missing-glyph boxes
    # for its size and weight in about one page in thirty (12 px wide), so the page writes it once
    # the font is ready
    brand = """() => { const t = document.querySelector('.brand').firstChild, r = document.createRange();
      if (!t.data.endsWith('駒研')) return 0;
      r.setStart(t, t.length - 2); r.setEnd(t, t.length); return r.getBoundingClientRect().width; }"""
    try:
        page.wait_for_function(f"({brand})() > 30", timeout=5_000)
    except sync_api.TimeoutError:
        pytest.fail(f"the header's 駒研 is {page.evaluate(brand)} px wide, not two characters of the font (34 px) "
                    "(two boxes are 10 px)")
    assert not page.errors


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)])
def test_outlines_look_the_same_with_and_without_fonts_and_the_font_set_needs_one(  # type: ignore[no-untyped-def]
        browsers, server, size: tuple[int, int]) -> None:
    """Each piece's picture with the built-in set is the same whether or not CJK fonts exist
    (up to the antialiasing of a board placed a fraction of a pixel apart), while with the
    system-font set every kanji looks different without them (a missing-glyph box): which shows
    both that the outlines need no font and that the test really ran without one."""
    shots: dict[tuple[str, str], dict[str, bytes]] = {}
    for which in ("fonts", "none"):
        page = open_page(browsers, server, which, *size)
        for pieces in ("builtin", "font"):
            start(page, server.url, pieces)
            page.wait_for_function("document.fonts.status === 'loaded'")
            # the text above the board is set in other fonts, so the board may stand a fraction of a
            # pixel higher or lower; whole pixels keep the antialiasing of the two pictures alike
            page.add_style_tag(content="#board { position: relative; }")
            page.evaluate(SNAP)
            # by the square's place, read in one step: a redraw (the state arriving again) replaces
            # the elements at any moment, with the same picture
            shots[which, pieces] = {sq: page.screenshot(clip=boxes(page, [f"#board [data-sq='{sq}']"])[0])
                                    for sq in ("7g", "7i", "5i")}  # 歩 銀 玉
        page.context.close()
    for sq in ("7g", "7i", "5i"):
        assert differ(shots["fonts", "builtin"][sq], shots["none", "builtin"][sq]) < SAME, sq
    assert differ(shots["none", "builtin"]["7g"], shots["none", "builtin"]["7i"]) > DIFFERENT  # 歩 is not 銀
    if not cjk_font_installed():
        pytest.skip("no Japanese font on this machine for the system-font set (apt-get install fonts-noto-cjk)")
    for sq in ("7g", "7i", "5i"):
        assert differ(shots["fonts", "font"][sq], shots["none", "font"][sq]) > DIFFERENT, sq


def test_the_choice_is_remembered_and_a_bad_one_is_named(browsers, server) -> None:  # type: ignore[no-untyped-def]
    page = open_page(browsers, server)
    start(page, server.url, "builtin")
    page.select_option("#piece-set", "international")
    page.wait_for_selector("body[data-pieces='international']", state="attached")
    page.wait_for_selector("#board .piece path[data-char='P']", state="attached")
    page.goto(server.url + "/#play")
    page.wait_for_selector("body[data-pieces='international']", state="attached")
    assert page.input_value("#piece-set") == "international"
    page.goto(server.url + "/?pieces=kirin#play")
    page.wait_for_selector("#flash:not([hidden])")
    assert "unknown piece set 'kirin'" in page.inner_text("#flash")
    page.wait_for_selector("body[data-pieces='international']", state="attached")  # the remembered one
    assert not page.errors


# ---- layout -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [(1366, 768), (390, 844)])
def test_board_hands_and_moves_fit_the_screen(browsers, server, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    width, height = size
    page = open_page(browsers, server, "fonts", width, height)
    start(page, server.url, "builtin")
    for n, (frm, to) in enumerate((("7g", "7f"), ("3c", "3d"), ("8h", "2b")), 1):  # a piece comes to hand
        your_move(page, n - 1)
        page.click(f"#board [data-sq='{frm}']")
        page.click(f"#board [data-sq='{to}']")
        page.wait_for_function(f"!document.querySelector('#promo').hidden || play.state.moves.length >= {n}")
        if page.is_visible("#promo"):
            page.click("#promo-choices button[data-choice='不成']")
    page.wait_for_selector("#moves li[data-ply='3']")
    page.wait_for_selector("#hand-bottom .hand-piece")
    assert page.evaluate("window.scrollY") == 0
    sels = ["#hand-top", "#board svg", "#hand-bottom", "#moves", "#moves li[data-ply='3']"]
    for sel, box in zip(sels, boxes(page, sels), strict=True):  # in one script: the move list is redrawn
        assert box is not None and box["x"] >= 0 and box["y"] >= 0, (sel, box)
        assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, (sel, box)
    page.click("#setup-toggle")  # the settings come back on demand
    assert page.is_visible("#game-select")
    assert not page.errors


def test_replay_keys_move_through_the_game_not_the_page(browsers, server) -> None:  # type: ignore[no-untyped-def]
    page = open_page(browsers, server, "fonts", 390, 844)
    page.goto(server.url + "/#games/0")
    page.wait_for_selector("tr.game-row")
    page.click("tr.game-row")
    page.wait_for_selector("#replay:not([hidden])")
    last = page.evaluate("document.querySelector('#r-slider').max")
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate("document.documentElement.scrollHeight") > 844  # the page could scroll
    for key, ply in (("End", last), ("Home", "0"), ("ArrowRight", "1"), ("ArrowLeft", "0")):
        page.keyboard.press(key)
        assert page.inner_text("#r-ply").startswith(f"ply {ply} /")
        assert page.evaluate("window.scrollY") == 0, key


# ---- naming --------------------------------------------------------------------------------------------
def test_experiment_rows_are_named_as_the_report_names_them(browsers, server) -> None:  # type: ignore[no-untyped-def]
    page = open_page(browsers, server)
    page.goto(server.url + "/#experiments")
    page.wait_for_selector("#exp-0 tr[data-pairing='row01']")
    assert page.inner_text("#exp-0 tr[data-pairing='row01'] td.setting") == "角2500 飛2500"
    assert " · minishogi · " in page.inner_text("#exp-0 .exp-body p")
    page.goto(server.url + "/#games/0")
    page.wait_for_selector("tr.game-row")
    assert page.locator("tr.game-row td").nth(1).inner_text() == "角2500 飛2500"
    assert "角2500 飛2500 (" in page.inner_text("#f-pairing")


def test_number_boxes_take_the_servers_limits(browsers, server) -> None:  # type: ignore[no-untyped-def]
    """Every number box of every game's players has the range the server checks: one more than
    the box's max is refused with that range named."""
    page = open_page(browsers, server)
    page.goto(server.url + "/#play")
    page.wait_for_selector("#game-select option[value='chess']", state="attached")
    page.select_option("#game-select", "chess")
    page.select_option("#white-kind", "engine")
    depth = page.locator("#white-depth")
    top = int(depth.get_attribute("max") or 0)
    assert depth.get_attribute("min") == "1" and top > 1
    r = httpx.post(server.url + "/api/play", headers=server.origin,
                   json={"game": "chess", "white": {"kind": "engine", "depth": top + 1}})
    assert r.status_code == 400 and r.json()["error"] == f"white.depth: {top + 1} is not within 1..{top}"
    ok = httpx.post(server.url + "/api/play", headers=server.origin,
                    json={"game": "chess", "black": {"kind": "engine", "depth": 1}, "white": {"kind": "human"}})
    assert ok.status_code == 201


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)])
def test_the_international_set_writes_moves_in_western_notation(browsers, server, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Hodges's letters (▲P-7f, △Bx8h+ … as lishogi's Western mode), with the board's a… ranks;
    switching back to kanji gives the Japanese labels again."""
    page = open_page(browsers, server, "none", *size)
    start(page, server.url, "international")
    for frm, to in (("7g", "7f"), ("3c", "3d")):
        page.evaluate(f"sendMove(play.state.legal.find(m => m.from === '{frm}' && m.to === '{to}').id)")
        page.wait_for_function(f"play.state.ply === {2 if frm == '3c' else 1} && play.state.legal.length > 0")
    page.evaluate("sendMove('8h2b+')")
    page.wait_for_function("play.state.ply === 3")
    page.wait_for_selector("#moves li[data-ply='3']")
    assert [page.inner_text(f"#moves li[data-ply='{k}']") for k in (1, 2, 3)] == ["▲P-7f", "△P-3d", "▲Bx2b+"]
    page.select_option("#piece-set", "builtin")
    page.wait_for_function("document.querySelector(\"#moves li[data-ply='1']\").textContent === '▲７六歩'")
    assert page.inner_text("#moves li[data-ply='3']") == "▲２二角成"
    assert not page.errors  # type: ignore[attr-defined]
