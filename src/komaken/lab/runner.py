"""The lab's one runner: schedule the missing games of any kind of work on local processes or a
Dask cluster, and store each in this process as it finishes.

A kind of work (:class:`WorkKind`) says how a worker plays a batch of games and names them in an
error; :func:`run_work` plays it.  A lab experiment (players in pairings,
:func:`run_experiment`) is the kind ``match``; the piece-values study's self-play
(:mod:`komaken.lab.valuestudy.selfplay`) is the kind ``selfplay``.  For every kind:

* Each game is identified by ``(pairing, game_index)``; its seeds, colours and opening are
  derived from the experiment seed and that identity only, so results do not depend on which
  worker played it, in what order, or whether the run was interrupted and resumed.
* Workers build each player once (engine compilation, external processes) and reuse it for
  every game; a player that crashed is rebuilt before its next game, an external engine that
  timed out (killed, the game lost on time) is restarted at once.
* Workers watch their parent (:mod:`komaken.lab.lifeline`): when the run is killed, even with
  SIGKILL, they kill their engines and exit.
* Only the parent process writes to the database, one transaction per finished game, so a
  SIGKILL at any moment loses at most the games that were still being played; ``resume`` plays
  exactly the missing game indexes.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import itertools
import json
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from komaken.lab import lifeline, limits, live
from komaken.lab.config import Experiment, experiment_from_dict
from komaken.lab.errors import RunError
from komaken.lab.match import play_game, seat
from komaken.lab.openings import derive_seed, opening, start_factory
from komaken.lab.players import build_player, check_players
from komaken.lab.runlock import run_lock
from komaken.lab.stats import sprt_state
from komaken.lab.storage import MATCH, ExperimentDB, GameRow
from komaken.players.base import Player
from komaken.players.usi import UsiPlayer

# --------------------------------------------------------------------------------------------
# Worker side


class _WorkerContext:
    """Everything a worker keeps between games of one experiment: players are built once."""

    def __init__(self, experiment: Experiment) -> None:
        self.experiment = experiment
        self.variant = experiment.variant_or_none()
        self.new_position = start_factory(experiment, self.variant)
        self.players: dict[tuple[str, str, str], Player] = {}

    def player(self, name: str, seat: str, opponent: str) -> Player:
        # One object per seat, so a player paired against itself never shares state; and per
        # opponent, since the thesis replica evaluates with both players' tables.
        key = (name, seat, opponent)
        if key not in self.players:
            players = self.experiment.players
            self.players[key] = build_player(players[name], self.experiment, self.variant,
                                             opponent=players[opponent])
        return self.players[key]

    def drop(self, key: tuple[str, str, str]) -> None:
        player = self.players.pop(key, None)
        if player is not None:
            try:
                player.close()
            except Exception:  # noqa: BLE001 - it already failed; rebuild it next time
                pass

    def recover(self, key: tuple[str, str, str]) -> None:
        """After a crash or a timeout: restart an external engine in place (it was killed), or
        drop any other player so the next game builds a fresh one."""

        player = self.players.get(key)
        if isinstance(player, UsiPlayer):
            try:
                player.restart()
                return
            except Exception:  # noqa: BLE001 - it will be built again (and fail loudly) next game
                pass
        self.drop(key)

    def play(self, pairing_name: str, game_index: int) -> GameRow:
        exp = self.experiment
        pairing = exp.pairing(pairing_name)
        a_sente = pairing.a_is_sente(game_index)
        seed = derive_seed(exp.seed, pairing.name, game_index)
        position, before, start = opening(exp, pairing, game_index, self.new_position, self.variant)
        pa, pb = self.player(pairing.a, "a", pairing.b), self.player(pairing.b, "b", pairing.a)
        sente, gote = (pa, pb) if a_sente else (pb, pa)
        header = {"pairing": pairing.name, "game_index": game_index, "a": pairing.a, "b": pairing.b,
                  "sente": "a" if a_sente else "b", "start": start}
        res = play_game(
            position,
            seat(exp.spec.first, (sente, gote)),
            live.publisher(header, exp.spec.move_text, before),
            max_plies=exp.max_plies,
            seeds=seat(exp.spec.first, (derive_seed(seed, "sente"), derive_seed(seed, "gote"))),
            moves_before=before,
            game=exp.spec,
        )
        a_color = exp.spec.first if a_sente else exp.spec.first.other
        if res.crashed is not None:
            self.recover((pairing.a, "a", pairing.b) if res.crashed is a_color else (pairing.b, "b", pairing.a))
        result = "draw" if res.winner is None else "a" if res.winner is a_color else "b"
        return GameRow(
            pairing=pairing.name,
            game_index=game_index,
            a=pairing.a,
            b=pairing.b,
            result=result,
            reason=res.reason,
            termination=res.termination.value,
            sente="a" if a_sente else "b",
            moves=" ".join(res.moves),
            plies=res.plies,
            opening_plies=len(before),
            start=start,
            seconds=round(res.seconds, 6),
            seed=seed,
            finished_at=time.time(),
        )


_CONTEXTS: dict[tuple[str, int], _WorkerContext] = {}
_CONTEXTS_LOCK = threading.Lock()


def play_games(config_json: str, keys: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """The ``match`` kind's task: play the games ``(pairing, game_index)`` in a worker, in order."""
    return [play_task(config_json, pairing, index) for pairing, index in keys]


def play_task(config_json: str, pairing: str, game_index: int) -> dict[str, Any]:
    """Play one game in a worker (process or Dask thread) and return its row as a dict."""

    key = (hashlib.sha256(config_json.encode()).hexdigest(), threading.get_ident())
    with _CONTEXTS_LOCK:
        ctx = _CONTEXTS.get(key)
    if ctx is None:
        ctx = _WorkerContext(experiment_from_dict(json.loads(config_json), source="<worker>"))
        with _CONTEXTS_LOCK:
            _CONTEXTS[key] = ctx
    return dataclasses.asdict(ctx.play(pairing, game_index))


def published(play: Callable[[str, list[Any]], list[dict[str, Any]]], folder: Path | None, config_json: str,
              keys: list[Any]) -> list[dict[str, Any]]:
    """A kind's task with the games it plays published into ``folder`` (:mod:`komaken.lab.live`)."""
    with live.publishing(folder):
        return play(config_json, keys)


def _init_worker(parent: int) -> None:
    # Ctrl-C goes to the whole process group; let the parent decide what to do.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lifeline.install(parent)


# --------------------------------------------------------------------------------------------
# Backends


class _Backend(Protocol):
    window: int
    remote: bool

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def wait_first(self, futures: Iterable[Any]) -> set[Any]: ...

    def close(self, cancel: bool) -> None: ...


class _Inline:
    """Play in this process (``--workers 1``): simplest to debug and profile."""

    window = 1
    remote = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        fut: cf.Future[Any] = cf.Future()
        try:
            fut.set_result(fn(*args))
        except Exception as exc:  # noqa: BLE001 - reported by the scheduler
            fut.set_exception(exc)
        return fut

    def wait_first(self, futures: Iterable[Any]) -> set[Any]:
        return set(futures)

    def close(self, cancel: bool) -> None:
        pass


class _Pool:
    """A pool of spawned worker processes (spawn: no inherited threads or locks)."""

    remote = False

    def __init__(self, workers: int) -> None:
        self.window = 2 * workers
        self._pool = cf.ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker,
            initargs=(os.getpid(),),
        )

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self._pool.submit(fn, *args)

    def wait_first(self, futures: Iterable[Any]) -> set[Any]:
        done, _ = cf.wait(list(futures), return_when=cf.FIRST_COMPLETED)
        return set(done)

    def close(self, cancel: bool) -> None:
        # Cancelling only stops the tasks not yet started: a worker in a game would play it out,
        # and the interpreter's exit waits for it (for ever, if an engine hangs).  The games in
        # flight are dropped anyway, so the workers are stopped: SIGTERM, on which each one
        # kills its engines (:mod:`komaken.lab.lifeline`).
        workers = list((self._pool._processes or {}).values()) if cancel else []
        self._pool.shutdown(wait=not cancel, cancel_futures=cancel)
        for worker in workers:
            worker.terminate()


class _Dask:
    """A Dask distributed cluster (``--dask tcp://host:8786``)."""

    remote = True

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise RunError("--dask needs the 'distributed' package (pip install 'dask[distributed]')") from None
        try:
            self._client = Client(address, timeout="20s")
        except OSError as exc:
            raise RunError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        threads = sum(self._client.nthreads().values()) or 1
        self.window = 2 * threads

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self._client.submit(fn, *args, pure=False)

    def wait_first(self, futures: Iterable[Any]) -> set[Any]:
        from distributed import wait

        done, _ = wait(list(futures), return_when="FIRST_COMPLETED")
        return set(done)

    def close(self, cancel: bool) -> None:
        self._client.close()


def one_per_task(remote: bool, mean_seconds: float) -> int:
    """One game per task: the batch size of a kind whose games are long next to a task's cost."""
    return 1


@dataclass(frozen=True, slots=True)
class WorkKind:
    """A kind of work the runner plays; ``name`` is the ``meta.kind`` of its database
    (:mod:`komaken.lab.storage`).

    ``play(config_json, keys)`` runs in a worker — this process, a spawned process of the pool, or
    a Dask worker — and returns one row per key, in order: a dict, with the game's ``seconds``
    among its entries.  It must be a module-level function (pickled by name), and it gets the
    configuration as JSON so a worker can keep what it built for it (players, compiled tables)
    from task to task.  ``describe(keys)`` names the keys when their task failed (``game 3 of
    pairing 'x' failed outside the players``).  ``batch(remote, mean_seconds)`` is how many keys
    go in one task, given whether tasks go to a Dask cluster (each costs a round trip through
    its scheduler) and the mean game so far (0: none yet)."""

    name: str
    play: Callable[[str, list[Any]], list[dict[str, Any]]]
    describe: Callable[[list[Any]], str]
    batch: Callable[[bool, float], int] = one_per_task


def run_work(kind: WorkKind, config_json: str, keys: Iterator[Any], left: int,
             store: Callable[[Any, dict[str, Any]], None], *, workers: int | None = None, dask: str | None = None,
             external: bool = False, db: Path | None = None) -> None:
    """Play the ``left`` keys of ``keys`` as ``kind``'s tasks and hand each row to ``store(key, row)``
    in this process, as its task finishes — the only writer of the database.

    ``keys`` is read only as tasks are submitted, so it may be a generator that stops early (an
    SPRT decided) or that is huge.  ``workers`` defaults to all cores, ``dask`` is a scheduler
    address; ``external``: the work starts external processes (USI engines), so even one worker
    runs in a worker process, which kills them when the run is killed.  ``db``: the games in
    flight are published beside that database (:mod:`komaken.lab.live`; not from a Dask cluster),
    its live folder emptied before and after.  A task that fails stops the run with
    :class:`RunError`; tasks still in flight are cancelled."""
    backend = _backend(workers, dask, left, external)
    folder = live.folder_of(db) if db is not None and not backend.remote else None
    in_flight: dict[Any, list[Any]] = {}
    played, seconds = 0, 0.0
    cancel = True
    if db is not None and folder is not None:
        live.clear(db, make=True)  # files a killed run left go
    try:
        while True:
            while len(in_flight) < backend.window:
                chunk = list(itertools.islice(keys, kind.batch(backend.remote, seconds / played if played else 0.0)))
                if not chunk:
                    break
                in_flight[backend.submit(published, kind.play, folder, config_json, chunk)] = chunk
            if not in_flight:
                break
            for fut in backend.wait_first(in_flight):
                chunk = in_flight.pop(fut)
                try:
                    rows = fut.result()
                except Exception as exc:
                    raise RunError(f"{kind.describe(chunk)}: {type(exc).__name__}: {exc}") from exc
                for key, row in zip(chunk, rows, strict=True):
                    played, seconds = played + 1, seconds + float(row.get("seconds", 0.0))
                    store(key, row)
        cancel = False
    finally:
        backend.close(cancel)
        if db is not None:
            live.clear(db)


# --------------------------------------------------------------------------------------------
# Scheduler


_HALF_POINTS = {"a": 2, "draw": 1, "b": 0}


@dataclass
class PairingCounts:
    """Live W/L/D of one pairing, for progress displays."""

    name: str
    a: str
    b: str
    target: int
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    sprt: str | None = None
    by_index: dict[int, str] = field(default_factory=dict)  # for pairing games into pentanomial pairs
    penta: list[int] = field(default_factory=lambda: [0] * 5)  # complete pairs scoring 0, ½, 1, 1½, 2

    @property
    def games(self) -> int:
        return self.a_wins + self.b_wins + self.draws

    def add(self, result: str, index: int | None = None) -> None:
        if index is not None and index not in self.by_index:
            self.by_index[index] = result
            partner = self.by_index.get(index ^ 1)  # games 2k and 2k+1 share opening k
            if partner is not None:
                self.penta[_HALF_POINTS[result] + _HALF_POINTS[partner]] += 1
        if result == "a":
            self.a_wins += 1
        elif result == "b":
            self.b_wins += 1
        else:
            self.draws += 1


@dataclass
class RunSummary:
    """What one ``run``/``resume`` call did."""

    played: int = 0
    stored: int = 0
    total: int = 0
    wall_seconds: float = 0.0
    counts: list[PairingCounts] = field(default_factory=list)

    @property
    def games_per_second(self) -> float:
        return self.played / self.wall_seconds if self.wall_seconds > 0 else 0.0


class Progress(Protocol):
    """Receives progress events (the CLI shows a rich progress bar on a terminal)."""

    def start(self, total: int, done: int, counts: list[PairingCounts]) -> None: ...

    def advance(self, row: GameRow, counts: list[PairingCounts]) -> None: ...

    def stop(self) -> None: ...


def run_experiment(
    experiment: Experiment,
    db_path: str | Path,
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: Progress | None = None,
) -> RunSummary:
    """Play every missing game of ``experiment`` into the database at ``db_path``.

    The database is created if missing; an existing one must hold the same experiment (it is
    then continued).  A second run on the same database while this one runs is refused
    (:mod:`komaken.lab.runlock`).  ``workers`` defaults to all cores; ``dask`` is a scheduler address.
    """
    check_workers(workers)
    with run_lock(Path(db_path), create=True), ExperimentDB.create(db_path, experiment) as db:
        return _execute(db, experiment, workers, dask, progress)


def resume_experiment(
    db_path: str | Path,
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: Progress | None = None,
) -> RunSummary:
    """Continue the experiment stored in ``db_path``: play exactly the missing games."""
    check_workers(workers)
    with run_lock(Path(db_path), create=False), ExperimentDB.open(db_path) as db:
        return _execute(db, db.experiment(), workers, dask, progress)


def check_workers(workers: int | None) -> None:
    """Refuse a worker count outside :data:`komaken.lab.limits.WORKERS` before anything is opened."""
    problem = None if workers is None else limits.out_of_range(workers, limits.WORKERS)
    if problem is not None:
        raise RunError(f"workers: {problem}")


def _execute(
    db: ExperimentDB,
    exp: Experiment,
    workers: int | None,
    dask: str | None,
    progress: Progress | None,
) -> RunSummary:
    t0 = time.perf_counter()
    # Fail before any game runs: the game must load and every player must build.
    variant = exp.variant_or_none()
    start_factory(exp, variant)
    check_players(exp, variant)

    counts, queue, jobs, decided = _plan(db, exp)
    summary = RunSummary(total=exp.total_games, counts=list(counts.values()))
    already = sum(c.games for c in counts.values())
    if progress is not None:
        progress.start(exp.total_games, already, summary.counts)
    if not jobs:
        summary.stored = db.count()
        if progress is not None:
            progress.stop()
        return summary

    try:
        _schedule(db, exp, queue, jobs, counts, decided, summary, progress, workers, dask)
    finally:
        if progress is not None:
            progress.stop()
    summary.stored = db.count()
    summary.wall_seconds = time.perf_counter() - t0
    return summary


def _plan(db: ExperimentDB, exp: Experiment) -> tuple[dict[str, PairingCounts], Iterator[tuple[str, int]], int,
                                                      set[str]]:
    """The stored W/L/D per pairing, the missing games in play order (made as they are taken: a
    pairing of a hundred million games costs no memory before it is played), how many they are,
    and the pairings an SPRT has already decided."""
    counts = {p.name: PairingCounts(p.name, p.a, p.b, p.games) for p in exp.pairings}
    missing: dict[str, Iterator[int]] = {}
    left: dict[str, int] = {}
    for p in exp.pairings:
        results, indexes = db.indexed_results(p.name)
        for (result, _), index in zip(results, indexes, strict=True):
            counts[p.name].add(result, index)
        done = db.done_indexes(p.name)
        missing[p.name] = _missing(p.games, done)
        left[p.name] = p.games - sum(1 for i in done if 0 <= i < p.games)
    decided = set()
    for name, c in counts.items():
        stored = db.decision(name)
        if stored is not None:
            c.sprt = stored["state"]
            decided.add(name)
        elif _sprt_decided(exp, db, c):  # a database written before decisions were recorded
            decided.add(name)
    going = [n for n in counts if n not in decided]
    return counts, _round_robin([(n, missing[n]) for n in going], decided), sum(left[n] for n in going), decided


def _missing(games: int, done: set[int]) -> Iterator[int]:
    return (i for i in range(games) if i not in done)


def _backend(workers: int | None, dask: str | None, jobs: int, external: bool = False) -> _Backend:
    """``external``: some player runs an external engine.  Even with one worker it then runs in a
    worker process, which kills its engines when the run is killed (this process cannot)."""
    n_workers = max(1, min(workers or os.cpu_count() or 1, jobs))
    if dask is not None:
        return _Dask(dask)
    if n_workers == 1 and not external:
        return _Inline()
    return _Pool(n_workers)


def _external(exp: Experiment) -> bool:
    """Whether a player of ``exp`` starts an external process (a USI engine)."""
    used = {p.a for p in exp.pairings} | {p.b for p in exp.pairings}
    return any(exp.players[name].kind == "usi" for name in used)


def _schedule(db: ExperimentDB, exp: Experiment, queue: Iterator[tuple[str, int]], jobs: int,
              counts: dict[str, PairingCounts], decided: set[str], summary: RunSummary, progress: Progress | None,
              workers: int | None, dask: str | None) -> None:
    """Play the queue as the ``match`` kind, store each finished game in its own transaction."""

    def store(key: tuple[str, int], result: dict[str, Any]) -> None:
        name = key[0]
        row = GameRow(**result)
        if db.insert(row):
            summary.played += 1
            counts[name].add(row.result, row.game_index)
            if name not in decided and _sprt_decided(exp, db, counts[name]):
                decided.add(name)
        if progress is not None:
            progress.advance(row, summary.counts)

    run_work(MATCH_WORK, exp.to_json(), queue, jobs, store, workers=workers, dask=dask, external=_external(exp),
             db=db.path)


def _sprt_decided(exp: Experiment, db: ExperimentDB, c: PairingCounts) -> bool:
    """Whether the pairing's SPRT has crossed a bound with the games counted so far; the decision
    is then recorded in ``db``, so the games still in flight cannot undo it."""
    test = exp.pairing(c.name).sprt
    if test is None:
        return False
    state = sprt_state(c.a_wins, c.b_wins, c.draws, test, c.penta)
    c.sprt = state["state"]
    if c.sprt == "continue":
        return False
    db.record_decision(c.name, {**state, "games": c.games})
    return True


def _round_robin(lists: list[tuple[str, Iterator[int]]], decided: set[str]) -> Iterator[tuple[str, int]]:
    """Interleave the pairings' games so every pairing's W/L/D fills in from the start; a pairing
    leaves the rotation once it is in ``decided`` (its SPRT stopped it while the run went on)."""
    going = list(lists)
    while going:
        for entry in list(going):
            name, idxs = entry
            idx = None if name in decided else next(idxs, None)
            if idx is None:
                going.remove(entry)
            else:
                yield name, idx


def _describe_match(keys: list[tuple[str, int]]) -> str:
    name, index = keys[0]
    return f"game {index} of pairing {name!r} failed outside the players"


#: the kind of a lab experiment: players in pairings (``meta.kind = match``)
MATCH_WORK = WorkKind(MATCH, play_games, _describe_match)
