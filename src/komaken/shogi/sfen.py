"""SFEN reading and writing for any board size.

An SFEN is ``board side hands move-number``, e.g. ``rbsgk/4p/5/P4/KGSBR b - 1``: ranks from
the top (rank a) down, each listing files from W down to 1; upper case is black (sente),
lower case white (gote), ``+`` marks a promoted piece, digits count empty squares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from komaken.errors import InvalidPositionError
from komaken.shogi._board import (
    BLACK_BIT,
    HAND_KINDS,
    KIND_OF_LETTER,
    KING,
    KNIGHT,
    LANCE,
    LETTERS,
    PAWN,
    PROMOTABLE,
    PROMOTED,
    WHITE_BIT,
    base_kind,
    square,
)

if TYPE_CHECKING:
    from komaken.shogi.variant import Variant

Board = dict[int, int]  # square index -> piece code
Hands = tuple[dict[int, int], dict[int, int]]  # per color: base kind -> count


def square_name(file: int, rank: int) -> str:
    """USI name of a square: ``7g`` is file 7, rank 7."""
    return f"{file}{chr(ord('a') + rank - 1)}"


def parse_sfen(text: str, variant: Variant, check_counts: bool = True) -> tuple[Board, Hands, int, int]:
    """Parse ``text`` into (board, hands, side, move number), checking the rules that need no
    attack computation.  Raises :class:`InvalidPositionError` naming the problem and where."""
    fields = text.split()
    if fields and fields[0] == "sfen":
        fields = fields[1:]
    if len(fields) not in (3, 4):
        raise InvalidPositionError(f"SFEN needs 3 or 4 fields (board side hands [move]), got {len(fields)}: {text!r}")
    rows = fields[0].split("/")
    W, H = variant.width, variant.height
    if len(rows) != H:
        raise InvalidPositionError(f"SFEN board has {len(rows)} ranks, {variant.name} needs {H}")
    board: Board = {}
    for r, row in enumerate(rows, start=1):
        f = W
        promoted = False
        for col, ch in enumerate(row, start=1):
            where = f"rank {r} ({chr(ord('a') + r - 1)}), character {col}"
            if ch.isdigit():
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
            kind = KIND_OF_LETTER.get(ch.upper())
            if kind is None:
                raise InvalidPositionError(f"SFEN {where}: unknown piece letter {ch!r}")
            if f < 1:
                raise InvalidPositionError(f"SFEN {where}: rank is wider than {W} files")
            if promoted:
                if kind not in PROMOTABLE:
                    raise InvalidPositionError(f"SFEN {where}: {ch} cannot be promoted")
                kind |= PROMOTED
                promoted = False
            board[square(f, r)] = kind | (BLACK_BIT if ch.isupper() else WHITE_BIT)
            f -= 1
        if promoted:
            raise InvalidPositionError(f"SFEN rank {r}: '+' at the end of the rank")
        if f != 0:
            raise InvalidPositionError(f"SFEN rank {r} ({chr(ord('a') + r - 1)}) has {W - f} files, needs {W}")
    if fields[1] not in ("b", "w"):
        raise InvalidPositionError(f"SFEN side to move must be 'b' or 'w', not {fields[1]!r}")
    side = 0 if fields[1] == "b" else 1
    hands: Hands = ({}, {})
    if fields[2] != "-":
        count = ""
        for i, ch in enumerate(fields[2], start=1):
            if ch.isdigit():
                count += ch
                continue
            kind = KIND_OF_LETTER.get(ch.upper())
            if kind is None or kind == KING:
                raise InvalidPositionError(f"SFEN hands, character {i}: {ch!r} cannot be in hand")
            n = int(count) if count else 1
            if n == 0:
                raise InvalidPositionError(f"SFEN hands, character {i}: count 0")
            color = 0 if ch.isupper() else 1
            hands[color][kind] = hands[color].get(kind, 0) + n
            count = ""
        if count:
            raise InvalidPositionError("SFEN hands: a count with no piece after it")
    move_number = 1
    if len(fields) == 4:
        if not fields[3].isdigit() or int(fields[3]) < 1:
            raise InvalidPositionError(f"SFEN move number must be a positive integer, not {fields[3]!r}")
        move_number = int(fields[3])
    _check_rules(board, hands, variant, check_counts)
    return board, hands, side, move_number


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
        if variant.dead_pieces:
            last = 1 if color == 0 else variant.height
            second = 2 if color == 0 else variant.height - 1
            if kind in (PAWN, LANCE) and r == last:
                raise InvalidPositionError(f"{LETTERS[kind]} on {name} has no further move (last rank)")
            if kind == KNIGHT and r in (last, second):
                raise InvalidPositionError(f"N on {name} has no further move (last two ranks)")
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
