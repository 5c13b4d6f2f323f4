"""komaken (駒研): shogi-family game AI — rules for any board size, an engine, records and an
experiment lab for piece-value research."""

import os as _os

# One BLAS thread unless the user says otherwise, set before numpy loads its BLAS: komaken's
# fits multiply tall, narrow matrices (positions × ~20 features), where threads gain nothing,
# and the lab runs a process per core, where a thread pool in each oversubscribes the cores.
# On a busy 2-core machine a robustness fit took 124 s with the default threads, 17 s with one.
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")

from komaken._kernel_cache import refresh as _refresh_kernel_caches  # noqa: E402
from komaken.errors import IllegalMoveError, InvalidPositionError, KomakenError, VariantError  # noqa: E402
from komaken.game import GOTE, SENTE, Color, Game, Outcome, Termination  # noqa: E402

_refresh_kernel_caches()  # before any kernel loads a cache that a changed module made stale

__version__ = "0.1.0"

__all__ = [
    "Color",
    "Game",
    "GOTE",
    "IllegalMoveError",
    "InvalidPositionError",
    "KomakenError",
    "Outcome",
    "SENTE",
    "Termination",
    "VariantError",
]
