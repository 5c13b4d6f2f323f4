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

from komaken.shogi._board import BLACK_BIT, KIND_OF_LETTER, KING, kind_letter

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


def piece_kind(letter: str) -> int | None:
    """The kernel piece kind of an SFEN letter (``"P"`` → ``1``, ``"+R"`` → a promoted kind), or
    ``None`` for a letter that names no piece.

    >>> piece_kind("P"), piece_kind("Q")
    (1, None)
    """
    return KIND_OF_LETTER.get(letter)


#: a piece code is its kind plus ``BLACK_BIT << color`` (the colour bit), as parse_sfen's boards hold them
COLOR_BIT = BLACK_BIT
#: the king's kind
KING_KIND = KING

__all__ = ["COLOR_BIT", "KING_KIND", "KernelState", "piece_kind", "piece_letter", "state_of"]
