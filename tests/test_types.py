"""mypy over src/ at the strictness set in pyproject.toml ([tool.mypy]); skipped without mypy."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_clean() -> None:
    pytest.importorskip("mypy")
    if shutil.which("mypy") is None and not (Path(sys.executable).parent / "mypy").exists():
        pytest.skip("mypy is not installed")
    proc = subprocess.run([sys.executable, "-m", "mypy", "src/komaken"], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
