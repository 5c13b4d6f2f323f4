"""The games a run is playing are published move by move beside its database, and cleaned up.

In-process runs use a player that looks at the publication each time it is asked for a move;
a real ``komaken experiment run`` is read from outside while it plays, then interrupted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import ENV, toy_toml
from komaken.lab import ExperimentDB, live
from komaken.lab.config import load_experiment
from komaken.lab.runner import run_experiment
from komaken.players.random import RandomPlayer

SEEN: list[list[dict[str, Any]]] = []


class Watcher(RandomPlayer):
    """Plays at random and records what the live folder of ``db`` shows each time it is asked."""

    def __init__(self, db: str, stop_after: int = 0) -> None:
        super().__init__()
        self.db, self.stop_after = db, stop_after

    def choose(self, position: Any) -> Any:
        SEEN.append(live.live_games(self.db))
        if self.stop_after and len(SEEN) >= self.stop_after:
            raise KeyboardInterrupt  # Ctrl-C in the middle of a game
        return super().choose(position)


def watched_toml(tmp_path: Path, db: Path, games: int, stop_after: int = 0) -> Path:
    text = toy_toml(games).replace(
        '[players.r1]\nengine = "random"',
        f'[players.r1]\nengine = "python"\nfactory = "test_lab_live:Watcher"\n'
        f'options = {{ db = "{db}", stop_after = {stop_after} }}')
    path = tmp_path / "watched.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def every_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "INTERVAL", 0.0)  # publish every move, so every look sees the last one
    SEEN.clear()


def test_every_move_of_the_game_in_flight_is_published_then_the_folder_is_gone(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    run_experiment(load_experiment(watched_toml(tmp_path, db, 6)), db, workers=1)
    with ExperimentDB.open(db) as store:
        stored = {r.game_index: r.moves.split() for r in store.games()}
    assert len(stored) == 6 and SEEN
    looks = [shown for shown in SEEN if shown]
    assert len(SEEN) - len(looks) <= 3  # only before a game's first move is nothing shown (r1 opens games 0, 2, 4)
    for shown in looks:  # the watcher is asked in the game in flight: exactly that game is shown
        assert len(shown) == 1, shown
        g = shown[0]
        assert g["pairing"] == "r1-vs-r2" and g["pid"] == os.getpid() and g["start"] == ""
        assert g["sente"] == ("a" if g["game_index"] % 2 == 0 else "b")
        final = stored[g["game_index"]]
        assert final[:len(g["moves"])] == g["moves"] and len(g["moves"]) < len(final)
    # the watcher moves every other ply: each look shows two more moves than its previous one in that game
    for before, after in zip(looks, looks[1:], strict=False):
        if before[0]["game_index"] == after[0]["game_index"]:
            assert len(after[0]["moves"]) == len(before[0]["moves"]) + 2
    assert {g[0]["game_index"] for g in looks} == set(range(6))
    assert not live.folder_of(db).exists() and live.live_games(db) == []


def test_an_interrupted_run_keeps_its_games_and_leaves_no_publication(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    with pytest.raises(KeyboardInterrupt):
        run_experiment(load_experiment(watched_toml(tmp_path, db, 20, stop_after=12)), db, workers=1)
    assert SEEN[-1], "the game in flight was published when the run was interrupted"
    assert not live.folder_of(db).exists()
    with ExperimentDB.open(db) as store:
        done = store.count()
        rows = list(store.games())
    assert 0 < done < 20 and all(r.result in ("a", "b", "draw") for r in rows)


def test_files_of_a_killed_run_are_skipped_and_cleared_by_the_next(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    folder = live.folder_of(db)
    folder.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = {"pairing": "r1-vs-r2", "game_index": 3, "moves": ["4"], "pid": int(dead.stdout), "updated": 0}
    (folder / "game-1-2.json").write_text(json.dumps(stale), encoding="utf-8")
    (folder / "game-1-3.json").write_text("{half a fi", encoding="utf-8")  # never read as a game
    for i, bad in enumerate(({"pairing": "p", "game_index": "x", "moves": [], "pid": os.getpid()},
                             {"pairing": "p", "game_index": 1, "moves": [3], "pid": os.getpid()}, [1, 2])):
        (folder / f"game-9-{i}.json").write_text(json.dumps(bad), encoding="utf-8")  # not as a publisher writes
    assert live.live_games(db) == []
    mine = {**stale, "pid": os.getpid()}
    (folder / "game-1-4.json").write_text(json.dumps(mine), encoding="utf-8")
    assert [g["pid"] for g in live.live_games(db)] == [os.getpid()]
    run_experiment(load_experiment(watched_toml(tmp_path, db, 2)), db, workers=1)
    assert SEEN[0] == []  # the leftovers were cleared before the first game
    assert all(len(shown) == 1 and shown[0]["pid"] == os.getpid() and shown[0]["game_index"] in (0, 1)
               for shown in SEEN[1:] if shown)
    assert not folder.exists()


def test_a_folder_that_cannot_be_written_stops_the_publication_not_the_game(tmp_path: Path) -> None:
    blocker = tmp_path / "x.db-live"  # a file where the folder would be
    blocker.write_text("a file where the folder would be", encoding="utf-8")
    pub = live.Publisher(blocker, {"pairing": "p", "game_index": 0, "start": ""}, str, interval=0.0)
    pub.played_move("1")
    pub.played_move("2")
    assert pub.broken and pub.moves == ["1", "2"]
    pub.close()
    assert blocker.read_text(encoding="utf-8").startswith("a file")


# far more games than the test waits for: the run must still be going when Ctrl-C comes, however
# slowly a loaded machine lets the test poll
SLOW = """
[experiment]
name = "live-slow"
variant = "minishogi"
games = 2000
seed = 5
max_plies = 60

[players.s1]
engine = "python"
factory = "lab_toygame:SlowRandom"
options = { delay = 0.04 }

[players.s2]
engine = "python"
factory = "lab_toygame:SlowRandom"
options = { delay = 0.04 }

[[pairings]]
a = "s1"
b = "s2"
"""


def _ctrl_c_as_in_a_terminal() -> None:
    """SIGINT acts as in a terminal even when the tests were started in the background, where the
    shell ignores it for the whole job and every child inherits that (the run then played all its
    games through the Ctrl-C)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_real_run_publishes_from_its_workers_and_cleans_up_on_ctrl_c(tmp_path: Path) -> None:
    """``experiment run -j 2``: two games in flight from two worker processes, each growing by
    legal moves; SIGINT (Ctrl-C) ends the run, keeps the stored games and removes the folder."""
    from komaken.shogi import Position

    toml, db = tmp_path / "slow.toml", tmp_path / "slow.db"
    toml.write_text(SLOW, encoding="utf-8")
    run = subprocess.Popen([sys.executable, "-m", "komaken", "experiment", "run", str(toml), "--db", str(db),
                            "-j", "2", "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV,
                           preexec_fn=_ctrl_c_as_in_a_terminal)
    try:
        grown: dict[tuple[str, int], list[int]] = {}
        pids: set[int] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and sum(len(v) >= 3 for v in grown.values()) < 2:
            for g in live.live_games(db):
                assert g["pid"] != run.pid  # the workers publish, not the parent
                pids.add(g["pid"])
                pos = Position.start("minishogi")
                for m in g["moves"]:
                    pos.push_usi(m)  # every published move is legal in its game
                seen = grown.setdefault((g["pairing"], g["game_index"]), [])
                if not seen or len(g["moves"]) > seen[-1]:
                    seen.append(len(g["moves"]))
            time.sleep(0.05)
        assert sum(len(v) >= 3 for v in grown.values()) >= 2, grown  # games seen growing, move by move
        assert len(pids) == 2
    finally:
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
    assert run.returncode == 2 and err.strip().endswith((b"aborted", b"interrupted")), err
    # a worker may still finish a move as the run ends: no game is shown, and files of exited processes are skipped
    assert live.live_games(db) == []
    with ExperimentDB.open(db) as store:
        assert store.count() == len({(r.pairing, r.game_index) for r in store.games()})


def test_publication_is_off_the_database(tmp_path: Path) -> None:
    """The database's only writer stays the parent: a publication adds no table and no row."""
    db = tmp_path / "w.db"
    run_experiment(load_experiment(watched_toml(tmp_path, db, 2)), db, workers=1)
    with ExperimentDB.open(db) as store:
        tables = {r[0] for r in store._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"meta", "games", "positions"}
