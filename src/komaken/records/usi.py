"""USI position lines: ``startpos moves 7g7f 3c3d`` or ``sfen <SFEN> moves …`` (one game a line).

A leading ``position`` (as sent to an engine) is accepted.  ``startpos`` means the variant's
start; an SFEN's number of ranks says the variant (5 → minishogi, 6 → judkins, 9 → shogi).
"""

from __future__ import annotations

from komaken.errors import KomakenError
from komaken.records.record import GameRecord, RecordError, variant_for_size
from komaken.shogi.position import Move, Position
from komaken.shogi.variant import SHOGI, Variant


def parse_all(text: str, *, strict: bool = True, file: str | None = None,
              variant: Variant | None = None) -> list[GameRecord]:
    """One record per non-empty line (``#`` starts a comment line)."""
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(_parse_line(line, lineno, strict, file, variant))
    return out


def parse(text: str, *, strict: bool = True, file: str | None = None, variant: Variant | None = None) -> GameRecord:
    """The game of the first position line."""
    games = parse_all(text, strict=strict, file=file, variant=variant)
    if not games:
        raise RecordError("no USI position line (startpos moves … / sfen … moves …)", file=file)
    return games[0]


def _parse_line(line: str, lineno: int, strict: bool, file: str | None, given: Variant | None) -> GameRecord:
    record = GameRecord()
    words = line.split()
    if words[0] == "position":
        words = words[1:]
    try:
        if "moves" in words:
            i = words.index("moves")
            head, moves = words[:i], words[i + 1:]
        else:
            head, moves = words, []
        if head == ["startpos"]:
            record.variant = given or SHOGI
            record.initial_sfen = record.variant.start_sfen
        elif head and head[0] == "sfen" and len(head) in (4, 5):
            ranks = head[1].count("/") + 1
            record.variant = given or variant_for_size(ranks, ranks, None, "sfen")
            try:
                record.initial_sfen = Position.from_sfen(" ".join(head[1:]), record.variant, composed=True).sfen()
            except ValueError as exc:  # InvalidPositionError, or int() of a digit that is not ASCII ('²')
                raise RecordError(f"bad SFEN: {exc}", line=lineno) from None
        else:
            raise RecordError(f"expected 'startpos' or 'sfen <SFEN>', got {' '.join(head)!r}", line=lineno)
        pos = record.initial_position()
        for n, text in enumerate(moves, start=1):
            try:
                move = Move.from_usi(text)
                pos.push(move)
            except KomakenError as exc:
                raise RecordError(f"move {n} ({text}): {exc}", line=lineno) from None
            record.moves.append(move)
        record.pad()
    except RecordError as exc:
        if exc.line is None:
            exc = RecordError(exc.reason, line=lineno)
        if strict:
            raise exc.located(file) from None
        record.error = exc.located(file)
        record.pad()
    return record


def dumps(record: GameRecord) -> str:
    """``startpos moves …`` for the 9×9 start, else ``sfen <SFEN> moves …`` (one line)."""
    return record.usi() + "\n"


def dumps_all(records: list[GameRecord]) -> str:
    return "".join(dumps(r) for r in records)


__all__ = ["dumps", "dumps_all", "parse", "parse_all"]
