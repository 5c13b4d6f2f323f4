"""Run ``komaken experiment`` as a program (for subprocess tests): python tests/lab_cli.py run ..."""

from __future__ import annotations

import sys

import click

from komaken.cli import _Group
from komaken.cli.experiment import register


@click.group(cls=_Group)
def main() -> None:
    """Test entry point."""


register(main)

if __name__ == "__main__":  # spawned workers import this module; only the parent runs the CLI
    main(["experiment", *sys.argv[1:]])
