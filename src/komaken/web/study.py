"""The board-size study on the Reports page: the report of ``komaken values report``
(:func:`komaken.lab.valuestudy.report.build`) for the study databases the server was given.

A study database (``komaken values selfplay``) is told from a lab experiment by its ``meta`` table
(``kind = selfplay``, or ``komaken-values-selfplay`` in the format of an earlier komaken). The
study is read across databases — one per board size and family — so the report of any one of them
covers every study database named with ``--db``, plus the odds databases (``komaken values odds``,
lab databases whose experiment is named ``values-odds:…``) among them. The study code opens its
files for writing (and converts one of the earlier format in place), so it is given a snapshot:
each database is copied through a read-only SQLite connection (the backup API) into a temporary
folder, and the originals are never opened otherwise.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from komaken.errors import KomakenError
from komaken.lab.document import Report
from komaken.lab.valuestudy.odds import NAME_PREFIX
from komaken.lab.valuestudy.report import Loaded, build, load
from komaken.web.experiments import Databases, Source, experiment

BOOTSTRAP = 300  # whole-game resamples per study database (the CLI's default is 500)


def members(dbs: Databases) -> list[Source]:
    """The study and odds databases among those the server was given."""
    out = []
    for src in dbs.sources:
        if not src.path.exists():
            continue
        if dbs.kind(src.index) == "study":
            out.append(src)
            continue
        try:
            with dbs.connect(src.index) as db:
                if experiment(db).name.startswith(NAME_PREFIX + ":"):
                    out.append(src)
        except KomakenError:
            continue
    return out


def snapshot(src: Path, dst: Path) -> Path:
    """A consistent copy of ``src`` made through a read-only connection."""
    ro = sqlite3.connect(f"{src.as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        out = sqlite3.connect(dst)
        try:
            ro.backup(out)
        finally:
            out.close()
    finally:
        ro.close()
    return dst


def report(dbs: Databases) -> Report:
    """The study's report over every study and odds database the server was given (a database that
    cannot be read is named in a paragraph instead)."""
    sources = members(dbs)
    notes = [f"From the study databases given to this server: {', '.join(s.name for s in sources)}."]
    loaded = Loaded([], [])
    with tempfile.TemporaryDirectory(prefix="komaken-study-") as tmp:
        for src in sources:
            copy = snapshot(src.path, Path(tmp) / f"{src.index}-{src.name}")
            try:
                one = load([copy], BOOTSTRAP)
            except (KomakenError, ValueError) as exc:
                notes.append(f"{src.name}: not in the report: {str(exc).replace(str(copy), src.name)}")
                continue
            loaded.fits += one.fits
            loaded.odds += one.odds
    return build(loaded, notes)
