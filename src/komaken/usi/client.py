"""Driving an external USI engine over a subprocess, with a deadline on every read.

>>> import sys
>>> eng = UsiProcess([sys.executable, "-m", "komaken", "usi"])  # doctest: +SKIP
>>> said = eng.handshake({"USI_Hash": "64"}, timeout=30)  # usi, the options, isready  # doctest: +SKIP
>>> eng.close()  # doctest: +SKIP

A reader thread moves each output line into a queue together with the moment it arrived, so a
read can wait with a timeout (a plain ``readline`` on a pipe cannot) and reply times are
measured when the line came, not when someone got round to reading it.  An engine that says
nothing before the deadline raises :class:`EngineTimeoutError` and is killed, with every
process it started (it runs in its own process group).
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from komaken.errors import KomakenError


class EngineError(KomakenError):
    """An external engine that cannot be started, went away, or does not speak USI."""


class EngineTimeoutError(EngineError):
    """An external engine did not answer within its deadline; it has been killed.

    ``waited`` is how long we waited (seconds), ``expected`` what we waited for
    (``"bestmove"``, ``"readyok"``...).  A game referee turns it into a loss on time."""

    def __init__(self, message: str, waited: float = 0.0, expected: str = "") -> None:
        super().__init__(message)
        self.waited = waited
        self.expected = expected


_EOF = None


def variant_last(options: Mapping[str, str]) -> dict[str, str]:
    """``options`` in the order they are to be sent: ``UCI_Variant`` last.  An option such as
    Fairy-Stockfish's ``VariantPath`` defines the variants that ``UCI_Variant`` then names; a
    variant named before it exists is ignored, and the engine would play another game.

    >>> variant_last({"UCI_Variant": "ctrl7", "VariantPath": "v.ini", "Threads": "1"})
    {'VariantPath': 'v.ini', 'Threads': '1', 'UCI_Variant': 'ctrl7'}
    """
    out = {k: v for k, v in options.items() if k != "UCI_Variant"}
    if "UCI_Variant" in options:
        out["UCI_Variant"] = options["UCI_Variant"]
    return out


class UsiProcess:
    """One engine process: :meth:`send` lines, read them back with :meth:`read` / :meth:`until`.

    ``command`` is an argument list or a shell-like string (split with :func:`shlex.split`).
    ``stderr`` goes to ``/dev/null`` unless a file object is given.  With ``kill_on_timeout``
    false a read that times out leaves the engine running (to count a dropped answer and go on).
    """

    def __init__(self, command: str | Sequence[str], *, stderr: int | IO[Any] | None = None, name: str | None = None,
                 kill_on_timeout: bool = True) -> None:
        self.kill_on_timeout = kill_on_timeout
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.name = name or " ".join(self.argv)
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=stderr if stderr is not None else subprocess.DEVNULL, text=True,
                                         bufsize=1, start_new_session=True)
        except (OSError, ValueError) as exc:
            raise EngineError(f"cannot start USI engine {self.name!r}: {exc}") from None
        self._lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self._reader = threading.Thread(target=self._read_forever, name=f"usi-reader {self.name}", daemon=True)
        self._reader.start()
        self.closed_output = False
        #: the engine's ``id name``, once :meth:`handshake` has read it
        self.id_name: str | None = None

    def handshake(self, options: Mapping[str, str] | None = None, timeout: float = 60.0) -> list[str]:
        """Start the conversation as a GUI does: ``usi`` until ``usiok``, each of ``options`` with
        ``setoption`` (``UCI_Variant`` last: :func:`variant_last`), then ``isready`` until
        ``readyok``; each wait at most ``timeout`` seconds.  Returns what the engine said before
        ``usiok`` (its ``id`` and ``option`` lines) and keeps its ``id name`` as :attr:`id_name`.

        Raises :class:`EngineError` for a program that echoes ``usi`` back (it does not speak
        USI) and :class:`EngineTimeoutError` (the engine killed) for one that does not answer."""
        self.send("usi")
        deadline = time.perf_counter() + timeout
        said: list[str] = []
        while True:
            try:
                line = self.read(deadline - time.perf_counter())[1].strip()
            except EngineTimeoutError:
                raise EngineTimeoutError(f"USI engine {self.name!r} did not answer 'usi' with 'usiok' within "
                                         f"{timeout:.3g} s" + ("; killed it" if self.kill_on_timeout else ""),
                                         timeout, "usiok") from None
            if line == "usi":
                raise EngineError(f"{self.name!r} does not speak USI: it echoes its input")
            if line == "usiok":
                break
            if line.startswith("id name "):
                self.id_name = line[8:].strip()
            said.append(line)
        for name, value in variant_last(options or {}).items():
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until("readyok", timeout)
        return said

    def _read_forever(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            for line in out:
                self._lines.put((time.perf_counter(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        self._lines.put((time.perf_counter(), _EOF))

    # ---- writing ---------------------------------------------------------------------------
    def send(self, line: str) -> float:
        """Write one line; returns the moment the write began (``time.perf_counter()``).

        A reply's time counts from there: on a busy machine the engine can answer, and the
        reader thread stamp the answer, before this thread runs again after the write."""
        stdin = self.proc.stdin
        assert stdin is not None
        start = time.perf_counter()
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise EngineError(f"USI engine {self.name!r} went away: {exc}") from None
        return start

    # ---- reading ---------------------------------------------------------------------------
    def read(self, timeout: float) -> tuple[float, str]:
        """The next line and when it arrived; waits at most ``timeout`` seconds.

        Raises :class:`EngineTimeoutError` (the engine is killed) when nothing came and
        :class:`EngineError` when the engine closed its output."""
        if self.closed_output:
            raise EngineError(f"USI engine {self.name!r} closed its output")
        try:
            t, line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            if self.kill_on_timeout:
                self.kill()
            raise EngineTimeoutError(f"USI engine {self.name!r} said nothing for {timeout:.3g} s"
                                     + ("; killed it" if self.kill_on_timeout else ""), timeout) from None
        if line is _EOF:
            self.closed_output = True
            code = self.proc.poll()
            raise EngineError(f"USI engine {self.name!r} closed its output"
                              + (f" (exit code {code})" if code is not None else ""))
        return t, line

    def until(self, prefix: str, timeout: float) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``, all within
        ``timeout`` seconds in total."""
        return [line for _, line in self.until_timed(prefix, timeout)]

    def until_timed(self, prefix: str, timeout: float) -> list[tuple[float, str]]:
        """:meth:`until` with each line's arrival time."""
        deadline = time.perf_counter() + timeout
        got: list[tuple[float, str]] = []
        while True:
            left = deadline - time.perf_counter()
            try:
                t, line = self.read(left)
            except EngineTimeoutError as exc:
                raise EngineTimeoutError(f"USI engine {self.name!r} did not answer {prefix!r} within "
                                         f"{timeout:.3g} s" + ("; killed it" if self.kill_on_timeout else ""),
                                         timeout, prefix) from exc
            got.append((t, line))
            if line.startswith(prefix):
                return got

    def drain(self) -> list[str]:
        """Every line already received, without waiting."""
        out: list[str] = []
        while True:
            try:
                _, line = self._lines.get_nowait()
            except queue.Empty:
                return out
            if line is None:  # _EOF
                self.closed_output = True
                return out
            out.append(line)

    # ---- ending ----------------------------------------------------------------------------
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the engine and everything it started (its process group)."""
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        self._reader.join(timeout=1.0)  # the pipe is at its end once the engine is gone

    def close(self, timeout: float = 5.0) -> int | None:
        """Send ``quit``, wait up to ``timeout`` seconds, then kill; returns the exit code."""
        if self.proc.poll() is None:
            with contextlib.suppress(EngineError):
                self.send("quit")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=timeout)
        code = self.proc.poll()
        self.kill()
        return code

    def __enter__(self) -> UsiProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        proc = getattr(self, "proc", None)
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)


__all__ = ["EngineError", "EngineTimeoutError", "UsiProcess", "variant_last"]
