"""``komaken usi``: run as a USI engine on stdin/stdout (for shogi GUIs and referees)."""

from __future__ import annotations

import os
import sys

import click

from komaken.cli._common import load, variant_option
from komaken.usi.server import run


@click.command()
@variant_option()
def usi(variant: str) -> None:
    """Speak USI on stdin/stdout until 'quit' (UCI_Variant picks the variant, as in Fairy-Stockfish)."""
    if not run(load(variant).name if not variant.endswith(".toml") else variant):
        # a search that did not answer within the grace after quit: end now rather than wait for it
        sys.stdout.flush()
        os._exit(0)

