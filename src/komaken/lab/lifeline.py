"""Worker processes never outlive the run that started them, even when it is killed with SIGKILL.

A SIGKILLed parent cannot clean up, and a pool worker blocked on its task queue would wait for
ever (it holds both ends of the queue's pipe, so it never sees end-of-file).  So each worker
watches its parent itself:

* a daemon thread checks :func:`os.getppid` every :data:`POLL` seconds; once the parent is
  gone it kills every process the worker started — external USI engines run in their own
  process group (session), so each child's whole group is killed — and leaves with
  :func:`os._exit`;
* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGTERM)`` also makes the kernel signal the worker the
  moment its parent dies, and the SIGTERM handler does the same clean-up.  (The kernel ties
  this to the parent *thread* that started the worker: the pool starts its workers from the
  thread that calls :func:`~komaken.lab.runner.run_experiment`, which outlives the pool.)

The search kernels release the GIL (``nogil=True``), so the watchdog runs even while the
worker is deep in a search.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from pathlib import Path

#: seconds between two looks at the parent
POLL = 0.2
_PR_SET_PDEATHSIG = 1


def install(parent: int) -> None:
    """Called first thing in a worker: exit (with all our children) once ``parent`` is gone."""
    if os.getppid() != parent:  # the parent died while this worker was starting
        _die()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0:
                signal.signal(signal.SIGTERM, lambda signum, frame: _die())
    atexit.register(kill_children)  # a normal exit takes its engines along too
    thread = threading.Thread(target=_watch, args=(parent,), name="komaken-lifeline", daemon=True)
    thread.start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL)
    _die()


def _die() -> None:
    """Kill every process this one started (with their process groups), then exit at once."""
    kill_children()
    os._exit(1)


def kill_children() -> list[int]:
    """SIGKILL each child of this process and, when it leads its own process group (USI
    engines do), the whole group; returns the children's pids."""
    me = os.getpid()
    children = list(_children(me))
    for pid in children:
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return children


def _children(pid: int) -> list[int]:
    """The live children of ``pid`` (read from ``/proc``; none where there is no ``/proc``)."""
    out: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return out
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) "
        if len(fields) > 1 and fields[1] == str(pid) and fields[0] != "Z":
            out.append(int(entry.name))
    return out


__all__ = ["POLL", "install", "kill_children"]
