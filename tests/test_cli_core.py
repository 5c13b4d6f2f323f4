"""The command line: perft and show, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import click
from click.testing import CliRunner

from komaken.cli import COMMANDS, main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "komaken", *args], capture_output=True, text=True, timeout=300)


def test_perft_json_line_per_position(tmp_path) -> None:
    f = tmp_path / "positions.sfen"
    f.write_text("# two positions\nrbsgk/4p/5/P4/KGSBR b - 1\nrbsgk/4p/5/P4/KGSBR w - 1\n")
    result = CliRunner().invoke(main, ["perft", "--variant", "minishogi", "--sfen-file", str(f), "-d", "3", "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["nodes"] for r in rows] == [2512, rows[1]["nodes"]] and rows[1]["nodes"] > 0
    assert set(rows[0]) == {"sfen", "depth", "nodes", "seconds"} and rows[0]["depth"] == 3


def test_perft_divide() -> None:
    result = CliRunner().invoke(main, ["perft", "-v", "minishogi", "-d", "2", "--divide"])
    assert result.exit_code == 0
    assert "5d5c: " in result.output and "depth 2: 181 nodes" in result.output


def test_show_prints_the_japanese_board() -> None:
    result = CliRunner().invoke(main, ["show", "--variant", "minishogi"])
    assert result.exit_code == 0
    assert "後手の持駒：なし" in result.output and "|v飛v角v銀v金v玉|一" in result.output


def test_bad_input_is_one_line_and_exit_2() -> None:
    """The first through a real ``komaken`` process (its exit status), the rest in this process."""
    for i, args in enumerate((
        ["perft", "--variant", "minishogi", "--sfen", "rbsgk/4p/5/P4/KGSBX b - 1", "-d", "1"],
        ["perft", "--variant", "nope", "-d", "1"],
        ["perft", "--variant", "minishogi"],
        ["show", "--variant", "missing.toml"],
        ["perft", "--sfen-file", "/no/such/file", "-d", "1"],
    )):
        if i == 0:
            proc = run(*args)
            code, stderr = proc.returncode, proc.stderr
        else:
            result = CliRunner().invoke(main, args)
            assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
            code, stderr = result.exit_code, result.stderr
        assert code == 2, (args, stderr)
        assert stderr.count("\n") == 1 and stderr.startswith("komaken: error:"), stderr
        assert "Traceback" not in stderr


_LOADED = ("import sys, click; from komaken.cli import main; main.get_command(click.Context(main), {command!r}); "
           "heavy = ('komaken.lab', 'komaken.web', 'scipy.stats', 'matplotlib'); "
           "print(' '.join(m for m in heavy if m in sys.modules))")


def test_a_command_imports_only_its_own_module() -> None:
    """``komaken usi`` (a GUI starts it and waits for ``usiok``) loads neither the lab nor the web
    page, although every command module imports what it uses at its top."""
    loaded = {command: subprocess.run([sys.executable, "-c", _LOADED.format(command=command)], capture_output=True,
                                      text=True, timeout=300, check=True).stdout.split()
              for command in ("usi", "experiment")}
    assert loaded["usi"] == []
    assert "komaken.lab" in loaded["experiment"]  # the probe sees a command that does load the lab


def test_help_lists_each_command_by_its_own_summary_without_importing_it() -> None:
    """``komaken --help`` writes the summaries kept in ``COMMANDS``: each is its command's own
    first sentence, and listing them imports no command module."""
    for name, (_, summary) in COMMANDS.items():
        assert main.get_command(click.Context(main), name).get_short_help_str(1000) == summary, name
    code = ("import sys; from komaken.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('LOADED', ' '.join(m for m in sys.modules if m.startswith('komaken.cli.') or m == 'numba'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True).stdout
    assert "perft" in out and "Count the leaf nodes" in out
    assert out.rsplit("LOADED", 1)[1].split() == []
