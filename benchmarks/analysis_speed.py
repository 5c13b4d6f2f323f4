"""Analysis speed: positions analysed per second at a given time per position, and the time to the
first graph point — komaken's analysis against Fairy-Stockfish analysing the same positions.

    .venv/bin/python benchmarks/analysis_speed.py                     # 0.1 s a position, MultiPV 1 and 3
    .venv/bin/python benchmarks/analysis_speed.py --time 0.5 --multipv 1
    .venv/bin/python benchmarks/analysis_speed.py --shot docs/img      # also the Analysis page screenshot

1. Core: :class:`komaken.analysis.GameAnalysis` over a 102-ply pro game from the shared corpus
   (``sunfish4/kifu09136.csa``): positions per second, the mean depth reached, and the time from
   the start of the analysis (engine made, kernels loaded) to its first position.  The peer, in
   the same run on the same positions: Fairy-Stockfish (USI, ``go movetime``, one thread, MultiPV
   as ours) — positions per second and mean depth.  With a time per position both are bounded by
   the time, so the ratio says how much of the allowed time each uses; the depths say what it bought.
2. Web: a real ``komaken serve``; the record is posted to ``/api/analysis`` and the event stream
   read: the time to the first ``ply`` event (the graph's first point) and to ``done``.
3. ``--shot DIR``: the Analysis page in Chromium at 1366×768 after the analysis, as docs/web.md shows it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "tests"))
from komaken import records  # noqa: E402
from komaken.analysis import GameAnalysis  # noqa: E402
from komaken.games import find_game  # noqa: E402
from komaken.usi.client import UsiProcess  # noqa: E402
from web_support import Server  # noqa: E402

GAME = Path("/work/shared/corpus/records/sunfish4/kifu09136.csa")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def ours(seconds: float, multipv: int) -> dict[str, float]:
    rec = records.read(GAME)
    t0 = time.perf_counter()
    analysis = GameAnalysis(find_game("shogi"), rec.initial_position(), rec.moves, seconds=seconds, multipv=multipv)
    first = None
    depths = []
    for item in analysis:
        if first is None:
            first = time.perf_counter() - t0
        if item.lines:
            depths.append(item.depth)
    total = time.perf_counter() - t0
    return {"positions/s": analysis.total / total, "depth": statistics.mean(depths), "first": first or 0.0,
            "seconds": total}


def fairy(seconds: float, multipv: int) -> dict[str, float] | None:
    command = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"
    if not Path(command).exists():
        print("  (no fairy-stockfish: apt-get install fairy-stockfish for the peer's figures)")
        return None
    rec = records.read(GAME)
    usi = [m.usi() for m in rec.moves]
    t0 = time.perf_counter()
    eng = UsiProcess([command], name="fairy-stockfish")
    try:
        eng.handshake({"UCI_Variant": "shogi", "Threads": "1", "MultiPV": str(multipv)}, timeout=60)
        first = None
        depths = []
        for k in range(len(usi) + 1):
            eng.send("position startpos" + (" moves " + " ".join(usi[:k]) if k else ""))
            eng.send(f"go movetime {max(1, round(seconds * 1000))}")  # milliseconds on the USI line
            lines = eng.until("bestmove", 60)
            if first is None:
                first = time.perf_counter() - t0
            infos = [ln.split() for ln in lines if ln.startswith("info") and " depth " in ln]
            if infos:
                depths.append(int(infos[-1][infos[-1].index("depth") + 1]))
        total = time.perf_counter() - t0
        return {"positions/s": (len(usi) + 1) / total, "depth": statistics.mean(depths) if depths else 0,
                "first": first or 0.0, "seconds": total}
    finally:
        eng.close()


def web(seconds: float, multipv: int, shot: Path | None) -> dict[str, float]:
    text = GAME.read_bytes().decode("utf-8", errors="replace")
    log = HERE / "out" / "analysis_speed_server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with Server([], log) as srv:
        t0 = time.perf_counter()
        r = httpx.post(srv.url + "/api/analysis", json={"record": text, "seconds": seconds, "multipv": multipv},
                       headers=srv.origin, timeout=60)
        r.raise_for_status()
        aid = r.json()["id"]
        started = time.perf_counter() - t0
        first = None
        with httpx.stream("GET", f"{srv.url}/api/analysis/{aid}/events", timeout=httpx.Timeout(120.0)) as s:
            for line in s.iter_lines():
                if not line.startswith("data: "):
                    continue
                event = json.loads(line[6:])
                if event["type"] == "ply" and first is None:
                    first = time.perf_counter() - t0
                if event["type"] == "done":
                    break
        done = time.perf_counter() - t0
        if shot is not None:
            screenshot(srv.url, text, seconds, multipv, shot)
    return {"accepted": started, "first": first or 0.0, "done": done}


def screenshot(url: str, text: str, seconds: float, multipv: int, folder: Path) -> None:
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 - only for --shot

    folder.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(url + "/#analysis")
        page.wait_for_selector("#an-game option[value='shogi']", state="attached")
        page.fill("#an-record", text)
        page.fill("#an-seconds", str(seconds))
        page.fill("#an-multipv", str(multipv))
        page.click("#an-start")
        page.wait_for_function("an.job && !an.job.running", timeout=600_000)
        page.locator("#an-svg .pt[data-ply='61']").dispatch_event("click")
        page.screenshot(path=str(folder / "web_analysis.png"))
        browser.close()
    print(f"  wrote {folder / 'web_analysis.png'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--time", type=float, default=0.1, help="seconds a position (default 0.1)")
    ap.add_argument("--multipv", type=int, action="append", help="lines a position (default: 1 and 3)")
    ap.add_argument("--shot", type=Path, default=None, help="write the Analysis page's screenshot here")
    a = ap.parse_args()
    print(f"{GAME.name}: 103 positions, {a.time:g} s a position")
    for multipv in a.multipv or [1, 3]:
        mine, peer = ours(a.time, multipv), fairy(a.time, multipv)
        print(f"MultiPV {multipv}")
        print(f"  komaken          {mine['positions/s']:6.2f} positions/s  mean depth {mine['depth']:5.1f}  "
              f"first position after {mine['first']:.2f} s  ({mine['seconds']:.1f} s in all)")
        if peer is not None:
            print(f"  fairy-stockfish  {peer['positions/s']:6.2f} positions/s  mean depth {peer['depth']:5.1f}  "
                  f"first position after {peer['first']:.2f} s  ({peer['seconds']:.1f} s in all)")
            print(f"  ratio (komaken / fairy-stockfish): {mine['positions/s'] / peer['positions/s']:.2f}× the "
                  f"positions/s, {mine['depth'] - peer['depth']:+.1f} plies of depth")
    w = web(a.time, (a.multipv or [1])[0], a.shot)
    print(f"web (komaken serve): answered the POST in {w['accepted']:.2f} s, first graph point after "
          f"{w['first']:.2f} s, all 103 after {w['done']:.1f} s")


if __name__ == "__main__":
    main()
