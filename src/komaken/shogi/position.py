"""The friendly Python layer over the kernels: :class:`Position` (with :class:`Move` from
:mod:`komaken.shogi.move` and :class:`Square`, :class:`Piece` from :mod:`komaken.shogi.square`,
re-exported here).

>>> from komaken.shogi import Position
>>> pos = Position.start("minishogi")
>>> len(pos.legal_moves), pos.turn
(14, Color.BLACK)
>>> pos.push_usi("5d5c")
Move.from_usi('5d5c')
>>> pos.sfen()
'rbsgk/4p/P4/5/KGSBR w - 2'
>>> print(pos.turn)
white
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from typing import Self

import numpy as np

from komaken.errors import IllegalMoveError, InvalidPositionError
from komaken.game import Color, Outcome, Termination
from komaken.legal import LegalMoves
from komaken.shogi import _kernels as K
from komaken.shogi import display
from komaken.shogi._board import (
    BLACK_BIT,
    BOARD_SIZE,
    HAND_KINDS,
    KIND_OF_LETTER,
    KING,
    LETTERS,
    MAX_HAND,
    WALL,
    kind_letter,
    square,
)
from komaken.shogi.kernel import KernelState, state_of
from komaken.shogi.move import Move
from komaken.shogi.notation import japanese_marked, looks_japanese, parse_japanese
from komaken.shogi.sfen import format_sfen, parse_sfen
from komaken.shogi.square import Piece, Square, _to_square
from komaken.shogi.variant import SHOGI, Variant, load_variant

_INITIAL_CAPACITY = 512


#: built-in variant by number of ranks, as the record readers infer it
_VARIANT_BY_RANKS = {5: "minishogi", 6: "judkins", 9: "shogi"}


@cache
def _composed(variant: Variant) -> Variant:
    """``variant`` with the rules a composed setup may break (二歩, dead pieces) switched off for reading it."""
    return replace(variant, nifu=False, dead_pieces=False)


def _variant_for_sfen(text: str) -> str:
    words = text.split()
    if not words or words[0] == "startpos" or words[:2] == ["sfen", "startpos"]:
        return "shogi"
    board = words[1] if words[0] == "sfen" and len(words) > 1 else words[0]
    ranks = board.count("/") + 1
    try:
        return _VARIANT_BY_RANKS[ranks]
    except KeyError:
        raise InvalidPositionError(
            f"SFEN board {board!r} has {ranks} ranks and no built-in variant has {ranks}: pass "
            "variant= (shogi 9, judkins 6, minishogi 5, or a variant TOML file)"
        ) from None


def _not_a_move(value: object, variant: Variant) -> str:
    if isinstance(value, str):
        if looks_japanese(variant, value):
            return f"push() takes a Move; for Japanese move text use pos.push_japanese({value!r})"
        return f"push() takes a Move; for USI text use pos.push_usi({value!r}) (or push(Move.from_usi(...)))"
    return f"push() takes a Move (from pos.legal_moves or Move.from_usi), not {type(value).__name__}: {value!r}"


_TERMINATIONS = {
    K.END_MATE: Termination.CHECKMATE, K.END_NO_MOVES: Termination.NO_LEGAL_MOVES,
    K.END_REPETITION: Termination.REPETITION, K.END_PERPETUAL: Termination.PERPETUAL_CHECK,
    K.END_IMPASSE: Termination.IMPASSE, K.END_MAX_PLIES: Termination.MAX_PLIES,
    K.END_KING_CAPTURED: Termination.KING_CAPTURED, K.END_TRY: Termination.TRY,
}


class Position:
    """A shogi-family position with its move history, for any :class:`Variant`.

    Build one with :meth:`start` or :meth:`from_sfen`; play with :meth:`push` /
    :meth:`push_usi` / :meth:`push_japanese`, take back with :meth:`pop`.  The state lives in
    numpy arrays that the numba kernels (move generation, search) work on directly.

    ``variant`` is a :class:`Variant` or its name (``"shogi"``, ``"minishogi"``, ``"judkins"``, a
    TOML file); ``None`` means shogi (for :meth:`from_sfen`: the variant the SFEN's board size says).
    """

    __slots__ = ("variant", "_bd", "_hd", "_st", "_hh", "_hist", "_move0")

    def __init__(self, variant: Variant | str | None = None) -> None:
        self._blank(variant)
        self._set(parse_sfen(self.variant.start_sfen, self.variant))

    def _blank(self, variant: Variant | str | None) -> None:
        """The buffers of an empty board of ``variant``, to be filled by :meth:`_set`."""
        self.variant = load_variant(SHOGI if variant is None else variant)
        self._bd = np.full(BOARD_SIZE, WALL, dtype=np.int8)
        self._hd = np.zeros((2, 8), dtype=np.int8)
        self._st = np.zeros(K.ST_SIZE, dtype=np.int64)
        self._hh = np.zeros(_INITIAL_CAPACITY + 1, dtype=np.uint64)
        self._hist = np.zeros((_INITIAL_CAPACITY, 3), dtype=np.int64)
        self._move0 = 1

    # ---- construction ------------------------------------------------------------------------
    @classmethod
    def start(cls, variant: Variant | str | None = None) -> Position:
        """The variant's start position."""
        return cls(variant)

    @classmethod
    def from_sfen(cls, sfen: str, variant: Variant | str | None = None, *, composed: bool = False) -> Position:
        """A position from SFEN (``startpos`` is accepted too).  Raises
        :class:`InvalidPositionError` for anything malformed or against the rules.

        Without ``variant`` the board size decides, as the record readers do: 5 ranks →
        minishogi, 6 → judkins, 9 → shogi (other sizes need ``variant=``, e.g. a TOML file).
        ``composed=True`` accepts a composed setup (a tsume or record start, as Kifu for Windows sets
        them up) with 二歩 or pieces on ranks they cannot leave; every move still follows the rules.

        >>> Position.from_sfen("4k/5/4P/5/K4 b G 1").variant.name
        'minishogi'
        """
        if not isinstance(sfen, str):
            raise TypeError(f"from_sfen takes SFEN text, not {type(sfen).__name__}")
        text = sfen.strip()
        if text in ("startpos", "sfen startpos"):
            return cls(_variant_for_sfen(text) if variant is None else variant)
        pos = cls.__new__(cls)
        pos._blank(_variant_for_sfen(text) if variant is None else variant)
        pos._set(parse_sfen(text, _composed(pos.variant) if composed else pos.variant))
        return pos

    def _set(self, parsed: tuple[dict[int, int], tuple[dict[int, int], dict[int, int]], int, int]) -> None:
        board, hands, side, move_number = parsed
        self._bd[self.variant.geo[K.G_BOARD] == 1] = 0
        self._hd[:] = 0
        self._st[:] = 0
        for sq, code in board.items():
            self._bd[sq] = code
            if code & 0x0F == KING:
                self._st[K.ST_KING + (0 if code & BLACK_BIT else 1)] = sq
        for color in range(2):
            for kind, n in hands[color].items():
                if not 0 <= n <= MAX_HAND:  # parse_sfen checks it; the kernels rely on it
                    raise InvalidPositionError(f"{n} {LETTERS[kind]} in one hand (at most {MAX_HAND})")
                self._hd[color, kind] = n
        self._st[K.ST_SIDE] = side
        self._move0 = move_number
        self._hh[0] = K.full_hash(self._bd, self._hd, side)
        opponent_king = self._st[K.ST_KING + 1 - side]
        rules = self.variant.rules
        if opponent_king and not self.variant.king_capture and K.attacked(self._bd, opponent_king, side, rules):
            who = "white" if side == 0 else "black"
            where = Square.from_index(opponent_king).usi()
            raise InvalidPositionError(f"the side not to move ({who}) is in check at {where}")

    def copy(self) -> Self:
        """An independent copy, history included."""
        other = object.__new__(type(self))
        other.variant = self.variant
        other._bd = self._bd.copy()
        other._hd = self._hd.copy()
        other._st = self._st.copy()
        other._hh = self._hh.copy()
        other._hist = self._hist.copy()
        other._move0 = self._move0
        return other

    def __copy__(self) -> Self:
        return self.copy()

    # ---- state -------------------------------------------------------------------------------
    @property
    def turn(self) -> Color:
        """The side to move: ``Color.BLACK`` (先手, prints as ``black``) or ``Color.WHITE``."""
        return Color(int(self._st[K.ST_SIDE]))

    @property
    def ply(self) -> int:
        """Number of moves pushed since the position was set up."""
        return int(self._st[K.ST_PLY])

    @property
    def move_number(self) -> int:
        """The SFEN move number (counting plies, starting at 1)."""
        return self._move0 + self.ply

    @property
    def zobrist(self) -> int:
        """64-bit Zobrist hash of board, hands and side to move (bit 0 is the side)."""
        return int(self._hh[self.ply])

    @property
    def key(self) -> int:
        """Same as :attr:`zobrist` (the :class:`komaken.game.Game` protocol's name)."""
        return self.zobrist

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed so far (each knowing its :attr:`Move.piece`)."""
        walker = self.copy()
        out = [walker.pop() for _ in range(self.ply)]
        return out[::-1]

    def piece_at(self, sq: Square | tuple[int, int] | str) -> Piece | None:
        """The piece on a square, or ``None``.  The square is a :class:`Square`, a
        ``(file, rank)`` tuple or text: ``pos.piece_at("7g")``, ``pos.piece_at("７七")``."""
        f, r = _to_square(sq)
        if not (1 <= f <= self.variant.width and 1 <= r <= self.variant.height):
            raise InvalidPositionError(f"square {f},{r} is off the {self.variant.width}x{self.variant.height} board")
        code = int(self._bd[square(f, r)])
        if not code:
            return None
        return Piece(kind_letter(code & 0x0F), Color.BLACK if code & BLACK_BIT else Color.WHITE)

    def pieces(self) -> Iterator[tuple[Square, Piece]]:
        """Every (square, piece) on the board, file 9..1 within rank 1..H."""
        for r in range(1, self.variant.height + 1):
            for f in range(self.variant.width, 0, -1):
                p = self.piece_at((f, r))
                if p:
                    yield Square(f, r), p

    def hand(self, color: Color | str) -> dict[str, int]:
        """Pieces in ``color``'s hand, as ``{"R": 1, "P": 3}`` in R B G S N L P order.
        ``color`` is a :class:`Color` or its name: ``pos.hand("black")``, ``pos.hand("gote")``."""
        c = Color.parse(color)
        return {LETTERS[k]: int(self._hd[c, k]) for k in HAND_KINDS if self._hd[c, k]}

    def king_square(self, color: Color | str) -> Square | None:
        k = int(self._st[K.ST_KING + Color.parse(color)])
        return Square.from_index(k) if k else None

    def sfen(self) -> str:
        board = {int(s): int(self._bd[s]) for s in self.variant.rules[K.R_SQUARES :] if self._bd[s]}
        hands = tuple({k: int(self._hd[c, k]) for k in range(1, 8) if self._hd[c, k]} for c in range(2))
        return format_sfen(board, hands, int(self._st[K.ST_SIDE]), self.move_number, self.variant)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        """Same variant, board, hands and side to move (history and move number aside)."""
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.variant == other.variant
            and self.zobrist == other.zobrist
            and np.array_equal(self._bd, other._bd)
            and np.array_equal(self._hd, other._hd)
            and self.turn == other.turn
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Position.from_sfen({self.sfen()!r}, variant={self.variant.name!r})"

    # ---- moves -------------------------------------------------------------------------------
    def _legal_codes(self) -> np.ndarray:
        out = np.empty(K.MAX_MOVES, dtype=np.int64)
        n = K.gen_legal(self._bd, self._hd, self._st, self.variant.geo, self.variant.rules, out)
        return out[:n]

    @property
    def legal_moves(self) -> LegalMoves[Move]:
        """The legal moves, in generation order: a live sequence (``len(pos.legal_moves)``,
        ``"7g7f" in pos.legal_moves``, ``for m in pos.legal_moves``) that can also be called —
        ``pos.legal_moves()`` returns a new ``list``.  See :mod:`komaken.legal`."""
        return LegalMoves(self._legal_list, Move.from_usi)

    def _legal_list(self, to: int | None = None) -> list[Move]:
        """The legal moves as :class:`Move` objects; with ``to``, only those landing on the square
        of that board index (a reader looking for one move need not build the others)."""
        codes = self._legal_codes()
        if to is not None:
            codes = codes[(codes & 0xFF) == to]
        side_bit = BLACK_BIT if self._st[K.ST_SIDE] == 0 else BLACK_BIT << 1
        board = self._bd.tolist() if len(codes) > 8 else self._bd  # a list reads faster than numpy per item
        # the mover: the piece on the origin square, or for a drop (origin 0) its kind and side
        return [Move(c, int(board[(c >> 8) & 0xFF]) if (c >> 8) & 0xFF else ((c >> 17) & 0xF) | side_bit)
                for c in codes.tolist()]

    def is_legal(self, move: Move) -> bool:
        return bool(K.is_legal(self._bd, self._hd, self._st, self.variant.geo, self.variant.rules, move.code))

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return bool(K.in_check(self._bd, self._st, self.variant.rules))

    def gives_check(self, move: Move) -> bool:
        """Whether ``move`` gives check (discovered ones too); raises as :meth:`push` if it is illegal."""
        self._require_legal(move)
        return bool(K.gives_check(self._bd, self._st, self.variant.rules, move.code))

    def _require_legal(self, move: Move) -> None:  # IllegalMoveError, naming the move and why
        if not isinstance(move, Move):
            raise IllegalMoveError(_not_a_move(move, self.variant))
        if not self.is_legal(move):
            raise IllegalMoveError(f"illegal move {self._describe_illegal(move)}")

    def _grow(self) -> None:
        n = len(self._hist)
        if self.ply + 2 >= n:
            self._hh = np.concatenate([self._hh, np.zeros(n, dtype=np.uint64)])
            self._hist = np.concatenate([self._hist, np.zeros((n, 3), dtype=np.int64)])

    def push(self, move: Move) -> None:
        """Play a legal move; raises :class:`IllegalMoveError` (naming the move and why) if
        it is not legal here.  For move text use :meth:`push_usi` (``7g7f``) or
        :meth:`push_japanese` (``７六歩``)."""
        self._require_legal(move)
        self._grow()
        K.push(self._bd, self._hd, self._st, self._hh, self._hist, self.variant.rules, move.code)

    def push_usi(self, text: str) -> Move:
        """Parse USI text and play it; returns the move."""
        move = self._with_piece(Move.from_usi(text))
        self.push(move)
        return move

    def push_japanese(self, text: str) -> Move:
        """Parse Japanese move text (``７六歩``, ``76歩``, ``同銀``, ``５五角打``) and play it;
        returns the move.  See :func:`komaken.shogi.notation.parse_japanese`."""
        move = self._with_piece(parse_japanese(self, text))
        self.push(move)
        return move

    def variation_japanese(self, moves: list[Move] | list[str], *, style: str = "ki2") -> str:
        """Japanese text of a line of moves played from here, each with its ▲/△ mark, 同 where a
        move takes on the square just moved to (like python-chess's ``variation_san``):
        ``▲２二金打 △同　玉 ▲３二金打``.  ``moves`` are Moves or USI text; raises
        :class:`IllegalMoveError` at the first illegal one.  The position is left unchanged."""
        walker = self.copy()
        words = []
        for item in moves:
            move = Move.from_usi(item) if isinstance(item, str) else item
            words.append(japanese_marked(walker, move, style=style))  # type: ignore[arg-type]
            walker.push(move)
        return " ".join(words)

    def _with_piece(self, move: Move) -> Move:
        """``move`` knowing the piece that makes it here (unchanged if nothing can)."""
        frm = move.from_square
        if frm is None:
            return Move(move.code, KIND_OF_LETTER[move.drop] | (BLACK_BIT << int(self.turn)))  # type: ignore[index]
        if 1 <= frm.file <= self.variant.width and 1 <= frm.rank <= self.variant.height and self._bd[frm.index]:
            return Move(move.code, int(self._bd[frm.index]))
        return move

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if self.ply == 0:
            raise IllegalMoveError("no move to take back")
        code = int(self._hist[self.ply - 1, K.H_MOVE])
        K.undo_move(self._bd, self._hd, self._st, self._hist)
        return self._with_piece(Move(code))

    def peek(self) -> Move | None:
        """The last move played, if any."""
        if not self.ply:
            return None
        move = Move(int(self._hist[self.ply - 1, K.H_MOVE]))
        moved = int(self._bd[move.to_square.index])
        if move.promotion:
            moved -= 8  # PROMOTED: the piece as it was before it promoted
        return Move(move.code, moved)

    def _describe_illegal(self, move: Move) -> str:
        text = move.usi()
        W, H = self.variant.width, self.variant.height
        for sq in (move.to_square, move.from_square):
            if sq is not None and not (1 <= sq.file <= W and 1 <= sq.rank <= H):
                return f"{text}: square {sq.usi()} is off the {W}x{H} board"
        if move.drop:
            if not self._hd[self.turn, KIND_OF_LETTER[move.drop]]:
                return f"{text}: no {move.drop} in hand"
            if self.piece_at(move.to_square):
                return f"{text}: {move.to_square.usi()} is occupied"
            return f"{text}: the drop breaks a rule (二歩, 打ち歩詰め, dead piece or check)"
        assert move.from_square is not None
        piece = self.piece_at(move.from_square)
        if piece is None:
            return f"{text}: no piece on {move.from_square.usi()}"
        if piece.color != self.turn:
            return f"{text}: the piece on {move.from_square.usi()} is not the mover's"
        return f"{text}: {piece.kind} on {move.from_square.usi()} cannot move there (or leaves the king in check)"

    # ---- game end ----------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """How the game has ended (checkmate, 千日手, 連続王手の千日手, 持将棋 by the point count,
        the ply limit), or ``None`` while it goes on."""
        code = int(K.game_end(self._bd, self._hd, self._st, self._hh, self._hist, self.variant.geo,
                              self.variant.rules, 0))
        if code == 0:
            return None
        winner = code & 3
        return Outcome(_TERMINATIONS[code >> 2], None if winner == K.WINNER_DRAW else Color(winner))

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def is_checkmate(self) -> bool:
        """Whether the side to move is in check with no legal move (詰み)."""
        return self.is_check() and len(self._legal_codes()) == 0

    def repetition_count(self) -> int:
        """How many times the current position occurred before (4-fold repetition at 3)."""
        return int(K.repetition_count(self._hh, self._st))

    def is_repetition(self, count: int = 4) -> bool:
        """Whether the current position (board, hands, side to move) has now occurred ``count``
        times in the moves pushed.  Shogi's 千日手 is the fourth occurrence, hence the default
        (python-chess's is 3, chess's threefold repetition); :meth:`outcome` says who it favours."""
        return self.repetition_count() + 1 >= count

    def can_declare(self) -> bool:
        """Whether the side to move may win by declaration (27-point rule, ``impasse = "27"``)."""
        return bool(K.can_declare(self._bd, self._hd, self._st, self.variant.geo, self.variant.rules))

    def declare(self) -> Outcome:
        """Declare a win by the 27-point rule; raises :class:`IllegalMoveError` if not allowed."""
        if not self.can_declare():
            raise IllegalMoveError("declaration (入玉宣言) is not allowed in this position")
        return Outcome(Termination.DECLARATION, self.turn)

    def impasse_points(self, color: Color | str) -> int:
        """持将棋 points of ``color``: 5 per rook or bishop, 1 per other piece, board and hand."""
        c = int(Color.parse(color))
        return int(K.impasse_points(self._bd, self._hd, self.variant.rules, c, False, self.variant.geo)[0])

    # ---- perft -------------------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Number of leaf nodes of the legal move tree ``depth`` plies deep."""
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        while self.ply + depth + 2 >= len(self._hist):
            n = len(self._hist)
            self._hh = np.concatenate([self._hh, np.zeros(n, dtype=np.uint64)])
            self._hist = np.concatenate([self._hist, np.zeros((n, 3), dtype=np.int64)])
        return int(K.perft(self._bd, self._hd, self._st, self._hh, self._hist, self.variant.geo,
                           self.variant.rules, depth))

    def divide(self, depth: int) -> dict[str, int]:
        """Perft split by first move: ``{usi: leaves}``."""
        result = {}
        for move in self.legal_moves():
            self.push(move)
            result[move.usi()] = self.perft(depth - 1)
            self.pop()
        return result

    # ---- the kernel seam ---------------------------------------------------------------------
    def kernel_state(self, room: int = 0) -> KernelState:
        """Copies of the kernel arrays with room for ``room`` more plies (:mod:`komaken.shogi.kernel`)."""
        return state_of(self, room)

    def legal_codes(self) -> np.ndarray:
        """The legal moves as kernel move codes (``Move(code)`` turns one into a :class:`Move`)."""
        return self._legal_codes()

    def explain_illegal(self, move: Move) -> str:
        """Why ``move`` is not legal here, in words (``"7g7e: pawn on 7g cannot move there"``)."""
        return self._describe_illegal(move)

    # ---- display -----------------------------------------------------------------------------
    def __str__(self) -> str:
        return display.japanese_diagram(self)

    def ascii(self) -> str:
        """A plain-ASCII board."""
        return display.ascii_diagram(self)

    def _repr_svg_(self) -> str:
        """The SVG board (how Jupyter shows a position), the last move pushed shaded."""
        return display.svg(self, lastmove=self.peek())

    def svg(self, size: int = 40, *, lastmove: Move | None = None) -> str:
        """An SVG board; see :func:`komaken.shogi.display.svg`."""
        return display.svg(self, size, lastmove=lastmove)


__all__ = ["Move", "Piece", "Position", "Square"]
