"""Standard algebraic notation (SAN): ``Nf3``, ``exd5``, ``Rad1``, ``O-O``, ``e8=Q+``, ``Qxf7#``.

Writing: the piece letter (none for pawns), the origin file and/or rank only when another
piece of the same kind could reach the same square (file first, rank if the file does not
tell them apart), ``x`` for a capture (a pawn capture names its file), the target square,
``=Q`` for a promotion, then ``+`` for check or ``#`` for mate.

Reading accepts what people write: ``0-0`` for ``O-O``, a missing ``x`` or ``=`` (``e8Q``),
full origins (``Ng1f3``) and trailing ``+``, ``#``, ``!`` or ``?``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from komaken.chess._move import FILE_NAMES, PIECE_SYMBOLS, RANK_NAMES, SQUARE_NAMES, Move
from komaken.chess._tables import KING, PAWN
from komaken.errors import IllegalMoveError

if TYPE_CHECKING:
    from komaken.chess._board import Board

_SAN = re.compile(r"([NBKRQ])?([a-h])?([1-8])?[\-x]?([a-h][1-8])(?:=?([nbrqNBRQ]))?\Z")
_CASTLES = {"O-O": 6, "0-0": 6, "O-O-O": 2, "0-0-0": 2}  # target file of the king


def _without_suffix(board: Board, move: Move) -> str:
    piece = board.piece_at(move.from_square)
    assert piece is not None
    if board.is_castling(move):
        return "O-O" if move.to_square % 8 == 6 else "O-O-O"
    capture = board.is_capture(move)
    target = SQUARE_NAMES[move.to_square]
    if piece.piece_type == PAWN:
        text = (FILE_NAMES[move.from_square % 8] + "x" if capture else "") + target
        if move.promotion:
            text += "=" + PIECE_SYMBOLS[move.promotion].upper()
        return text
    others = [
        m.from_square
        for m in board.legal_moves()
        if m.to_square == move.to_square
        and m.from_square != move.from_square
        and board.piece_at(m.from_square) == piece
    ]
    text = PIECE_SYMBOLS[piece.piece_type].upper()
    if others:
        same_file = any(s % 8 == move.from_square % 8 for s in others)
        same_rank = any(s // 8 == move.from_square // 8 for s in others)
        if same_rank or not same_file:
            text += FILE_NAMES[move.from_square % 8]
        if same_file:
            text += RANK_NAMES[move.from_square // 8]
    return text + ("x" if capture else "") + target


def san(board: Board, move: Move) -> str:
    """``move`` (legal in ``board``) in SAN, with the check or mate suffix."""
    if not board.is_legal(move):
        board.push(move)  # raises IllegalMoveError with the reason
    text = _without_suffix(board, move)
    board.push(move)
    try:
        if board.is_check():
            text += "#" if not board.legal_moves() else "+"
    finally:
        board.pop()
    return text


def parse_san(board: Board, text: str) -> Move:
    """The legal move ``text`` names; :class:`IllegalMoveError` if none or several match."""
    side = board.turn.name.lower()
    core = text.strip().rstrip("+#!?")
    if core in _CASTLES:
        king = board.king(board.turn)
        move = Move(king, king - king % 8 + _CASTLES[core])
        if not board.is_castling(move):
            raise IllegalMoveError(f"SAN {text!r}: {side} cannot castle that way here")
        return move
    m = _SAN.match(core)
    if not m:
        raise IllegalMoveError(f"{text!r} is not SAN (like e4, Nf3, exd5, O-O, e8=Q)")
    letter, file, rank, target, promo = m.groups()
    to = SQUARE_NAMES.index(target)
    promotion = PIECE_SYMBOLS.index(promo.lower()) if promo else None
    if not letter and not file:
        file = target[0]  # a pawn move without a file stays on its file (no capture)
    long_form = not letter and file and rank  # "e2e4", "g1f3": the origin names the piece
    kind = PIECE_SYMBOLS.index(letter.lower()) if letter else PAWN
    candidates, unpromoted = [], []
    for move in board.legal_moves():
        if move.to_square != to:
            continue
        piece = board.piece_at(move.from_square)
        assert piece is not None
        if not (long_form or piece.piece_type == kind):
            continue
        if file and FILE_NAMES[move.from_square % 8] != file or rank and RANK_NAMES[move.from_square // 8] != rank:
            continue
        if piece.piece_type == KING and board.is_castling(move) and not long_form:
            continue  # castling is written O-O / O-O-O
        if move.promotion != promotion:
            if promotion is None:
                unpromoted.append(move)
            continue
        candidates.append(move)
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        names = ", ".join(san(board, m) for m in candidates)
        raise IllegalMoveError(f"SAN {text!r} is ambiguous: {names}")
    if unpromoted:
        example = san(board, unpromoted[0])
        raise IllegalMoveError(f"SAN {text!r}: a pawn reaching the last rank must promote (e.g. {example})")
    raise IllegalMoveError(f"SAN {text!r}: no legal {side} move matches")
