"""SFEN reading and writing for any board size.

An SFEN is ``board side hands move-number``, e.g. ``rbsgk/4p/5/P4/KGSBR b - 1``: ranks from
the top (rank a) down, each listing files from W down to 1; upper case is black (sente),
lower case white (gote), ``+`` marks a promoted piece, digits count empty squares.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from komaken.errors import InvalidPositionError
from komaken.shogi._board import (
    BLACK_BIT,
    HAND_KINDS,
    KIND_OF_LETTER,
    KING,
    LETTERS,
    MAX_HAND,
    PAWN,
    PROMOTED,
    WHITE_BIT,
    base_kind,
    kind_letter,
    square,
)

if TYPE_CHECKING:
    from komaken.shogi.variant import Variant

Board = dict[int, int]  # square index -> piece code
Hands = tuple[dict[int, int], dict[int, int]]  # per color: base kind -> count

#: the largest move number an SFEN may carry
MAX_MOVE_NUMBER = 10**9
_DIGITS = "0123456789"  # ASCII only: str.isdigit() also accepts '²' and '①', which int() refuses
#: piece letter -> (kind, color), ASCII letters only
_PIECE_OF_CHAR = {**{c: (k, 0) for c, k in KIND_OF_LETTER.items()},
                  **{c.lower(): (k, 1) for c, k in KIND_OF_LETTER.items()}}


def square_name(file: int, rank: int) -> str:
    """USI name of a square: ``7g`` is file 7, rank 7."""
    return f"{file}{chr(ord('a') + rank - 1)}"


def parse_sfen(text: str, variant: Variant, check_counts: bool = True) -> tuple[Board, Hands, int, int]:
    """Parse ``text`` into (board, hands, side, move number), checking the rules that need no
    attack computation.  Raises :class:`InvalidPositionError` naming the problem and where."""
    found = [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", text)]
    if found and found[0][1] == "sfen":
        found = found[1:]
    columns = [c for c, _ in found]
    fields = [f for _, f in found]
    if len(fields) not in (3, 4):
        shown = text if len(text) <= 100 else text[:100] + "..."
        raise InvalidPositionError(f"SFEN needs 3 or 4 fields (board side hands [move]), got {len(fields)}: {shown!r}")
    board = _parse_board(fields[0], columns[0], variant)
    if fields[1] not in ("b", "w"):
        raise InvalidPositionError(f"SFEN column {columns[1]}: side to move must be 'b' or 'w', not {fields[1]!r}")
    side = 0 if fields[1] == "b" else 1
    hands = _parse_hands(fields[2], columns[2])
    move_number = 1
    if len(fields) == 4:
        move_number = _parse_move_number(fields[3], columns[3])
    _check_rules(board, hands, variant, check_counts)
    return board, hands, side, move_number


def _parse_board(field: str, column: int, variant: Variant) -> Board:
    """The board field: ranks from the top separated by '/'; ``column`` is where it starts in the text."""
    rows = field.split("/")
    W, H = variant.width, variant.height
    if len(rows) != H:
        raise InvalidPositionError(f"SFEN board has {len(rows)} ranks, {variant.name} needs {H}")
    board: Board = {}
    start = column
    for r, row in enumerate(rows, start=1):
        f = W
        promoted = False
        for col, ch in enumerate(row, start=start):
            where = f"column {col} (rank {r} ({chr(ord('a') + r - 1)}))"
            if ch in _DIGITS:
                if promoted:
                    raise InvalidPositionError(f"SFEN {where}: '+' before a digit")
                f -= int(ch)
                if f < 0:
                    raise InvalidPositionError(f"SFEN {where}: rank is wider than {W} files")
                continue
            if ch == "+":
                if promoted:
                    raise InvalidPositionError(f"SFEN {where}: '++'")
                promoted = True
                continue
            piece = _PIECE_OF_CHAR.get(ch)
            if piece is None:
                raise InvalidPositionError(f"SFEN {where}: unknown piece letter {ch!r}")
            kind, color = piece
            if f < 1:
                raise InvalidPositionError(f"SFEN {where}: rank is wider than {W} files")
            if promoted:
                if not variant.movement.promotes[kind]:
                    raise InvalidPositionError(f"SFEN {where}: {ch} cannot be promoted")
                kind |= PROMOTED
                promoted = False
            board[square(f, r)] = kind | (BLACK_BIT if color == 0 else WHITE_BIT)
            f -= 1
        if promoted:
            raise InvalidPositionError(f"SFEN rank {r}: '+' at the end of the rank")
        if f != 0:
            raise InvalidPositionError(f"SFEN rank {r} ({chr(ord('a') + r - 1)}) has {W - f} files, needs {W}")
        start += len(row) + 1
    return board


def _parse_hands(field: str, column: int) -> Hands:
    """The hands field (``-`` or e.g. ``2Pb``); counts are at most :data:`MAX_HAND`."""
    hands: Hands = ({}, {})
    if field == "-":
        return hands
    count = ""
    for col, ch in enumerate(field, start=column):
        if ch in _DIGITS:
            count += ch
            continue
        piece = _PIECE_OF_CHAR.get(ch)
        if piece is None or piece[0] == KING:
            raise InvalidPositionError(f"SFEN column {col} (hands): {ch!r} cannot be in hand")
        kind, color = piece
        if len(count) > 6 or (count and int(count) > MAX_HAND):  # 6: int() never sees thousands of digits
            raise InvalidPositionError(f"SFEN column {col} (hands): count {count} is more than any hand holds "
                                       f"({MAX_HAND})")
        n = int(count) if count else 1
        if n == 0:
            raise InvalidPositionError(f"SFEN column {col} (hands): count 0")
        hands[color][kind] = hands[color].get(kind, 0) + n
        if hands[color][kind] > MAX_HAND:
            raise InvalidPositionError(f"SFEN column {col} (hands): {hands[color][kind]} {ch} in one hand, more "
                                       f"than any hand holds ({MAX_HAND})")
        count = ""
    if count:
        raise InvalidPositionError(f"SFEN column {column + len(field) - 1} (hands): a count with no piece after it")
    return hands


def _parse_move_number(field: str, column: int) -> int:
    if not all(ch in _DIGITS for ch in field) or len(field) > 10 or not 1 <= int(field) <= MAX_MOVE_NUMBER:
        raise InvalidPositionError(
            f"SFEN column {column}: move number must be an integer 1..{MAX_MOVE_NUMBER}, not {field!r}"
        )
    return int(field)


def _check_rules(board: Board, hands: Hands, variant: Variant, check_counts: bool) -> None:
    kings = [0, 0]
    pawn_files: set[tuple[int, int]] = set()
    for sq, code in board.items():
        f, r = sq >> 4, sq & 15
        color = 0 if code & BLACK_BIT else 1
        kind = code & 0x0F
        name = square_name(f, r)
        if kind == KING:
            kings[color] += 1
        if variant.dead_pieces and variant.dead_drops:
            dead = variant.movement.dead_ranks(kind)
            level = r if color == 0 else variant.height + 1 - r  # 1 on its last rank
            if level <= dead:
                ranks = "last rank" if dead == 1 else "last two ranks" if dead == 2 else f"last {dead} ranks"
                raise InvalidPositionError(f"{kind_letter(kind)} on {name} has no further move ({ranks})")
        if kind == PAWN and variant.nifu:
            if (color, f) in pawn_files:
                who = "black" if color == 0 else "white"
                raise InvalidPositionError(f"two unpromoted pawns of {who} on file {f} (二歩)")
            pawn_files.add((color, f))
    for color in range(2):
        if kings[color] > 1:
            raise InvalidPositionError(f"{'black' if color == 0 else 'white'} has {kings[color]} kings")
    if check_counts:
        counts: dict[int, int] = {}
        for code in board.values():
            b = base_kind(code & 0x0F)
            counts[b] = counts.get(b, 0) + 1
        for color in range(2):
            for kind, n in hands[color].items():
                counts[kind] = counts.get(kind, 0) + n
        for kind, n in counts.items():
            most = variant.max_counts.get(kind, 0)
            if n > most:
                raise InvalidPositionError(
                    f"{n} pieces of kind {LETTERS[kind]} but {variant.name} has only {most}"
                )


def format_sfen(board: Board, hands: Hands, side: int, move_number: int, variant: Variant) -> str:
    """The SFEN of a position (hands in the usual R B G S N L P order, black first)."""
    rows = []
    for r in range(1, variant.height + 1):
        row = ""
        empty = 0
        for f in range(variant.width, 0, -1):
            code = board.get(square(f, r), 0)
            if not code:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            kind = code & 0x0F
            letter = LETTERS[base_kind(kind)]
            row += ("+" if kind > KING else "") + (letter if code & BLACK_BIT else letter.lower())
        if empty:
            row += str(empty)
        rows.append(row)
    hand = ""
    for color in range(2):
        for kind in HAND_KINDS:
            n = hands[color].get(kind, 0)
            if n:
                letter = LETTERS[kind] if color == 0 else LETTERS[kind].lower()
                hand += (str(n) if n > 1 else "") + letter
    return f"{'/'.join(rows)} {'bw'[side]} {hand or '-'} {move_number}"
