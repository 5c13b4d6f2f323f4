"""The :class:`Reversi` position: a :class:`komaken.game.Game` on two 64-bit bitboards."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from komaken.errors import IllegalMoveError, InvalidPositionError
from komaken.game import Color, Outcome, Termination
from komaken.legal import LegalMoves
from komaken.reversi import _bitboard as bb

FILES = "abcdefgh"
_BLACK_CHARS = frozenset("XxBb黒●")
_WHITE_CHARS = frozenset("OoWw白○")
_EMPTY_CHARS = frozenset("-._口")
_BLACK_SIDES = frozenset({"x", "b", "black", "黒", "先手"})
_WHITE_SIDES = frozenset({"o", "w", "white", "白", "後手"})


def square_name(square: int) -> str:
    """``0`` → ``"a1"``, ``63`` → ``"h8"``."""
    return f"{FILES[square % 8]}{square // 8 + 1}"


def parse_square(text: str) -> int:
    """``"f5"`` (or ``"F5"``) → square index ``8 * (rank - 1) + file``."""
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in FILES or t[1] not in "12345678":
        raise IllegalMoveError(f"{text!r} is not a reversi square (a1..h8) or 'pass'")
    return (int(t[1]) - 1) * 8 + FILES.index(t[0])


@dataclass(frozen=True, slots=True)
class ReversiMove:
    """A disc placed on ``square`` (0 = a1 … 63 = h8), or a pass (``square == 64``)."""

    square: int

    @property
    def is_pass(self) -> bool:
        return self.square == bb.PASS

    @classmethod
    def parse(cls, text: str) -> ReversiMove:
        """``"f5"`` → the move on f5; ``"pass"`` (also ``"pa"``, ``"--"``) → the pass."""
        if text.strip().lower() in ("pass", "pa", "--", "ps"):
            return PASS
        return cls(parse_square(text))

    def __str__(self) -> str:
        return "pass" if self.is_pass else square_name(self.square)


PASS = ReversiMove(bb.PASS)


def _bits(x: int) -> Iterator[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class Reversi:
    """A reversi (Othello) position: black and white bitboards, the side to move, a move stack.

    Black moves first.  A side with no legal move must pass (:data:`PASS` is then its only
    legal move); when neither side can move the game is over and the side with more discs
    wins.

    >>> p = Reversi.start()
    >>> p.push_text("f5")
    ReversiMove(square=37)
    >>> p.discs(Color.BLACK), p.discs(Color.WHITE)
    (4, 1)
    """

    __slots__ = ("_black", "_white", "_turn", "_stack")

    def __init__(self, black: int, white: int, turn: Color = Color.BLACK) -> None:
        if not (0 <= black < 1 << 64 and 0 <= white < 1 << 64):
            raise InvalidPositionError("bitboards must be 64-bit unsigned integers")
        if black & white:
            both = ", ".join(square_name(s) for s in _bits(black & white))
            raise InvalidPositionError(f"squares hold both a black and a white disc: {both}")
        self._black = black
        self._white = white
        self._turn = Color(turn)
        self._stack: list[tuple[int, int, Color, ReversiMove]] = []

    # ----------------------------------------------------------------- construction / text
    @classmethod
    def start(cls) -> Reversi:
        """The standard start: white d4 e5, black d5 e4, black to move."""
        return cls(bb.START_BLACK, bb.START_WHITE, Color.BLACK)

    @classmethod
    def from_text(cls, text: str) -> Reversi:
        """Read a 64-character board (a1 b1 … h1, a2 … h8) and the side to move.

        ``X`` is black, ``O`` white and ``-`` empty (also ``黒``/``白``/``口`` as in seed 002,
        ``.`` for empty); whitespace inside the board is ignored.  The side follows after a
        space: ``X``/``black``/``黒`` or ``O``/``white``/``白``; without it black moves.
        """
        tokens = text.split()
        if not tokens:
            raise InvalidPositionError("empty reversi position")
        turn = Color.BLACK
        if len(tokens) > 1 and tokens[-1].lower() in _BLACK_SIDES | _WHITE_SIDES:
            turn = Color.BLACK if tokens.pop().lower() in _BLACK_SIDES else Color.WHITE
        board = "".join(tokens)
        if len(board) != 64:
            raise InvalidPositionError(f"reversi board has {len(board)} squares, expected 64: {board!r}")
        black = white = 0
        for sq, ch in enumerate(board):
            if ch in _BLACK_CHARS:
                black |= 1 << sq
            elif ch in _WHITE_CHARS:
                white |= 1 << sq
            elif ch not in _EMPTY_CHARS:
                raise InvalidPositionError(f"bad character {ch!r} on {square_name(sq)} (use X, O or -)")
        return cls(black, white, turn)

    @classmethod
    def from_transcript(cls, transcript: str) -> Reversi:
        """The position after a transcript like ``"f5d6c3d3c4"`` played from the start."""
        position = cls.start()
        position.push_transcript(transcript)
        return position

    def to_text(self) -> str:
        """64 board characters (``X``/``O``/``-``, a1 first) then a space and ``X`` or ``O``."""
        cells = []
        for sq in range(64):
            bit = 1 << sq
            cells.append("X" if self._black & bit else "O" if self._white & bit else "-")
        return "".join(cells) + (" X" if self._turn is Color.BLACK else " O")

    # ----------------------------------------------------------------------- state
    @property
    def turn(self) -> Color:
        return self._turn

    @property
    def black(self) -> int:
        """Bitboard of the black discs (bit 0 = a1)."""
        return self._black

    @property
    def white(self) -> int:
        """Bitboard of the white discs."""
        return self._white

    @property
    def key(self) -> tuple[int, int, int]:
        return (self._black, self._white, int(self._turn))

    @property
    def ply(self) -> int:
        """Moves (passes included) pushed since this object was created."""
        return len(self._stack)

    @property
    def move_stack(self) -> list[ReversiMove]:
        return [entry[3] for entry in self._stack]

    def discs(self, color: Color) -> int:
        """How many discs ``color`` has."""
        return (self._black if color is Color.BLACK else self._white).bit_count()

    @property
    def empties(self) -> int:
        return 64 - (self._black | self._white).bit_count()

    def _own_opp(self) -> tuple[int, int]:
        if self._turn is Color.BLACK:
            return self._black, self._white
        return self._white, self._black

    def piece_at(self, square: int) -> Color | None:
        """The colour of the disc on ``square`` or ``None``."""
        if not isinstance(square, int) or not 0 <= square < 64:
            raise InvalidPositionError(f"square {square!r} is off the board (0..63)")
        bit = 1 << square
        if self._black & bit:
            return Color.BLACK
        if self._white & bit:
            return Color.WHITE
        return None

    # ----------------------------------------------------------------------- moves
    def move_bitboard(self, color: Color | None = None) -> int:
        """Bitboard of the squares where ``color`` (default: the side to move) may play."""
        own, opp = self._own_opp()
        if color is not None and color is not self._turn:
            own, opp = opp, own
        return int(bb.legal_moves(np.uint64(own), np.uint64(opp)))

    @property
    def legal_moves(self) -> LegalMoves[ReversiMove]:
        """Disc moves in square order; ``[PASS]`` if only the opponent can move; ``[]`` at the end.

        A live sequence (``len(p.legal_moves)``, ``"f5" in p.legal_moves``) that can also be called:
        ``p.legal_moves()`` returns a new list (see :mod:`komaken.legal`)."""
        return LegalMoves(self._legal_list, ReversiMove.parse)

    def _legal_list(self) -> list[ReversiMove]:
        own, opp = self._own_opp()
        moves = int(bb.legal_moves(np.uint64(own), np.uint64(opp)))
        if moves:
            return [ReversiMove(sq) for sq in _bits(moves)]
        if int(bb.legal_moves(np.uint64(opp), np.uint64(own))):
            return [PASS]
        return []

    def flips(self, move: ReversiMove) -> int:
        """Bitboard of the discs ``move`` would turn over (0 for a pass or a non-move)."""
        if move.is_pass:
            return 0
        own, opp = self._own_opp()
        return int(bb.flips(np.uint64(own), np.uint64(opp), move.square))

    def _check(self, move: ReversiMove) -> int:
        """Raise :class:`IllegalMoveError` unless ``move`` is legal; return its flips."""
        if not isinstance(move, ReversiMove):
            raise IllegalMoveError(f"not a reversi move: {move!r}")
        side = "black" if self._turn is Color.BLACK else "white"
        own, opp = self._own_opp()
        moves = int(bb.legal_moves(np.uint64(own), np.uint64(opp)))
        if move.is_pass:
            if moves:
                raise IllegalMoveError(f"pass is illegal: {side} has {moves.bit_count()} legal moves")
            if not int(bb.legal_moves(np.uint64(opp), np.uint64(own))):
                raise IllegalMoveError("pass is illegal: the game is over")
            return 0
        if not isinstance(move.square, int) or not 0 <= move.square < 64:
            raise IllegalMoveError(f"square {move.square} is off the board (0..63)")
        name = square_name(move.square)
        if (own | opp) >> move.square & 1:
            raise IllegalMoveError(f"{name} is occupied")
        f = int(bb.flips(np.uint64(own), np.uint64(opp), move.square))
        if not f:
            if not moves:
                raise IllegalMoveError(f"{name}: {side} has no legal move and must pass")
            raise IllegalMoveError(f"{name} flips nothing for {side}")
        return f

    def is_legal(self, move: ReversiMove) -> bool:
        try:
            self._check(move)
        except IllegalMoveError:
            return False
        return True

    def push(self, move: ReversiMove) -> None:
        """Play ``move``; :class:`IllegalMoveError` (naming the square) if it is not legal."""
        f = self._check(move)
        self._stack.append((self._black, self._white, self._turn, move))
        if not move.is_pass:
            bit = 1 << move.square
            if self._turn is Color.BLACK:
                self._black |= f | bit
                self._white &= ~f
            else:
                self._white |= f | bit
                self._black &= ~f
        self._turn = self._turn.other

    def push_text(self, text: str) -> ReversiMove:
        """Parse and play one move such as ``"f5"`` or ``"pass"``; return it."""
        move = ReversiMove.parse(text)
        self.push(move)
        return move

    def push_transcript(self, transcript: str) -> list[ReversiMove]:
        """Play a transcript like ``"f5d6c3d3c4"`` (spaces and ``pass`` allowed).

        Passes may be left out, as in published transcripts: when the side to move has no
        move, it passes before the next square is played.
        """
        text = "".join(transcript.split()).lower().replace("pass", "@")
        played: list[ReversiMove] = []
        i = 0
        while i < len(text):
            if text[i] == "@":
                move = PASS
                i += 1
            else:
                token = text[i : i + 2]
                try:
                    move = ReversiMove(parse_square(token))
                except IllegalMoveError as exc:
                    raise IllegalMoveError(f"transcript move {len(played) + 1}: {exc}") from None
                i += 2
                if self.legal_moves() == [PASS]:
                    self.push(PASS)
                    played.append(PASS)
            try:
                self.push(move)
            except IllegalMoveError as exc:
                raise IllegalMoveError(f"transcript move {len(played) + 1}: {exc}") from None
            played.append(move)
        return played

    def transcript(self) -> str:
        """The moves pushed so far, passes left out (``"f5d6c3"``)."""
        return "".join(str(m) for m in self.move_stack if not m.is_pass)

    def pop(self) -> ReversiMove:
        """Take back the last move and return it."""
        if not self._stack:
            raise IllegalMoveError("no move to take back")
        self._black, self._white, self._turn, move = self._stack.pop()
        return move

    def outcome(self) -> Outcome | None:
        """``None`` while someone can move; else the winner by disc count (``None`` if equal)."""
        own, opp = self._own_opp()
        if int(bb.legal_moves(np.uint64(own), np.uint64(opp))):
            return None
        if int(bb.legal_moves(np.uint64(opp), np.uint64(own))):
            return None
        b, w = self._black.bit_count(), self._white.bit_count()
        winner = Color.BLACK if b > w else Color.WHITE if w > b else None
        return Outcome(Termination.GAME_OVER, winner)

    def perft(self, depth: int) -> int:
        """Leaf nodes ``depth`` plies ahead; a pass is a move and a finished game one leaf.

        From the start: 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284.
        """
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        own, opp = self._own_opp()
        return int(bb.perft(np.uint64(own), np.uint64(opp), depth))

    # ----------------------------------------------------------------------- copies
    def copy(self) -> Reversi:
        """An independent copy, move stack included."""
        other = Reversi.__new__(Reversi)
        other._black, other._white, other._turn = self._black, self._white, self._turn
        other._stack = list(self._stack)
        return other

    def __eq__(self, other: object) -> bool:
        """Same discs and same side to move (the move history is not compared)."""
        if not isinstance(other, Reversi):
            return NotImplemented
        return self.key == other.key

    __hash__ = None  # type: ignore[assignment]  # mutable: hash ``key`` instead

    # ----------------------------------------------------------------------- display
    def board_text(self, style: Literal["ascii", "kanji"] = "ascii", hints: bool = False) -> str:
        """The board, rank 1 at the top as in seed 002.

        ``style="ascii"`` draws ``X``/``O``/``.``; ``"kanji"`` draws 黒/白/口 like the seed.
        ``hints`` marks the side to move's legal squares (``*`` or 候).
        """
        kanji = style == "kanji"
        black, white, empty, hint = ("黒", "白", "口", "候") if kanji else ("X", "O", ".", "*")
        moves = self.move_bitboard() if hints else 0
        header = "  a b c d e f g h" if not kanji else "  ａｂｃｄｅｆｇｈ"
        lines = [header]
        for rank in range(8):
            cells = []
            for file in range(8):
                sq = rank * 8 + file
                bit = 1 << sq
                if self._black & bit:
                    cells.append(black)
                elif self._white & bit:
                    cells.append(white)
                elif moves & bit:
                    cells.append(hint)
                else:
                    cells.append(empty)
            lines.append(f"{rank + 1} " + ("" if kanji else " ").join(cells))
        b, w = self._black.bit_count(), self._white.bit_count()
        outcome = self.outcome()
        if kanji:
            status = "終局" if outcome else "手番: " + ("黒" if self._turn is Color.BLACK else "白")
            lines.append(f"黒 {b}  白 {w}  {status}")
        else:
            if outcome:
                status = "game over, " + ("draw" if outcome.winner is None else f"{outcome.winner.name.lower()} wins")
            else:
                status = ("black" if self._turn is Color.BLACK else "white") + " to move"
            lines.append(f"black {b}  white {w}  {status}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.board_text()

    def __repr__(self) -> str:
        return f"Reversi.from_text({self.to_text()!r})"

    def _repr_svg_(self) -> str:
        """A green board with discs, for notebooks."""
        cell, margin = 40, 20
        size = margin + 8 * cell + 4
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">',
            f'<rect x="{margin}" y="{margin}" width="{8 * cell}" height="{8 * cell}" fill="#2e7d32"/>',
        ]
        for i in range(9):
            p = margin + i * cell
            parts.append(f'<line x1="{p}" y1="{margin}" x2="{p}" y2="{margin + 8 * cell}" stroke="#111"/>')
            parts.append(f'<line x1="{margin}" y1="{p}" x2="{margin + 8 * cell}" y2="{p}" stroke="#111"/>')
        for i in range(8):
            c = margin + i * cell + cell // 2
            label = 'font-size="12" text-anchor="middle"'
            parts.append(f'<text x="{c}" y="{margin - 6}" {label}>{FILES[i]}</text>')
            parts.append(f'<text x="{margin // 2}" y="{c + 4}" {label}>{i + 1}</text>')
        for sq in range(64):
            owner = self.piece_at(sq)
            if owner is None:
                continue
            cx = margin + (sq % 8) * cell + cell // 2
            cy = margin + (sq // 8) * cell + cell // 2
            fill = "#000" if owner is Color.BLACK else "#fff"
            parts.append(f'<circle cx="{cx}" cy="{cy}" r="{cell * 0.4:.0f}" fill="{fill}" stroke="#000"/>')
        parts.append("</svg>")
        return "".join(parts)
