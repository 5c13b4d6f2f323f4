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

from komaken.errors import KomakenError
from komaken.records import _japanese as J
from komaken.records.record import KIF_ENDINGS, GameRecord, RecordError, Variation, kif_ending, outcome_for, read_into
from komaken.shogi.notation import japanese, parse_japanese
from komaken.shogi.position import Move, Position
from komaken.shogi.variant import Variant

_MOVE_LINE_RE = re.compile(
    r"^\s*([0-9]+)\s+(.+?)\s*(?:\(\s*([0-9]+):([0-9]+)(?:\.[0-9]+)?\s*/\s*([0-9]+):([0-9]+):([0-9]+)\s*\))?\s*\+?\s*$"
)
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

    def contains(self, ply: int) -> bool:
        return self.ply <= ply < self.ply + len(self.moves)


def parse(text: str, *, strict: bool = True, file: str | None = None, variant: Variant | None = None) -> GameRecord:
    """Read one KIF game.  Raises :class:`RecordError` (file, line, reason) for a malformed or
    illegal record; with ``strict=False`` returns the moves before the problem, with
    ``record.error`` set."""
    return read_into(lambda record: _read(text, record, file, variant), strict=strict, file=file)


def _read(text: str, record: GameRecord, file: str | None, given: Variant | None) -> None:
    board = J.Board()
    handicap: str | None = None
    header_comment: list[str] = []
    lines: list[_Line] = []
    current: _Line | None = None

    def start(lineno: int) -> _Line:
        J.initial_position(record, board, handicap, given, lineno)
        main = _Line(record, 1, [], None)
        main.position = record.initial_position()
        lines.append(main)
        return main

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n").lstrip("\ufeff")
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "&")):
            continue
        if stripped.startswith("手数") and "指手" in stripped:
            if current is None:
                current = start(lineno)
            continue
        if stripped.startswith("*"):
            note = stripped[1:]
            if current is None or not current.moves:
                if current is None or current.variation is None:
                    header_comment.append(note)
                continue
            old = current.comments[-1]
            current.comments[-1] = note if old is None else old + "\n" + note
            continue
        m = _VARIATION_RE.match(stripped)
        if m:
            if current is None:
                raise RecordError(f"変化 before any move: {stripped}", line=lineno)
            current = _branch(lines, int(m[1]), record, lineno)
            continue
        if _NUMBERED_RE.match(line):
            if current is None:
                current = start(lineno)
            _move_line(current, line, lineno, record)
            continue
        if J.is_summary(stripped):
            if current is not None and current.variation is None and record.result is None:
                assert current.position is not None
                record.result = J.parse_summary(stripped, current.position)
            continue
        if current is None:
            found = J.read_header(line, record, board, lineno, "")
            if found is None:
                raise RecordError(f"not a KIF header, diagram or move line: {stripped!r}", line=lineno)
            if found:
                handicap = found
            continue
        raise RecordError(f"not a KIF move line: {stripped!r}", line=lineno)
    if current is None:
        start(0)
    if header_comment:
        record.comment = "\n".join(header_comment)
    record.pad()


def _branch(lines: list[_Line], ply: int, record: GameRecord, lineno: int) -> _Line:
    """Open the variation ``変化：{ply}手``: it branches off the latest line that has move ``ply``."""
    while lines and not lines[-1].contains(ply):
        lines.pop()
    if not lines:
        raise RecordError(f"変化：{ply}手 has no line with a move {ply} to branch from", line=lineno)
    parent = lines[-1]
    prefix = parent.prefix + parent.moves[: ply - parent.ply]
    variation = Variation(ply=ply, prefix=prefix)
    record.variations.append(variation)
    line = _Line(record, ply, prefix, variation)
    pos = record.initial_position()
    for mv in prefix:
        pos.push(mv)
    line.position = pos
    lines.append(line)
    return line


def _move_line(line: _Line, text: str, lineno: int, record: GameRecord) -> None:
    m = _MOVE_LINE_RE.match(text)
    if not m:
        raise RecordError(f"malformed move line: {text.strip()!r}", line=lineno)
    number, body = int(m[1]), m[2].strip()
    if line.ended:
        return
    expected = line.ply + len(line.moves)
    if number != expected:
        raise RecordError(f"move number {number}, expected {expected}", line=lineno)
    pos = line.position
    assert pos is not None
    word = body.split()[0] if body else body
    if word in KIF_ENDINGS:
        line.ended = True
        if line.variation is None:
            termination, mover_wins = KIF_ENDINGS[word]
            record.result = outcome_for(termination, mover_wins, pos.turn)
        return
    try:
        move = parse_japanese(pos, body)
    except KomakenError as exc:
        raise RecordError(str(exc), line=lineno) from None
    if "(" not in body and "打" not in body and "（" not in body:
        raise RecordError(f"move {body} has no origin square: KIF writes e.g. ７六歩(77)", line=lineno)
    pos.push(move)
    line.moves.append(move)
    line.times.append(int(m[3]) * 60 + int(m[4]) if m[3] is not None else None)
    line.comments.append(None)


# ---- writing -----------------------------------------------------------------------------------
def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _move_lines(start_pos: Position, first_ply: int, moves: list[Move], times: list[float | None],
                comments: list[str | None], with_times: bool, totals: list[float]) -> list[str]:
    out = []
    pos = start_pos
    for i, move in enumerate(moves):
        text = japanese(pos, move, style="kif")  # the position's history gives 同
        line = f"{first_ply + i:>4} {text}"
        if with_times:
            t = times[i] or 0
            totals[pos.turn] += t
            total = int(round(totals[pos.turn]))
            line += " " * max(1, 14 - _width(text)) + (
                f"({int(round(t)) // 60:>2}:{int(round(t)) % 60:02}/"
                f"{total // 3600:02}:{total // 60 % 60:02}:{total % 60:02})"
            )
        out.append(line)
        if comments[i]:
            out += ["*" + c for c in str(comments[i]).split("\n")]
        pos.push(move)
    return out


def dumps(record: GameRecord, *, encoding_line: bool = False) -> str:
    """The record as KIF text (``encoding_line`` adds ``#KIF version=2.0 encoding=UTF-8``)."""
    out = ["#KIF version=2.0 encoding=UTF-8"] if encoding_line else []
    out += ["# KIF形式棋譜ファイル", *J.header_lines(record), "手数----指手---------消費時間--"]
    with_times = any(t is not None for t in record.times)
    pos = record.initial_position()
    totals = [0.0, 0.0]
    out += _move_lines(pos, 1, record.moves, record.times, record.comments, with_times, totals)
    plies = len(record.moves)
    if record.result is not None:
        out.append(f"{plies + 1:>4} {kif_ending(record.result, pos.turn)}")
        out.append(J.summary_line(record.result, plies))
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
