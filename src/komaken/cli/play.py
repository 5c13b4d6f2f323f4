"""``komaken play``: a game at the terminal between any two players.

Player specs (see ``docs/architecture.md`` and :mod:`komaken.players.registry`): ``human``,
``random[:seed=N]``, and each game's own — for shogi ``engine`` (``engine:movetime=1`` seconds,
``engine:depth=6``, ``engine:nodes=100000,seed=3,king_safety=0``), ``thesis``
(``thesis:depth=4,seed=1,hand_quirk=1``), ``usi:/path/to/engine [args]``; for reversi
``engine[:depth=D,empties=E,movetime=S]``; for tic-tac-toe ``perfect``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from komaken.game import Color, Game, Outcome
from komaken.games import GameSpec, find_game, game_names
from komaken.match import GameResult, Observer
from komaken.match import play_game as _play_game
from komaken.players.base import Player


class PrintObserver(Observer):
    """Prints the board after each move, each move in the game's notation, and the end."""

    def __init__(self, game: GameSpec, echo: Callable[[str], Any] = click.echo, show: bool = True) -> None:
        self.game, self.echo, self.show = game, echo, show

    def start(self, position: Game[Any]) -> None:
        if self.show:
            self.echo(str(position))

    def move(self, position: Game[Any], move: Any, player: Player, seconds: float) -> None:
        self.echo(f"{position.ply + 1}. {self.game.describe(position, move)}  [{player.name}]")

    def played(self, position: Game[Any]) -> None:
        if self.show:
            self.echo(str(position))

    def undo(self, position: Game[Any], plies: int) -> None:
        self.echo(f"took back {plies} move(s)")
        if self.show:
            self.echo(str(position))

    def end(self, position: Game[Any], result: GameResult) -> None:
        if result.detail:
            self.echo(result.detail)
        t = result.termination
        self.echo(f"{t.japanese} ({t.value}): {self.game.winner_text(result.winner)} after {position.ply} moves")


def make_player(spec: str, game: GameSpec, variant: Any = None) -> Player:
    """A player from a command-line spec such as ``engine:movetime=1``."""
    from komaken.players.registry import PlayerSpec

    return PlayerSpec.parse(spec, game, variant).build(game, variant)


def make_shogi_player(spec: str, variant: Any) -> Player:
    """A shogi player from a spec (kept for existing code: :func:`make_player` with shogi)."""
    return make_player(spec, find_game("shogi"), variant)


def play_game(pos: Game[Any], players: list[Player], echo: Callable[[str], Any] = click.echo,
              show: bool = True) -> Outcome:
    """Play to the end at the terminal; returns the outcome."""
    from komaken.games import game_of

    game = game_of(pos)
    result = _play_game(pos, players, PrintObserver(game, echo, show), move_text=game.move_text,
                        can_declare=game.can_declare)
    return result.outcome


@click.command()
@click.option("--game", "-g", type=click.Choice(game_names()), default="shogi", show_default=True)
@click.option("--variant", "-v", default=None, metavar="NAME|FILE",
              help="For games with variants: shogi, minishogi, judkins, or a variant TOML file.")
@click.option("--sente", "--black", "sente", default=None,
              help="Black's (sente's) spec (default: human if black moves first, else the game's engine).")
@click.option("--gote", "--white", "gote", default=None,
              help="White's (gote's) spec (default: the game's engine, e.g. engine:movetime=1; human in chess).")
@click.option("--position", "--sfen", "-s", "text", default=None,
              help="Start from this position (SFEN for shogi, the game's board text otherwise).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the board after each move.")
def play(game: str, variant: str | None, sente: str, gote: str | None, text: str | None, quiet: bool) -> None:
    """Play a game: human, engine, thesis replica, USI engine (type p for moves, undo, resign)."""
    spec = find_game(game)
    v = spec.variant(variant)
    pos = spec.position(text, v)
    players = [make_player(s, spec, v) for s in _sides(spec, sente, gote)]
    try:
        _play_game(pos, players, PrintObserver(spec, show=not quiet), move_text=spec.move_text,
                   can_declare=spec.can_declare)
    finally:
        for p in players:
            p.close()


def _sides(spec: GameSpec, black: str | None, white: str | None) -> tuple[str, str]:
    """Black's and white's specs: a side not given is the human if it moves first, else the
    game's default opponent."""
    default = {spec.first: "human", spec.first.other: spec.default_opponent}
    return black or default[Color.BLACK], white or default[Color.WHITE]


def register(main: click.Group) -> None:
    main.add_command(play)
