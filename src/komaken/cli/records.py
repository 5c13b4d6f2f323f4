"""``komaken convert`` and ``komaken replay``: game records on the command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from komaken.records import TARGETS, RecordError, csa, dumps, encode_text, read_all, save_bytes, target_of, usi
from komaken.shogi import load_variant
from komaken.shogi.notation import japanese_marked

if TYPE_CHECKING:
    from komaken.records import GameRecord

_TARGETS = ("kif", "kifu", "ki2", "ki2u", "csa", "usi")


def _load(path: str, variant: str | None, strict: bool = True) -> list[GameRecord]:
    return read_all(path, strict=strict, variant=load_variant(variant) if variant else None)


def _pick(games: list[GameRecord], game: int | None, path: str) -> GameRecord:
    if not games:
        raise RecordError(f"{Path(path).name} holds no game")
    if game is None:
        if len(games) > 1:
            raise RecordError(f"{Path(path).name} holds {len(games)} games: choose one with --game N")
        return games[0]
    if not 1 <= game <= len(games):
        raise RecordError(f"{Path(path).name} has no game {game} (it holds {len(games)})")
    return games[game - 1]


def _target(to: str | None, output: str | None) -> str:
    """What to write: ``-o``'s extension gives format and encoding (``--to`` must agree on the
    format); otherwise ``--to`` does."""
    named = target_of(output) if output else None
    if named and to and TARGETS[named][0] != TARGETS[to][0]:
        raise RecordError(f"--to {to} but {Path(output or '').name} is a {TARGETS[named][0]} file name")
    if named or to:
        return named or to  # type: ignore[return-value]
    raise RecordError("say the output format with --to kif|kifu|ki2|ki2u|csa|usi (or an -o file extension)")


def emit(text: str, target: str, output: str | None) -> None:
    """Record text to ``output`` (replaced whole, never half-written) or to stdout, as the bytes
    :func:`komaken.records.encode_text` gives for ``target``; its warning, if any, on stderr.
    Stdout on a terminal gets the text itself."""
    if output is None and sys.stdout.isatty():
        click.echo(text, nl=False)  # a terminal shows text in its own encoding: no program reads it as a file
        return
    encoded = encode_text(text, output if output and target_of(output) else target)
    if encoded.warning:
        click.echo(f"komaken: warning: {encoded.warning}", err=True)
    if output:
        save_bytes(output, encoded.data)
    else:
        click.echo(encoded.data, nl=False)  # bytes: straight to the binary stream under sys.stdout


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True, dir_okay=False))
@click.option("--to", "to", type=click.Choice(_TARGETS), default=None,
              help="Output format: kif/ki2 (Shift_JIS), kifu/ki2u (UTF-8), csa, usi (default: from -o's extension).")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="Output file; its extension gives format and encoding (.kif/.ki2: Shift_JIS when every "
                   "character fits; .kifu/.ki2u/.csa/.usi: UTF-8).  Stdout if omitted.")
@click.option("--game", type=int, default=None, help="Which game of a multi-game CSA/USI file (from 1).")
@click.option("--variant", "-v", default=None, metavar="NAME|FILE",
              help="Variant, when the record cannot say (default: from the board size).")
def convert(input_path: str, to: str | None, output: str | None, game: int | None, variant: str | None) -> None:
    """Convert a game record between KIF, KI2, CSA and USI.

    \b
    komaken convert game.csa --to kif > game.kif   # Shift_JIS, as .kif readers expect
    komaken convert game.csa -o game.kifu          # UTF-8
    komaken convert game.kif --to usi              # one line: startpos moves ...
    """
    target = _target(to, output)
    fmt = TARGETS[target][0]
    games = _load(input_path, variant)
    if game is None and len(games) > 1 and fmt in ("csa", "usi"):
        text = csa.dumps_all(games) if fmt == "csa" else usi.dumps_all(games)
    else:
        text = dumps(_pick(games, game, input_path), fmt)
    emit(text, target, output)


def _frame(record: GameRecord, ply: int) -> str:
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

