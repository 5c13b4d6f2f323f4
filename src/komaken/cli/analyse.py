"""``komaken analyse``: a game record searched position by position, as ShogiHome's 棋譜解析 does.

Prints one row per move — the move, the score and black's win % after it, the engine's best move
in the position before it and the mark the move earned (``?!`` inaccuracy, ``?`` mistake, ``??``
blunder: the mover's win % fell by 5, 10 or 15 points; :mod:`komaken.analysis`) — and, with
``-o``, writes the record with the analysis as ShogiHome's engine comments (``*#評価値=…``).
A progress bar runs on stderr while it works (on a terminal).
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from komaken.analysis import (
    MULTIPV_RANGE,
    SECONDS_RANGE,
    AnalysisError,
    GameAnalysis,
    PlyAnalysis,
    annotated,
    game_moves,
    summary,
)
from komaken.cli._common import VARIANT_HELP, within
from komaken.games import find_game, game_names
from komaken.records import decode, encode_text, save_bytes, target_of

#: the marks as annotators write them after a move
SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


@click.command()
@click.argument("record", type=click.Path(dir_okay=False))
@click.option("--game", "-g", type=click.Choice(game_names()), default="shogi", show_default=True)
@click.option("--variant", "-v", default=None, metavar="NAME|FILE",
              help="For games with variants (default: what the record says): " + VARIANT_HELP)
@click.option("--time", "-t", "seconds", type=within(SECONDS_RANGE), default=1.0, show_default=True,
              help="Seconds of search per position.")
@click.option("--multipv", "-m", type=within(MULTIPV_RANGE), default=1, show_default=True,
              help="How many best lines to find in each position.")
@click.option("--output", "-o", default=None, metavar="FILE",
              help="Write the record with the analysis as engine comments (shogi: .kif .kifu .ki2 .ki2u .csa, "
                   "as ShogiHome writes them; chess: .pgn with lichess's [%eval] comments).")
def analyse(record: str, game: str, variant: str | None, seconds: float, multipv: int, output: str | None) -> None:
    """Analyse a game record with the engine: score, best move and marks for every move."""
    spec = find_game(game)
    if spec.analyser is None:
        raise AnalysisError(f"{spec.name} has no engine to analyse with")
    fmt = None
    if output is not None:
        target = target_of(output) or Path(output).suffix.lower().lstrip(".")
        fmt = {"kifu": "kif", "ki2u": "ki2"}.get(target, target)
        io = spec.record_io
        formats = io.comment_formats if io is not None and io.write_comments is not None else ()
        if fmt is None or fmt not in formats:
            known = f"as {', '.join('.' + f for f in formats)}" if formats else "in no format (no comments)"
            raise AnalysisError(f"-o {Path(output).name}: {spec.name} writes an annotated record {known}")
    text = decode(Path(record).read_bytes(), record)
    try:
        end, names = spec.read_game(text, spec.variant(variant) if variant and spec.has_variants else None)
    except AnalysisError:
        raise
    except ValueError as exc:
        raise AnalysisError(f"{Path(record).name}: {exc}") from None
    start, moves = game_moves(end)
    analysis = GameAnalysis(spec, start, moves, seconds=seconds, multipv=multipv)
    console = Console(stderr=True)
    bar = Progress(TextColumn("analysing"), BarColumn(), MofNCompleteColumn(), TextColumn("positions"),
                   TimeRemainingColumn(), console=console, transient=True, disable=not console.is_terminal)
    rows: list[PlyAnalysis] = []
    with bar:
        task = bar.add_task("analyse", total=analysis.total)
        for item in analysis:
            rows.append(item)
            bar.advance(task)
    click.echo(table(rows))
    counts = summary(rows)
    for side, name in zip(("black", "white"), spec.side_names, strict=True):
        marks = counts[side]
        click.echo(f"{name}: " + ", ".join(f"{marks.get(m, 0)} {PLURALS[m] if marks.get(m, 0) != 1 else m}"
                                           for m in SYMBOLS))
    if output is not None and fmt is not None:
        doc = annotated(spec, analysis, fmt, names, engine="komaken", original=text)
        encoded = encode_text(doc, output)
        if encoded.warning:
            click.echo(f"komaken: warning: {encoded.warning}", err=True)
        save_bytes(output, encoded.data)
        click.echo(f"wrote {output}")


def table(rows: list[PlyAnalysis]) -> str:
    """``ply  move  score  win%  best  mark``: one row per position after a move (ply 0 is the
    start's own row); scores and win % from black's view, best is the engine's choice in the
    position before the move."""
    head = f"{'ply':>4}  {'move':<12} {'score':>9} {'win%':>6}  {'best':<12} mark"
    out = [head]
    for k, item in enumerate(rows):
        best = rows[k - 1].best_words if k else ""
        mark = f"{SYMBOLS[item.mark]} {item.mark}" if item.mark else ""
        out.append(f"{item.ply:>4}  {_pad(item.move_words or '(start)', 12)} {item.score_text():>9} "
                   f"{item.win:>6.1f}  {_pad(best or '', 12)} {mark}".rstrip())
    return "\n".join(out)


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns (a full-width character takes two)."""
    wide = sum(1 for c in text if ord(c) > 0x2E7F)
    return text + " " * max(0, width - len(text) - wide)
