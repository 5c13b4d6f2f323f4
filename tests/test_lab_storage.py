"""The results database: one row per game, duplicates impossible, foreign databases untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from komaken.lab import ExperimentDB, ExperimentDBError, GameRow, experiment_from_dict

RAW = {
    "experiment": {"name": "toy", "game": "lab_toygame:Toy.start", "games": 4, "seed": 1},
    "players": {"r": {"engine": "random"}},
    "pairings": [{"a": "r", "b": "r"}],
}


def row(index: int, result: str = "a") -> GameRow:
    return GameRow("r-vs-r", index, "r", "r", result, "game over", "a", "4 0 8", 3, 0, "", 0.01, 7, 0.0)


def test_insert_is_unique_per_pairing_and_index(tmp_path: Path) -> None:
    exp = experiment_from_dict(RAW)
    with ExperimentDB.create(tmp_path / "r.db", exp) as db:
        assert db.insert(row(0)) and db.insert(row(1, "draw"))
        assert not db.insert(row(0, "b"))  # already stored: refused, not counted twice
        assert db.count() == 2 and db.done_indexes("r-vs-r") == {0, 1}
        assert db.results("r-vs-r") == [("a", "a"), ("draw", "a")]
        assert db.insert(row(3, "b"))
        assert db.indexed_results("r-vs-r") == ([("a", "a"), ("draw", "a"), ("b", "a")], [0, 1, 3])
        with pytest.raises(sqlite3.IntegrityError):
            db._conn.execute(
                "INSERT INTO games (pairing, game_index, a, b, result, reason, sente, moves, plies, seconds, seed, "
                "finished_at) VALUES ('r-vs-r', 1, 'r', 'r', 'a', '', 'a', '', 0, 0, 0, 0)"
            )
    with ExperimentDB.open(tmp_path / "r.db") as db:
        assert db.experiment().name == "toy"
        assert db.meta("schema_version") == "1"


def test_wal_mode(tmp_path: Path) -> None:
    with ExperimentDB.create(tmp_path / "r.db", experiment_from_dict(RAW)) as db:
        assert db._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_other_experiment_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with ExperimentDB.create(path, experiment_from_dict(RAW)) as db:
        db.insert(row(0))
    before = path.read_bytes()
    other = {**RAW, "experiment": {**RAW["experiment"], "seed": 2}}
    with pytest.raises(ExperimentDBError, match="different configuration"):
        ExperimentDB.create(path, experiment_from_dict(other))
    assert path.read_bytes() == before
    # Only the game count differs: the same experiment, extended.
    more = {**RAW, "experiment": {**RAW["experiment"], "games": 10}}
    with ExperimentDB.create(path, experiment_from_dict(more)) as db:
        assert db.experiment().total_games == 10 and db.count() == 1


def test_newer_schema_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    ExperimentDB.create(path, experiment_from_dict(RAW)).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(ExperimentDBError, match="newer komaken"):
        ExperimentDB.open(path)
    assert path.read_bytes() == before


def test_not_a_database(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("hello " * 100)
    with pytest.raises(ExperimentDBError, match="not a komaken experiment database"):
        ExperimentDB.open(junk)
    assert junk.read_text() == "hello " * 100
    with pytest.raises(ExperimentDBError, match="no such results database"):
        ExperimentDB.open(tmp_path / "missing.db")


def test_missing_folders_are_created(tmp_path: Path) -> None:
    with ExperimentDB.create(tmp_path / "runs" / "2026" / "r.db", experiment_from_dict(RAW)) as db:
        assert db.count() == 0
    assert (tmp_path / "runs" / "2026" / "r.db").exists()


def test_a_players_file_counts_by_its_contents_not_its_path(tmp_path: Path) -> None:
    """The same experiment file and parameter file in another folder (another checkout) continue
    the database; the parameter file edited makes another player, and the run is refused."""
    from komaken.lab import load_experiment

    params = (Path(__file__).parent.parent / "examples" / "eval" / "minishogi-legacy.toml").read_text()
    text = ('[experiment]\nname = "p"\nvariant = "minishogi"\ngames = 2\nseed = 1\n'
            '[players.a]\nengine = "engine"\nnodes = 50\nparams = "legacy.toml"\n'
            '[players.b]\nengine = "engine"\nnodes = 60\n[[pairings]]\na = "a"\nb = "b"\n')
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "legacy.toml").write_text(params)
        (tmp_path / folder / "exp.toml").write_text(text)
    db = tmp_path / "r.db"
    ExperimentDB.create(db, load_experiment(tmp_path / "one" / "exp.toml")).close()
    ExperimentDB.create(db, load_experiment(tmp_path / "two" / "exp.toml")).close()  # the same players
    (tmp_path / "two" / "legacy.toml").write_text(params.replace("[search]", "# edited\n[search]", 1)
                                                   if "[search]" in params else params + "\n# edited\n")
    before = db.read_bytes()
    with pytest.raises(ExperimentDBError, match="different configuration"):
        ExperimentDB.create(db, load_experiment(tmp_path / "two" / "exp.toml"))
    assert db.read_bytes() == before
