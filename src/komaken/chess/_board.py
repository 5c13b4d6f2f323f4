"""The :class:`Board`: a :class:`komaken.game.Game` over the numba mailbox kernels."""

from __future__ import annotations

from typing import Literal, Self

import numpy as np

from komaken.chess import _kernels as K
from komaken.chess._display import board_text, svg
from komaken.chess._fen import STARTING_FEN, parse_fen, write_fen
from komaken.chess._move import PIECE_NAMES, SQUARE_NAMES, Move, Piece, is_uci
from komaken.chess._san import parse_san, san
from komaken.chess._tables import (
    EMPTY,
    KING,
    MAX_MOVES,
    ST_EP,
    ST_FULL,
    ST_HALF,
    ST_KING,
    ST_PLY,
    ST_SIDE,
    TO64,
    TO120,
)
from komaken.errors import IllegalMoveError
from komaken.game import Color, Outcome, Termination

_CAPACITY = 256
_STATUS = {
    K.STATUS_CHECKMATE: Termination.CHECKMATE,
    K.STATUS_STALEMATE: Termination.STALEMATE,
    K.STATUS_MATERIAL: Termination.INSUFFICIENT_MATERIAL,
    K.STATUS_FIFTY: Termination.FIFTY_MOVES,
    K.STATUS_REPETITION: Termination.REPETITION,
}


def _color(side: int) -> Color:
    """Kernel side (0 = white, who moves first) → :class:`Color`."""
    return Color.WHITE if side == 0 else Color.BLACK


def _to_move(code: int) -> Move:
    promo = (code >> 14) & 7
    return Move(int(TO64[code & 127]), int(TO64[(code >> 7) & 127]), promo or None)


class Board:
    """A chess position with its move history.

    ``Board()`` is the start position, ``Board(fen)`` or :meth:`from_fen` any other.  Play with
    :meth:`push` (a :class:`Move`), :meth:`push_uci`, :meth:`push_san` or :meth:`push_text`
    (either notation); :meth:`pop` takes a move back.  White moves first: ``turn`` is
    ``Color.WHITE`` at the start, and a white win is ``Outcome(..., winner=Color.WHITE)``.

    >>> b = Board()
    >>> for san in ("e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"):
    ...     _ = b.push_san(san)
    >>> b.san(Move.from_uci("h5f7"))
    'Qxf7#'
    >>> _ = b.push_san("Qxf7#")
    >>> b.outcome(), b.result()
    (Outcome(termination=<Termination.CHECKMATE: 'checkmate'>, winner=Color.WHITE), '1-0')
    """

    __slots__ = ("_bd", "_st", "_zk", "_und", "_legal")

    def __init__(self, fen: str = STARTING_FEN) -> None:
        self._bd, self._st = parse_fen(fen)
        self._zk = np.zeros(_CAPACITY + 1, dtype=np.uint64)
        self._und = np.zeros(_CAPACITY, dtype=np.int64)
        self._zk[0] = K.full_key(self._bd, self._st)
        self._legal: dict[Move, int] | None = None

    # ---- construction / text -----------------------------------------------------------------
    @classmethod
    def start(cls) -> Board:
        """The standard start position."""
        return cls()

    @classmethod
    def from_fen(cls, fen: str) -> Board:
        """A position from FEN; :class:`InvalidPositionError` names the field or square at fault.

        ``"startpos"`` is accepted for the start position.
        """
        text = fen.strip()
        return cls(STARTING_FEN if text == "startpos" else text)

    from_text = from_fen

    def fen(self) -> str:
        """The position as FEN (en-passant square only when that capture is legal)."""
        return write_fen(self._bd, self._st)

    to_text = fen

    def copy(self) -> Self:
        """An independent copy, move history included."""
        other = object.__new__(type(self))
        other._bd, other._st = self._bd.copy(), self._st.copy()
        other._zk, other._und = self._zk.copy(), self._und.copy()
        other._legal = self._legal
        return other

    __copy__ = copy

    def __eq__(self, other: object) -> bool:
        """Same pieces, side, castling rights, en passant and clocks (history not compared)."""
        if not isinstance(other, Board):
            return NotImplemented
        return bool(np.array_equal(self._bd, other._bd)) and bool(
            np.array_equal(self._st[:ST_PLY], other._st[:ST_PLY])
        )

    __hash__ = None  # type: ignore[assignment]  # mutable: hash ``key`` instead

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    # ---- state -------------------------------------------------------------------------------
    @property
    def turn(self) -> Color:
        return _color(int(self._st[ST_SIDE]))

    @property
    def ply(self) -> int:
        """Moves pushed since the position was set up."""
        return int(self._st[ST_PLY])

    @property
    def key(self) -> int:
        """Zobrist key: pieces, side to move, castling rights and a legal en-passant square."""
        return int(self._zk[self._st[ST_PLY]])

    @property
    def halfmove_clock(self) -> int:
        return int(self._st[ST_HALF])

    @property
    def fullmove_number(self) -> int:
        return int(self._st[ST_FULL])

    @property
    def ep_square(self) -> int | None:
        """The square a pawn may capture onto en passant (only if that capture is legal)."""
        ep = int(self._st[ST_EP])
        return int(TO64[ep]) if ep else None

    @property
    def castling(self) -> str:
        """The castling rights as in FEN (``"KQkq"``, ``"-"``)."""
        return self.fen().split()[2]

    @property
    def move_stack(self) -> list[Move]:
        return [_to_move(int(self._und[i]) & 0xFFFFF) for i in range(self.ply)]

    def peek(self) -> Move | None:
        """The last move played, if any."""
        return _to_move(int(self._und[self.ply - 1]) & 0xFFFFF) if self.ply else None

    def piece_at(self, square: int) -> Piece | None:
        p = int(self._bd[TO120[square]])
        if p == EMPTY:
            return None
        return Piece(p & 7, _color(p >> 3))

    def piece_map(self) -> dict[int, Piece]:
        return {sq: piece for sq in range(64) if (piece := self.piece_at(sq)) is not None}

    def king(self, color: Color) -> int:
        """The square of ``color``'s king."""
        return int(TO64[self._st[ST_KING + (0 if color is Color.WHITE else 1)]])

    # ---- moves -------------------------------------------------------------------------------
    def _codes(self) -> dict[Move, int]:
        if self._legal is None:
            out = np.empty(MAX_MOVES, dtype=np.int64)
            n = K.gen_legal(self._bd, self._st, out)
            self._legal = {_to_move(int(c)): int(c) for c in out[:n]}
        return self._legal

    def legal_moves(self) -> list[Move]:
        """All legal moves (board order: a1 first, promotions Q, R, B, N)."""
        return list(self._codes())

    def is_legal(self, move: Move) -> bool:
        return move in self._codes()

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return bool(K.in_check(self._bd, self._st))

    def gives_check(self, move: Move) -> bool:
        self.push(move)
        try:
            return self.is_check()
        finally:
            self.pop()

    def is_castling(self, move: Move) -> bool:
        code = self._codes().get(move)
        return code is not None and code >> 17 == 3

    def is_en_passant(self, move: Move) -> bool:
        code = self._codes().get(move)
        return code is not None and code >> 17 == 2

    def is_capture(self, move: Move) -> bool:
        return self.is_en_passant(move) or self.piece_at(move.to_square) is not None

    def push(self, move: Move) -> None:
        """Play a legal move; :class:`IllegalMoveError` (naming the move and why) if it is not."""
        if not isinstance(move, Move):
            raise IllegalMoveError(f"not a chess Move: {move!r}")
        code = self._codes().get(move)
        if code is None:
            raise IllegalMoveError(f"illegal move {self._describe_illegal(move)}")
        if self.ply + 2 >= len(self._und):
            self._grow(len(self._und))
        K.make(self._bd, self._st, self._zk, self._und, code)
        self._legal = None

    def _grow(self, extra: int) -> None:
        self._zk = np.concatenate([self._zk, np.zeros(extra, dtype=np.uint64)])
        self._und = np.concatenate([self._und, np.zeros(extra, dtype=np.int64)])

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if self.ply == 0:
            raise IndexError("pop from a board with no moves")
        code = int(K.unmake(self._bd, self._st, self._und))
        self._legal = None
        return _to_move(code)

    def _describe_illegal(self, move: Move) -> str:
        text = move.uci() if 0 <= move.from_square < 64 and 0 <= move.to_square < 64 else repr(move)
        if text.startswith("Move("):
            return f"{text}: squares must be 0..63"
        piece = self.piece_at(move.from_square)
        side = self.turn.name.lower()
        if piece is None:
            return f"{text}: no piece on {SQUARE_NAMES[move.from_square]}"
        if piece.color is not self.turn:
            return f"{text}: the piece on {SQUARE_NAMES[move.from_square]} is not {side}'s ({side} to move)"
        name = PIECE_NAMES[piece.piece_type]
        same_path = [m for m in self._codes() if (m.from_square, m.to_square) == (move.from_square, move.to_square)]
        if same_path and move.promotion is None:
            return f"{text}: a pawn reaching the last rank must promote (e.g. {same_path[0].uci()})"
        if same_path or move.promotion is not None:
            return f"{text}: a {name} cannot promote like that (promote a pawn to q, r, b or n on the last rank)"
        if self._pseudo_legal(move) or self._exposing_en_passant(move):
            return f"{text}: leaves the {side} king in check"
        return f"{text}: the {side} {name} on {SQUARE_NAMES[move.from_square]} cannot move there"

    def _exposing_en_passant(self, move: Move) -> bool:
        """Whether ``move`` is an en-passant capture of the pawn that just double-stepped (it
        was not kept as an en-passant square, so it must expose the king)."""
        if not self.ply or self._und[self.ply - 1] >> 17 & 3 != 1:
            return False
        last = self.peek()
        assert last is not None
        piece = self.piece_at(move.from_square)
        passed = (last.from_square + last.to_square) // 2
        return (
            piece is not None
            and piece.piece_type == 1
            and move.to_square == passed
            and abs(move.from_square - last.to_square) == 1
            and move.from_square // 8 == last.to_square // 8
        )

    def _pseudo_legal(self, move: Move) -> bool:
        out = np.empty(MAX_MOVES, dtype=np.int64)
        n = K.gen_pseudo(self._bd, self._st, out, self.is_check())
        return any(_to_move(int(c)) == move for c in out[:n])

    def push_uci(self, text: str) -> Move:
        """Parse a UCI move (``e2e4``, ``e7e8q``, castling ``e1g1``) and play it."""
        move = Move.from_uci(text)
        self.push(move)
        return move

    def parse_san(self, text: str) -> Move:
        return parse_san(self, text)

    def push_san(self, text: str) -> Move:
        """Parse SAN (``Nf3``, ``exd5``, ``O-O``, ``e8=Q+``) and play it."""
        move = self.parse_san(text)
        self.push(move)
        return move

    def parse_move(self, text: str) -> Move:
        """A legal move from UCI or SAN text (UCI when it looks like UCI)."""
        if is_uci(text):
            move = Move.from_uci(text)
            if move not in self._codes():
                raise IllegalMoveError(f"illegal move {self._describe_illegal(move)}")
            return move
        return self.parse_san(text)

    def push_text(self, text: str) -> Move:
        """Parse UCI or SAN text, play the move and return it."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def san(self, move: Move) -> str:
        """The move in SAN, with ``+`` / ``#``; :class:`IllegalMoveError` if it is not legal here."""
        return san(self, move)

    def move_text(self, move: Move, notation: Literal["san", "uci"] = "san") -> str:
        return move.uci() if notation == "uci" else self.san(move)

    # ---- game end ----------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """Checkmate, insufficient material, stalemate, the 50-move rule or threefold
        repetition — checked in that order, as python-chess does — or ``None`` while the game
        goes on.  The draws end the game at once (no claim needed), as in engine matches."""
        code = int(K.status(self._bd, self._st, self._zk, len(self._codes())))
        if code == K.STATUS_NONE:
            return None
        winner = self.turn.other if code == K.STATUS_CHECKMATE else None
        return Outcome(_STATUS[code], winner)

    def result(self) -> str:
        """The result in chess notation: ``"1-0"`` (white won), ``"0-1"``, ``"1/2-1/2"`` or ``"*"``."""
        outcome = self.outcome()
        if outcome is None:
            return "*"
        if outcome.winner is None:
            return "1/2-1/2"
        return "1-0" if outcome.winner is Color.WHITE else "0-1"

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def is_checkmate(self) -> bool:
        return not self._codes() and self.is_check()

    def is_stalemate(self) -> bool:
        return not self._codes() and not self.is_check()

    def is_insufficient_material(self) -> bool:
        return bool(K.insufficient_material(self._bd))

    def is_fifty_moves(self) -> bool:
        """Fifty moves by each side without a capture or pawn move (and a move left to make)."""
        return self.halfmove_clock >= 100 and bool(self._codes())

    def is_repetition(self, count: int = 3) -> bool:
        """Whether the current position has occurred ``count`` times (since the board was set up)."""
        return int(K.repetitions(self._zk, self._st)) + 1 >= count

    # ---- perft -------------------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Leaf nodes of the legal move tree ``depth`` plies deep (20, 400, 8902, … from the start)."""
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        if self.ply + depth + 2 >= len(self._und):
            self._grow(depth + 2)
        return int(K.perft(self._bd, self._st, self._zk, self._und, depth))

    def divide(self, depth: int) -> dict[str, int]:
        """Perft split by first move: ``{uci: leaves}``."""
        result = {}
        for move in self.legal_moves():
            self.push(move)
            result[move.uci()] = self.perft(depth - 1)
            self.pop()
        return result

    # ---- display -----------------------------------------------------------------------------
    def board_text(self, style: Literal["ascii", "unicode"] = "ascii", coordinates: bool = True) -> str:
        return board_text(self, style, coordinates)

    def unicode(self) -> str:
        return self.board_text("unicode")

    def __str__(self) -> str:
        return self.board_text()

    def svg(self, size: int = 360, flipped: bool = False) -> str:
        return svg(self, size, flipped)

    def _repr_svg_(self) -> str:
        return self.svg()


__all__ = ["Board", "KING", "STARTING_FEN"]
