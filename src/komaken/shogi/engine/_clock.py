"""The monotonic clock read from inside a numba kernel: :func:`monotonic_ns`.

A search that is to stop at a moment should not depend on another thread being scheduled, and
taking the interpreter lock, to tell it so: on a loaded machine that thread (the alarm) was seen
to wake up to 17 ms late, and not at all while a full garbage collection held the lock.  So the
kernel reads the clock itself (every 1024 nodes, with the stop flag) and stops at
``ctl.deadline``.

``monotonic_ns()`` is ``clock_gettime(CLOCK_MONOTONIC)`` in nanoseconds, the clock of Python's
:func:`time.monotonic_ns` and :func:`time.perf_counter` on Linux (both read it): a deadline set
from ``time.monotonic_ns()`` in Python is met in the kernel.  The call goes through the C library
(a vDSO read, about 30 ns); numba caches the compiled code, the symbol is resolved when it loads.
"""

from __future__ import annotations

import sys
import time

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1  # Linux's id of the clock time.monotonic_ns() reads
NATIVE = sys.platform.startswith("linux")  # elsewhere the clock ids differ: the kernel does not read the time


@intrinsic
def _clock_gettime_ns(typingctx):  # type: ignore[no-untyped-def]
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i64, i32 = ir.IntType(64), ir.IntType(32)
        timespec = ir.LiteralStructType([i64, i64])  # time_t seconds, long nanoseconds (64-bit Linux)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i32, [i32, timespec.as_pointer()]),
                                            "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [ir.Constant(i32, CLOCK_MONOTONIC), ts])
        zero = ir.Constant(i32, 0)
        sec = builder.load(builder.gep(ts, [zero, zero]))
        nsec = builder.load(builder.gep(ts, [zero, ir.Constant(i32, 1)]))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


if NATIVE:
    monotonic_ns = _clock_gettime_ns
else:  # pragma: no cover - the kernel's own deadline is off; the alarm thread still stops the search
    from numba import njit

    @njit(cache=True)
    def monotonic_ns() -> int:
        return 0


def now_ns() -> int:
    """The same clock from Python (``time.monotonic_ns()``)."""
    return time.monotonic_ns()


__all__ = ["NATIVE", "monotonic_ns", "now_ns"]
