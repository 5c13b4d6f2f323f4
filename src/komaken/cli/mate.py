"""``komaken mate``: solve a tsume (the side to move checks on every move) with df-pn.

The answer is printed in USI and, on a second line, in Japanese (``3手詰: ▲２二金打 △同　玉 ▲…``);
``--json`` carries both (``pv`` and ``pv_japanese``).
"""

from __future__ import annotations

import json

import click

from komaken.cli._common import load, variant_option
from komaken.shogi import Position
from komaken.shogi.engine.mate import solve


@click.command()
@variant_option()
@click.option("--sfen", "-s", required=True, help="The problem position (the attacker to move).")
@click.option("--max-plies", type=click.IntRange(1, 99), default=31, show_default=True)
@click.option("--nodes", type=click.IntRange(1), default=5_000_000, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def mate(variant: str, sfen: str, max_plies: int, nodes: int, as_json: bool) -> None:
    """Find the shortest mate by checks (詰将棋) of the position."""
    pos = Position.from_sfen(sfen, load(variant))
    r = solve(pos, max_plies=max_plies, nodes=nodes)
    pv = [m.usi() for m in r.pv]
    japanese = pos.variation_japanese(r.pv) if r.pv else ""
    if as_json:
        click.echo(json.dumps({"status": r.status, "plies": r.plies, "pv": pv, "pv_japanese": japanese,
                               "nodes": r.nodes, "seconds": round(r.seconds, 4)}, ensure_ascii=False))
    elif r.status == "mate":
        click.echo(f"mate in {r.plies}: {' '.join(pv)}  ({r.nodes} nodes, {r.seconds:.2f} s)")
        click.echo(f"{r.plies}手詰: {japanese}")
    elif r.status == "nomate":
        click.echo(f"no mate within {max_plies} plies ({r.nodes} nodes)")
    else:
        click.echo(f"unknown: node limit {nodes} reached")

