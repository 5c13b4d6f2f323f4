"""The code base stays ruff-clean (the project's lint configuration lives in pyproject.toml)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import needs_program

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    ruff = needs_program("ruff")
    proc = subprocess.run([ruff, "check", "src", "tests", "benchmarks"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
