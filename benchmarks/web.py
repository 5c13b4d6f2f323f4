"""Web server figures: paging a 100 000-game database, page load, and a move answered in the browser.

    .venv/bin/python benchmarks/web.py                 # all figures
    .venv/bin/python benchmarks/web.py --games 20000   # a smaller database
    .venv/bin/python benchmarks/web.py --shots docs/img  # also the screenshots of docs/web.md

1. A synthetic experiment database of ``--games`` games (``benchmarks/out/web100k.db``) is written
   once; a real ``komaken serve`` reads it.  Our figure: one page of 50 games (first page, a deep
   page, a filtered page with its count).  The peer, measured in the same run on the same file:
   what a server without paging does — read every row and slice in Python.
2. Page load: Chromium (Playwright) opens each page; we time until its content is on screen.
3. A move answered: a human move clicked on the Play page until the engine's reply is shown,
   against the engine's own time budget (``movetime``).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "tests"))
from komaken.lab import ExperimentDB, load_experiment  # noqa: E402
from komaken.lab.storage import GAME_COLUMNS  # noqa: E402
from web_support import Server, run_experiment, write_experiment  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
REASONS = ("checkmate", "checkmate", "checkmate", "max plies", "repetition", "resignation")


def synthetic_db(path: Path, games: int) -> Path:
    """An experiment database of ``games`` plausible rows (real minishogi openings as moves)."""
    if path.exists():
        with sqlite3.connect(path) as conn:
            if conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == games:
                return path
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    exp = load_experiment(write_experiment(path.parent, games // 2))
    ExperimentDB.create(path, exp).close()
    moves = "2e2d 4a4b 1e1d 2a2b 3e2e 3a3b"
    rows = []
    rng = random.Random(2026)
    for i in range(games):
        pairing, a, b = ("d1-vs-rnd", "d1", "rnd") if i % 2 == 0 else ("rnd-vs-d1", "rnd", "d1")
        result = rng.choices(("a", "b", "draw"), (0.45, 0.35, 0.2) if i % 2 == 0 else (0.3, 0.5, 0.2))[0]
        rows.append((pairing, i // 2, a, b, result, rng.choice(REASONS), "a" if i % 4 < 2 else "b", moves,
                     rng.randint(6, 200), 0, "", round(rng.uniform(0.1, 3), 2), i, 1.7e9 + i))
    with sqlite3.connect(path) as conn:
        conn.executemany(f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) VALUES ({', '.join('?' * 14)})", rows)
    return path


def timed(fn, repeat: int = 7) -> float:  # type: ignore[no-untyped-def]
    """Median milliseconds of ``fn()``."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return statistics.median(out)


def without_paging(path: Path, page: int, per_page: int, where: str = "") -> list[tuple[object, ...]]:
    """The peer: read every matching row, count and slice in Python."""
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as conn:
        rows = conn.execute(f"SELECT * FROM games {where} ORDER BY id DESC").fetchall()
    return rows[(page - 1) * per_page: page * per_page]


def paging(srv: Server, db: Path, games: int) -> None:
    print(f"\n1. paging a database of {games} games (median ms of 7; machine shared with other work)")
    print(f"{'request':<44}{'ours ms':>10}{'no paging ms':>14}{'ratio':>8}")
    deep = games // 50 // 2
    cases = [("first page", {"page": 1}, ""), (f"page {deep}", {"page": deep}, ""),
             ("filter result=draw, page 3", {"result": "draw", "page": 3}, "WHERE result='draw'"),
             ("filter reason + plies, page 1", {"reason": "max plies", "min_plies": 5, "max_plies": 9},
              "WHERE reason='max plies' AND plies BETWEEN 5 AND 9")]
    with httpx.Client(base_url=srv.url, timeout=60) as c:
        for name, params, where in cases:
            q = {"per_page": 50, **params}
            assert c.get("/api/dbs/0/games", params=q).status_code == 200
            ours = timed(lambda q=q: c.get("/api/dbs/0/games", params=q).raise_for_status())
            page = int(params.get("page", 1))
            peer = timed(lambda page=page, where=where: without_paging(db, page, 50, where), repeat=3)
            print(f"{name:<44}{ours:>10.1f}{peer:>14.1f}{peer / ours:>8.1f}")
        status = timed(lambda: c.get("/api/dbs/0").raise_for_status(), repeat=3)
        facets = timed(lambda: c.get("/api/dbs/0/facets").raise_for_status(), repeat=3)
    print(f"{'experiment status (all pairings, W/L/D, CI, SPRT)':<44}{status:>10.1f}")
    print(f"{'filter choices (pairings, distinct reasons)':<44}{facets:>10.1f}")


def browser_figures(srv: Server, shots: Path | None, replay_db_index: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = b.new_page(viewport={"width": 1200, "height": 860})
        page.set_default_timeout(30_000)
        print("\n2. page load in Chromium, until the content is shown (median ms of 5)")
        for name, hash_, ready in [("Play", "#play", "#game-select option"),
                                   ("Experiments", "#experiments", ".exp table"),
                                   ("Games (100 000-game DB, first page)", "#games/0", "tr.game-row"),
                                   ("Reports (100 000-game DB)", "#reports/0", "#report table.report")]:
            def load(hash_: str = hash_, ready: str = ready) -> None:
                page.goto("about:blank")
                page.goto(srv.url + "/" + hash_)
                page.wait_for_selector(ready, state="attached")
            load()
            print(f"   {name:<44}{timed(load, repeat=5):>8.0f} ms")
        print("\n3. a move answered: click → the engine's reply shown (minishogi, engine movetime 0.5 s)")
        lat = move_latency(page, srv.url, 0.5, 8)
        print(f"   median {statistics.median(lat):.0f} ms, max {max(lat):.0f} ms over {len(lat)} moves; budget 500 ms "
              f"+ 200 ms = 700 ms; overhead median {statistics.median(lat) - 500:.0f} ms")
        if shots is not None:
            screenshots(page, srv.url, shots, replay_db_index)
        b.close()


def move_latency(page, url: str, movetime: float, n: int) -> list[float]:  # type: ignore[no-untyped-def]
    page.goto(url + "/#play")
    page.wait_for_selector("#game-select option[value='minishogi']", state="attached")
    page.select_option("#game-select", "minishogi")
    page.fill("#white-movetime", str(movetime))
    page.click("#start-btn")
    page.wait_for_function("play.state && play.state.legal.length > 0")
    out = []
    for k in range(n):
        if page.evaluate("!!play.state.outcome"):
            break
        mv = page.evaluate("(() => { const l = play.state.legal.filter(m => !m.drop && m.from);"
                           " return l[Math.floor(l.length / 2)] || play.state.legal[0]; })()")
        t0 = time.perf_counter()
        if mv["from"]:
            page.click(f"#board [data-sq='{mv['from']}']")
        else:
            page.click(f"#hand-bottom [data-kind='{mv['drop']}']")
        page.click(f"#board [data-sq='{mv['to']}']")
        if page.locator("#promo:not([hidden])").count():
            page.click("#promo [data-choice='成']")
        page.wait_for_function(f"document.querySelectorAll('#moves li').length >= {2 * k + 2} || "
                               "!!play.state.outcome", timeout=30_000)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def screenshots(page, url: str, out: Path, replay_db: int) -> None:  # type: ignore[no-untyped-def]
    out.mkdir(parents=True, exist_ok=True)
    page.goto(url + "/#play")
    page.wait_for_selector("#game-select option[value='shogi']", state="attached")
    page.select_option("#game-select", "shogi")
    page.fill("#white-movetime", "3")
    page.click("#start-btn")
    page.wait_for_function("play.state && play.state.legal.length > 0")
    for frm, to in (("7g", "7f"), ("2g", "2f"), ("6i", "7h"), ("2f", "2e")):
        n = page.evaluate("play.state.moves.length")
        page.click(f"#board [data-sq='{frm}']")
        page.click(f"#board [data-sq='{to}']")
        if to == "2e":  # while the engine thinks: depth, score and principal variation
            page.wait_for_function("play.state.thinking && play.state.thinking.depth >= 4", timeout=30_000)
            page.screenshot(path=str(out / "web_play.png"))
        page.wait_for_function(f"play.state.moves.length >= {n + 2}", timeout=30_000)
    page.goto(url + "/#experiments")
    page.wait_for_function("document.querySelectorAll('.exp table').length === 2")
    page.screenshot(path=str(out / "web_experiments.png"))
    page.goto(url + f"/#games/{replay_db}")
    page.wait_for_selector("tr.game-row")
    page.click("tr.game-row >> nth=0")
    page.wait_for_selector("#replay:not([hidden])")
    for _ in range(9):
        page.keyboard.press("ArrowRight")
    page.screenshot(path=str(out / "web_games.png"))
    page.goto(url + f"/#reports/{replay_db}")
    page.wait_for_selector("#report figure img")
    page.wait_for_function("[...document.querySelectorAll('#report figure img')].every(i => i.naturalWidth > 0)")
    page.screenshot(path=str(out / "web_reports.png"), full_page=True)
    print(f"\nscreenshots in {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--shots", type=Path, default=None, help="write the docs' screenshots into this folder")
    args = ap.parse_args()
    out = HERE / "out"
    t0 = time.perf_counter()
    db = synthetic_db(out / f"web{args.games}.db", args.games)
    print(f"synthetic database: {db} ({args.games} games, {time.perf_counter() - t0:.1f} s)")
    real = out / "web-real.db"
    if not real.exists():
        real_toml = write_experiment(out, 20)
        run_experiment(real_toml, real, timeout=600)
    with Server(["--db", str(db), "--db", str(real)], out / "web-server.log") as srv:
        paging(srv, db, args.games)
        browser_figures(srv, args.shots, 1)


if __name__ == "__main__":
    main()
