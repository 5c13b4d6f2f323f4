"""The :class:`TicTacToe` position (三目並べ) with the numeric-keypad square numbers of seed 004."""

from __future__ import annotations

from dataclasses import dataclass

from komaken.errors import IllegalMoveError, InvalidPositionError
from komaken.game import Color, Outcome, Termination
from komaken.legal import LegalMoves

#: Squares as on a numeric keypad: 7 8 9 is the top row, 1 2 3 the bottom one.
ROWS = ((7, 8, 9), (4, 5, 6), (1, 2, 3))
#: The eight lines: three rows, three columns, two diagonals.
LINES = ROWS + ((7, 4, 1), (8, 5, 2), (9, 6, 3), (7, 5, 3), (1, 5, 9))

_SIGN = {Color.BLACK: 1, Color.WHITE: -1}
_MARK = {1: "X", -1: "O", 0: "."}
_X_CHARS = frozenset("Xx×")
_O_CHARS = frozenset("Oo○")
_EMPTY_CHARS = frozenset(".-_123456789")


#: For each square, the lines through it.
_LINES_THROUGH = tuple(tuple(line for line in LINES if sq in line) for sq in range(10))


def _perft(cells: list[int], sign: int, depth: int) -> int:
    """Leaf count below a position nobody has won yet; ``sign`` is +1 for X to move."""
    if depth == 1:
        return cells.count(0) - 1  # cells[0] is unused and always 0
    total = 0
    three = 3 * sign
    for sq in range(1, 10):
        if cells[sq]:
            continue
        cells[sq] = sign
        if not any(cells[a] + cells[b] + cells[c] == three for a, b, c in _LINES_THROUGH[sq]):
            total += _perft(cells, -sign, depth - 1)
        cells[sq] = 0
    return total


def mark(color: Color) -> str:
    """``"X"`` for black (who moves first), ``"O"`` for white."""
    return "X" if color is Color.BLACK else "O"


@dataclass(frozen=True, slots=True)
class TicTacToeMove:
    """A mark placed on ``square`` (1–9, numeric keypad layout)."""

    square: int

    @classmethod
    def parse(cls, text: str) -> TicTacToeMove:
        t = text.strip()
        if len(t) != 1 or t not in "123456789":
            raise IllegalMoveError(f"{text!r} is not a tic-tac-toe square (1..9, numeric keypad layout)")
        return cls(int(t))

    def __str__(self) -> str:
        return str(self.square)


class TicTacToe:
    """A tic-tac-toe position: cells 1..9 hold +1 (X, black), −1 (O, white) or 0.

    The win check adds up each line (seed 004): +3 means X made the line, −3 O.  A line
    summing to +2 (two X and an empty square) is a リーチ for X — one move from winning —
    and :meth:`reach` lists the squares that complete such lines.

    >>> p = TicTacToe.from_text("X.O/.X./... O")
    >>> p.reach(Color.BLACK)
    [3]
    """

    __slots__ = ("_cells", "_stack")

    def __init__(self, cells: list[int] | None = None) -> None:
        self._cells = [0] * 10 if cells is None else list(cells)
        if len(self._cells) != 10 or any(c not in (-1, 0, 1) for c in self._cells) or self._cells[0]:
            raise InvalidPositionError("cells must be 10 values (index 0 unused) in -1, 0, 1")
        self._stack: list[int] = []
        self._validate()

    def _validate(self) -> None:
        x = self._cells.count(1)
        o = self._cells.count(-1)
        if x - o not in (0, 1):
            raise InvalidPositionError(f"X has {x} marks and O has {o}: X moves first, so X = O or O + 1")
        sums = self.line_sums()
        x_won, o_won = 3 in sums, -3 in sums
        if x_won and o_won:
            raise InvalidPositionError("both X and O have a line")
        if x_won and x != o + 1:
            raise InvalidPositionError("X has a line but O moved after it")
        if o_won and x != o:
            raise InvalidPositionError("O has a line but X moved after it")

    # ----------------------------------------------------------------- construction / text
    @classmethod
    def start(cls) -> TicTacToe:
        """The empty board, X (black) to move."""
        return cls()

    @classmethod
    def from_text(cls, text: str) -> TicTacToe:
        """Read ``"X.O/.X./..O"`` (rows top to bottom: 789/456/123) plus an optional side.

        ``X``/``O`` are the marks; ``.``, ``-`` or the square's digit an empty square.  The
        side to move (``X`` or ``O``) may follow after a space; it must match the mark counts.
        """
        tokens = text.split()
        if not tokens:
            raise InvalidPositionError("empty tic-tac-toe position")
        side = None
        if len(tokens) > 1 and len(tokens[-1]) == 1 and tokens[-1] in "XxOo":
            side = Color.BLACK if tokens.pop() in "Xx" else Color.WHITE
        rows = "".join(tokens).split("/")
        if len(rows) == 1 and len(rows[0]) == 9:
            rows = [rows[0][0:3], rows[0][3:6], rows[0][6:9]]
        if len(rows) != 3 or any(len(r) != 3 for r in rows):
            raise InvalidPositionError(f"expected three rows of three squares like 'X.O/.X./...': {text!r}")
        cells = [0] * 10
        for row, squares in zip(rows, ROWS, strict=True):
            for ch, sq in zip(row, squares, strict=True):
                if ch in _X_CHARS:
                    cells[sq] = 1
                elif ch in _O_CHARS:
                    cells[sq] = -1
                elif ch not in _EMPTY_CHARS:
                    raise InvalidPositionError(f"bad character {ch!r} on square {sq} (use X, O or .)")
        position = cls(cells)
        if side is not None and side is not position.turn:
            raise InvalidPositionError(f"{mark(side)} cannot be to move: it is {mark(position.turn)}'s turn")
        return position

    def to_text(self) -> str:
        """Rows top to bottom (``"X.O/.X./..."``), a space, then the side to move."""
        board = "/".join("".join(_MARK[self._cells[sq]] for sq in row) for row in ROWS)
        return f"{board} {mark(self.turn)}"

    # ----------------------------------------------------------------------- state
    @property
    def turn(self) -> Color:
        return Color.BLACK if sum(self._cells) == 0 else Color.WHITE

    def at(self, square: int) -> Color | None:
        """Who holds ``square`` (1..9), or ``None``."""
        if not isinstance(square, int) or not 1 <= square <= 9:
            raise InvalidPositionError(f"square {square!r} is off the board (1..9, numeric keypad layout)")
        v = self._cells[square]
        return None if v == 0 else Color.BLACK if v > 0 else Color.WHITE

    @property
    def key(self) -> int:
        """The board read as a base-3 number (the side to move follows from the counts)."""
        k = 0
        for v in self._cells[1:]:
            k = 3 * k + (v % 3)
        return k

    def line_sums(self) -> list[int]:
        """The sum of each line in :data:`LINES` order: ±3 is a win, ±2 with an empty square a リーチ."""
        c = self._cells
        return [c[a] + c[b] + c[d] for a, b, d in LINES]

    def winner(self) -> Color | None:
        """The side that made a line, if any."""
        for s in self.line_sums():
            if s == 3:
                return Color.BLACK
            if s == -3:
                return Color.WHITE
        return None

    def reach(self, color: Color) -> list[int]:
        """リーチ: the empty squares that would complete a line for ``color``.

        A line sums to ``2`` (for X) or ``−2`` (for O) exactly when it holds two of that
        side's marks and one empty square — the empty one is the winning square.
        """
        target = 2 * _SIGN[color]
        c = self._cells
        found = {sq for line in LINES if sum(c[s] for s in line) == target for sq in line if c[sq] == 0}
        return sorted(found)

    # ----------------------------------------------------------------------- moves
    @property
    def legal_moves(self) -> LegalMoves[TicTacToeMove]:
        """Empty squares in order 1..9; none once someone has a line or the board is full.

        A live sequence (``len(p.legal_moves)``, ``"5" in p.legal_moves``) that can also be called:
        ``p.legal_moves()`` returns a new list (see :mod:`komaken.legal`)."""
        return LegalMoves(self._legal_list, TicTacToeMove.parse)

    def _legal_list(self) -> list[TicTacToeMove]:
        if self.winner() is not None:
            return []
        return [TicTacToeMove(sq) for sq in range(1, 10) if self._cells[sq] == 0]

    def push(self, move: TicTacToeMove) -> None:
        """Place the side to move's mark; :class:`IllegalMoveError` names the square if not legal."""
        if not isinstance(move, TicTacToeMove):
            raise IllegalMoveError(f"not a tic-tac-toe move: {move!r}")
        sq = move.square
        if not isinstance(sq, int) or not 1 <= sq <= 9:
            raise IllegalMoveError(f"square {sq} is off the board (1..9, numeric keypad layout)")
        if self._cells[sq]:
            raise IllegalMoveError(f"square {sq} is occupied by {_MARK[self._cells[sq]]}")
        won = self.winner()
        if won is not None:
            raise IllegalMoveError(f"square {sq}: the game is over, {mark(won)} has a line")
        self._cells[sq] = _SIGN[self.turn]
        self._stack.append(sq)

    def push_text(self, text: str) -> TicTacToeMove:
        """Parse and play a square such as ``"5"``; return the move."""
        move = TicTacToeMove.parse(text)
        self.push(move)
        return move

    def pop(self) -> TicTacToeMove:
        """Take back the last move and return it."""
        if not self._stack:
            raise IllegalMoveError("no move to take back")
        sq = self._stack.pop()
        self._cells[sq] = 0
        return TicTacToeMove(sq)

    @property
    def ply(self) -> int:
        """Moves pushed since this object was created."""
        return len(self._stack)

    @property
    def move_stack(self) -> list[TicTacToeMove]:
        return [TicTacToeMove(sq) for sq in self._stack]

    def outcome(self) -> Outcome | None:
        """X or O wins with a line; a full board without one is a draw."""
        won = self.winner()
        if won is not None:
            return Outcome(Termination.GAME_OVER, won)
        if 0 not in self._cells[1:]:
            return Outcome(Termination.GAME_OVER, None)
        return None

    def perft(self, depth: int) -> int:
        """Positions ``depth`` plies ahead; the game stops at a line, so perft(9) = 127872."""
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        if depth == 0:
            return 1
        if self.winner() is not None:
            return 0
        return _perft(list(self._cells), _SIGN[self.turn], depth)

    # ----------------------------------------------------------------------- copies
    def copy(self) -> TicTacToe:
        other = TicTacToe.__new__(TicTacToe)
        other._cells = list(self._cells)
        other._stack = list(self._stack)
        return other

    def __eq__(self, other: object) -> bool:
        """Same marks on the same squares (the move order is not compared)."""
        if not isinstance(other, TicTacToe):
            return NotImplemented
        return self._cells == other._cells

    __hash__ = None  # type: ignore[assignment]  # mutable: hash ``key`` instead

    # ----------------------------------------------------------------------- display
    def board_text(self, digits: bool = True) -> str:
        """Three rows (7 8 9 on top); empty squares show their digit unless ``digits=False``.

        The last line gives the side to move or the result, and each side's リーチ squares.
        """
        lines = []
        for row in ROWS:
            cells = [_MARK[self._cells[sq]] if self._cells[sq] or not digits else str(sq) for sq in row]
            lines.append(" " + " | ".join(cells))
        out = self.outcome()
        if out is None:
            status = f"{mark(self.turn)} to move"
        elif out.winner is None:
            status = "draw"
        else:
            status = f"{mark(out.winner)} wins"
        reach = []
        if out is None:
            for color in (Color.BLACK, Color.WHITE):
                squares = self.reach(color)
                if squares:
                    reach.append(f"{mark(color)} " + ",".join(map(str, squares)))
        lines.insert(1, "---+---+---")
        lines.insert(3, "---+---+---")
        lines.append(status + ("  リーチ: " + "; ".join(reach) if reach else ""))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.board_text()

    def __repr__(self) -> str:
        return f"TicTacToe.from_text({self.to_text()!r})"

    def _repr_svg_(self) -> str:
        """The board with X and O; squares that complete a リーチ are shaded."""
        cell, pad = 60, 6
        size = 3 * cell
        hot = set() if self.outcome() else set(self.reach(Color.BLACK)) | set(self.reach(Color.WHITE))
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">',
            f'<rect width="{size}" height="{size}" fill="#fff"/>',
        ]
        for r, row in enumerate(ROWS):
            for c, sq in enumerate(row):
                x0, y0 = c * cell, r * cell
                if sq in hot:
                    parts.append(f'<rect x="{x0}" y="{y0}" width="{cell}" height="{cell}" fill="#ffe082"/>')
                v = self._cells[sq]
                if v > 0:
                    a, b = x0 + pad * 2, x0 + cell - pad * 2
                    parts.append(
                        f'<line x1="{a}" y1="{y0 + pad * 2}" x2="{b}" y2="{y0 + cell - pad * 2}" '
                        'stroke="#c62828" stroke-width="5"/>'
                    )
                    parts.append(
                        f'<line x1="{b}" y1="{y0 + pad * 2}" x2="{a}" y2="{y0 + cell - pad * 2}" '
                        'stroke="#c62828" stroke-width="5"/>'
                    )
                elif v < 0:
                    cx, cy, r = x0 + cell // 2, y0 + cell // 2, cell // 2 - pad * 2
                    parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="#1565c0" stroke-width="5"/>')
                else:
                    parts.append(f'<text x="{x0 + 6}" y="{y0 + 16}" font-size="12" fill="#999">{sq}</text>')
        for i in (1, 2):
            p, pen = i * cell, 'stroke="#000" stroke-width="2"'
            parts.append(f'<line x1="{p}" y1="0" x2="{p}" y2="{size}" {pen}/>')
            parts.append(f'<line x1="0" y1="{p}" x2="{size}" y2="{p}" {pen}/>')
        parts.append("</svg>")
        return "".join(parts)
