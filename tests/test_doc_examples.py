"""Every code example in README.md and docs/*.md runs as written and prints what it shows.

The rules (which blocks run, the ``<!-- no-run: why -->`` mark, checked comments) are in
``tests/doc_examples.py`` and docs/contributing.md.  A failure names ``file:line`` of the block.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from doc_examples import (
    PYTHON,
    SHELL,
    Block,
    blocks,
    check_output,
    commands,
    doc_files,
    make_workdir,
    plain_komaken,
    run_file,
    run_python,
    run_shell,
    split_comment,
)


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: p.name)
def test_examples_run_as_written(path: Path, tmp_path: Path) -> None:
    problems, ran, _ = run_file(path, make_workdir(tmp_path))
    assert not problems, f"{len(problems)} example(s) in {path.name} do not run as written:\n" + "\n".join(problems)


def test_the_docs_have_examples_and_few_skips() -> None:
    runnable = skipped = 0
    for path in doc_files():
        for b in blocks(path):
            if b.lang in PYTHON + SHELL:
                runnable += b.skip is None
                skipped += b.skip is not None
                assert b.skip != "no reason given", f"{b.where}: say why the block cannot run"
    assert runnable >= 15, runnable
    assert skipped <= 16, f"{skipped} blocks are marked no-run: keep them few (docs/contributing.md)"


def test_the_quick_start_is_two_commands() -> None:
    readme = doc_files()[0]
    first = next(b for b in blocks(readme) if b.lang in SHELL)
    assert len(commands(first)) == 2, first.where


# ---- the runner itself: wrong examples are caught, at the right line ------------------------------
def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_wrong_doctest_output_names_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "# t\n\ntext\n\n```pycon\n>>> 1 + 1\n3\n\n```\n")
    [block] = blocks(path, "doc.md")
    assert block.line == 5 and block.lang == "pycon"
    why = run_python(block, {})
    assert why is not None and why.startswith("doc.md:5:") and 'File "doc.md", line 6' in why


def test_a_python_error_names_the_markdown_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "```python\nx = 1\ny = undefined_name\n```\n")
    why = run_python(blocks(path, "doc.md")[0], {})
    assert why == "doc.md:3: NameError: name 'undefined_name' is not defined"


def test_blocks_of_a_file_share_a_namespace_and_no_run_skips(tmp_path: Path) -> None:
    path = _write(tmp_path, "```python\nx = 41\n```\n\n<!-- no-run: needs a server -->\n\n```sh\nkomaken serve\n```\n"
                            "```pycon\n>>> x + 1\n42\n\n```\n")
    problems, ran, skipped = run_file(path, tmp_path)
    assert problems == [] and ran == 2 and skipped == 1
    assert blocks(path)[1].skip == "needs a server"


def test_shell_lines_and_their_comments(tmp_path: Path) -> None:
    path = _write(tmp_path, "```sh\necho 'a # b' \\\n  done   # 3 nodes\n# just a note\nfalse\n```\n")
    block = blocks(path, "doc.md")[0]
    assert commands(block) == [(2, "echo 'a # b'    done", "3 nodes"), (5, "false", "")]
    problems = run_shell(block, tmp_path)
    assert problems[0].startswith("doc.md:2: `echo 'a # b'    done` printed 'a # b done', which lacks 3")
    assert problems[1].startswith("doc.md:5: `false` exited with status 1")
    assert split_comment('komaken show --sfen "a#b"  # diagram') == ('komaken show --sfen "a#b"', "diagram")


def test_checked_comments() -> None:
    import subprocess

    def done(out: str, code: int = 0, err: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], code, out, err)

    assert check_output(done("719731 nodes\n"), "719731 nodes") is None
    assert check_output(done("719732 nodes\n"), "719731 nodes") is not None
    assert check_output(done('{"a": 1, "b": 2.5}'), '{"a": 1, "b": ...}') is None
    assert check_output(done('{"a": 2}'), '{"a": 1, ...}') is not None
    assert check_output(done("", 2, "komaken: error: bad\n"), "komaken: error: bad") is None
    assert check_output(done("", 0), "komaken: error: bad") is not None
    assert check_output(done("anything"), "seconds per move") is None  # words are notes, not output


def test_a_block_at_a_markdown_indent(tmp_path: Path) -> None:
    path = _write(tmp_path, "1. step\n\n   ```python\n   z = 2\n   ```\n")
    [block] = blocks(path, "doc.md")
    assert block.text == "z = 2\n" and run_python(block, {}) is None and isinstance(block, Block)


def test_doctest_blocks_share_the_namespace_too(tmp_path: Path) -> None:
    path = _write(tmp_path, "```pycon\n>>> y = 5\n\n```\n\n```pycon\n>>> y * 2\n10\n\n```\n")
    problems, ran, _ = run_file(path, tmp_path)
    assert problems == [] and ran == 2


def test_plain_komaken_lines_run_in_process_and_others_in_bash() -> None:
    assert plain_komaken('komaken show --sfen "rbsgk/4p/5/P4/KGSBR b - 1" --ascii') == [
        "show", "--sfen", "rbsgk/4p/5/P4/KGSBR b - 1", "--ascii"]
    for shell in ("komaken show --svg > board.svg", "komaken replay game.kif | less", "komaken variants && ls",
                  "komaken variants; ls", "X=1 komaken variants", "komaken show --sfen $S", "komaken convert *.csa",
                  "printf 'a\\n' > f", "echo komaken", "komaken show --sfen 'a < b'", "komaken 'unclosed"):
        assert plain_komaken(shell) is None, shell


def test_an_in_process_line_is_checked_like_a_process(tmp_path: Path) -> None:
    """The in-process run keeps the checks: exit status, numbers in the output, the error line."""
    path = _write(tmp_path, "```sh\nkomaken variants    # 5\nkomaken variants --bogus   # komaken: error: No such\n"
                            "komaken variants --bogus\nkomaken variants    # 9999999\n"
                            "komaken variants    # komaken: error: x\n```\n")
    problems = run_shell(blocks(path, "doc.md")[0], tmp_path)
    assert [p.split("`")[0] for p in problems] == ["doc.md:4: ", "doc.md:5: ", "doc.md:6: "], problems
    assert "exited with status 2: komaken: error: No such option" in problems[0]
    assert "lacks 9999999" in problems[1] and "should fail with 'komaken: error: x', got status 0" in problems[2]
