"""``komaken perft``: count the leaves of the legal move tree (the rules' spine test)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from komaken.cli._common import load, variant_option
from komaken.errors import KomakenError

GAMES = ("shogi", "reversi", "tictactoe")


def _positions(game: str, variant: str, sfen: str | None, sfen_file: str | None) -> Iterator[Any]:
    texts: list[str | None]
    if sfen_file:
        lines = Path(sfen_file).read_text(encoding="utf-8").splitlines()
        texts = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    else:
        texts = [sfen]
    if game == "shogi":
        from komaken.shogi import Position

        v = load(variant)
        for i, t in enumerate(texts, start=1):
            try:
                yield Position.from_sfen(t, v) if t else Position.start(v)
            except KomakenError as exc:
                where = f"{sfen_file}:{i}: " if sfen_file else ""
                raise type(exc)(f"{where}{exc}") from None
    else:
        if game == "reversi":
            from komaken.reversi import Reversi as G
        else:
            from komaken.tictactoe import TicTacToe as G  # type: ignore[assignment]
        for t in texts:
            yield G.from_text(t) if t else G.start()


def _text(pos: Any) -> str:
    return pos.sfen() if hasattr(pos, "sfen") else pos.to_text()


@click.command()
@click.option("--game", "-g", type=click.Choice(GAMES), default="shogi", show_default=True)
@variant_option()
@click.option("--sfen", "-s", default=None, help="Start from this position (SFEN, or board text for other games).")
@click.option("--sfen-file", type=click.Path(dir_okay=False), default=None, help="One position per line.")
@click.option("--depth", "-d", type=click.IntRange(0, 20), required=True)
@click.option("--divide", is_flag=True, help="Also print the count below each first move.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per position per line.")
def perft(game: str, variant: str, sfen: str | None, sfen_file: str | None, depth: int, divide: bool,
          as_json: bool) -> None:
    """Count the leaf nodes of the legal move tree DEPTH plies deep."""
    if sfen and sfen_file:
        raise click.UsageError("give --sfen or --sfen-file, not both")
    show_progress = not as_json and sys.stdout.isatty() and depth >= 4
    for pos in _positions(game, variant, sfen, sfen_file):
        text = _text(pos)
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
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

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


def register(main: click.Group) -> None:
    main.add_command(perft)
