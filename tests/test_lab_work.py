"""The runner's extension point: a kind of work (WorkKind) is played by the one runner — local
processes or inline — and stored by the one store, with its own configuration and positions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from komaken.lab.errors import ExperimentDBError, RunError
from komaken.lab.runner import WorkKind, run_work
from komaken.lab.storage import ExperimentDB, GameRow, Positions, kind_of


def squares(config_json: str, keys: list[int]) -> list[dict[str, Any]]:
    """The toy kind's task (module level: the pool's processes import it by name)."""
    config = json.loads(config_json)
    if config.get("fail_at") in keys:
        raise ValueError(f"no square for {config['fail_at']}")
    return [{"key": k, "square": k * k, "batch": len(keys), "seconds": 0.01} for k in keys]


def _describe(keys: list[int]) -> str:
    return f"squares {keys[0]}…{keys[-1]} failed"


SQUARES = WorkKind("squares", squares, _describe, lambda remote, seconds: 3)


def _store_into(db: ExperimentDB) -> Any:
    def store(key: int, row: dict[str, Any]) -> None:
        game = GameRow("squares", key, "x", "x", "draw", "done", "a", "", 0, 0, "", row["seconds"], key, 0.0)
        db.insert(game, Positions(1, row["square"].to_bytes(4, "little"), bytes([row["batch"]])))
    return store


@pytest.mark.parametrize("workers", [1, 2])
def test_a_new_kind_of_work_is_run_and_stored_by_the_lab(tmp_path: Path, workers: int) -> None:
    config = {"games": 7}
    with ExperimentDB.create_work(tmp_path / "sq.db", "squares", "squares", config) as db:
        run_work(SQUARES, json.dumps(config), iter(range(7)), 7, _store_into(db), workers=workers)
        got = [(r.game_index, int.from_bytes(p.codes, "little"), p.features[0]) for r, p in db.games_with_positions()]
    assert got == [(k, k * k, 3 if k < 6 else 1) for k in range(7)]  # three keys a task, the rest in the last
    assert kind_of(tmp_path / "sq.db") == "squares"
    with pytest.raises(ExperimentDBError, match="holds squares games, not match"):
        ExperimentDB.create_work(tmp_path / "sq.db", "match", "x", config)
    with ExperimentDB.open(tmp_path / "sq.db") as db, pytest.raises(ExperimentDBError, match="not an experiment"):
        db.experiment()


def test_a_failing_task_stops_the_run_naming_its_games_and_keeps_what_was_stored(tmp_path: Path) -> None:
    config = {"games": 9, "fail_at": 4}
    taken: list[int] = []

    def keys() -> Any:
        for k in range(9):
            taken.append(k)
            yield k

    with ExperimentDB.create_work(tmp_path / "sq.db", "squares", "squares", config) as db:
        with pytest.raises(RunError, match=r"squares 3…5 failed: ValueError: no square for 4"):
            run_work(SQUARES, json.dumps(config), keys(), 9, _store_into(db), workers=1)
        assert db.count() == 3 and taken == list(range(6))  # keys are read only as tasks are sent
