"""Time management: how long to think on one move, from the clock (all times in seconds).

:func:`clock_budget` turns a side's clock — main time left, Fischer increment, byoyomi — into
``(soft, hard)``: after an iteration of iterative deepening ends past ``soft`` no new one starts;
at ``hard`` the search is stopped (a partly searched depth still contributes a better root move
whose subtree finished).

The rules, in order:

* **Overhead.**  ``overhead`` (USI ``MoveOverhead``, 30 ms by default) is what the move loses to
  pipes and process switches; ``komaken usi`` adds the margin its late answers have earned
  (:class:`komaken.clock.StopLag`).  It is taken from the main time when there is some, else from
  the byoyomi.
* **Byoyomi is used in full**, less the overhead and a safety margin of 10 % (at most 60 ms) for
  the moments a loaded machine does not run the engine: with 1 s byoyomi and no main time the
  search stops at 0.91 s, with 200 ms at 0.15 s.  Unused byoyomi is lost, so with
  no main time ``soft = hard``: the engine thinks until the alarm.
* **Main time is spread** over an expected :data:`MOVES_TO_GO` moves (15 in sudden death or with
  an increment, 40 when byoyomi follows: then the main time is a bonus, not all there is), after
  keeping a reserve of 5 % (at most 1 s) in sudden death.  The increment is added in full — but
  it arrives only after the move, so it never lets a move run past the time on the clock.
* **Never more** than a tenth of the (usable) main time plus increment and byoyomi on one move,
  never more than twice the target, and never more than the clock holds.  ``soft`` is 80 % of
  the target.
* **No iteration that cannot finish.**  :func:`next_iteration_fits` is asked after each
  iteration of iterative deepening: past ``soft`` none starts, and while there is main time to
  save none starts that would, at the growth rate of the last two, end after ``hard`` — its
  time would be thrown away.  With byoyomi alone (``soft == hard``) an unfinished iteration
  still costs nothing, and it may find a better move, so it runs until the alarm.

>>> [round(t, 3) for t in clock_budget(3.0, 0.0, 0.0)]  # 3 s sudden death: 0.19 s a move at first
[0.15, 0.282]
>>> [round(t, 3) for t in clock_budget(0.0, 0.0, 1.0)]  # byoyomi 1 s: think until 0.91 s
[0.91, 0.91]
>>> [round(t, 3) for t in clock_budget(600.0, 0.0, 10.0)]  # 10 min + 10 s byoyomi
[19.951, 49.879]
"""

from __future__ import annotations

from komaken.clock import MIN_SECONDS, clock_budget

__all__ = ["MIN_SECONDS", "clock_budget", "next_iteration_fits"]

GROWTH = (1.5, 6.0, 3.0)  # an iteration takes this many times the last one: (least, most, when unknown)


def next_iteration_fits(elapsed: float, last: float, before: float, soft: float, hard: float) -> bool:
    """Whether to start another iteration, ``elapsed`` seconds into the move, when the last
    iteration took ``last`` seconds and the one before it ``before`` (0 if none).

    >>> next_iteration_fits(0.05, 0.03, 0.01, 0.1, 0.3)  # next one: ~0.09 s more, ends by 0.14
    True
    >>> next_iteration_fits(0.09, 0.06, 0.02, 0.1, 0.2)  # it would end near 0.27, past the hard stop
    False
    >>> next_iteration_fits(0.09, 0.06, 0.02, 0.2, 0.2)  # byoyomi alone: think until the alarm
    True
    """
    if elapsed >= soft:
        return False
    if soft >= hard:
        return True
    least, most, unknown = GROWTH
    growth = min(most, max(least, last / before)) if before > 1e-4 else unknown
    return elapsed + last * growth <= hard
