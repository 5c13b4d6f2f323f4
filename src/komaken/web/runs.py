"""Experiment runs started from the page: ``komaken experiment run`` as a child process of the server.

Only an experiment the server was given (``komaken serve --experiment FILE DB``) can be run, into
its own database: a request names the database by its index, never a file.  One run per database
at a time (the lab's run lock also refuses a run started elsewhere, and the page shows why).

* **start** runs ``komaken experiment run FILE --db DB -j N -q`` in a session of its own, so its
  worker processes are signalled with it; an experiment already partly played is continued (the
  lab plays exactly the missing games).
* **pause** stops the run and its workers (``SIGSTOP`` to its process group); **resume**
  continues them (``SIGCONT``).  A paused run still holds its database's run lock.
* **stop** interrupts the run as Ctrl-C does (``SIGINT``): the games in flight are dropped, every
  finished game stays stored, and **start** later continues.  A run that has not ended after
  :data:`STOP_WAIT` seconds is killed (``SIGKILL``: the database is safe against that too).
* When the server stops, every run it started is stopped the same way; on Linux a run also gets
  ``SIGINT`` from the kernel if the server dies without cleaning up (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from komaken.errors import KomakenError

#: seconds a stopped run may take to store its state and exit before it is killed
STOP_WAIT = 15.0
_PR_SET_PDEATHSIG = 1


class RunRefused(KomakenError):
    """A run request that cannot be served now (HTTP 409): nothing to run, already running, …"""


@dataclass
class _Run:
    proc: subprocess.Popen[bytes]
    log: IO[bytes]
    workers: int
    started: float = field(default_factory=time.time)
    paused: bool = False
    stopped: bool = False


def _prctl() -> Any:
    """libc's ``prctl``, looked up now: the child calls it between fork and exec, where loading
    a library could wait on a lock another thread of the server held at the fork."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def _child_setup() -> None:  # pragma: no cover - runs in the child between fork and exec
    """The run hears SIGINT, whatever the server inherited: a server started as a background job
    or under ``nohup`` ignores it, and an ignored signal stays ignored across ``exec`` (then
    **stop** would wait :data:`STOP_WAIT` seconds and kill).  On Linux the run also gets SIGINT
    when the server dies."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGINT), 0, 0, 0)


class Runs:
    """The runs this server may start: database path → experiment file."""

    def __init__(self, files: dict[Path, Path]) -> None:
        self.files = {Path(db).resolve(): Path(f).resolve() for db, f in files.items()}
        self._runs: dict[Path, _Run] = {}
        self._ended: dict[Path, dict[str, Any]] = {}
        self._lock = threading.RLock()  # requests run on the event loop and in threads (the event streams)

    def runnable(self, db: Path) -> bool:
        return db in self.files

    def state(self, db: Path) -> dict[str, Any]:
        """``{"runnable", "file", "state", ...}``: ``state`` is ``idle``, ``running``, ``paused``,
        ``finished`` (exit 0), ``stopped`` (by the page) or ``failed`` (with ``message``: the run's
        last line of error output)."""
        doc: dict[str, Any] = {"runnable": self.runnable(db), "file": self.files[db].name if db in self.files else None}
        with self._lock:
            run = self._runs.get(db)
            if run is not None and run.proc.poll() is not None:
                self._reap(db)
                run = None
            if run is None:
                return {**doc, "state": "idle", **self._ended.get(db, {})}
            return {**doc, "state": "paused" if run.paused else "running", "pid": run.proc.pid,
                    "workers": run.workers, "since": run.started}

    def _reap(self, db: Path) -> None:
        with self._lock:
            run = self._runs.pop(db, None)
            if run is None:
                return
            self._ended[db] = self._ending(run)

    @staticmethod
    def _ending(run: _Run) -> dict[str, Any]:
        code = run.proc.wait()
        run.log.seek(0)
        lines = [ln for ln in run.log.read()[-4000:].decode("utf-8", "replace").splitlines() if ln.strip()]
        run.log.close()
        state = "stopped" if run.stopped else "finished" if code == 0 else "failed"
        return {"state": state, "exit": code, "message": lines[-1] if lines and state == "failed" else ""}

    def start(self, db: Path, workers: int) -> None:
        if db not in self.files:
            raise RunRefused(f"{db.name}: the server was not given an experiment to run into it "
                             "(komaken serve --experiment FILE DB)")
        with self._lock:
            if self.state(db)["state"] in ("running", "paused"):
                raise RunRefused(f"{db.name}: a run started here is still going (pause or stop it first)")
            self._launch(db, workers)

    def _launch(self, db: Path, workers: int) -> None:
        log = tempfile.TemporaryFile()
        cmd = [sys.executable, "-m", "komaken", "experiment", "run", str(self.files[db]), "--db", str(db),
               "-j", str(workers), "-q"]
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True, preexec_fn=_child_setup)
        except OSError as exc:
            log.close()
            raise RunRefused(f"cannot start the run: {exc}") from None
        self._ended.pop(db, None)
        self._runs[db] = _Run(proc, log, workers)

    def _running(self, db: Path) -> _Run:
        with self._lock:
            if self.state(db)["state"] not in ("running", "paused"):
                raise RunRefused(f"{db.name}: no run started here is going")
            return self._runs[db]

    def pause(self, db: Path) -> None:
        run = self._running(db)
        _signal(run, signal.SIGSTOP)
        run.paused = True

    def resume(self, db: Path) -> None:
        run = self._running(db)
        _signal(run, signal.SIGCONT)
        run.paused = False

    def stop(self, db: Path, wait: float = STOP_WAIT) -> None:
        """Interrupt the run and wait (blocking) until it has ended."""
        run = self._running(db)
        run.stopped = True
        _interrupt(run, wait)
        self._reap(db)

    def close(self) -> None:
        """Stop every run (the server is stopping)."""
        with self._lock:
            runs = list(self._runs.items())
        for db, run in runs:
            run.stopped = True
            if run.proc.poll() is None:
                _interrupt(run, STOP_WAIT)
            self._reap(db)


def _signal(run: _Run, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(run.proc.pid, sig)


def _interrupt(run: _Run, wait: float) -> None:
    """SIGINT to the run (continued first if paused: a stopped process cannot act on it); its
    workers ignore SIGINT and leave with it.  After ``wait`` seconds: SIGKILL to the group."""
    if run.paused:
        _signal(run, signal.SIGCONT)
        run.paused = False
    with contextlib.suppress(ProcessLookupError):
        os.kill(run.proc.pid, signal.SIGINT)
    try:
        run.proc.wait(wait)
    except subprocess.TimeoutExpired:
        _signal(run, signal.SIGKILL)
        run.proc.wait()


__all__ = ["STOP_WAIT", "RunRefused", "Runs"]
