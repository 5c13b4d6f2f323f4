"""Every ``>>>`` example in src/komaken runs and prints what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import komaken

_SKIP = {"komaken.__main__"}


def _modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(komaken.__path__, "komaken.")]
    return sorted(n for n in names if n not in _SKIP)


def _with_examples() -> list[str]:
    out = []
    for name in _modules():
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin and ">>>" in open(spec.origin, encoding="utf-8").read():
            out.append(name)
    return out


@pytest.mark.parametrize("name", _with_examples())
def test_examples(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:  # an optional dependency (the web extra) is not installed
        if (exc.name or "").startswith("komaken"):
            raise
        pytest.skip(f"{name} needs {exc.name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_architecture_doc_examples() -> None:
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
    result = doctest.testfile(str(doc), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 8
