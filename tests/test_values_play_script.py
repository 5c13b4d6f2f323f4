"""examples/values/play.py: the list of commands that plays every database of the paper.  Each
command must parse as the CLI it names (an option renamed in the CLI breaks it here, not hours
into a run), and every label file must come after the study it labels."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from komaken.cli import main

SCRIPT = Path(__file__).parent.parent / "examples" / "values" / "play.py"
sys.path.insert(0, str(SCRIPT.parent))
import play  # noqa: E402


@pytest.mark.parametrize("step", play.STEPS, ids=lambda s: s.name)
def test_every_step_parses_as_the_command_it_names(step: play.Step, tmp_path: Path) -> None:
    argv = [a.format(out=tmp_path) for a in step.args] + ["--workers", "2"]
    if "label" in argv[:2]:  # the study it reads must exist to parse
        (tmp_path / f"{step.name.split('.')[0]}.db").touch()
    group = main.get_command(click.Context(main), argv[0])
    assert isinstance(group, click.Group)
    command = group.get_command(click.Context(group), argv[1])
    assert command is not None, argv[:2]
    command.make_context(argv[1], argv[2:])  # raises on an unknown option or a bad value


def test_an_experiment_already_begun_is_resumed_from_its_database(tmp_path: Path) -> None:
    step = next(s for s in play.STEPS if s.args[:2] == ("experiment", "run"))
    assert play.command(step, tmp_path, 2)[:2] == ["experiment", "run"]
    (tmp_path / f"{step.name}.db").touch()
    argv = play.command(step, tmp_path, 2)
    assert argv == ["experiment", "resume", "--db", str(tmp_path / f"{step.name}.db"), "-q", "--workers", "2"]
    group = main.get_command(click.Context(main), "experiment")
    assert isinstance(group, click.Group)
    resume = group.get_command(click.Context(group), "resume")
    assert resume is not None
    resume.make_context("resume", argv[2:])


def test_an_experiment_step_that_sets_its_games_is_run_again_not_resumed(tmp_path: Path) -> None:
    """``resume`` plays the stored game count, so a step that asks for another (the published 2,000
    games a pairing of a file designed for 4,000) must stay ``run``."""
    step = next(s for s in play.STEPS if s.name == "perturb-minishogi")
    (tmp_path / f"{step.name}.db").touch()
    argv = play.command(step, tmp_path, 2)
    assert argv[:2] == ["experiment", "run"]
    assert argv[argv.index("--games") + 1] == "2000"


def test_labels_come_after_their_study_and_names_are_unique() -> None:
    names = [s.name for s in play.order(play.STEPS)]
    assert len(set(names)) == len(names)
    for i, name in enumerate(names):
        if "." in name:
            assert name.split(".")[0] in names[:i], name


def test_an_unknown_step_is_one_line_and_nothing_runs(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "out"), "--only", "ctrl7-ex2-s1,nope"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert out.stderr.strip() == "play.py: no step named nope (--list shows them)"
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="Linux's autogroup scheduler only")
def test_started_niced_the_script_gives_its_niceness_to_a_session_of_its_own() -> None:
    """Otherwise the scheduler shares the CPU between sessions first and ``nice`` is void against
    an engine match in another session."""
    code = (f"import sys; sys.path.insert(0, {str(SCRIPT.parent)!r}); import play, os; "
            "play.background(); print(os.getsid(0) == os.getpid(), open('/proc/self/autogroup').read())")
    out = subprocess.run(["nice", "-n", "7", sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == "True" and out[-2:] == ["nice", "7"]
