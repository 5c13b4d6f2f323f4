"""The suite's own rule (tests/conftest.py): a missing tool skips on a developer's machine and
fails under CI=true; a skip about the machine stays a skip; an expected failure stays one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

CASES = {
    "test_missing_module_at_import.py": "from conftest import needs_module\n\n"
                                        'nope = needs_module("komaken_no_such_module")\n\n\n'
                                        "def test_never_collected():\n    pass\n",
    "test_missing_tools.py": "import pytest\n\nfrom conftest import needs_module, needs_program\n\n\n"
                             'def test_module():\n    needs_module("komaken_no_such_module")\n\n\n'
                             'def test_program():\n    needs_program("komaken-no-such-program")\n\n\n'
                             '@pytest.mark.skipif(True, reason="the record corpus is not here")\n'
                             "def test_marked():\n    pass\n",
    "test_machine.py": "import pytest\n\n\ndef test_mount():\n"
                       '    pytest.skip("cannot mount here: operation not permitted")\n\n\n'
                       '@pytest.mark.xfail(reason="known", strict=True)\ndef test_expected():\n    assert False\n\n\n'
                       "def test_passes():\n    pass\n",
}


def outcomes(tmp_path: Path, ci: str | None) -> dict[str, str]:
    """Run the cases with our conftest in a fresh pytest; ``test name -> outcome``."""
    for name, text in CASES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": ci} if ci is not None else {})
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the cases need none of the installed plugins
    report = tmp_path / f"report-{ci}.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--continue-on-collection-errors",
                    f"--junitxml={report}", str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                   timeout=120, stdin=subprocess.DEVNULL)
    out = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("skipped", "failure", "error")]
        out[case.get("name", "")] = kinds[0] if kinds else "passed"
    return out


@pytest.mark.parametrize("ci", [None, "false"])
def test_a_missing_tool_skips_outside_ci(tmp_path: Path, ci: str | None) -> None:
    assert outcomes(tmp_path, ci) == {
        "test_missing_module_at_import": "skipped", "test_module": "skipped", "test_program": "skipped",
        "test_marked": "skipped", "test_mount": "skipped", "test_expected": "skipped", "test_passes": "passed"}


def test_a_missing_tool_fails_under_ci(tmp_path: Path) -> None:
    assert outcomes(tmp_path, "true") == {
        "test_missing_module_at_import": "error", "test_module": "failure", "test_program": "failure",
        "test_marked": "error", "test_mount": "skipped", "test_expected": "skipped", "test_passes": "passed"}
