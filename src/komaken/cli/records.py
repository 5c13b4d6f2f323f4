"""``komaken convert`` and ``komaken replay``: game records on the command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from komaken.records import GameRecord

_FORMATS = ("kif", "ki2", "csa", "usi")


def _load(path: str, variant: str | None, strict: bool = True) -> list[GameRecord]:
    from komaken.records import read_all
    from komaken.shogi import load_variant

    return read_all(path, strict=strict, variant=load_variant(variant) if variant else None)


def _pick(games: list[GameRecord], game: int | None, path: str) -> GameRecord:
    from komaken.records import RecordError

    if not games:
        raise RecordError(f"{Path(path).name} holds no game")
    if game is None:
        if len(games) > 1:
            raise RecordError(f"{Path(path).name} holds {len(games)} games: choose one with --game N")
        return games[0]
    if not 1 <= game <= len(games):
        raise RecordError(f"{Path(path).name} has no game {game} (it holds {len(games)})")
    return games[game - 1]


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True, dir_okay=False))
@click.option("--to", "to", type=click.Choice(_FORMATS), default=None,
              help="Output format (default: from -o's extension).")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="Output file (.kif/.ki2: Shift_JIS when every character fits, else UTF-8 with an "
                   "encoding line; .kifu/.ki2u/.csa/.usi: UTF-8); stdout (UTF-8) if omitted.")
@click.option("--game", type=int, default=None, help="Which game of a multi-game CSA/USI file (from 1).")
@click.option("--variant", "-v", default=None, metavar="NAME|FILE",
              help="Variant, when the record cannot say (default: from the board size).")
def convert(input_path: str, to: str | None, output: str | None, game: int | None, variant: str | None) -> None:
    """Convert a game record between KIF, KI2, CSA and USI.

    \b
    komaken convert game.kif --to csa
    komaken convert game.csa -o game.kifu
    komaken convert game.kif --to usi      # one line: startpos moves ...
    """
    from komaken.records import RecordError, csa, dumps, format_of, usi, write

    fmt = to or (format_of(output) if output else None)
    if fmt is None:
        raise RecordError("say the output format with --to kif|ki2|csa|usi (or an -o file extension)")
    games = _load(input_path, variant)
    if game is None and len(games) > 1 and fmt in ("csa", "usi"):
        text = csa.dumps_all(games) if fmt == "csa" else usi.dumps_all(games)
        if output:
            Path(output).write_text(text, encoding="utf-8")
        else:
            click.echo(text, nl=False)
        return
    record = _pick(games, game, input_path)
    if output:
        write(record, output, fmt)  # type: ignore[arg-type]
    else:
        click.echo(dumps(record, fmt), nl=False)  # type: ignore[arg-type]


def _frame(record: GameRecord, ply: int) -> str:
    from komaken.shogi.notation import japanese_marked

    pos = record.position(ply)
    total = len(record.moves)
    if ply == 0:
        head = f"開始局面 (0/{total})"
    else:
        pos.pop()
        head = f"{ply}手目 {japanese_marked(pos, record.moves[ply - 1])} ({ply}/{total})"
        pos.push(record.moves[ply - 1])
    lines = [head, str(pos)]
    comment = record.comments[ply - 1] if ply else record.comment
    if comment:
        lines.append("* " + comment.replace("\n", "\n* "))
    if ply == total and record.result is not None:
        r = record.result
        who = {None: "", 0: "先手の勝ち ", 1: "後手の勝ち "}[None if r.winner is None else int(r.winner)]
        lines.append(f"{who}({r.termination.japanese})")
    return "\n".join(lines)


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True, dir_okay=False))
@click.option("--game", type=int, default=None, help="Which game of a multi-game CSA/USI file (from 1).")
@click.option("--variant", "-v", default=None, metavar="NAME|FILE",
              help="Variant, when the record cannot say (default: from the board size).")
def replay(input_path: str, game: int | None, variant: str | None) -> None:
    """Step through a game record on the board.

    Enter: next move, b: back, a number: jump to that move, q: quit.  When stdin is not a
    terminal every position is printed in turn.
    """
    record = _pick(_load(input_path, variant), game, input_path)
    total = len(record.moves)
    if not sys.stdin.isatty():
        for ply in range(total + 1):
            click.echo(_frame(record, ply))
            click.echo()
        return
    ply = 0
    while True:
        click.echo(_frame(record, ply))
        answer = click.prompt("[Enter] next, b back, number jump, q quit", default="", show_default=False)
        answer = answer.strip().lower()
        if answer == "q":
            return
        if answer == "b":
            ply = max(0, ply - 1)
        elif answer.isdigit():
            ply = min(total, int(answer))
        elif answer == "":
            if ply == total:
                return
            ply += 1
        else:
            click.echo("?  Enter, b, q or a move number")


def register(main: click.Group) -> None:
    main.add_command(convert)
    main.add_command(replay)
