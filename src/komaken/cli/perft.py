"""``komaken perft``: count the leaves of the legal move tree (the rules' spine test)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

from komaken.cli._common import VARIANT_HELP
from komaken.errors import KomakenError
from komaken.games import GameSpec, find_game, game_names


def _positions(game: GameSpec, variant: str | None, text: str | None, text_file: str | None) -> Iterator[Any]:
    texts: list[str | None]
    if text_file:
        try:
            lines = Path(text_file).read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as exc:
            raise KomakenError(f"{text_file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        texts = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    else:
        texts = [text]
    v = game.variant(variant)
    for i, t in enumerate(texts, start=1):
        try:
            yield game.position(t, v)
        except KomakenError as exc:
            where = f"{text_file}:{i}: " if text_file else ""
            raise type(exc)(f"{where}{exc}") from None


@click.command()
@click.option("--game", "-g", type=click.Choice(game_names()), default="shogi", show_default=True)
@click.option("--variant", "-v", default=None, metavar="NAME|FILE",
              help="For games with variants: " + VARIANT_HELP)
@click.option("--position", "--sfen", "-s", "sfen", default=None,
              help="Start from this position (SFEN for shogi, the game's board text otherwise).")
@click.option("--position-file", "--sfen-file", "sfen_file", type=click.Path(dir_okay=False), default=None,
              help="One position per line.")
@click.option("--depth", "-d", type=click.IntRange(0, 20), required=True)
@click.option("--divide", is_flag=True, help="Also print the count below each first move.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per position per line.")
def perft(game: str, variant: str | None, sfen: str | None, sfen_file: str | None, depth: int, divide: bool,
          as_json: bool) -> None:
    """Count the leaf nodes of the legal move tree DEPTH plies deep."""
    if sfen and sfen_file:
        raise click.UsageError("give --sfen or --sfen-file, not both")
    show_progress = not as_json and sys.stdout.isatty() and depth >= 4
    spec = find_game(game)
    for pos in _positions(spec, variant, sfen, sfen_file):
        text = spec.to_text(pos)
        pos.copy().perft(min(depth, 1))  # load the compiled kernels before the clock starts
        t0 = time.perf_counter()
        split: dict[str, int] = {}
        if divide or show_progress:
            split = _split(pos, depth, show_progress)
            nodes = sum(split.values()) if depth > 0 else 1
        else:
            nodes = pos.perft(depth)
        seconds = time.perf_counter() - t0
        if as_json:
            record: dict[str, Any] = {"sfen": text, "depth": depth, "nodes": nodes, "seconds": round(seconds, 6)}
            if divide:
                record["divide"] = split
            click.echo(json.dumps(record, ensure_ascii=False))
            continue
        if divide:
            for move, n in split.items():
                click.echo(f"{move}: {n}")
        rate = f", {nodes / seconds:,.0f} leaves/s" if seconds > 0 else ""
        click.echo(f"{text}  depth {depth}: {nodes} nodes in {seconds:.3f} s{rate}")


def _split(pos: Any, depth: int, progress: bool) -> dict[str, int]:
    if depth == 0:
        return {}
    moves = pos.legal_moves()
    out: dict[str, int] = {}
    if progress:
        columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TimeRemainingColumn())
        with Progress(*columns, transient=True) as bar:
            task = bar.add_task(f"perft {depth}", total=len(moves))
            for m in moves:
                out[str(m)] = _child(pos, m, depth)
                bar.advance(task)
        return out
    for m in moves:
        out[str(m)] = _child(pos, m, depth)
    return out


def _child(pos: Any, move: Any, depth: int) -> int:
    pos.push(move)
    try:
        return pos.perft(depth - 1)
    finally:
        pos.pop()

