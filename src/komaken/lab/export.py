"""Export stored games: ``csv`` (one row per game), ``kif`` or ``csa`` (game records).

KIF and CSA text comes from ``komaken.records.write``; the lab only replays each game's moves
and hands them over with the players' names and the result.
"""

from __future__ import annotations

import csv
import io
from typing import Any, TextIO

from komaken.lab.errors import ExportError
from komaken.lab.storage import GAME_COLUMNS, ExperimentDB, GameRow

FORMATS = ("csv", "kif", "csa")


def export(db: ExperimentDB, fmt: str, out: TextIO) -> int:
    """Write every stored game to ``out`` in ``fmt``; return the number of games written."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} (expected {', '.join(FORMATS)})")
    if fmt == "csv":
        return _csv(db, out)
    return _records(db, fmt, out)


def _csv(db: ExperimentDB, out: TextIO) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(GAME_COLUMNS)
    n = 0
    for row in db.games():
        writer.writerow([getattr(row, c) for c in GAME_COLUMNS])
        n += 1
    return n


def _records(db: ExperimentDB, fmt: str, out: TextIO) -> int:
    exp = db.experiment()
    if exp.game != "shogi":
        raise ExportError(f"{fmt} records exist only for shogi games, not {exp.game!r}; use --format csv")
    try:
        from komaken.records import write
    except ImportError:
        raise ExportError(f"{fmt} export needs komaken.records, which this build lacks; use --format csv") from None
    variant = exp.load_variant()
    n = 0
    for row in db.games():
        out.write(record_text(write, fmt, row, exp.players[row.a].label, exp.players[row.b].label, variant))
        out.write("\n")
        n += 1
    return n


def record_text(write: Any, fmt: str, row: GameRow, a_label: str, b_label: str, variant: Any) -> str:
    """One game as a ``fmt`` record via ``komaken.records.write``."""
    from komaken.shogi import Position

    position = Position.from_sfen(row.start, variant=variant) if row.start else Position.start(variant)
    moves = row.moves.split()
    sente, gote = (a_label, b_label) if row.sente == "a" else (b_label, a_label)
    winner = None if row.result == "draw" else ("sente" if row.result == row.sente else "gote")
    buf = io.StringIO()
    try:
        text = write(
            fmt,
            position,
            moves,
            sente=sente,
            gote=gote,
            winner=winner,
            reason=row.reason,
            comment=f"{row.pairing} game {row.game_index}",
        )
    except TypeError as exc:
        raise ExportError(f"komaken.records.write does not accept this game: {exc}") from None
    buf.write(text)
    return buf.getvalue()
