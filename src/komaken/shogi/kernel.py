"""The one public seam between Python and the shogi kernels.

Searches written in numba (the engine, the mate solver, the thesis replica) work on copies of a
position's arrays: :func:`state_of` (also :meth:`Position.kernel_state`) makes them, with history
room for the plies the search will play.  Moves cross the seam as integer codes:
``Position.legal_codes()`` lists them and ``Move(code)`` wraps one.

>>> from komaken.shogi import Position
>>> state = Position.start("minishogi").kernel_state(room=8)
>>> state.hh.shape[0] >= 9 and int(state.st[0]) == 0
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from komaken.shogi._board import kind_letter

if TYPE_CHECKING:
    from komaken.shogi.position import Position


class KernelState(NamedTuple):
    """A position as the numba kernels see it (see :meth:`Position.kernel_state`).

    ``bd`` board (16-wide with wall sentinels), ``hd`` hands ``[color, kind]``, ``st`` side to
    move, kings and ply, ``hh`` Zobrist keys by ply, ``hist`` undo records; ``geo`` and
    ``rules`` are the variant's tables.
    """

    bd: np.ndarray
    hd: np.ndarray
    st: np.ndarray
    hh: np.ndarray
    hist: np.ndarray
    geo: np.ndarray
    rules: np.ndarray


def state_of(position: Position, room: int = 0) -> KernelState:
    """Copies of ``position``'s kernel arrays, with history space for ``room`` more plies.

    This is the one door from Python into the numba searches: they play and take back moves on
    these copies, never on the position itself.
    """
    ply = position.ply
    hh = np.zeros(ply + room + 2, dtype=np.uint64)
    hist = np.zeros((ply + room + 1, 3), dtype=np.int64)
    hh[: ply + 1] = position._hh[: ply + 1]
    hist[:ply] = position._hist[:ply]
    return KernelState(position._bd.copy(), position._hd.copy(), position._st.copy(), hh, hist,
                       position.variant.geo, position.variant.rules)


def piece_letter(kind: int) -> str:
    """The SFEN letter of a kernel piece kind (``1`` → ``"P"``; promoted kinds get a ``+``).

    >>> piece_letter(1)
    'P'
    """
    return kind_letter(kind)


__all__ = ["KernelState", "piece_letter", "state_of"]
