"""``komaken ARGS`` for the tests: a real process, or the same command line in the test's own process.

A ``komaken`` process costs one to two and a half seconds of CPU (numba's import, the kernels
loaded again).  Where the process boundary is not what a test is about, :func:`komaken_in_process`
runs the same command line through click's ``CliRunner`` (the ``komaken.cli.main`` the console
script calls) and returns what :func:`komaken_process` would: the exit status, stdout and stderr.
An exception that escapes the command (a crash, not komaken's one-line ``komaken: error: ...``
and exit 2) gives status 1 with its traceback on stderr, as the real process prints it, so
``"Traceback" not in r.stderr`` keeps its meaning.  A family of bad-input cases runs in this
process and keeps one case through the real console script, for the exit status and the line on
a real stderr.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner

from komaken.cli import main


def komaken_process(*args: str, cwd: Path | None = None, input: str | None = None,
                    timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``komaken ARGS`` as a real process (``python -m komaken``), stdout and stderr captured."""
    return subprocess.run([sys.executable, "-m", "komaken", *args], cwd=cwd, input=input, capture_output=True,
                          text=True, timeout=timeout)


def komaken_in_process(*args: str, cwd: Path | None = None, input: str | None = None,
                       env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``komaken ARGS`` run in this process from ``cwd`` (default: where the test is), as a finished process."""
    with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
        r = CliRunner().invoke(main, list(args), input=input, prog_name="komaken", env=env)
    err = r.stderr
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        err += "".join(traceback.format_exception(r.exception))
    return subprocess.CompletedProcess(["komaken", *args], r.exit_code, r.stdout, err)
