"""Progress of a run: a live terminal display (rich), or progress lines for logs.

On a terminal :class:`RichProgress` shows a bar with ETA and games/s and live W/L/D per
pairing.  Anywhere else — under ``nohup``, in CI, redirected to a file — :class:`LineProgress`
prints one plain line at intervals (every 10 s by default), so a long run is never silent::

    2026-11-22T05:31:02Z progress: 120/3900 games (3.1%) · 2.05 games/s · elapsed 58s · ETA 30m44s
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as RichBar
from rich.table import Table

from komaken.lab.runner import PairingCounts
from komaken.lab.stats import format_pct
from komaken.lab.storage import GameRow

MAX_ROWS = 20  # pairings shown live; the rest are summarized in one line


class RichProgress:
    """Implements :class:`komaken.lab.runner.Progress`; use only when the console is a terminal."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._bar = RichBar(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
        )
        self._task: Any = None
        self._live: Live | None = None
        self._counts: list[PairingCounts] = []
        self._played = 0

    def start(self, total: int, done: int, counts: list[PairingCounts]) -> None:
        self._counts = counts
        self._task = self._bar.add_task("games", total=total, completed=done, rate="")
        self._live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False)
        self._live.start()

    def advance(self, row: GameRow, counts: list[PairingCounts]) -> None:
        self._counts = counts
        self._played += 1
        task = self._bar.tasks[0]
        elapsed = task.elapsed or 0.0
        rate = f"{self._played / elapsed:.2f} games/s" if elapsed > 0 else ""
        self._bar.update(self._task, advance=1, rate=rate)
        if self._live is not None:
            self._live.update(self._render())

    def stop(self) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()
            self._live = None

    def _render(self) -> Group:
        table = Table(box=None, pad_edge=False)
        for col in ("pairing", "games", "W", "L", "D", "score", "SPRT"):
            table.add_column(col, justify="left" if col == "pairing" else "right")
        for c in self._counts[:MAX_ROWS]:
            score = (c.a_wins + c.draws / 2) / c.games if c.games else 0.0
            table.add_row(
                c.name,
                f"{c.games}/{c.target}",
                str(c.a_wins),
                str(c.b_wins),
                str(c.draws),
                format_pct(score) if c.games else "-",
                c.sprt or "",
            )
        if len(self._counts) > MAX_ROWS:
            table.add_row(f"… {len(self._counts) - MAX_ROWS} more pairings", "", "", "", "", "", "")
        return Group(self._bar, table)


class LineProgress:
    """Implements :class:`komaken.lab.runner.Progress` as plain lines on ``stream`` (default
    stderr): one when the run starts, then at most one every ``interval`` seconds as games
    finish, and a last one when it stops.  ``interval=0`` prints a line after every game."""

    def __init__(self, stream: TextIO | None = None, interval: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.interval = interval
        self._clock = clock
        self._t0 = self._last = 0.0
        self._total = self._done = self._played = 0

    def start(self, total: int, done: int, counts: list[PairingCounts]) -> None:
        self._t0 = self._last = self._clock()
        self._total, self._done, self._played = total, done, 0
        self._emit("started")

    def advance(self, row: GameRow, counts: list[PairingCounts]) -> None:
        self._played += 1
        self._done += 1
        now = self._clock()
        if now - self._last >= self.interval:
            self._last = now
            self._emit()

    def stop(self) -> None:
        self._emit("finished" if self._done >= self._total else "stopped")

    def line(self, note: str = "") -> str:
        """The progress line as it would be printed now (without the timestamp)."""
        elapsed = self._clock() - self._t0
        pct = 100 * self._done / self._total if self._total else 100.0
        parts = [f"progress: {self._done}/{self._total} games ({pct:.1f}%)"]
        if self._played and elapsed > 0:
            rate = self._played / elapsed
            parts.append(f"{rate:.2f} games/s")
            parts.append(f"elapsed {_duration(elapsed)}")
            left = self._total - self._done
            if left > 0:
                parts.append(f"ETA {_duration(left / rate)}")
        if note:
            parts.append(note)
        return " · ".join(parts)

    def _emit(self, note: str = "") -> None:
        stamp = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        stream = self.stream or sys.stderr
        print(f"{stamp} {self.line(note)}", file=stream, flush=True)


def _duration(seconds: float) -> str:
    """``58s``, ``30m44s``, ``2h03m``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
