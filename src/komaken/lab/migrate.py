"""Bring a results database written by an earlier komaken up to the one schema of
:mod:`komaken.lab.storage`, in place.

Each step is one transaction (SQLite's schema changes are transactional): it either completes or
leaves the file exactly as it was, and nothing stored is dropped.

* A lab experiment from before the ``games.termination`` column: the column is added (old rows
  keep their reason text, from which their termination is read) and the ``positions`` table
  created.
* A piece-values study written by ``komaken values selfplay`` before studies were experiments
  (``meta.kind = komaken-values-selfplay``, one row per game with its score, moves as ``int32``
  codes and its positions' features): every game becomes a row of ``games`` in the study's one
  pairing (``selfplay``; player ``a`` plays black, so a score of 1 is ``a``'s win) with the same
  index, seed, plies, seconds and finishing time, and its codes and features move unchanged into
  ``positions``.  The study's configuration stays as it was (it is its identity).
"""

from __future__ import annotations

import sqlite3

#: ``meta.kind`` of a piece-values study database in the format before studies were experiments
STUDY_FORMAT = "komaken-values-selfplay"
#: the kind and pairing such a study has after migration
SELFPLAY = "selfplay"


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def upgrade_experiment(conn: sqlite3.Connection, positions_table: str) -> bool:
    """Add what a lab experiment database lacks; ``True`` if anything was added."""
    missing_column = "termination" not in columns(conn, "games")
    missing_table = not columns(conn, "positions")
    if not (missing_column or missing_table):
        return False
    with conn:
        if missing_column:
            conn.execute("ALTER TABLE games ADD COLUMN termination TEXT NOT NULL DEFAULT ''")
        if missing_table:
            conn.execute(positions_table)
    return True


_COPY_GAMES = """
INSERT INTO games (id, pairing, game_index, a, b, result, reason, sente, moves, plies, opening_plies, start,
                   seconds, seed, finished_at, termination)
SELECT game_index + 1, ?, game_index, 'engine', 'engine',
       CASE WHEN score = 1 THEN 'a' WHEN score = 0 THEN 'b' ELSE 'draw' END,
       termination, 'a', '', plies, opening_plies, '', seconds, seed, finished_at,
       CASE WHEN termination IN ({known}) THEN termination ELSE '' END
FROM study_games ORDER BY game_index
"""
_COPY_POSITIONS = ("INSERT INTO positions (game_id, count, codes, features) "
                   "SELECT game_index + 1, positions, moves, features FROM study_games")


def migrate_study(conn: sqlite3.Connection, tables: list[str], terminations: list[str], name: str) -> None:
    """Turn a study database of the earlier format into a ``selfplay`` experiment: ``tables`` are the
    ``CREATE TABLE`` statements of ``games`` and ``positions``; ``terminations`` the values the
    ``termination`` column may hold; ``name`` the experiment's name.  One transaction."""
    known = ", ".join("?" * len(terminations))
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("ALTER TABLE games RENAME TO study_games")
        for statement in tables:
            conn.execute(statement)
        conn.execute(_COPY_GAMES.format(known=known), (SELFPLAY, *terminations))
        conn.execute(_COPY_POSITIONS)
        conn.execute("DROP TABLE study_games")
        for key, value in (("kind", SELFPLAY), ("experiment", name)):
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
