"""Export stored games: ``csv`` (one row per game), ``kif`` or ``csa`` (game records).

A CSA export is one file of every game, separated by ``/`` lines as the CSA format has it; a KIF
export is the games one after another, each from its ``#KIF`` line (KIF has no separator).
:func:`komaken.records.read_all` (and ``komaken tune linear --records``) reads every game of either back.

KIF and CSA text comes from :mod:`komaken.records`: the lab replays each game's moves into a
:class:`~komaken.records.GameRecord` with the players' names and the result.
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from typing import Any, TextIO

from komaken.games import GameSpec, find_game
from komaken.lab.errors import ExportError
from komaken.lab.storage import GAME_COLUMNS, ExperimentDB, GameRow
from komaken.records import GameRecord, dumps
from komaken.shogi.position import Position

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
    if fmt not in exp.spec.record_formats:
        raise ExportError(f"{fmt} records exist only for games that have them ({exp.game!r} has "
                          f"{', '.join(exp.spec.record_formats) or 'none'}); use --format csv")
    variant = exp.load_variant()
    n = 0
    for row in db.games():
        if n and fmt == "csa":
            out.write("/\n")  # CSA's separator of the games of one file, so readers see every game
        out.write(record_text(fmt, row, exp.players[row.a].label, exp.players[row.b].label, variant, exp.spec))
        out.write("\n")
        n += 1
    return n


def record_text(fmt: str, row: GameRow, a_label: str, b_label: str, variant: Any, game: GameSpec | None = None) -> str:
    """One stored game as a KIF or CSA record (``komaken.records``; ``game`` defaults to shogi)."""

    game = game or find_game("shogi")
    position = game.position(row.start or None, variant)
    for move in row.moves.split():
        position.push(game.parse_move(position, move))
    sente, gote = (a_label, b_label) if row.sente == "a" else (b_label, a_label)
    assert isinstance(position, Position), "records are shogi records"
    record = GameRecord.from_position(position, black=sente, white=gote, result=row.outcome,
                                      comment=f"{row.pairing} game {row.game_index}: {row.reason}")
    return dumps(record, fmt)  # type: ignore[arg-type]
