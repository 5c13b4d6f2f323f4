"""Remake the screenshots in docs/img from the current code (headless Chromium).

    python docs/img/screenshots.py boards
    python docs/img/screenshots.py report out/table6-small/report.html
    python docs/img/screenshots.py web out/values5x5.db out/reversi.db [STUDY.db ...]
    python docs/img/screenshots.py pieces
    python docs/img/screenshots.py watch EXPERIMENT.toml

``boards`` draws a 5×5 and a 9×9 position with ``Position._repr_svg_`` (last move shaded, side to
move marked); ``report`` photographs a report page; ``web`` starts ``komaken serve`` with the
databases (the first: a lab experiment with stored games; any piece-values study databases after
the second) and photographs every page with Playwright, each once its content is drawn;
``watch`` photographs an engine match on the Play page and the experiment (given to ``komaken
serve --experiment`` with a database in a temporary folder) started from the Experiments page
and followed while it plays.
``pieces`` photographs the piece sets in a browser with and without Japanese fonts (a fontconfig
that lists only DejaVu), at 1366×768 and 390×844.
Chromium needs Japanese fonts for the kanji (Debian: ``apt-get install fonts-ipafont-mincho fonts-ipafont-gothic``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


def shoot(page: Path | str, png: Path, width: int, height: int) -> None:
    subprocess.run([*CHROMIUM, f"--window-size={width},{height}", f"--screenshot={png}", str(page)],
                   check=True, capture_output=True, timeout=120)
    print(png)


def boards() -> None:
    from komaken.shogi import Position

    games = {
        "board-5x5": ("minishogi", "5d5c 1b1c 5c5b 1c1d 5b5a+ 4a5b 5a4a"),
        "board-9x9": ("shogi", "7g7f 3c3d 8h2b+ 3a2b B*4e 4a3b"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, (variant, moves) in games.items():
            pos = Position.start(variant)
            for move in moves.split():
                pos.push_usi(move)
            svg = pos._repr_svg_()
            width, height = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', svg).groups())  # type: ignore[union-attr]
            page = Path(tmp) / f"{name}.svg"
            page.write_text(svg, encoding="utf-8")
            shoot(page, HERE / f"{name}.png", width, height)


def report(page: str) -> None:
    """The top (summary and table) and the figures section on its own page (same styles)."""
    shoot(Path(page).resolve(), HERE / "report.png", 1400, 1500)
    text = Path(page).read_text(encoding="utf-8")
    head = text[: text.index("<body>") + len("<body>")]
    start = text.index("<h2>Figures</h2>")
    end = text.index("<h2>", start + 5)
    with tempfile.TemporaryDirectory() as tmp:
        figures = Path(tmp) / "figures.html"
        figures.write_text(head + text[start:end] + "</body></html>", encoding="utf-8")
        shoot(figures, HERE / "report-figures.png", 1400, 1500)


def web(dbs: list[str]) -> None:
    """web_play (shogi, the engine thinking), web_chess, web_experiments, web_games, web_reports
    and, given study databases, web_study."""
    sys.path.insert(0, str(HERE.parent.parent / "tests"))
    from playwright.sync_api import sync_playwright

    from web_support import Server

    with tempfile.TemporaryDirectory() as tmp, Server([a for d in dbs for a in ("--db", d)], Path(tmp) / "log") as srv:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM[1:])
            page = browser.new_page(viewport={"width": 1200, "height": 860})
            page.set_default_timeout(150_000)
            _web_play(page, srv.url)
            _web_chess(page, srv.url)
            page.goto("about:blank")  # a fresh page: the play page's event streams closed
            page.goto(srv.url + "/#experiments")
            bodies = "[...document.querySelectorAll('.exp-body')]"
            page.wait_for_function(f"document.querySelectorAll('.exp table').length >= {min(2, len(dbs))} && "
                                   f"{bodies}.every(b => b.textContent !== 'loading…')")
            _shot(page, "web_experiments")
            page.goto("about:blank")
            page.goto(srv.url + "/#games/0")
            page.wait_for_selector("tr.game-row")
            page.click("tr.game-row >> nth=2")
            page.wait_for_selector("#replay:not([hidden])")
            for _ in range(12):
                page.keyboard.press("ArrowRight")
            page.wait_for_function("document.querySelector('#r-ply').textContent.startsWith('ply 12')")
            _shot(page, "web_games")
            _web_report(page, srv.url, 0, "web_reports")
            if len(dbs) > 2:
                _web_report(page, srv.url, 2, "web_study")
            browser.close()


def pieces() -> None:
    """web_pieces_*: a 9×9 game after a bishop exchange (a horse, a bishop in hand) in each set."""
    import os

    sys.path.insert(0, str(HERE.parent.parent / "tests"))
    from playwright.sync_api import sync_playwright

    from web_support import Server

    shots = [("web_pieces_builtin_nocjk", "builtin", False, (1366, 768)),
             ("web_pieces_international_nocjk", "international", False, (1366, 768)),
             ("web_pieces_font_nocjk", "font", False, (1366, 768)),
             ("web_pieces_font", "font", True, (1366, 768)),
             ("web_pieces_phone", "builtin", True, (390, 844)),
             ("web_pieces_phone_international_nocjk", "international", False, (390, 844))]
    with tempfile.TemporaryDirectory() as tmp, Server([], Path(tmp) / "log") as srv, sync_playwright() as pw:
        conf = Path(tmp) / "fonts.conf"
        conf.write_text(f"<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>{tmp}/c</cachedir>"
                        "</fontconfig>", encoding="utf-8")
        browsers = {fonts: pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM[1:],
                                              env=None if fonts else {**os.environ, "FONTCONFIG_FILE": str(conf)})
                    for fonts in (True, False)}
        for name, piece_set, fonts, (width, height) in shots:
            p: Any = browsers[fonts].new_page(viewport={"width": width, "height": height})
            p.goto(f"{srv.url}/?pieces={piece_set}#play")
            p.wait_for_selector(f"body[data-pieces='{piece_set}']", state="attached")
            p.wait_for_selector("#game-select option[value='shogi']", state="attached")
            p.select_option("#white-kind", "human")
            p.click("#start-btn")
            for n, (frm, to) in enumerate((("7g", "7f"), ("3c", "3d"), ("8h", "2b"), ("3a", "4b")), 1):
                p.click(f"#board [data-sq='{frm}']")
                p.click(f"#board [data-sq='{to}']")
                if to == "2b":
                    p.click("#promo-choices button[data-choice='成']")
                p.wait_for_function(f"play.state.moves.length >= {n}")
            p.wait_for_timeout(300)
            _shot(p, name)
            p.close()
        for b in browsers.values():
            b.close()


def _shot(page: object, name: str, full: bool = False) -> None:
    page.screenshot(path=str(HERE / f"{name}.png"), full_page=full)  # type: ignore[attr-defined]
    print(HERE / f"{name}.png")


def _web_play(page: object, url: str) -> None:
    p: Any = page
    p.goto(url + "/#play")
    p.wait_for_selector("#game-select option[value='shogi']", state="attached")
    p.select_option("#game-select", "shogi")
    p.fill("#white-movetime", "4")
    p.click("#start-btn")
    p.wait_for_function("play.state && play.state.legal.length > 0")
    for frm, to in (("7g", "7f"), ("2g", "2f"), ("6i", "7h"), ("2f", "2e")):
        n = p.evaluate("play.state.moves.length")
        p.click(f"#board [data-sq='{frm}']")
        p.click(f"#board [data-sq='{to}']")
        if to == "2e":  # while the engine thinks: depth, score and principal variation
            p.wait_for_function("play.state.thinking && play.state.thinking.depth >= 4 && "
                                "play.state.thinking.pv.length > 1")
            _shot(p, "web_play")
        p.wait_for_function(f"play.state.moves.length >= {n + 2}")


def _web_chess(page: object, url: str) -> None:
    p: Any = page
    p.goto("about:blank")
    p.goto(url + "/#play")
    p.wait_for_selector("#game-select option[value='chess']", state="attached")
    p.select_option("#game-select", "chess")
    p.fill("#black-depth", "3")
    p.click("#start-btn")
    p.wait_for_function("play.state && play.state.legal.length > 0")
    for frm, to in (("e2", "e4"), ("g1", "f3"), ("f1", "c4"), ("d2", "d3")):
        n = p.evaluate("play.state.moves.length")
        if not p.evaluate(f"play.state.legal.some(m => m.id === '{frm}{to}')"):  # the engine's reply forbade it
            frm, to = p.evaluate("[play.state.legal[0].from, play.state.legal[0].to]")
        p.click(f"#board [data-sq='{frm}']")
        p.click(f"#board [data-sq='{to}']")
        p.wait_for_function(f"play.state.moves.length >= {n + 2} && play.state.legal.length > 0")
    p.click("#board [data-sq='b1']")  # a selected knight shows its legal squares
    _shot(p, "web_chess")


def _web_report(page: object, url: str, index: int, name: str) -> None:
    p: Any = page
    p.goto("about:blank")
    p.goto(url + f"/#reports/{index}")
    p.wait_for_selector("#report[data-ready] .report-doc", timeout=300_000)
    imgs = "[...document.querySelectorAll('#report figure img')]"
    p.wait_for_function(f"{imgs}.length > 0 && {imgs}.every(i => i.complete && i.naturalWidth > 0)")
    _shot(p, name, full=True)


def watch(toml: str) -> None:
    """web_watch_play (minishogi, engine against engine to the end, the last score shown) and web_watch_run (the
    experiment's games in flight), each at 1366×768."""
    sys.path.insert(0, str(HERE.parent.parent / "tests"))
    from playwright.sync_api import sync_playwright

    from web_support import Server

    with tempfile.TemporaryDirectory() as tmp, \
            Server(["--experiment", toml, str(Path(tmp) / "run.db")], Path(tmp) / "log") as srv:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM[1:])
            p: Any = browser.new_page(viewport={"width": 1366, "height": 768})
            p.set_default_timeout(150_000)
            p.goto(srv.url + "/#play")
            p.wait_for_selector("#game-select option[value='minishogi']", state="attached")
            p.select_option("#game-select", "minishogi")
            for side in ("black", "white"):
                p.select_option(f"#{side}-kind", "engine")
            p.fill("#black-depth", "4")  # after both kinds: choosing a kind redraws both sides' settings
            p.fill("#white-depth", "3")
            p.click("#start-btn")
            p.wait_for_function("play.state && !!play.state.outcome")
            _shot(p, "web_watch_play")
            p.goto("about:blank")
            p.goto(srv.url + "/#experiments")
            p.click("#exp-0 .run-start")
            p.wait_for_function("(document.querySelectorAll('#exp-0 .live-game').length >= 1) && "
                                "Number(document.querySelector('#exp-0 .live-game').dataset.plies) >= 12 && "
                                "!!document.querySelector('#exp-0 .exp-body table')")
            _shot(p, "web_watch_run")
            p.click("#exp-0 .run-stop")
            p.wait_for_function("document.querySelector('#exp-0 .run-state').dataset.state === 'stopped'")
            browser.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["web"] and len(sys.argv) >= 3:
        web(sys.argv[2:])
    elif sys.argv[1:2] == ["pieces"]:
        pieces()
    elif sys.argv[1:2] == ["watch"] and len(sys.argv) == 3:
        watch(sys.argv[2])
    elif sys.argv[1:2] == ["boards"]:
        boards()
    elif sys.argv[1:2] == ["report"] and len(sys.argv) >= 3:
        report(sys.argv[2])
    else:
        sys.exit(__doc__)
