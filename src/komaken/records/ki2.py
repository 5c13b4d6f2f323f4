"""KI2: KIF's headers with the moves as the federation writes them — no origin squares, so the
disambiguation marks (直 上 引 寄 右 左, 打) carry the information::

    手合割：平手
    先手：A
    後手：B

    ▲７六歩　　△３四歩　　▲２六歩　　△８四歩　　▲２五歩　　△８五歩
    ▲７八金　　△３二金　　▲２四歩　　△同　歩　　▲同　飛
    まで11手で後手の勝ち

The result comes from the closing ``まで…`` line (a mate on the board makes a win 詰み).
"""

from __future__ import annotations

import re

from komaken.errors import KomakenError
from komaken.game import Outcome, Termination
from komaken.records import _japanese as J
from komaken.records.record import GameRecord, RecordError, read_into
from komaken.shogi.notation import japanese_marked, parse_japanese, side_mark
from komaken.shogi.position import Position
from komaken.shogi.variant import Variant

_PER_LINE = 6
_TOKEN_RE = re.compile(r"([▲△☗☖▼▽])")
_MARKS = str.maketrans("☗☖▼▽", "▲△▲△")


def parse(text: str, *, strict: bool = True, file: str | None = None, variant: Variant | None = None) -> GameRecord:
    """Read one KI2 game (see :func:`komaken.records.kif.parse` for ``strict``)."""
    return read_into(lambda record: _read(text, record, variant), strict=strict, file=file)


def _read(text: str, record: GameRecord, given: Variant | None) -> None:
    board = J.Board()
    handicap: str | None = None
    header_comment: list[str] = []
    pos = None
    pending: RecordError | None = None  # an illegal move: fine only as the last one
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.lstrip("\ufeff").rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "&")):
            continue
        if stripped.startswith("変化"):
            break  # KI2 side lines are not kept
        if stripped.startswith("*"):
            _comment(record, stripped[1:], header_comment, after_end=pending is not None)
            continue
        if _TOKEN_RE.match(stripped):
            if pos is None:
                J.initial_position(record, board, handicap, given, lineno)
                pos = record.initial_position()
            pending = _moves(record, pos, _tokens(stripped), lineno, pending)
            continue
        if J.is_summary(stripped):
            if pos is None:
                J.initial_position(record, board, handicap, given, lineno)
                pos = record.initial_position()
            record.result = J.parse_summary(stripped, pos)
            if "封じ手" in stripped:
                record.ending = "封じ手"
            continue
        if pos is None:
            found = J.read_header(line, record, board, lineno, "")
            if found is None:
                raise RecordError(f"not a KI2 header, diagram or move line: {stripped!r}", line=lineno)
            if found:
                handicap = found
            continue
        raise RecordError(f"not a KI2 move line: {stripped!r}", line=lineno)
    if pos is None:
        J.initial_position(record, board, handicap, given, 0)
    elif pending is not None:  # the game was lost on its last, illegal move
        record.result = Outcome(Termination.ILLEGAL_MOVE, pos.turn.other)
    if header_comment:
        record.comment = "\n".join(header_comment)


def _comment(record: GameRecord, text: str, header: list[str], *, after_end: bool) -> None:
    """File a ``*`` comment line: after the end, on the last move, or before the first move."""
    if after_end:
        old = record.end_comment
        record.end_comment = text if old is None else old + "\n" + text
    elif record.moves:
        old = record.comments[-1]
        record.comments[-1] = text if old is None else old + "\n" + text
    else:
        header.append(text)


def _moves(record: GameRecord, pos: Position, tokens: list[str], lineno: int,
           pending: RecordError | None) -> RecordError | None:
    """Play one line's move tokens; an illegal move is kept pending (fine only as the last one)."""
    for token in tokens:
        if pending is not None:
            raise pending  # moves after an illegal one: the record is wrong
        try:
            move = parse_japanese(pos, token)
        except KomakenError as exc:
            if " is illegal" not in str(exc):
                raise RecordError(str(exc), line=lineno) from None
            pending, record.illegal_move = RecordError(str(exc), line=lineno), token
            continue
        pos.push(move)
        record.moves.append(move)
        record.times.append(None)
        record.comments.append(None)
    return pending


def _tokens(line: str) -> list[str]:
    """``▲７六歩　　△同　歩`` → ``["▲７六歩", "△同歩"]``."""
    parts = _TOKEN_RE.split(line.translate(_MARKS).replace("同　", "同").replace("同 ", "同"))
    return [parts[i] + parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)]


def dumps(record: GameRecord) -> str:
    """The record as KI2 text (it starts with ``#KI2 version=2.0 encoding=UTF-8``, as Kifu for
    Windows writes; ``encoding=Shift_JIS`` where :func:`komaken.records.encode` writes Shift_JIS)."""
    out = ["#KI2 version=2.0 encoding=UTF-8", *J.header_lines(record), ""]
    pos = record.initial_position()
    row: list[str] = []
    for move, comment in zip(record.moves, record.comments, strict=True):
        text = japanese_marked(pos, move)
        row.append(text + "　" * max(1, 6 - len(text)))
        pos.push(move)
        if len(row) == _PER_LINE or comment:
            out.append("".join(row).rstrip("　"))
            row = []
        if comment:
            out += ["*" + c for c in comment.split("\n")]
    illegal = J.illegal_move_text(pos, record.illegal_move, origin=False) if record.illegal_move else None
    if illegal:
        row.append(illegal if illegal[:1] in "▲△" else side_mark(pos.turn) + illegal)
    if row:
        out.append("".join(row).rstrip("　"))
    if record.illegal_move and not illegal:
        out.append(f"*反則手：{record.illegal_move.strip()}")
    if record.end_comment:
        out += ["*" + c for c in record.end_comment.split("\n")]
    if record.result is not None:
        plies = len(record.moves) + (1 if illegal else 0)
        out.append(J.summary_line(record.result, plies, record.ending))
    return "\n".join(out) + "\n"


__all__ = ["dumps", "parse"]
