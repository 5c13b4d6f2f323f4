"""mypy over src/ at the strictness set in pyproject.toml ([tool.mypy]); skipped without mypy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import needs_module

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_clean() -> None:
    needs_module("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy", "src/komaken"], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
