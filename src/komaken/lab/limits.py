"""The ranges of the numbers the lab takes, from experiment files and from the command line.

Every count, seed and limit is checked where it enters — an experiment file's key or a command's
option — against one of these ranges, so a typing slip such as ``games = 10**18`` is one line
naming the key and the range, never an hour of work, a memory error or a traceback.  The ranges
are generous: each is far beyond what a run on any machine can use (a hundred million games per
pairing is over three years at a game a second).  ``docs/lab.md`` lists them.
"""

from __future__ import annotations

import math
from typing import Any

#: games per pairing (experiment files, ``--games``) and per study (``komaken values``, ``tune linear``, ``tune nnue``)
GAMES = (1, 100_000_000)
#: games per piece of a material-odds study (``values odds --games``): its openings are written out
#: before play, one per two games, so this range is the one that bounds memory and setup time
ODDS_GAMES = (4, 100_000)
#: worker processes (``--workers``)
WORKERS = (1, 1024)
#: every seed: a non-negative 63-bit integer, as the players' ``seed`` option
SEED = (0, 2**63 - 1)
#: adjudication after this many plies (``max_plies``, ``--max-plies``)
PLIES = (1, 100_000)
#: random opening plies (``[openings] random_plies``, ``--random-plies``)
RANDOM_PLIES = (0, 1_000)
#: nodes per move of the self-play kernel (``--nodes``, ``--label-nodes``), as the engine's option
NODES = (1, 10**12)
#: fixed search depth of the self-play kernel (``--depth``), as the engine's option
DEPTH = (1, 112)
#: the counts of a ``published`` result
PUBLISHED = (0, 1_000_000_000)
#: ``elo0`` / ``elo1`` of a sequential test
SPRT_ELO = (-2000.0, 2000.0)
#: evaluation noise amplitude of self-play (gold = 1200)
NOISE = (0.0, 1_000_000.0)
#: bootstrap resamples of a fit
BOOTSTRAP = (20, 100_000)
#: seconds between progress lines (``--progress-every``)
PROGRESS_SECONDS = (0.0, 86_400.0)
#: random pieces taken off every self-play start (``--imbalance``); the variant bounds it further
IMBALANCE = (0, 1_000)
#: ridge strength of a tuning fit (``--l2``)
L2 = (0.0, 1e6)
#: the scale that turns an engine's score into a target (``--label-scale``)
LABEL_SCALE = (1.0, 1e6)


def out_of_range(value: Any, limits: tuple[float, float]) -> str | None:
    """What is wrong with ``value`` for ``limits`` (``None`` when it lies inside them)."""
    low, high = limits
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number in {span(limits)}, not {value}"
    if not low <= value <= high:
        return f"out of range: {value} (allowed: {span(limits)})"
    return None


def span(limits: tuple[float, float]) -> str:
    """``1..100000000`` (integers) or ``0..86400`` (numbers, written without a trailing ``.0``)."""
    return f"{limits[0]:.15g}..{limits[1]:.15g}" if isinstance(limits[0], float) else f"{limits[0]}..{limits[1]}"
