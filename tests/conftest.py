"""What the test files share: the lab's toy experiment and its environment, a loopback Dask
cluster, and the rule for tests whose tool is missing.

A missing tool (a package such as cshogi, a command such as ruff or the dask scheduler,
Chromium, the record corpus) skips its tests with the reason on a developer's machine; under
``CI=true`` the skip is turned into a failure, so a CI run cannot go green with a tool quietly
missing.  Skips about the machine rather than a tool stay skips: they are listed, with the
reason, in :data:`ENVIRONMENT_SKIPS`.  Tests import the helpers from here
(``from conftest import ENV, needs_module``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).parent
#: The environment of a subprocess that must import the helpers in tests/ (the toy game, fake engines).
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
#: The longest any subprocess of a lab test may take (the first run may compile the kernels).
DEADLINE = 300

#: Skips that stay skips under CI=true, by the start of their reason: what they need is the machine.
ENVIRONMENT_SKIPS = {
    # test_lab_dbfaults: read-only and full disks are made with real mounts, which need privileges
    "cannot mount here": "mount(8) is not allowed (an unprivileged container)",
    # test_lab_kill: a run's processes are found through /proc
    "needs /proc": "no /proc file system (not Linux)",
}


def ci() -> bool:
    """Is this a CI run (``CI=true``, as every CI service sets it)?"""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def needs_module(name: str) -> ModuleType:
    """The module ``name``; skips the test when it is not installed (a failure under CI=true)."""
    return pytest.importorskip(name, reason=f"the {name} package is not installed (pip install -e '.[test]')")


def needs_program(name: str) -> str:
    """The path of the command ``name`` (the venv's own first); skips when there is none."""
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"the {name} command is not installed")
    return found


def _tool_skip(report: pytest.TestReport | pytest.CollectReport) -> str | None:
    """The reason of a skip that hides a missing tool, else ``None``."""
    if not report.skipped or hasattr(report, "wasxfail"):
        return None
    longrepr = report.longrepr
    reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr).removeprefix("Skipped: ")
    return None if reason.startswith(tuple(ENVIRONMENT_SKIPS)) else reason


def _fail_under_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    reason = _tool_skip(report) if ci() else None
    if reason is not None:
        report.outcome = "failed"
        report.longrepr = (f"CI=true: a missing tool fails the run: {reason}\n(install it; a skip about the "
                           "machine rather than a tool belongs in ENVIRONMENT_SKIPS in tests/conftest.py)")


#: The test files that take longest (seconds of a whole run, most first): they go to the workers
#: first.  xdist hands out whole files (``--dist loadfile``), the next to whichever worker runs
#: dry; its default order, most tests first, left the long files of few tests (a watched run,
#: killed runs) to the end, one worker playing them while the other idled.  Longest first, the
#: many short files even the two out at the end.
LONGEST_FIRST = (
    "test_web_browser", "test_web_watch", "test_web_pieces", "test_values_study", "test_doc_examples",
    "test_records_corpus", "test_lab_concurrency", "test_lab_run", "test_web_db", "test_web_clock_browser",
    "test_lab_kill", "test_usi_states", "test_label", "test_web_browser_watch", "test_web_analysis_browser",
    "test_play_terminal", "test_analysis", "test_usi_fuzz", "test_architecture", "test_nnue_train",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the files :data:`LONGEST_FIRST`, the rest after them as collected (every worker
    collects, and sorts, alike: xdist checks that they agree)."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))  # stable: a file's tests keep their order


def pytest_configure(config: pytest.Config) -> None:
    """On the xdist controller, before any worker starts: compile the big kernels once
    (:func:`warm_kernels.warm_all`), so the workers and their subprocesses load them from numba's
    cache instead of each compiling them at the same time.  A warm-up that fails is reported and
    the tests run anyway: they will show what is wrong."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    from warm_kernels import warm_all  # here: a copy of this file elsewhere (test_suite_policy) runs without it

    warm_all(lambda group, message: config.issue_config_time_warning(
        pytest.PytestWarning(f"kernel warm-up failed: {message}"), stacklevel=2))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[
        None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _fail_under_ci(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[
        None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    _fail_under_ci(report)
    return report


def toy_toml(games: int, *, delay: float | None = None, random_plies: int = 0, fixed: bool = False) -> str:
    """The toy experiment (``lab_toygame``'s tic-tac-toe): r1 against r2, colours alternating.

    r1 plays at random; with ``delay`` it is a Python player that waits that many seconds a move.
    ``random_plies`` opens each game with random moves; ``fixed`` adds a pairing "fixed", r2
    against r1 with fixed colours, so each pairing plays ``games``.
    """
    r1 = ('engine = "random"' if delay is None else
          f'engine = "python"\nfactory = "lab_toygame:SlowRandom"\noptions = {{ delay = {delay} }}')
    text = (f'[experiment]\nname = "toy"\ngame = "lab_toygame:Toy.start"\ngames = {games}\nseed = 11\n\n'
            + (f"[openings]\nrandom_plies = {random_plies}\n\n" if random_plies else "")
            + f'[players.r1]\n{r1}\n\n[players.r2]\nengine = "random"\n\n'
            + '[[pairings]]\na = "r1"\nb = "r2"\ncolors = "alternate"\n')
    if fixed:
        text += '\n[[pairings]]\nname = "fixed"\na = "r2"\nb = "r1"\ncolors = "fixed"\n'
    return text


@pytest.fixture
def toy_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes re-import the toy game: they need tests/ on PYTHONPATH too."""
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[str]:
    """The address of a Dask scheduler on loopback with two one-thread worker processes."""
    distributed = needs_module("distributed")
    dask = needs_program("dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    common = {"env": ENV, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": tmp_path}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--dashboard-address", ":0"], **common)  # type: ignore[call-overload]
    worker = None
    try:
        worker = subprocess.Popen([dask, "worker", address, "--nworkers", "2", "--nthreads", "1", "--host",
                                   "127.0.0.1", "--no-dashboard", "--local-directory", str(tmp_path / "dask")],
                                  **common)  # type: ignore[call-overload]
        with distributed.Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        # the worker first, while its scheduler still answers: a worker whose scheduler has gone
        # spends 6-10 s retrying before it stops
        for proc in (worker, scheduler):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=20)
