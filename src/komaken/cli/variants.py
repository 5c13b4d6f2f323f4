"""``komaken variants``: the shipped variants, or one variant file resolved."""

from __future__ import annotations

import click

from komaken.shogi import _variant_files
from komaken.shogi.variant import load_variant, shipped_variants


@click.command()
@click.argument("variant", required=False, metavar="[NAME|FILE]")
def variants(variant: str | None) -> None:
    """List the shipped variants (id, board, other names, description); with a variant id or a
    TOML file, print that variant resolved (its `inherits` chain applied) as TOML."""
    if variant is not None:
        click.echo(load_variant(variant).to_toml(), nl=False)
        return
    others: dict[str, list[str]] = {}
    for alias, vid in _variant_files.aliases().items():
        others.setdefault(vid, []).append(alias)
    for vid, v in shipped_variants().items():
        names = f" [also {', '.join(others[vid])}]" if vid in others else ""
        click.echo(f"{vid:<10} {v.width}x{v.height}  {v.description}{names}")

