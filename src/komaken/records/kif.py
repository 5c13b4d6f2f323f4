"""KIF (柿木形式): the Japanese standard record, as Kifu for Windows, ShogiGUI and 将棋所 write it.

::

    開始日時：2024/01/01 10:00:00
    手合割：平手
    先手：A
    後手：B
    手数----指手---------消費時間--
       1 ７六歩(77)   ( 0:01/00:00:01)
    *a comment on move 1
       2 ３四歩(33)   ( 0:02/00:00:02)
       3 投了
    まで2手で後手の勝ち

    変化：2手
       2 ８四歩(83)

A start that is not 平手 or another 手合割 is given as a BOD diagram (also how 5×5 games are
written: the board size says the variant).  Variations (``変化：N手``) are read into
:attr:`GameRecord.variations`; the main line is the game.
"""

from __future__ import annotations

import re
import unicodedata

from komaken.errors import IllegalMoveError, KomakenError
from komaken.game import Outcome, Termination
from komaken.records import _japanese as J
from komaken.records.record import (
    KIF_ENDINGS,
    MAX_MOVE_SECONDS,
    MAX_PLIES,
    MAX_TOTAL_SECONDS,
    GameRecord,
    RecordError,
    Variation,
    bounded_int,
    check_seconds,
    kif_ending,
    outcome_for,
    read_into,
    shown,
)
from komaken.shogi.notation import japanese, parse_japanese
from komaken.shogi.position import Move, Position
from komaken.shogi.variant import Variant

_TIME = r"\(\s*([0-9]+):([0-9]+)(?:\.[0-9]+)?\s*/\s*(?:([0-9]+):([0-9]+)(?::([0-9]+))?(?:\.[0-9]+)?)?\s*\)"
#: a move line: number, move text, then the time field(s) ``( 0:01/00:00:01)`` — 81Dojo writes
#: ``( 0:7/)`` and some writers put the field twice (the first one counts)
_MOVE_LINE_RE = re.compile(rf"^\s*([0-9]+)\s+(.+?)\s*(?:{_TIME}\s*)*\+?\s*$")
_FIRST_TIME_RE = re.compile(_TIME)
_NUMBERED_RE = re.compile(r"^\s*[0-9]+\s")
_VARIATION_RE = re.compile(r"^\s*変化[：:]\s*([0-9]+)\s*手")


class _Line:
    """The main line or a variation while it is read."""

    def __init__(self, record: GameRecord, ply: int, prefix: list[Move], variation: Variation | None) -> None:
        self.ply, self.prefix, self.variation = ply, prefix, variation
        self.moves: list[Move] = record.moves if variation is None else variation.moves
        self.times: list[float | None] = record.times if variation is None else variation.times
        self.comments: list[str | None] = record.comments if variation is None else variation.comments
        self.position: Position | None = None
        self.ended = False
        self.broken = False  # a variation that went wrong: the rest of it is skipped

    def contains(self, ply: int) -> bool:
        return self.ply <= ply < self.ply + len(self.moves)


def parse(text: str, *, strict: bool = True, file: str | None = None, variant: Variant | None = None) -> GameRecord:
    """Read one KIF game.  Raises :class:`RecordError` (file, line, reason) for a malformed or
    illegal record; with ``strict=False`` returns the moves before the problem, with
    ``record.error`` set."""
    return read_into(lambda record: _Reader(record, variant).read(text), strict=strict, file=file)


class _Reader:
    def __init__(self, record: GameRecord, given: Variant | None) -> None:
        self.record, self.given = record, given
        self.board = J.Board()
        self.handicap: str | None = None
        self.header_comment: list[str] = []
        self.lines: list[_Line] = []
        self.current: _Line | None = None
        self.pending: RecordError | None = None  # a main-line illegal move: fine only as the last move

    def start(self, lineno: int) -> _Line:
        J.initial_position(self.record, self.board, self.handicap, self.given, lineno)
        main = _Line(self.record, 1, [], None)
        main.position = self.record.initial_position()
        self.lines.append(main)
        return main

    def read(self, text: str) -> None:
        record = self.record
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.rstrip("\r\n").lstrip("\ufeff")
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                self._line(line, stripped, lineno)
        if self.current is None:
            self.start(0)
        self._close_main()
        if self.header_comment:
            record.comment = "\n".join(self.header_comment)
        record.pad()

    def _line(self, line: str, stripped: str, lineno: int) -> None:
        record, current = self.record, self.current
        if stripped.startswith("&"):
            if current is None or current.variation is None:
                record.bookmarks.append((len(record.moves), stripped[1:]))
        elif stripped.startswith("手数") and "指手" in stripped:
            if current is None:
                self.current = self.start(lineno)
        elif stripped.startswith("*"):
            self._comment(line.lstrip()[1:])
        elif m := _VARIATION_RE.match(stripped):
            if current is None:
                raise RecordError(f"変化 before any move: {stripped}", line=lineno)
            self._close_main()
            ply = bounded_int(m[1], 1, MAX_PLIES, "変化 move number", line=lineno, column=m.start(1) + 1)
            self.current = _branch(self.lines, ply, record, lineno)
        elif _NUMBERED_RE.match(line):
            if current is None:
                current = self.current = self.start(lineno)
            if current.broken:
                return
            try:
                self._move_line(current, line, lineno)
            except RecordError as exc:
                if current.variation is None:
                    raise
                current.broken, current.variation.error = True, exc  # a broken side line: the game is fine
        elif J.is_summary(stripped):
            if current is not None and current.variation is None:
                assert current.position is not None
                if record.result is None:
                    record.result = J.parse_summary(stripped, current.position)
                if "封じ手" in stripped and record.ending is None:
                    record.ending = "封じ手"
        elif current is None:
            found = J.read_header(line, record, self.board, lineno, "")
            if found is None:
                raise RecordError(f"not a KIF header, diagram or move line: {shown(stripped, 60)!r}", line=lineno)
            if found:
                self.handicap = found
        else:
            raise RecordError(f"not a KIF move line: {shown(stripped, 60)!r}", line=lineno)

    def _comment(self, note: str) -> None:
        record, current = self.record, self.current
        if current is None or (current.variation is None and not current.moves and not current.ended):
            self.header_comment.append(note)
        elif current.variation is None and current.ended:
            record.end_comment = note if record.end_comment is None else record.end_comment + "\n" + note
        elif current.moves and not current.broken:
            old = current.comments[-1]
            current.comments[-1] = note if old is None else old + "\n" + note

    def _close_main(self) -> None:
        """The main line is over: an illegal move was its last one, so the game was lost on it."""
        if self.pending is not None and self.lines and self.lines[0].variation is None:
            main = self.lines[0]
            assert main.position is not None
            self.record.result = Outcome(Termination.ILLEGAL_MOVE, main.position.turn.other)
            self.pending = None

    def _move_line(self, line: _Line, text: str, lineno: int) -> None:
        record = self.record
        m = _MOVE_LINE_RE.match(text)
        if not m:
            raise RecordError(f"malformed move line: {shown(text.strip(), 60)!r}", line=lineno)
        number = bounded_int(m[1], 1, MAX_PLIES, "move number", line=lineno, column=m.start(1) + 1)
        body = m[2].strip()
        word = body.split()[0] if body else body
        t = _FIRST_TIME_RE.search(text, m.end(2))
        seconds = None if t is None else _time(t, lineno)
        if self.pending is not None and line.variation is None:
            if word not in KIF_ENDINGS:
                raise self.pending  # moves after the illegal one: the record is wrong
            self._ending(line, word, seconds)
            return
        if line.ended:
            return
        if word in KIF_ENDINGS:
            self._ending(line, word, seconds)
            return
        expected = line.ply + len(line.moves)
        if number != expected:
            raise RecordError(f"move number {number}, expected {expected}", line=lineno)
        pos = line.position
        assert pos is not None
        try:
            move = parse_japanese(pos, body)
        except KomakenError as exc:
            if line.variation is None and isinstance(exc, IllegalMoveError) and " is illegal" in str(exc):
                self.pending = RecordError(str(exc), line=lineno)
                record.illegal_move = body
                line.ended = True
                return
            raise RecordError(str(exc), line=lineno) from None
        if "(" not in body and "打" not in body and "（" not in body:
            raise RecordError(f"move {body} has no origin square: KIF writes e.g. ７六歩(77)", line=lineno)
        pos.push(move)
        line.moves.append(move)
        line.times.append(seconds)
        line.comments.append(None)

    def _ending(self, line: _Line, word: str, seconds: float | None) -> None:
        line.ended = True
        if line.variation is not None:
            return
        record = self.record
        record.ending, record.end_time = word, seconds
        assert line.position is not None
        if self.pending is not None:
            self._close_main()
            return
        termination, mover_wins = KIF_ENDINGS[word]
        record.result = outcome_for(termination, mover_wins, line.position.turn)


def _time(t: re.Match[str], lineno: int) -> int:
    """The seconds of a time field ``( m:ss/hh:mm:ss)`` (the move's time; the player's total is
    checked, not kept): minutes and seconds in range, at most :data:`MAX_MOVE_SECONDS` a move
    and :data:`MAX_TOTAL_SECONDS` in all."""
    column = t.start() + 1
    field = f"time field {shown(t[0], 40)}:"

    def number(i: int, high: int, what: str) -> int:
        return bounded_int(t[i], 0, high, f"{field} {what}", line=lineno, column=column)

    seconds = number(1, MAX_MOVE_SECONDS // 60, "minutes") * 60 + number(2, 59, "seconds")
    if seconds > MAX_MOVE_SECONDS:
        raise RecordError(f"{field} the move's time is over {MAX_MOVE_SECONDS // 60}:00 "
                          f"({MAX_MOVE_SECONDS // 86400} days)", line=lineno, column=column)
    if t[3] is not None:
        if t[5] is None:  # m:ss
            total = number(3, MAX_TOTAL_SECONDS // 60, "total minutes") * 60 + number(4, 59, "total seconds")
        else:
            total = (number(3, MAX_TOTAL_SECONDS // 3600, "total hours") * 3600
                     + number(4, 59, "total minutes") * 60 + number(5, 59, "total seconds"))
        if total > MAX_TOTAL_SECONDS:
            raise RecordError(f"{field} the total is over {MAX_TOTAL_SECONDS // 3600}:00:00 "
                              f"({MAX_TOTAL_SECONDS // 86400} days)", line=lineno, column=column)
    return seconds


def _branch(lines: list[_Line], ply: int, record: GameRecord, lineno: int) -> _Line:
    """Open the variation ``変化：{ply}手``: it branches off the latest line that has move ``ply``."""
    while lines and not lines[-1].contains(ply):
        lines.pop()
    if not lines:
        raise RecordError(f"変化：{ply}手 has no line with a move {ply} to branch from", line=lineno)
    variation = Variation(ply=ply, prefix=[])
    parent = lines[-1]
    variation.prefix = parent.prefix + parent.moves[: ply - parent.ply]
    record.variations.append(variation)
    line = _Line(record, ply, variation.prefix, variation)
    pos = record.initial_position()
    for mv in variation.prefix:
        pos.push(mv)
    line.position = pos
    lines.append(line)
    return line


# ---- writing -----------------------------------------------------------------------------------
def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _number(n: int) -> str:
    """A move line's number, as the reader accepts it (up to :data:`MAX_PLIES`)."""
    if n > MAX_PLIES:
        raise RecordError(f"move {n}: KIF move numbers go up to {MAX_PLIES}")
    return f"{n:>4}"


def _time_field(t: float | None, where: str, totals: list[float], turn: int) -> str:
    """``( 0:01/00:00:01)``: this move's minutes:seconds / the player's hours:minutes:seconds, both
    checked against the bounds the reader applies."""
    t = check_seconds(t, where)
    totals[turn] += t
    total = check_seconds(totals[turn], f"{where}: the player's total", MAX_TOTAL_SECONDS)
    s, tot = int(round(t)), int(round(total))
    return f"({s // 60:>2}:{s % 60:02}/{tot // 3600:02}:{tot // 60 % 60:02}:{tot % 60:02})"


def _move_lines(start_pos: Position, first_ply: int, moves: list[Move], times: list[float | None],
                comments: list[str | None], with_times: bool, totals: list[float],
                bookmarks: dict[int, list[str]] | None = None) -> list[str]:
    out = []
    pos = start_pos
    for i, move in enumerate(moves):
        # the origin square already tells a declined promotion: the common writers put no 不成
        text = japanese(pos, move, style="kif").replace("不成", "")  # the position's history gives 同
        line = f"{_number(first_ply + i)} {text}"
        if with_times:
            line += " " * max(1, 14 - _width(text)) + _time_field(times[i], f"move {first_ply + i}", totals, pos.turn)
        out.append(line)
        if comments[i]:
            out += ["*" + c for c in str(comments[i]).split("\n")]
        out += ["&" + b for b in (bookmarks or {}).get(first_ply + i, [])]
        pos.push(move)
    return out


def _end_lines(record: GameRecord, pos: Position, with_times: bool, totals: list[float]) -> list[str]:
    """The illegal move a game was lost on, the end line (with its time), its comments and まで."""
    assert record.result is not None
    plies = len(record.moves)
    out, number = [], plies + 1
    illegal = J.illegal_move_text(pos, record.illegal_move, origin=True) if record.illegal_move else None
    if illegal:
        out.append(f"{_number(number)} {illegal}")
        number += 1
    elif record.illegal_move:
        out.append(f"*反則手：{record.illegal_move.strip()}")
    word = kif_ending(record.result, pos.turn.other if illegal else pos.turn, record.ending)
    line = f"{_number(number)} {word}"
    if with_times or record.end_time is not None:
        line += " " * max(1, 14 - _width(word)) + _time_field(record.end_time, f"move {number}", totals, pos.turn)
    out.append(line)
    if record.end_comment:
        out += ["*" + c for c in record.end_comment.split("\n")]
    out.append(J.summary_line(record.result, number - 1, record.ending))  # the illegal move counts
    return out


def dumps(record: GameRecord) -> str:
    """The record as KIF text.  It starts with ``#KIF version=2.0 encoding=UTF-8`` (what Kifu for
    Windows writes); :func:`komaken.records.encode` makes it ``encoding=Shift_JIS`` where the
    bytes are Shift_JIS."""
    out = ["#KIF version=2.0 encoding=UTF-8", "# KIF形式棋譜ファイル", *J.header_lines(record),
           "手数----指手---------消費時間--"]
    with_times = any(t is not None for t in record.times)
    pos = record.initial_position()
    totals = [0.0, 0.0]
    marks: dict[int, list[str]] = {}
    for ply, text in record.bookmarks:
        marks.setdefault(ply, []).append(text)
    out += ["&" + b for b in marks.get(0, [])]
    out += _move_lines(pos, 1, record.moves, record.times, record.comments, with_times, totals, marks)
    if record.result is not None:
        out += _end_lines(record, pos, with_times, totals)
    elif record.end_comment:
        out += ["*" + c for c in record.end_comment.split("\n")]
    for var in record.variations:
        vpos = record.initial_position()
        for mv in var.prefix:
            vpos.push(mv)
        out += ["", f"変化：{var.ply}手"]
        var_times = var.times + [None] * (len(var.moves) - len(var.times))
        var_comments = var.comments + [None] * (len(var.moves) - len(var.comments))
        out += _move_lines(vpos, var.ply, var.moves, var_times, var_comments, with_times, [0.0, 0.0])
    return "\n".join(out) + "\n"


__all__ = ["dumps", "parse"]
