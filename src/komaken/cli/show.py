"""``komaken show``: print a position."""

from __future__ import annotations

import click

from komaken.cli._common import load, variant_option
from komaken.shogi import Position


@click.command()
@variant_option()
@click.option("--sfen", "-s", default=None, help="Position as SFEN (default: the variant's start).")
@click.option("--ascii", "as_ascii", is_flag=True, help="Plain ASCII instead of the Japanese diagram.")
@click.option("--svg", "as_svg", is_flag=True, help="SVG markup.")
def show(variant: str, sfen: str | None, as_ascii: bool, as_svg: bool) -> None:
    """Print the board of a position."""
    v = load(variant)
    pos = Position.from_sfen(sfen, v) if sfen else Position.start(v)
    if as_svg:
        click.echo(pos._repr_svg_())
    else:
        click.echo(pos.ascii() if as_ascii else str(pos))
        click.echo(f"sfen {pos.sfen()}")

