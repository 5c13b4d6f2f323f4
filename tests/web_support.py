"""Shared by the web tests: a real ``komaken serve`` on a free loopback port, small experiments."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

#: the Chromium the browser tests drive (Debian's; ``KOMAKEN_CHROMIUM`` names another)
CHROMIUM = Path(os.environ.get("KOMAKEN_CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def launch(pw: Any, **options: Any) -> Any:
    """A headless :data:`CHROMIUM` started by Playwright ``pw`` (``options``: e.g. ``env``)."""
    return pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, timeout=30_000, **options)

SMALL_TOML = """
[experiment]
name = "web-small"
variant = "minishogi"
games = {games}
seed = 7
max_plies = 80

[players.d1]
engine = "engine"
depth = 1

[players.rnd]
{opponent}

[[pairings]]
a = "d1"
b = "rnd"
colors = "alternate"
sprt = {{ elo0 = 0, elo1 = 50 }}

[[pairings]]
a = "rnd"
b = "d1"
colors = "fixed"
"""


def your_move(page: Any, moves: int = 0) -> None:
    """Wait until the game loop asks the person for a move, with at least ``moves`` moves played:
    the board (and an engine's reply) is drawn before the legal moves arrive, and a click or drag
    before that selects nothing."""
    page.wait_for_function(f"!!(play.state && play.state.id) && play.state.moves.length >= {moves} && "
                           "(play.state.legal.length > 0 || !!play.state.outcome)")


def boxes(page: Any, selectors: list[str]) -> list[dict[str, float] | None]:
    """Where each selector's element is drawn (``x``, ``y``, ``width``, ``height`` in the viewport),
    ``None`` for one absent or not drawn, all measured in one script: the page redraws parts of
    itself on each state it receives, and an element looked up before a redraw is gone after it."""
    return page.evaluate("""(sels) => sels.map(s => {
        const e = document.querySelector(s);
        const r = e && e.getBoundingClientRect();
        return r && r.width > 0 && r.height > 0 ? {x: r.x, y: r.y, width: r.width, height: r.height} : null;
    })""", selectors)


def write_experiment(folder: Path, games: int, opponent: str = 'engine = "random"') -> Path:
    """``small.toml``: ``games`` games of a depth-1 engine against the player ``rnd``, whose table
    is ``opponent`` (by default the random player)."""
    path = folder / "small.toml"
    path.write_text(SMALL_TOML.format(games=games, opponent=opponent), encoding="utf-8")
    return path


def play_experiment(toml: Path, db: Path) -> None:
    """The finished database ``komaken experiment run TOML --db DB -j 1`` leaves, played in this
    process (one worker plays inline: the same code without a second interpreter loading the
    kernels).  Only for tests that read the finished database; a run *watched* while it writes
    stays a subprocess."""
    from komaken.lab import load_experiment, run_experiment

    run_experiment(load_experiment(toml), db, workers=1)


#: What the page's own requests carry: the web server refuses a state-changing request without it.
SAME_ORIGIN = {"Origin": "http://testserver"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``komaken serve`` in a subprocess: ``with Server(args) as srv: srv.url``."""

    def __init__(self, args: list[str], log: Path) -> None:
        self.args = args
        self.log = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.origin = {"Origin": self.url}
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        self._fh = self.log.open("wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "komaken", "serve", "--port", str(self.port), *self.args],
                                     stdout=self._fh, stderr=subprocess.STDOUT, env={**os.environ, "CI": "true"})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text(errors='replace')}")
            try:
                if httpx.get(self.url + "/api/games", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("server did not answer within 60 s")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._fh.close()


def sse_events(url: str, deadline: float, limit: int = 1000) -> Iterator[dict[str, Any]]:
    """The JSON events of a server-sent event stream until ``deadline`` (monotonic seconds)."""
    with httpx.stream("GET", url, timeout=httpx.Timeout(30.0)) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        n = 0
        for line in r.iter_lines():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no expected event from {url} in time")
            if line.startswith("data: "):
                yield json.loads(line[6:])
                n += 1
                if n >= limit:
                    return


def wait_until(fn: Any, timeout: float, what: str, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
