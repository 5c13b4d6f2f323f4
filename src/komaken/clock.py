"""Game clocks: main time plus byoyomi (秒読み) or a Fischer increment, per side, in seconds.

A :class:`TimeControl` is what a side gets: ``main`` seconds for the whole game, then either
``byoyomi`` seconds for every move once the main time is spent (unused byoyomi is lost, the next
move gets it whole again) or an ``increment`` added after each move (Fischer); neither is sudden
death.  A :class:`Clock` runs the two sides' controls during one game — the game loop
(:func:`komaken.match.play_game`) starts the mover's clock when it asks for a move and stops it
when the answer arrives; a side whose answer comes after its :meth:`Clock.allowed` time loses on
time (``TIME_FORFEIT``, 切れ負け).  A player is told the clock as a :class:`TimeLeft` (the fields
of a USI ``go``: ``btime wtime byoyomi binc winc``, here in seconds) so an engine plans its move
from the real remaining time.

>>> TimeControl(600, byoyomi=30).text(), TimeControl(300, increment=5).text()
('600 s + 30 s byoyomi', '300 s + 5 s increment')
>>> clock = Clock((TimeControl(10, byoyomi=5), TimeControl(10, increment=2)), now=lambda: 0.0)
>>> clock.allowed(Color.BLACK), clock.allowed(Color.WHITE)
(15.0, 10.0)
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Color

#: the longest main time, byoyomi or increment a control takes (about 11.5 days): far beyond any
#: game, so a larger figure is a typing slip
MAX_SECONDS = 1_000_000.0


class ClockError(KomakenError):
    """A time control that cannot be used: negative, not finite, absurdly long, or byoyomi and
    an increment both."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """``main`` seconds, then ``byoyomi`` seconds a move, or plus ``increment`` seconds a move."""

    main: float = 0.0
    byoyomi: float = 0.0
    increment: float = 0.0

    def __post_init__(self) -> None:
        for name in ("main", "byoyomi", "increment"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ClockError(f"clock {name}: {value!r} is not a number of seconds")
            if not math.isfinite(value) or not 0 <= value <= MAX_SECONDS:
                raise ClockError(f"clock {name}: {value:g} s is not within 0..{MAX_SECONDS:.0f} s")
            object.__setattr__(self, name, float(value))
        if self.byoyomi and self.increment:
            raise ClockError("clock: give byoyomi or an increment, not both")
        if not (self.main or self.byoyomi or self.increment):
            raise ClockError("clock: no time at all (main time, byoyomi and increment are all 0)")

    def text(self) -> str:
        """``600 s + 30 s byoyomi``."""
        main = f"{self.main:g} s"
        if self.byoyomi:
            return f"{main} + {self.byoyomi:g} s byoyomi"
        if self.increment:
            return f"{main} + {self.increment:g} s increment"
        return main

    def to_json(self) -> dict[str, float]:
        return {"main": self.main, "byoyomi": self.byoyomi, "increment": self.increment}


#: the time manager's rules (``docs/engine.md``, time management) for every engine that plans from a clock
MIN_SECONDS = 0.001  # the shortest budget: one millisecond
MOVES_TO_GO = {"sudden_death": 15, "byoyomi": 40}
SOFT_FRACTION = 0.8
MAX_FRACTION = 0.1  # of the usable main time, on any one move
BYOYOMI_MARGIN = (0.1, 0.06)  # fraction of the byoyomi, capped at this many seconds
RESERVE = (0.05, 1.0)  # sudden death: keep this fraction of the main time, capped at this many seconds


def clock_budget(remaining: float, inc: float, byoyomi: float, overhead: float = 0.03) -> tuple[float, float]:
    """``(soft, hard)`` seconds for one move with ``remaining`` main time, increment ``inc`` and
    ``byoyomi`` (each ≥ 0) when the move costs ``overhead`` seconds besides the thinking."""
    remaining, inc, byoyomi, overhead = (max(0.0, float(x)) for x in (remaining, inc, byoyomi, overhead))
    byo = max(0.0, byoyomi - min(BYOYOMI_MARGIN[0] * byoyomi, BYOYOMI_MARGIN[1]))
    main = remaining - overhead
    if main < 0:  # the overhead eats into the byoyomi
        byo, main = max(0.0, byo + main), 0.0
    if byoyomi > 0:
        usable, mtg = main, MOVES_TO_GO["byoyomi"]
    else:
        usable, mtg = max(0.0, main - min(RESERVE[0] * main, RESERVE[1])), MOVES_TO_GO["sudden_death"]
    target = usable / mtg + inc + byo
    ceiling = usable * MAX_FRACTION + inc + byo
    clock = main + byo  # the increment arrives only after the move
    hard = max(MIN_SECONDS, min(ceiling, 2.0 * target, clock))
    if usable <= 0 and inc <= 0:  # nothing to save: use it all
        return hard, hard
    return max(MIN_SECONDS, min(SOFT_FRACTION * target, hard)), hard


#: lateness an engine gets for free (the move overhead is there for it); past it the margin grows
LAG_ALLOWANCE = 0.01
LAG_DECAY = 0.95  # per move: a late answer widens the margin for the next few dozen moves
LAG_CAP = 0.5  # seconds: the most the margin grows, whatever was seen


class StopLag:
    """An adaptive safety margin from how late an engine's own answers came.

    After each move bound by time the engine reports :meth:`observe` with how long after its
    hard deadline the answer was written (negative or small on a machine that runs the engine).
    :attr:`margin` is the peak of the lateness beyond :data:`LAG_ALLOWANCE`, decaying by
    :data:`LAG_DECAY` a move, at most :data:`LAG_CAP`: the engine adds it to its move overhead, so
    a machine that has just been too busy to stop a search on time gets earlier stops for the
    next few dozen moves, and a quiet one keeps the full budget.

    >>> lag = StopLag()
    >>> lag.observe(0.004); lag.margin          # 4 ms late: within the allowance
    0.0
    >>> lag.observe(0.110); round(lag.margin, 3)  # a stall: the next moves stop 100 ms earlier
    0.1
    >>> for _ in range(20): lag.observe(0.002)
    >>> round(lag.margin, 3)                    # and the margin shrinks back as moves come on time
    0.036
    """

    def __init__(self) -> None:
        self.margin = 0.0
        self.worst = -math.inf  # the latest answer seen (seconds past the deadline)
        self.count = 0

    def observe(self, late: float) -> None:
        """An answer was written ``late`` seconds after its hard deadline (negative: before)."""
        if not math.isfinite(late):
            return
        self.count += 1
        self.worst = max(self.worst, late)
        self.margin = min(LAG_CAP, max(late - LAG_ALLOWANCE, self.margin * LAG_DECAY, 0.0))


@dataclass(frozen=True, slots=True)
class TimeLeft:
    """The clocks as the side to move is told them (USI ``go``'s fields, in seconds): each
    side's main time left, the byoyomi of the side to move and each side's increment."""

    btime: float
    wtime: float
    byoyomi: float = 0.0
    binc: float = 0.0
    winc: float = 0.0

    def budget(self, color: Color, overhead: float = 0.03) -> tuple[float, float]:
        """``(soft, hard)`` seconds ``color`` (the side to move) may think on this move: after
        ``soft`` no new iteration of iterative deepening starts, ``hard`` is never passed.  The
        rules of the shogi engine's time manager (``docs/engine.md``): byoyomi used in full less
        10 % (at most 60 ms); main time spread over 15 moves (40 when byoyomi follows) after a
        5 % reserve (at most 1 s) in sudden death; the increment added; never more than a tenth of
        the main time plus increment and byoyomi, twice the target, or what the clock holds.

        >>> [round(t, 3) for t in TimeLeft(3.0, 3.0).budget(Color.BLACK)]
        [0.15, 0.282]
        >>> [round(t, 3) for t in TimeLeft(0.0, 0.0, byoyomi=1.0).budget(Color.WHITE)]
        [0.91, 0.91]
        """
        remaining, inc = (self.btime, self.binc) if color is Color.BLACK else (self.wtime, self.winc)
        return clock_budget(remaining, inc, self.byoyomi, overhead)

    def usi(self) -> str:
        """``btime 60000 wtime 58000 byoyomi 10000`` (milliseconds, as a USI line has them)."""
        ms = [("btime", self.btime), ("wtime", self.wtime)]
        ms += [("byoyomi", self.byoyomi)] if self.byoyomi else [("binc", self.binc), ("winc", self.winc)]
        return " ".join(f"{k} {max(0, int(v * 1000))}" for k, v in ms)


class Clock:
    """The two sides' clocks of one game; ``controls`` is (black's, white's), ``None`` for a
    side that plays without a clock.  ``now`` is the time source (seconds; monotonic)."""

    def __init__(self, controls: tuple[TimeControl | None, TimeControl | None],
                 now: Callable[[], float] = time.monotonic) -> None:
        self.controls = controls
        self.now = now
        self.main = [c.main if c is not None else 0.0 for c in controls]
        self.running: Color | None = None
        self.since = 0.0
        #: the side whose time ran out (its last answer came too late)
        self.flagged: Color | None = None

    def timed(self, color: Color) -> bool:
        return self.controls[color] is not None

    def allowed(self, color: Color) -> float:
        """Seconds ``color`` may take over its next move (from the start of its turn):
        ``inf`` without a clock."""
        tc = self.controls[color]
        if tc is None:
            return math.inf
        return self.main[color] + tc.byoyomi

    def start(self, color: Color) -> None:
        """``color`` is to move: its clock runs from now."""
        self.running, self.since = color, self.now()

    def elapsed(self) -> float:
        """Seconds the running clock has run on this move."""
        return 0.0 if self.running is None else max(0.0, self.now() - self.since)

    def deadline(self) -> float | None:
        """When (on the :attr:`now` scale) the running side's time is up; ``None`` if none runs or
        it has no clock."""
        if self.running is None or not self.timed(self.running):
            return None
        return self.since + self.allowed(self.running)

    def expired(self) -> bool:
        """Whether the running side's time is up (the move has not come yet)."""
        deadline = self.deadline()
        return deadline is not None and self.now() > deadline

    def stop(self, spent: float | None = None) -> bool:
        """The running side has answered after ``spent`` seconds (default: measured): its main
        time is charged, byoyomi restarts or the increment is added.  ``False`` when the answer
        came too late: the side is :attr:`flagged` and its clock reads 0."""
        color = self.running
        if color is None:
            return True
        spent = self.elapsed() if spent is None else max(0.0, spent)
        self.running = None
        tc = self.controls[color]
        if tc is None:
            return True
        if spent > self.allowed(color):
            self.main[color] = 0.0
            self.flagged = color
            return False
        self.main[color] = max(0.0, self.main[color] - spent) + tc.increment
        return True

    def cancel(self) -> None:
        """The running side's turn ended without a move (a request served, a move taken back):
        the time it used stays charged (a take-back does not give time back), nobody is flagged."""
        color = self.running
        if color is None:
            return
        tc = self.controls[color]
        if tc is not None:
            self.main[color] = max(0.0, self.main[color] - self.elapsed())
        self.running = None

    def left(self, color: Color) -> TimeLeft | None:
        """What ``color`` is told when asked for a move (now, before its clock starts)."""
        tc = self.controls[color]
        if tc is None:
            return None
        other = self.controls[color.other]
        mine, theirs = self.main[color], self.main[color.other] if other is not None else self.main[color]
        inc, their_inc = tc.increment, (other.increment if other is not None else tc.increment)
        b, w = (mine, theirs) if color is Color.BLACK else (theirs, mine)
        binc, winc = (inc, their_inc) if color is Color.BLACK else (their_inc, inc)
        return TimeLeft(b, w, tc.byoyomi, binc, winc)

    def to_json(self) -> list[dict[str, Any] | None]:
        """Each side's clock as a page shows it, read now: ``main`` (main time left),
        ``byoyomi`` (the byoyomi left on this move, ``None`` while main time lasts),
        ``running`` and the control."""
        out: list[dict[str, Any] | None] = []
        for color in (Color.BLACK, Color.WHITE):
            tc = self.controls[color]
            if tc is None:
                out.append(None)
                continue
            used = self.elapsed() if self.running is color else 0.0
            main = max(0.0, self.main[color] - used)
            byo = None
            if tc.byoyomi and main <= 0:
                byo = max(0.0, tc.byoyomi - max(0.0, used - self.main[color]))
            out.append({"main": round(main, 3), "byoyomi": None if byo is None else round(byo, 3),
                        "running": self.running is color, "flagged": self.flagged is color,
                        "control": tc.to_json(), "text": tc.text()})
        return out


def display(seconds: float) -> str:
    """A clock reading: ``9:58``, ``1:02:03``, ``0:04.2`` under ten seconds.

    >>> display(598.4), display(3723), display(4.25), display(0)
    ('9:58', '1:02:03', '0:04.2', '0:00.0')
    """
    if seconds < 10:
        tenths = int(max(0.0, seconds) * 10)
        return f"0:{tenths // 10:02}.{tenths % 10}"
    s = int(seconds)
    h, m, s = s // 3600, s // 60 % 60, s % 60
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"


def settle_garbage() -> None:
    """Collect garbage now, while no clock runs, and exempt what survives from later collections.

    A full collection of the interpreter's 120 000 objects (numba's among them) holds the
    interpreter lock for 50 ms, 90 ms on a loaded machine; when it struck during a search it held
    up the stop and the answer by as much (``komaken usi`` calls this at ``isready``, a web game
    before its clocks start).  After :func:`gc.freeze` a collection looks only at the
    objects made since (a game's few), so none costs the clock anything; the first call pays
    for the one full collection, each later one for the objects made since the last."""
    gc.collect()
    gc.freeze()


__all__ = ["MAX_SECONDS", "Clock", "ClockError", "StopLag", "TimeControl", "TimeLeft", "display", "settle_garbage"]
