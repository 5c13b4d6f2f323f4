"""Export stored games: ``csv`` (one row per game), ``kif`` or ``csa`` (game records).

KIF and CSA text comes from :mod:`komaken.records`: the lab replays each game's moves into a
:class:`~komaken.records.GameRecord` with the players' names and the result.
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from typing import Any, TextIO

from komaken.game import Color, Outcome, Termination
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
        writer.writerow([_iso(row.finished_at) if c == "finished_at" else getattr(row, c) for c in GAME_COLUMNS])
        n += 1
    return n


def _iso(epoch: float) -> str:
    """``2026-11-22T05:30:12.345Z``: ISO 8601 in UTC, to the millisecond (the database keeps the
    epoch seconds)."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _records(db: ExperimentDB, fmt: str, out: TextIO) -> int:
    exp = db.experiment()
    if exp.game != "shogi":
        raise ExportError(f"{fmt} records exist only for shogi games, not {exp.game!r}; use --format csv")
    variant = exp.load_variant()
    n = 0
    for row in db.games():
        out.write(record_text(fmt, row, exp.players[row.a].label, exp.players[row.b].label, variant))
        out.write("\n")
        n += 1
    return n


def _termination(reason: str) -> Termination:
    """The stored reason text (``"checkmate"``, ``"illegal move: 5e5d"``, ``"crash: …"``) as a
    :class:`Termination`."""
    head = reason.split(":", 1)[0].strip()
    for t in Termination:
        if t.value == head:
            return t
    return Termination.ABORTED  # a crashed player, or a reason this version does not know


def record_text(fmt: str, row: GameRow, a_label: str, b_label: str, variant: Any) -> str:
    """One stored game as a KIF or CSA record (``komaken.records``)."""
    from komaken.records import GameRecord, dumps
    from komaken.shogi import Position

    position = Position.from_sfen(row.start, variant=variant) if row.start else Position.start(variant)
    for move in row.moves.split():
        position.push_usi(move)
    sente, gote = (a_label, b_label) if row.sente == "a" else (b_label, a_label)
    winner = None if row.result == "draw" else (Color.BLACK if row.result == row.sente else Color.WHITE)
    record = GameRecord.from_position(position, black=sente, white=gote,
                                      result=Outcome(_termination(row.reason), winner),
                                      comment=f"{row.pairing} game {row.game_index}: {row.reason}")
    return dumps(record, fmt)  # type: ignore[arg-type]
