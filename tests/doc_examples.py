"""Extract and run the code examples of README.md and docs/*.md (used by test_doc_examples.py).

Which blocks run, and how (also written down in docs/contributing.md):

* Fenced blocks only.  ```` ```python ````, ```` ```py ```` and ```` ```pycon ```` run as Python:
  a block holding ``>>>`` lines is checked like a doctest (the output shown must be what it
  prints; ``...`` matches anything, whitespace is normalised), any other block must run without
  an error.  Blocks of one file share one namespace, in order.
* ```` ```sh ```` / ```` ```bash ```` / ```` ```shell ```` blocks run line by line (``\\``
  continues a line); every line must exit with status 0.  A plain ``komaken ...`` line (no pipe,
  redirect, ``&&``, ``;``, ``$``, glob or environment assignment: see :func:`plain_komaken`) runs
  in this process through click's ``CliRunner`` (the same ``komaken.cli.main`` the console script
  calls, in the file's directory, stdin empty), sparing a Python start and kernel load per line;
  any other line runs with ``bash -c`` and the installed ``komaken`` first on ``PATH``, so the
  real console script still runs in the lines with redirects and pipes.  A trailing comment is
  *output* to check when it starts with a number (``# 719731 nodes``: each number in it must
  appear in the output) or with ``{`` (``...`` matches anything).  A comment starting
  ``komaken: error:`` expects exit status 2 and that text on stderr.  ``komaken experiment run``
  lines get ``--games 2`` (unless they set ``--games``) so the whole book runs in minutes.
* Other blocks (no language, ``text``, ``toml``, ``json`` …) are not run.
* ``<!-- no-run: why -->`` on the line before a fence (blank lines between are allowed) skips a
  block that cannot run in CI: a ten-minute run, a server, an interactive game, another machine.
* Everything runs in one temporary directory per file, holding a copy of ``examples/`` and the
  files the examples open (``game.kif``, ``game.csa``, ``many.csa``, ``floodgate.csa``,
  ``export.kifu``, ``values.toml``), made by :func:`make_workdir`.
"""

from __future__ import annotations

import doctest
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ("python", "py", "pycon")
SHELL = ("sh", "bash", "shell")
FENCE = re.compile(r"^(\s*)```([\w-]*)\s*$")
NO_RUN = re.compile(r"^\s*<!--\s*no-run\b:?\s*(.*?)\s*-->\s*$")
TIMEOUT = 300  # seconds for one shell line


@dataclass
class Block:
    """One fenced block: where it is (``line`` is the fence's, 1-based), its language and text."""

    file: str
    line: int
    lang: str
    text: str
    skip: str | None = None  # the no-run reason

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def blocks(path: Path, name: str | None = None) -> list[Block]:
    """Every fenced block of a Markdown file, with its no-run mark if it has one."""
    name = name or str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    k = 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        indent, lang, start = m[1], m[2].lower(), k
        k += 1
        body = []
        while k < len(lines) and not re.match(rf"^{indent}```\s*$", lines[k]):
            body.append(lines[k][len(indent):] if lines[k].startswith(indent) else lines[k].lstrip())
            k += 1
        k += 1
        out.append(Block(name, start + 1, lang, "\n".join(body) + "\n", _skip_mark(lines, start)))
    return out


def _skip_mark(lines: list[str], fence: int) -> str | None:
    j = fence - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    m = NO_RUN.match(lines[j]) if j >= 0 else None
    return (m[1] or "no reason given") if m else None


# ---- Python ------------------------------------------------------------------------------------
def run_python(block: Block, namespace: dict[str, Any]) -> str | None:
    """``None`` if the block runs as shown, else what went wrong."""
    if ">>>" in block.text:
        return _doctest(block, namespace)
    code = "\n" * block.line + block.text  # tracebacks name the Markdown line
    try:
        exec(compile(code, block.file, "exec"), namespace)  # noqa: S102 - running the docs is the point
    except Exception as exc:  # noqa: BLE001
        tb = exc.__traceback__
        line = block.line
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == block.file:
                line = tb.tb_lineno
            tb = tb.tb_next
        return f"{block.file}:{line}: {type(exc).__name__}: {exc}"
    return None


def _doctest(block: Block, namespace: dict[str, Any]) -> str | None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.text, namespace, block.where, block.file, block.line)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(optionflags=flags)
    report = io.StringIO()
    runner.run(test, out=report.write, clear_globs=False)
    namespace.update(test.globs)  # a DocTest runs in a copy; later blocks see what this one made
    if runner.failures:
        return f"{block.where}: {runner.failures} example(s) failed\n{report.getvalue()}"
    return None


# ---- shell -------------------------------------------------------------------------------------
def commands(block: Block) -> list[tuple[int, str, str]]:
    """``(line, command, comment)`` for each command line of a shell block."""
    out = []
    pending, first = "", 0
    for offset, raw in enumerate(block.text.splitlines(), 1):
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            first = block.line + offset
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        command, comment = split_comment(pending + line)
        out.append((first, command, comment))
        pending = ""
    return out


def split_comment(line: str) -> tuple[str, str]:
    """``komaken perft -d 4   # 719731 nodes`` → the command and ``719731 nodes``."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def shorten(command: str) -> str:
    """Long runs made short: ``komaken experiment run`` plays 1 game per pairing, in one worker (two
    would each start Python and load the kernels for a few games)."""
    if re.match(r"^(\S*/)?komaken experiment run\b", command):
        if "--games" not in command:
            command += " --games 1"
        if not re.search(r"(^| )(-j|--workers)\b", command):
            command += " -j 1"
    return command


def run_shell(block: Block, cwd: Path) -> list[str]:
    """What went wrong, one message per failing line (empty: the block runs as shown)."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               COLUMNS="120", NO_COLOR="1")
    problems = []
    for line, command, comment in commands(block):
        argv = plain_komaken(shorten(command))
        try:
            if argv is not None:
                proc = run_in_process(argv, cwd)
            else:
                proc = subprocess.run(["bash", "-c", shorten(command)], cwd=cwd, env=env, capture_output=True,
                                      text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            problems.append(f"{block.file}:{line}: `{command}` ran longer than {TIMEOUT} s")
            continue
        why = check_output(proc, comment)
        if why:
            problems.append(f"{block.file}:{line}: `{command}` {why}")
    return problems


#: what makes a line more than ``komaken ARGS``: bash must run it (pipes, redirects, ``&&``, ``;``,
#: expansions, globs, braces, escapes)
SHELL_SYNTAX = re.compile(r"[|&;<>()$`*?\[\]{}~!\\]")


def plain_komaken(command: str) -> list[str] | None:
    """The arguments of a plain ``komaken ARGS`` line (words split as bash would: quotes only), or
    ``None`` when the line needs a shell: any shell syntax, even quoted, or a first word that is
    not ``komaken`` (an environment assignment, another program)."""
    if SHELL_SYNTAX.search(command):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    return words[1:] if words and words[0] == "komaken" else None


def run_in_process(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``komaken ARGV`` through click's ``CliRunner`` in ``cwd``, as a finished process: its exit
    status, stdout and stderr (an uncaught exception: status 1 and its traceback on stderr)."""
    from cli_support import komaken_in_process

    return komaken_in_process(*argv, cwd=cwd, env={"COLUMNS": "120", "NO_COLOR": "1"})


def check_output(proc: subprocess.CompletedProcess[str], comment: str) -> str | None:
    """Why the command's result does not match its comment (``None``: it does)."""
    if comment.startswith("komaken: error:"):
        if proc.returncode != 2 or comment not in proc.stderr:
            return f"should fail with {comment!r}, got status {proc.returncode}, stderr {proc.stderr.strip()!r}"
        return None
    if proc.returncode != 0:
        return f"exited with status {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-800:]}"
    if comment.startswith("{"):
        pattern = ".*?".join(re.escape(part) for part in comment.split("..."))
        if not re.search(pattern, " ".join(proc.stdout.split())):
            return f"printed {proc.stdout.strip()[:400]!r}, not {comment!r}"
    elif re.match(r"[-+]?\d", comment):
        printed = set(re.findall(r"\d+(?:\.\d+)?", proc.stdout))
        missing = [n for n in re.findall(r"\d+(?:\.\d+)?", comment) if n not in printed]
        if missing:
            return f"printed {proc.stdout.strip()[:400]!r}, which lacks {', '.join(missing)} ({comment!r})"
    return None


# ---- the working directory ------------------------------------------------------------------------
def make_workdir(path: Path) -> Path:
    """A directory holding ``examples/`` and the record files the examples read."""
    from komaken import records

    shutil.copytree(ROOT / "examples", path / "examples")
    usi = "startpos moves 7g7f 3c3d 2g2f 4c4d 2f2e 2b3c 3i4h 8b4b 5i6h 5a6b"
    rec = records.parse(usi, "usi")
    rec.black, rec.white = "A", "B"
    records.write(rec, path / "game.kif")
    records.write(rec, path / "game.csa")
    second = records.parse("startpos moves 2g2f 8c8d 2f2e", "usi")
    (path / "many.csa").write_text(records.dumps(rec, "csa") + "/\n" + records.dumps(second, "csa") + "/\n"
                                   + records.dumps(rec, "csa"), encoding="utf-8")
    shutil.copy(path / "many.csa", path / "floodgate.csa")
    (path / "export.kifu").write_text(records.dumps(rec, "kif") + records.dumps(second, "kif"), encoding="utf-8")
    (path / "game.pgn").write_text('[White "A"]\n[Black "B"]\n\n1. e4 e5 2. Nf3 Nc6 *\n', encoding="utf-8")
    (path / "othello.txt").write_text("f5 d6 c3 d3 c4\n", encoding="utf-8")
    (path / "values.toml").write_text("B = 1500\nR = 1700\n[hand]\nP = 130\n", encoding="utf-8")
    return path


def run_file(path: Path, workdir: Path) -> tuple[list[str], int, int]:
    """Run every block of one Markdown file in ``workdir``: (problems, blocks run, blocks skipped)."""
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    problems: list[str] = []
    ran = skipped = 0
    old = Path.cwd()
    os.chdir(workdir)
    try:
        for block in blocks(path):
            if block.lang not in PYTHON + SHELL:
                continue
            if block.skip is not None:
                skipped += 1
                continue
            ran += 1
            if block.lang in PYTHON:
                why = run_python(block, namespace)
                problems += [why] if why else []
            else:
                problems += run_shell(block, workdir)
    finally:
        os.chdir(old)
    return problems, ran, skipped


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
