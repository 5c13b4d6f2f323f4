"""FEN in and out, with strict checks that name the field and the square at fault.

``rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1``: the board from rank 8 down
(``/`` between ranks, digits count empty squares, upper case is white), the side to move,
castling rights, the en-passant square, the halfmove clock (plies since the last capture or
pawn move) and the move number.  The two clocks may be left out (EPD style).
"""

from __future__ import annotations

import numpy as np

from komaken.chess import _kernels as K
from komaken.chess._move import FILE_NAMES, PIECE_SYMBOLS, SQUARE_NAMES, parse_square
from komaken.chess._tables import (
    BLACK_BIT,
    EMPTY,
    KING,
    PAWN,
    ROOK,
    SIZE,
    ST_CASTLE,
    ST_EP,
    ST_FULL,
    ST_HALF,
    ST_KING,
    ST_SIDE,
    ST_SIZE,
    TO64,
    TO120,
    WALL,
)
from komaken.errors import InvalidPositionError, KomakenError

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
_SIDES = ("white", "black")
#: Castling letter → (rights bit, king square, rook square, side), squares 0..63.
_CASTLING = {"K": (1, 4, 7, 0), "Q": (2, 4, 0, 0), "k": (4, 60, 63, 1), "q": (8, 60, 56, 1)}


def _piece_code(symbol: str) -> int:
    kind = PIECE_SYMBOLS.index(symbol.lower())
    return kind if symbol.isupper() else kind | BLACK_BIT


def _read_board(field: str, bd: np.ndarray) -> None:
    ranks = field.split("/")
    if len(ranks) != 8:
        raise InvalidPositionError(f"FEN board has {len(ranks)} ranks, expected 8: {field!r}")
    for i, row in enumerate(ranks):
        rank = 7 - i
        file = 0
        last_digit = False
        for ch in row:
            if ch in "12345678":
                if last_digit:
                    raise InvalidPositionError(f"FEN rank {rank + 1} ({row!r}): two digits in a row")
                file += int(ch)
                last_digit = True
            elif ch != " " and ch in PIECE_SYMBOLS[1:] + PIECE_SYMBOLS[1:].upper():
                if file < 8:
                    bd[TO120[file + 8 * rank]] = _piece_code(ch)
                file += 1
                last_digit = False
            else:
                raise InvalidPositionError(f"FEN rank {rank + 1} ({row!r}): bad character {ch!r}")
        if file != 8:
            raise InvalidPositionError(f"FEN rank {rank + 1} ({row!r}) has {file} squares, expected 8")


def _check_material(bd: np.ndarray, st: np.ndarray) -> None:
    for side in (0, 1):
        name = _SIDES[side]
        squares = [int(TO64[sq]) for sq in range(SIZE) if bd[sq] not in (EMPTY, WALL) and bd[sq] >> 3 == side]
        kings = [s for s in squares if bd[TO120[s]] & 7 == KING]
        pawns = [s for s in squares if bd[TO120[s]] & 7 == PAWN]
        if len(kings) != 1:
            where = ", ".join(SQUARE_NAMES[s] for s in kings) or "none"
            raise InvalidPositionError(f"FEN: {name} must have exactly one king (found {len(kings)}: {where})")
        st[ST_KING + side] = TO120[kings[0]]
        if len(pawns) > 8 or len(squares) > 16:
            raise InvalidPositionError(f"FEN: {name} has {len(pawns)} pawns and {len(squares)} pieces (max 8 and 16)")
        for s in pawns:
            if s < 8 or s >= 56:
                raise InvalidPositionError(f"FEN: {name} pawn on {SQUARE_NAMES[s]} (no pawns on rank 1 or 8)")


def _read_castling(field: str, bd: np.ndarray) -> int:
    if field == "-":
        return 0
    rights = 0
    for ch in field:
        if ch not in _CASTLING:
            raise InvalidPositionError(f"FEN castling field {field!r}: bad letter {ch!r} (use K, Q, k, q or -)")
        bit, king, rook, side = _CASTLING[ch]
        if rights & bit:
            raise InvalidPositionError(f"FEN castling field {field!r}: {ch!r} given twice")
        bb = side << 3
        if bd[TO120[king]] != KING | bb or bd[TO120[rook]] != ROOK | bb:
            raise InvalidPositionError(
                f"FEN castling right {ch!r} needs the {_SIDES[side]} king on {SQUARE_NAMES[king]} "
                f"and a rook on {SQUARE_NAMES[rook]}"
            )
        rights |= bit
    return rights


def _read_ep(field: str, bd: np.ndarray, side: int) -> int:
    """The en-passant target (mailbox), 0 for ``-``; checks a pawn has just double-stepped past it."""
    if field == "-":
        return 0
    try:
        sq = parse_square(field)
    except KomakenError:
        raise InvalidPositionError(f"FEN en-passant field {field!r} is not a square or '-'") from None
    want = 5 if side == 0 else 2
    if sq >> 3 != want:
        raise InvalidPositionError(
            f"FEN en-passant square {field} must be on rank {want + 1} with {_SIDES[side]} to move"
        )
    m = TO120[sq]
    fwd = 10 if side == 0 else -10
    if bd[m] != EMPTY or bd[m + fwd] != EMPTY or bd[m - fwd] != PAWN | (1 - side) << 3:
        raise InvalidPositionError(
            f"FEN en-passant square {field}: no {_SIDES[1 - side]} pawn can have just moved two squares past it"
        )
    return int(m)


_CLOCK_MAX = 1_000_000  # the undo record keeps the halfmove clock in 27 bits


def _read_clock(field: str, name: str, minimum: int) -> int:
    if not field.isascii() or not field.isdigit() or not minimum <= int(field) <= _CLOCK_MAX:
        raise InvalidPositionError(f"FEN {name} {field!r} must be a whole number in {minimum}..{_CLOCK_MAX}")
    return int(field)


def parse_fen(fen: str) -> tuple[np.ndarray, np.ndarray]:
    """``(bd, st)`` arrays for ``fen`` (ply 0), or :class:`InvalidPositionError` saying what is wrong."""
    fields = fen.split()
    if not 4 <= len(fields) <= 6:
        raise InvalidPositionError(f"FEN needs 4 to 6 fields (board side castling ep [halfmove fullmove]): {fen!r}")
    bd = np.full(SIZE, WALL, dtype=np.int8)
    bd[TO120] = EMPTY
    st = np.zeros(ST_SIZE, dtype=np.int64)
    _read_board(fields[0], bd)
    if fields[1] not in ("w", "b"):
        raise InvalidPositionError(f"FEN side to move {fields[1]!r} must be 'w' or 'b'")
    side = 0 if fields[1] == "w" else 1
    st[ST_SIDE] = side
    _check_material(bd, st)
    st[ST_CASTLE] = _read_castling(fields[2], bd)
    ep = _read_ep(fields[3], bd, side)
    st[ST_HALF] = _read_clock(fields[4], "halfmove clock", 0) if len(fields) > 4 else 0
    st[ST_FULL] = _read_clock(fields[5], "fullmove number", 1) if len(fields) > 5 else 1
    other_king = int(st[ST_KING + 1 - side])
    if K.attacked(bd, other_king, side):
        raise InvalidPositionError(
            f"FEN: {_SIDES[1 - side]} is not to move but its king on {SQUARE_NAMES[TO64[other_king]]} is in check"
        )
    if ep and K.ep_legal(bd, st, ep):
        st[ST_EP] = ep
    return bd, st


def _board_field(bd: np.ndarray) -> str:
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            p = int(bd[TO120[file + 8 * rank]])
            if p == EMPTY:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            letter = PIECE_SYMBOLS[p & 7]
            row += letter if p & BLACK_BIT else letter.upper()
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def write_fen(bd: np.ndarray, st: np.ndarray) -> str:
    """The FEN of a position (the en-passant square only when such a capture is legal)."""
    castle = "".join(ch for ch, (bit, *_rest) in _CASTLING.items() if st[ST_CASTLE] & bit) or "-"
    ep = st[ST_EP]
    ep_text = SQUARE_NAMES[TO64[ep]] if ep else "-"
    side = "w" if st[ST_SIDE] == 0 else "b"
    return f"{_board_field(bd)} {side} {castle} {ep_text} {st[ST_HALF]} {st[ST_FULL]}"


__all__ = ["FILE_NAMES", "STARTING_FEN", "parse_fen", "write_fen"]
