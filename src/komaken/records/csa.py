"""CSA (V2.2), the computer-shogi record::

    V2.2
    N+Black
    N-White
    $EVENT:example
    $START_TIME:2024/01/01 10:00:00
    PI
    +
    +7776FU
    T12
    -3334FU
    T3
    %TORYO

The start is ``PI`` (the 9×9 start; ``PI82HI22KA`` removes pieces for a handicap) or rows
``P1``…``P9`` of three characters per square (``P1``…``P5`` for 5×5: the number of rows says the
variant), then ``P+``/``P-`` lines for pieces in hand (``P+00KA``, ``P-00AL`` = all the rest) and
``+``/``-`` for the side to move.  Several games in one file are separated by a line ``/``
(:func:`parse_all`).  Comments start with ``'``; ``,`` may join statements on one line.
"""

from __future__ import annotations

import re

from komaken.errors import KomakenError
from komaken.game import Color, Outcome, Termination
from komaken.records._csa_tables import _HEADER_KEYS, _JAPANESE_KEYS, CSA_KIND, CSA_NAME  # noqa: F401
from komaken.records._csa_write import dumps, dumps_all, move_text  # noqa: F401
from komaken.records._japanese import parse_time, variant_for_size
from komaken.records.record import MAX_MOVE_SECONDS, GameRecord, RecordError, bounded_int, read_into, shown
from komaken.shogi.kernel import piece_letter
from komaken.shogi.notation import japanese, side_mark
from komaken.shogi.position import Move, Position, Square
from komaken.shogi.variant import SHOGI, Variant

_MOVE_RE = re.compile(r"^([+-])([0-9])([0-9])([0-9])([0-9])([A-Z]{2})$")
_TIME_RE = re.compile(r"^T\s*([0-9]+)(\.[0-9]+)?\s*$")
_SQUARE_PIECE_RE = re.compile(r"^[0-9]{2}[A-Z]{2}$")

# %WORD → (termination, does the side to move win?)  (None: a draw or no result)
_ENDINGS: dict[str, tuple[Termination, bool | None]] = {
    "TORYO": (Termination.RESIGNATION, False),
    "TSUMI": (Termination.CHECKMATE, False),
    "SENNICHITE": (Termination.REPETITION, None),
    "JISHOGI": (Termination.IMPASSE, None),
    "MAX_MOVES": (Termination.MAX_PLIES, None),
    "KACHI": (Termination.DECLARATION, True),
    "TIME_UP": (Termination.TIME_FORFEIT, False),
    "ILLEGAL_MOVE": (Termination.ILLEGAL_MOVE, False),
    "CHUDAN": (Termination.ABORTED, None),
    "HIKIWAKE": (Termination.ABORTED, None),
    "FUZUMI": (Termination.ABORTED, None),
    "MATTA": (Termination.ABORTED, None),
    "ERROR": (Termination.ABORTED, None),
}


def split_games(text: str) -> list[tuple[int, str]]:
    """The games of a multi-game file: (number of the game's first line, its text)."""
    games: list[tuple[int, str]] = []
    first, buf = 1, list[str]()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip() == "/":
            games.append((first, "\n".join(buf)))
            first, buf = lineno + 1, []
        else:
            buf.append(line)
    if any(s.strip() for s in buf) or not games:
        games.append((first, "\n".join(buf)))
    return games


def parse_all(text: str, *, strict: bool = True, file: str | None = None,
              variant: Variant | None = None) -> list[GameRecord]:
    """Every game of a CSA file (games separated by ``/``)."""
    return [parse(body, strict=strict, file=file, variant=variant, first_line=first)
            for first, body in split_games(text)]


def parse(text: str, *, strict: bool = True, file: str | None = None, variant: Variant | None = None,
          first_line: int = 1) -> GameRecord:
    """Read one CSA game (the first, if the text holds several)."""
    if first_line == 1 and any(line.strip() == "/" for line in text.splitlines()):
        text = split_games(text)[0][1]
    return read_into(lambda record: _Reader(record, variant, first_line).read(text), strict=strict, file=file)


class _Reader:
    def __init__(self, record: GameRecord, given: Variant | None, first_line: int) -> None:
        self.record, self.given, self.first_line = record, given, first_line
        self.rows: list[str] = []
        self.board: dict[tuple[int, int], str] = {}  # (file, rank) -> SFEN symbol
        self.hands: list[dict[str, int]] = [{}, {}]
        self.all_rest: Color | None = None
        self.pi = False
        self.pos: Position | None = None
        self.comment: list[str] = []
        self.ended = False
        self.pending: RecordError | None = None
        self.lineno = first_line
        self.column = 1  # where the statement being read starts on its line

    def read(self, text: str) -> None:
        for i, raw in enumerate(text.splitlines()):
            self.lineno = self.first_line + i
            line = raw.lstrip("\ufeff").rstrip("\r\n")
            if not line.strip():
                continue
            if line.startswith("'"):
                self._comment(line[1:])
                continue
            self.column = 1
            if line.startswith(("$", "N", "V")):
                self._statement(line)
                continue
            parts, start = line.split(","), 1
            for i, part in enumerate(parts):
                if part.lstrip().startswith("'"):  # a comment ends the line: +7776FU,T3,'note
                    self._comment(",".join(parts[i:]).lstrip()[1:])
                    break
                if part.strip():
                    self.column = start + len(part) - len(part.lstrip())
                    self._statement(part.strip())
                start += len(part) + 1
        if self.pos is None:
            self._start(Color.BLACK)
        if self.pending is not None:
            raise self.pending
        if self.comment:
            self.record.comment = "\n".join(self.comment)
        self.record.pad()

    def error(self, reason: str, column: int | None = None) -> RecordError:
        return RecordError(reason, line=self.lineno, column=column)

    def _comment(self, text: str) -> None:
        if text.startswith("encoding="):
            return
        if text.startswith("**") and self.pos is not None:
            text = engine_comment(self.pos, text)
        if self.pending is not None or self.ended:
            old = self.record.end_comment
            self.record.end_comment = text if old is None else old + "\n" + text
        elif self.record.moves:
            old = self.record.comments[-1]
            self.record.comments[-1] = text if old is None else old + "\n" + text
        else:
            self.comment.append(text)

    def _statement(self, s: str) -> None:
        rec = self.record
        if s.startswith("V"):
            rec.headers["CSA"] = s
        elif s.startswith("N+"):
            rec.black = s[2:]
        elif s.startswith("N-"):
            rec.white = s[2:]
        elif s.startswith("$"):
            key, _, value = s[1:].partition(":")
            if key == "START_TIME" and parse_time(value):
                rec.start_time = parse_time(value)
            else:
                rec.headers[_HEADER_KEYS.get(key, key)] = value
        elif s.startswith("PI"):
            self._pi(s[2:])
        elif re.match(r"^P[0-9]", s):
            self.rows.append(s)
        elif s.startswith(("P+", "P-")):
            self._pieces(s)
        elif s in ("+", "-"):
            if self.pos is None:
                self._start(Color.BLACK if s == "+" else Color.WHITE)
        elif s[0] in "+-":
            self._move(s)
        elif s.startswith("T"):
            t = self._time(s)
            if rec.moves and not self.ended and self.pending is None:
                rec.times[-1] = int(t) if t == int(t) else t
        elif s.startswith("%"):
            self._end(s[1:])
        else:
            raise self.error(f"not a CSA statement: {s!r}")

    def _time(self, s: str) -> float:
        """``T12`` / ``T12.345``: seconds, at most :data:`MAX_MOVE_SECONDS`."""
        m = _TIME_RE.match(s)
        if not m:
            raise self.error(f"bad time {shown(s)!r} (seconds, e.g. T12)", column=self.column)
        whole = bounded_int(m[1], 0, MAX_MOVE_SECONDS, "time T (seconds)", line=self.lineno, column=self.column)
        t = whole + (float("0" + m[2]) if m[2] else 0.0)
        if t > MAX_MOVE_SECONDS:
            raise self.error(f"time T {shown(s[1:].strip())} is out of range (0 to {MAX_MOVE_SECONDS})",
                             column=self.column)
        return t

    def _pi(self, rest: str) -> None:
        self.pi = True
        start = Position.start(SHOGI)
        for sq, piece in start.pieces():
            self.board[(sq.file, sq.rank)] = piece.symbol()
        for i in range(0, len(rest), 4):
            chunk = rest[i: i + 4]
            if not _SQUARE_PIECE_RE.match(chunk):
                raise self.error(f"bad PI removal {chunk!r}")
            where = (int(chunk[0]), int(chunk[1]))
            if where not in self.board or self.board[where].upper().lstrip("+") != CSA_KIND.get(chunk[2:], "?"):
                raise self.error(f"PI removes {chunk[2:]} from {chunk[:2]}, which does not hold it")
            del self.board[where]

    def _pieces(self, s: str) -> None:
        color = Color.BLACK if s[1] == "+" else Color.WHITE
        body = s[2:]
        for i in range(0, len(body), 4):
            chunk = body[i: i + 4]
            if not _SQUARE_PIECE_RE.match(chunk):
                raise self.error(f"bad piece {chunk!r} in {s!r}")
            f, r, name = int(chunk[0]), int(chunk[1]), chunk[2:]
            if (f, r) == (0, 0) and name == "AL":
                self.all_rest = color
                continue
            kind = CSA_KIND.get(name)
            if kind is None:
                raise self.error(f"unknown piece {name!r}")
            if (f, r) == (0, 0):
                if kind.startswith("+") or kind == "K":
                    raise self.error(f"{name} cannot be in hand")
                self.hands[color][kind] = self.hands[color].get(kind, 0) + 1
            else:
                self.board[(f, r)] = kind if color == Color.BLACK else kind.lower()

    def _start(self, turn: Color) -> None:
        rec = self.record
        variant = self.given or SHOGI
        if self.rows:
            if self.pi:
                raise self.error("both PI and P1… rows")
            height = len(self.rows)
            width = self.given.width if self.given else height  # a board not square needs variant=
            try:
                variant = variant_for_size(width, height, self.given, "P rows")
            except RecordError as exc:
                raise self.error(exc.reason) from None
            for row in self.rows:
                r = int(row[1])
                body = row[2:]
                if body.endswith("*."):  # an editor's stray '.' for the row's last space
                    body = body[:-1]
                body = body.ljust(3 * variant.width)
                if not 1 <= r <= variant.height:
                    raise self.error(f"row {row[:2]} is off the {variant.width}x{variant.height} board")
                for i in range(variant.width):
                    cell = body[3 * i: 3 * i + 3]
                    f = variant.width - i
                    if cell.strip() in ("*", ""):
                        continue
                    kind = CSA_KIND.get(cell[1:])
                    if kind is None or cell[0] not in "+-":
                        raise self.error(f"bad square {cell!r} in {row!r}")
                    self.board[(f, r)] = kind if cell[0] == "+" else kind.lower()
        elif self.pi and self.given is not None and self.given.name != "shogi":
            raise self.error(f"PI is the 9x9 start, not {self.given.name}")
        elif not self.pi and not self.board:
            for sq, piece in Position.start(variant).pieces():
                self.board[(sq.file, sq.rank)] = piece.symbol()
        if self.all_rest is not None:
            counts = _counts(variant)
            for sym in self.board.values():
                kind = sym.upper().lstrip("+")
                if kind not in counts:
                    raise self.error(f"{variant.name} has no {CSA_NAME[kind]}")
                counts[kind] -= 1
            for hand in self.hands:
                for k, n in hand.items():
                    if k not in counts:
                        raise self.error(f"{variant.name} has no {CSA_NAME[k]}")
                    counts[k] -= n
            for k, n in counts.items():
                if n > 0 and k != "K":
                    self.hands[self.all_rest][k] = self.hands[self.all_rest].get(k, 0) + n
        sfen = _sfen(self.board, self.hands, turn, variant)
        try:
            self.pos = Position.from_sfen(sfen, variant, composed=True)
        except KomakenError as exc:
            raise self.error(f"bad starting position: {exc}") from None
        rec.variant, rec.initial_sfen = variant, sfen

    def _move(self, s: str) -> None:
        if self.pos is None:
            self._start(Color.BLACK if s[0] == "+" else Color.WHITE)
        assert self.pos is not None
        if self.ended:
            raise self.error(f"move {s} after the end of the game")
        if self.pending is not None:
            raise self.pending
        try:
            move = csa_move(self.pos, s)
        except RecordError as exc:
            if " is illegal" not in exc.reason:
                raise self.error(exc.reason) from None
            # fine only as the last move of a game lost on it (%ILLEGAL_MOVE, %±ILLEGAL_ACTION)
            self.pending, self.record.illegal_move = self.error(exc.reason), s
            return
        self.pos.push(move)
        self.record.moves.append(move)
        self.record.times.append(None)
        self.record.comments.append(None)

    def _end(self, word: str) -> None:
        if self.pos is None:
            self._start(Color.BLACK)
        assert self.pos is not None
        if self.ended:
            return
        self.ended = True
        to_move = self.pos.turn
        if self.pending is not None:
            if word not in ("ILLEGAL_MOVE", "+ILLEGAL_ACTION", "-ILLEGAL_ACTION"):
                raise self.pending
            self.pending = None  # the game was lost on that move: its mover is still to move
            self.record.result = Outcome(Termination.ILLEGAL_MOVE, to_move.other)
            self.record.ending = word
            return
        if word in ("+ILLEGAL_ACTION", "-ILLEGAL_ACTION"):
            loser = Color.BLACK if word[0] == "+" else Color.WHITE
            self.record.result = Outcome(Termination.ILLEGAL_MOVE, loser.other)
            return
        if word not in _ENDINGS:
            raise self.error(f"unknown result %{word}")
        termination, mover_wins = _ENDINGS[word]
        winner = None if mover_wins is None else (to_move if mover_wins else to_move.other)
        self.record.result = Outcome(termination, winner)


def csa_move(pos: Position, s: str) -> Move:
    """The move a CSA move text (``+7776FU``, ``-0055KA``) makes in ``pos`` (not played).  Raises
    :class:`RecordError` (no line) if it is malformed or illegal."""
    m = _MOVE_RE.match(s)
    if not m:
        raise RecordError(f"not a CSA move: {s!r} (e.g. +7776FU)")
    mover = Color.BLACK if m[1] == "+" else Color.WHITE
    if mover != pos.turn:
        raise RecordError(f"move {s}: it is {'+' if pos.turn == Color.BLACK else '-'}'s turn")
    kind = CSA_KIND.get(m[6])
    if kind is None:
        raise RecordError(f"move {s}: unknown piece {m[6]!r}")
    to = Square(int(m[4]), int(m[5]))
    W, H = pos.variant.width, pos.variant.height
    if not (1 <= to.file <= W and 1 <= to.rank <= H):
        raise RecordError(f"move {s}: {m[4]}{m[5]} is off the {W}x{H} board")
    if m[2] == m[3] == "0":
        if kind.startswith("+") or kind == "K":
            raise RecordError(f"move {s}: a {m[6]} cannot be dropped")
        move = Move.drop_move(kind, to)
    else:
        frm = Square(int(m[2]), int(m[3]))
        if not (1 <= frm.file <= W and 1 <= frm.rank <= H):
            raise RecordError(f"move {s}: {m[2]}{m[3]} is off the {W}x{H} board")
        piece = pos.piece_at(frm)
        if piece is None or piece.color != mover:
            raise RecordError(f"move {s} is illegal: no piece of the mover on {m[2]}{m[3]}")
        if piece.kind == kind:
            promote = False
        elif "+" + piece.kind == kind:
            promote = True
        else:
            raise RecordError(f"move {s}: the piece on {m[2]}{m[3]} is {CSA_NAME[piece.kind]}, not {m[6]}")
        move = Move.board_move(frm, to, promote)
    if not pos.is_legal(move):
        try:
            pos.copy().push(move)
        except KomakenError as exc:
            raise RecordError(f"move {s} is illegal: {exc}") from None
    return move


def engine_comment(pos: Position, text: str) -> str:
    """A CSA engine line ``** 113 -3334FU +2625FU`` (score, then the expected moves from ``pos``)
    as KIF writers put it: ``*対局 評価値 113 読み筋 △３四歩(33) ▲２五歩(26)``.  Left as it is
    when it is not one."""
    words = text[2:].split()
    if not words or not re.fullmatch(r"[+-]?[0-9]{1,9}", words[0]):
        return text
    out = [f"*対局 評価値 {int(words[0])}"]
    pv, line = words[1:], []
    pos = pos.copy()
    for word in pv:
        try:
            move = csa_move(pos, word)
        except RecordError:
            return text
        line.append(side_mark(pos.turn) + japanese(pos, move, style="kif").replace("不成", ""))
        pos.push(move)
    if line:
        out.append("読み筋 " + " ".join(line))
    return " ".join(out)


def _counts(variant: Variant) -> dict[str, int]:
    return {piece_letter(k): n for k, n in variant.max_counts.items()}


def _sfen(board: dict[tuple[int, int], str], hands: list[dict[str, int]], turn: Color, variant: Variant) -> str:
    ranks = []
    for r in range(1, variant.height + 1):
        row, empty = "", 0
        for f in range(variant.width, 0, -1):
            sym = board.get((f, r))
            if sym is None:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            row += sym
        ranks.append(row + (str(empty) if empty else ""))
    for (f, r) in board:
        if not (1 <= f <= variant.width and 1 <= r <= variant.height):
            raise RecordError(f"a piece on {f}{r}, off the {variant.width}x{variant.height} board")
    hand = ""
    for color in (Color.BLACK, Color.WHITE):
        for k in "RBGSNLP":
            n = hands[color].get(k, 0)
            if n:
                hand += (str(n) if n > 1 else "") + (k if color == Color.BLACK else k.lower())
    return f"{'/'.join(ranks)} {'bw'[turn]} {hand or '-'} 1"


# ---- writing -----------------------------------------------------------------------------------


__all__ = ["CSA_KIND", "CSA_NAME", "dumps", "dumps_all", "parse", "parse_all", "split_games"]
