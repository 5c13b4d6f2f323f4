"""Stale numba caches are removed when a private module changes, and kept otherwise."""

from __future__ import annotations

import os
from pathlib import Path

from komaken._kernel_cache import STAMP, refresh


def make_tree(root: Path) -> tuple[Path, Path]:
    (root / "sub" / "__pycache__").mkdir(parents=True)
    kernel = root / "sub" / "_kernels.py"
    kernel.write_text("TABLE = 1\n")
    (root / "sub" / "api.py").write_text("x = 1\n")
    cached = root / "sub" / "__pycache__" / "_search.f-10.py311.nbi"
    cached.write_text("index")
    return kernel, cached


def test_first_run_clears_and_stamps(tmp_path: Path) -> None:
    _, cached = make_tree(tmp_path)
    assert refresh(tmp_path) and not cached.exists()
    assert (tmp_path / "__pycache__" / STAMP).exists()


def test_unchanged_tree_keeps_its_caches(tmp_path: Path) -> None:
    _, cached = make_tree(tmp_path)
    refresh(tmp_path)
    cached.write_text("index")
    (tmp_path / "sub" / "api.py").write_text("x = 2  # a public module: no kernels there\n")
    assert not refresh(tmp_path) and cached.exists()


def test_a_changed_private_module_clears_every_cache(tmp_path: Path) -> None:
    kernel, cached = make_tree(tmp_path)
    refresh(tmp_path)
    cached.write_text("index")
    other = tmp_path / "__pycache__" / "_board.g-3.py311.nbc"
    other.write_text("data")
    kernel.write_text("TABLE = 2\n")
    os.utime(kernel, ns=(1, 1))
    assert refresh(tmp_path) and not cached.exists() and not other.exists()
    assert not refresh(tmp_path)


def test_read_only_trees_are_left_alone(tmp_path: Path) -> None:
    assert not refresh(tmp_path / "missing")
