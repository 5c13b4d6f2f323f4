"""A terminal progress display: bar with ETA and games/s, and live W/L/D per pairing (rich)."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as RichBar
from rich.table import Table

from komaken.lab.runner import PairingCounts
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
                f"{score:.1%}" if c.games else "-",
                c.sprt or "",
            )
        if len(self._counts) > MAX_ROWS:
            table.add_row(f"… {len(self._counts) - MAX_ROWS} more pairings", "", "", "", "", "", "")
        return Group(self._bar, table)
