"""The shape of a source tree: modules, import circles, imports inside functions, largest modules,
and how long the heavy dependencies and the command line take to import.

    python benchmarks/architecture.py [SRC_ROOT] [--imports]

``SRC_ROOT`` is a ``komaken`` package folder (default: this checkout's ``src/komaken``), so two
versions are measured with the same rules: the ones of ``tests/test_architecture.py`` here (code
lines without docstrings, comments and blank lines; circles with the packages an import runs
first).  ``--imports`` also times, each in a fresh interpreter with numpy already loaded, the
packages an import inside a function may defer (``HEAVY``), and ``komaken --help``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

import test_architecture as arch  # noqa: E402  (the rules live with the tests)

HEAVY_MODULES = ("matplotlib", "matplotlib.pyplot", "scipy.stats", "scipy.optimize", "statsmodels.api",
                 "statsmodels.stats.proportion", "distributed", "starlette.applications", "uvicorn")


def shape(root: Path) -> None:
    found = arch.modules(root)
    circles = arch.import_circles(root)
    inner = [hit for m in found.values() for hit in arch._inner_imports(m)]
    own = [name for _, name in inner if name.startswith(("komaken", "."))]
    by_area = Counter(where.split("/")[0] if "/" in where.split(":")[0] else "(top)" for where, _ in inner)
    print(f"source: {root}")
    print(f"modules: {len(found)}")
    print(f"import circles: {len(circles)}")
    for part in circles:
        print(f"  {sorted(part)}")
    print(f"imports inside functions: {len(inner)} ({len(own)} of komaken modules)")
    print(f"  by package: {dict(sorted(by_area.items()))}")
    print("largest modules (code lines):")
    for name, module in sorted(found.items(), key=lambda kv: -len(kv[1].code))[:5]:
        print(f"  {name}: {len(module.code)}")


def _seconds(code: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-W", "ignore", "-c", code], check=True, capture_output=True)
        best = min(best, time.perf_counter() - t0)
    return best


def import_times() -> None:
    base = _seconds("import numpy")
    print(f"import times (best of 3, fresh interpreter, numpy loaded; interpreter + numpy = {base:.2f} s):")
    for name in HEAVY_MODULES:
        print(f"  {name}: {_seconds(f'import numpy, {name}') - base:.2f} s")
    cli = _seconds("import sys; from komaken.cli import main; sys.argv = ['komaken', '--help']; main()")
    bare = _seconds("pass")
    print(f"  komaken --help: {cli:.2f} s in all, {cli - bare:.2f} s over a bare interpreter's start "
          "(it imports no numpy)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=HERE / "src" / "komaken")
    parser.add_argument("--imports", action="store_true", help="also time the heavy imports and the CLI")
    args = parser.parse_args()
    shape(args.root.resolve())
    if args.imports:
        import_times()


if __name__ == "__main__":
    main()
