"""One run at a time per database: a second ``run``/``resume`` on the same file is refused.

Two runs on one database would both see the same games missing and play them twice (the
second copy is rejected by ``UNIQUE(pairing, game_index)``, the work wasted).  So ``run`` and
``resume`` hold an exclusive advisory lock (:func:`fcntl.flock`) on the database file for as
long as they run.  The kernel drops it when the process ends in any way, SIGKILL included, so
there is never a stale lock to clear by hand.  Readers (``status``, ``report``, ``export``,
the web viewer) take no lock and work during a run.

The lock is a ``flock`` on a file descriptor of our own, taken before SQLite opens the file and
released only after SQLite closed it: closing a second descriptor of a file would drop the
POSIX locks SQLite holds on it, so the order matters (:func:`run_lock` keeps it).  Where
``fcntl`` does not exist (Windows) there is no lock and runs must not overlap.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from komaken.lab.errors import ExperimentDBError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def run_lock(path: Path, create: bool) -> Iterator[None]:
    """Hold the run lock of the database ``path`` (``create``: make an empty file if missing).

    Raises :class:`ExperimentDBError` when another run holds it, or the file cannot be opened for
    writing (read-only file or file system, missing)."""
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ExperimentDBError(f"{path}: cannot create its folder: {exc.strerror}") from None
    elif not path.exists():
        raise ExperimentDBError(f"{path}: no such results database")
    try:
        fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
    except OSError as exc:
        raise ExperimentDBError(f"{path}: cannot write to the results database: {exc.strerror}") from None
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                raise ExperimentDBError(
                    f"{path}: another `komaken experiment run/resume`{holder} is playing into this database; "
                    "two runs would play the same games twice, so this one is refused (wait for it, or stop it "
                    "and `resume`)"
                ) from None
        yield
    finally:
        os.close(fd)  # after the caller closed its SQLite connection (see the module docstring)


def _holder(fd: int) -> str:
    """`` (pid N)`` of the process holding the lock, read from ``/proc/locks`` where there is one."""
    try:
        st = os.fstat(fd)
        locks = Path("/proc/locks").read_text()
    except OSError:
        return ""
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in locks.splitlines():
        words = line.split()
        if len(words) > 5 and words[1] == "FLOCK" and words[5] == inode and words[4].isdigit():
            return f" (pid {words[4]})"
    return ""


__all__ = ["run_lock"]
