"""Stale numba caches, removed before any kernel loads.

numba's ``cache=True`` checks a cached kernel against its *own* source file only.  A kernel that
calls another module's kernel (numba compiles the callee into it) or reads another module's table
(numba freezes global arrays as constants) keeps running the old code from its cache after that
other module changes — a silent wrong answer after ``git pull`` or an edit.

komaken keeps its kernels and their tables in private modules (``_*.py``).  At import,
:func:`refresh` compares a fingerprint of those files (path, size, modification time) with the
one stored beside the caches; when they differ it removes every komaken cache file, so the next
call of each kernel compiles afresh (under a minute) and caches again.  A package installed where
it cannot write keeps its caches elsewhere (numba's user-wide cache directory), and reinstalling
touches every file, so nothing is stale there and :func:`refresh` does nothing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
STAMP = "kernels.stamp"
CACHE_SUFFIXES = (".nbi", ".nbc")


def fingerprint(root: Path) -> str:
    """A digest of every private module's path, size and modification time under ``root``."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("_*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def refresh(root: Path = PACKAGE) -> bool:
    """Remove the numba cache files under ``root`` if its private modules changed since the last
    call; ``True`` when caches were removed.  Never raises: a read-only tree is left as it is."""
    try:
        stamp = root / "__pycache__" / STAMP
        now = fingerprint(root)
        if stamp.exists() and stamp.read_text() == now:
            return False
        for folder in root.rglob("__pycache__"):
            for f in folder.iterdir():
                if f.suffix in CACHE_SUFFIXES:
                    f.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        tmp = stamp.with_name(f"{STAMP}.{os.getpid()}")
        tmp.write_text(now)
        tmp.replace(stamp)  # atomic: a process starting now sees the old stamp or the new one
        return True
    except OSError:
        return False
