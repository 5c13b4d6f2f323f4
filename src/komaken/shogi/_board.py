"""Constants of the one-dimensional board (seeds 000/001), shared by kernels and the Python layer.

The board is an ``int8`` array of 16 × 11 = 176 cells.  Square (file f, rank r) lives at index
``f * 16 + r`` — so 5二 is 0x52, as in seed 001 — with files 1..W and ranks 1..H.  Every cell
that is not on the board holds :data:`WALL`, so move generation needs no bounds checks for any
board up to 9 × 9: a knight jumping two ranks off the top lands in rank 15 of the previous file,
which is a wall too.

Piece codes follow seed 000: kind 1..8 (歩 香 桂 銀 金 角 飛 玉), promoted = kind | 8, owner
bit 0x10 for black (sente) and 0x20 for white (gote).  A kind is a slot: what it moves like is
data of the variant (:data:`STANDARD_STEPS` and :data:`STANDARD_SLIDES` unless its TOML file
says otherwise), packed into the ``rules`` array the kernels receive.
"""

from __future__ import annotations

import numpy as np

STRIDE = 16
MAX_FILES = 9
MAX_RANKS = 9
BOARD_SIZE = STRIDE * (MAX_FILES + 2)
#: Most pieces of one kind a variant may have (board and hands together), so the most one hand
#: can ever hold: hands are int8 and the Zobrist hand table has MAX_HAND + 1 keys per kind.
#: :class:`komaken.shogi.Variant` refuses a start position with more; SFENs cannot exceed the
#: variant's own counts.
MAX_HAND = 81
_HAND_KEYS_V1 = 39  # the first table had 39 keys per kind: they are drawn first, so old hashes stay

EMPTY = 0
PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK, KING = 1, 2, 3, 4, 5, 6, 7, 8
PROMOTED = 8
PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER = 9, 10, 11, 12
HORSE, DRAGON = 14, 15
BLACK_BIT, WHITE_BIT, WALL = 0x10, 0x20, 0x40
KIND_MASK = 0x0F

#: the seven kinds that can be held in hand, in SFEN hand order (R B G S N L P)
HAND_KINDS = (ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN)

LETTERS = {PAWN: "P", LANCE: "L", KNIGHT: "N", SILVER: "S", GOLD: "G", BISHOP: "B", ROOK: "R", KING: "K"}
KIND_OF_LETTER = {v: k for k, v in LETTERS.items()}
PROMOTABLE = (PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK)


def square(file: int, rank: int) -> int:
    """Board index of (file, rank), both counted from 1."""
    return file * STRIDE + rank


def base_kind(kind: int) -> int:
    """The unpromoted kind (what a captured piece becomes in hand)."""
    return kind if kind <= KING else kind - PROMOTED


def kind_letter(kind: int) -> str:
    """``"P"``, ``"+P"``, ``"K"`` ... for a kind 1..15."""
    return ("+" if kind > KING else "") + LETTERS[base_kind(kind)]


# Eight directions as (file, rank) deltas, seen from black: rank 1 is "forward" (up).
_DIRS_FR = [(0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1), (-1, 1), (1, 1)]
N, NE, NW, E, W, S, SE, SW = range(8)  # index names; black's "N" is forward
#: deltas in index units: 8 king directions then the four knight jumps
#: (black's two, then white's two).
DIRS = np.array(
    [df * STRIDE + dr for df, dr in _DIRS_FR] + [-STRIDE - 2, STRIDE - 2, STRIDE + 2, -STRIDE + 2],
    dtype=np.int64,
)
#: OPPOSITE[j]: index of the direction -DIRS[j]
OPPOSITE = np.array([S, SW, SE, W, E, N, NW, NE, 10, 11, 8, 9], dtype=np.int64)

#: Names of the twelve directions a piece can move in, seen from the side that moves it: ``N`` is
#: forward, ``E`` to its right; ``NNE``/``NNW`` are the knight's jumps (two forward, one aside).
#: The index of a name is its index in :data:`DIRS`.
DIRECTION_NAMES = ("N", "NE", "NW", "E", "W", "S", "SE", "SW", "NNE", "NNW")
#: the directions a piece may slide along (the knight's jumps are steps only)
SLIDE_DIRECTIONS = DIRECTION_NAMES[:8]

# Movement of the standard pieces, from black's side (direction indexes): single steps, slides.
# A variant may give any kind other movement (``[pieces]`` in its TOML file); these are the default.
_GOLD_STEPS = (N, NE, NW, E, W, S)
STANDARD_STEPS: dict[int, tuple[int, ...]] = {
    PAWN: (N,),
    LANCE: (),
    KNIGHT: (8, 9),
    SILVER: (N, NE, NW, SE, SW),
    GOLD: _GOLD_STEPS,
    BISHOP: (),
    ROOK: (),
    KING: tuple(range(8)),
    PRO_PAWN: _GOLD_STEPS,
    PRO_LANCE: _GOLD_STEPS,
    PRO_KNIGHT: _GOLD_STEPS,
    PRO_SILVER: _GOLD_STEPS,
    HORSE: (N, E, W, S),
    DRAGON: (NE, NW, SE, SW),
}
STANDARD_SLIDES: dict[int, tuple[int, ...]] = {
    LANCE: (N,), BISHOP: (NE, NW, SE, SW), ROOK: (N, E, W, S), HORSE: (NE, NW, SE, SW), DRAGON: (N, E, W, S),
}
#: black's direction j seen by white: the board turned 180°
FLIP = tuple(int(j) for j in OPPOSITE)

#: base kind of every kind code 0..15 (0 for empty / unused codes)
BASE = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 0, 6, 7], dtype=np.int64)
#: 持将棋 points: 5 for rook/bishop (promoted too), 1 for the rest, 0 for the king
POINTS = np.array([0, 1, 1, 1, 1, 1, 5, 5, 0, 1, 1, 1, 1, 0, 5, 5], dtype=np.int64)


def _zobrist() -> tuple[np.ndarray, np.ndarray, np.uint64]:
    rng = np.random.default_rng(0x6B6F6D61)  # fixed: hashes are stable across runs
    board = rng.integers(1, 2**63, size=(64, BOARD_SIZE), dtype=np.int64).astype(np.uint64) * np.uint64(2)
    hand = rng.integers(1, 2**63, size=(2, 8, _HAND_KEYS_V1), dtype=np.int64).astype(np.uint64) * np.uint64(2)
    more = rng.integers(1, 2**63, size=(2, 8, MAX_HAND + 1 - _HAND_KEYS_V1), dtype=np.int64)
    hand = np.concatenate([hand, more.astype(np.uint64) * np.uint64(2)], axis=2)
    hand[:, :, 0] = 0  # an empty hand adds nothing
    return board, hand, np.uint64(1)  # every other key is even: bit 0 of a hash is the side to move


#: Zobrist keys: ZB[piece code, square] and ZH[color, kind, count in hand] are xored in;
#: ZSIDE when white is to move.
ZB, ZH, ZSIDE = _zobrist()
