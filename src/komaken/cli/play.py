"""``komaken play``: a game at the terminal between any two players.

Player specs (see ``docs/architecture.md`` and :mod:`komaken.players.registry`): ``human``,
``random[:seed=N]``, and each game's own — for shogi ``engine`` (``engine:movetime=1`` seconds,
``engine:depth=6``, ``engine:nodes=100000,seed=3,king_safety=0``), ``thesis``
(``thesis:depth=4,seed=1,hand_quirk=1``), ``usi:/path/to/engine [args]``; for reversi
``engine[:depth=D,empties=E,movetime=S]``; for tic-tac-toe ``perfect``.

The engine's report after its move (:func:`score_text`) gives the score from the human's view
(sente's when no human or two play): centipawns or a mate distance, and a win percentage from
the logistic ``1 / (1 + exp(-cp / 600))`` (:func:`win_rate`, the mapping shogi programs commonly
use); then the depth and the principal variation in the game's words.

``--time 600 --byoyomi 30`` (or ``--increment 5``) puts both sides on a clock (seconds): each
move's line shows both clocks, the prompt the time left, and a side whose time runs out loses
(切れ負け, CSA ``%TIME_UP``); the engine plans each move from its remaining time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from komaken.analysis import line_words, win_rate
from komaken.cli._common import VARIANT_HELP, within
from komaken.cli.play_record import Recorder
from komaken.clock import MAX_SECONDS, Clock, ClockError, TimeControl, display
from komaken.game import Color, Game, Termination
from komaken.games import GameSpec, find_game, game_names
from komaken.match import GameResult, Observer, play_game
from komaken.players.base import Player
from komaken.players.engine import EnginePlayer
from komaken.players.human import HumanPlayer
from komaken.players.registry import make_player
from komaken.search.result import SearchResult


def score_text(result: SearchResult[Any], mover: Color, view: Color, who: str, cp_units: bool) -> str:
    """The score of ``result`` (searched by ``mover``) as ``view`` sees it.

    >>> r = SearchResult("5d5c", -150, depth=7)
    >>> score_text(r, Color.WHITE, Color.BLACK, "you", True)
    'score +150 cp for you (win 56%)'
    >>> score_text(SearchResult("G*1b", 30000, mate=1), Color.WHITE, Color.BLACK, "you", True)
    'score mate -1 for you: you are mated in 1 (win 0%)'
    """
    sign = 1 if mover == view else -1
    if result.mate is not None:
        plies = sign * result.mate
        fate = f"you mate in {plies}" if plies > 0 else f"you are mated in {-plies}"
        fate = fate if who == "you" else f"{who} {'mates in' if plies > 0 else 'is mated in'} {abs(plies)}"
        return f"score mate {plies:+d} for {who}: {fate} (win {100 if plies > 0 else 0}%)"
    value = sign * result.score
    if result.exact:
        rate = 100 if value > 0 else 0 if value < 0 else 50
        return f"score {value:+g} (exact: the final margin) for {who} (win {rate}%)"
    if cp_units:
        return f"score {value:+g} cp for {who} (win {win_rate(value):.0%})"
    return f"score {value:+g} (evaluation units) for {who}"


class PrintObserver(Observer):
    """Prints the board, each move in the game's notation, the engine's thinking and the end.

    ``humans`` are the colours a person plays: the board is then drawn only when one of them is
    to move (once per move pair), and scores are given from their side.  ``compact`` draws no
    board while playing (``b`` at the prompt shows it) — for 9×9 at a small terminal.
    """

    def __init__(self, game: GameSpec, echo: Callable[[str], Any] = click.echo, show: bool = True,
                 humans: Sequence[Color] = (), compact: bool = False, recorder: Recorder | None = None,
                 clock: Clock | None = None) -> None:
        self.game, self.echo, self.show = game, echo, show
        self.humans, self.compact, self.recorder = tuple(humans), compact, recorder
        self.clock = clock

    def start(self, position: Game[Any]) -> None:
        if self.recorder is not None:
            self.recorder.position = position
        if self.show:
            self.echo(str(position))

    def thinking(self, position: Game[Any], player: Player) -> None:
        if not isinstance(player, HumanPlayer) and self.humans:
            self.echo(f"{self.side(position.turn)}: {player.name} thinking…")

    def move(self, position: Game[Any], move: Any, player: Player, seconds: float) -> None:
        self.echo(f"{position.ply + 1}. {self.game.describe(position, move)}  [{player.name}, {seconds:.1f} s]")
        last = getattr(player, "last", None)
        if isinstance(last, SearchResult) and last.move == move and not isinstance(player, HumanPlayer):
            self.echo("   " + self.report(position, last, player))
        if self.recorder is not None:
            self.recorder.times.append(seconds)

    def report(self, position: Game[Any], result: SearchResult[Any], player: Player) -> str:
        """``score +35 cp for you (win 51%) · depth 8 · PV △同　飛 ▲４四角``."""
        view = self.humans[0] if len(self.humans) == 1 else Color.BLACK
        who = "you" if len(self.humans) == 1 else self.side(view)

        parts = [score_text(result, position.turn, view, who, isinstance(player, EnginePlayer))]
        if result.depth:
            parts.append(f"depth {result.depth}")
        if result.pv:
            parts.append("PV " + self.line(position, result.pv))
        return " · ".join(parts)

    def line(self, position: Game[Any], pv: Sequence[Any]) -> str:
        """The moves of ``pv`` in the game's words (``▲５三歩 △同　飛``), as far as they are legal."""
        return " ".join(line_words(self.game, position, pv, 12))

    def clocks(self) -> str:
        """``clock ▲ 9:58 · △ 10:00 +30s``: both sides' main time left (and their byoyomi)."""
        assert self.clock is not None
        parts = []
        for color, c in zip((Color.BLACK, Color.WHITE), self.clock.to_json(), strict=True):
            if c is not None:
                byo = f" +{c['control']['byoyomi']:g}s" if c["control"]["byoyomi"] else ""
                parts.append(f"{self.side(color)} {display(c['main'])}{byo}")
        return "clock " + " · ".join(parts)

    def played(self, position: Game[Any]) -> None:
        if self.clock is not None:
            self.echo("   " + self.clocks())
        if not self.show or self.compact:
            return
        if self.humans and position.turn not in self.humans and position.outcome() is None:
            return  # the reply comes next: draw the board once per move pair
        self.echo(str(position))

    def undo(self, position: Game[Any], plies: int) -> None:
        self.echo(f"took back {plies} move(s)")
        if self.recorder is not None:
            del self.recorder.times[len(self.recorder.times) - plies:]
        if self.show:
            self.echo(str(position))

    def end(self, position: Game[Any], result: GameResult) -> None:
        if self.compact and self.show:
            self.echo(str(position))
        if result.detail:
            self.echo(result.detail)
        self.echo(end_line(self.game, position, result))

    def side(self, color: Color) -> str:
        return self.game.side_names[int(color)]


def end_line(game: GameSpec, position: Game[Any], result: GameResult) -> str:
    """``投了 (resignation): gote (△) wins after 2 moves`` in shogi, ``checkmate: white wins after 4 moves``
    in chess — each game names the end in its own words (:attr:`GameSpec.termination_text`)."""
    t = result.termination
    who = "no result" if t is Termination.ABORTED and result.winner is None else game.winner_text(result.winner)
    return f"{game.termination_text(t)}: {who} after {position.ply} moves"


def _finish(recorder: Recorder, spec: GameSpec, position: Game[Any], result: GameResult) -> None:
    """Save at the end: to ``-o``, to an earlier ``save``'s file, or — a game stopped with
    ``quit`` or Ctrl-D with moves on the board — to a new file, so quitting never loses a game."""
    stopped = isinstance(result.detail, str) and result.detail.startswith(("quit", "input closed"))
    if recorder.path is None and not (stopped and position.ply):
        return
    try:
        click.echo(recorder.save(outcome=result.outcome, result=end_line(spec, position, result)))
    except (OSError, ValueError) as exc:
        click.echo(f"komaken: error: could not save the game: {exc}", err=True)


#: the clock options of a side: the option's suffix (``--sente-byoyomi``), as the shared ones are named
_CLOCK_OPTIONS = ("time", "byoyomi", "increment")


def _side_clock_options(f: Callable[..., None]) -> Callable[..., None]:
    """``--sente-time``/``--black-time`` … ``--gote-increment``/``--white-increment``: one side's
    clock, option by option in place of the shared ``--time``/``--byoyomi``/``--increment``."""
    for side, alias in (("gote", "white"), ("sente", "black")):
        for suffix in reversed(_CLOCK_OPTIONS):
            f = click.option(f"--{side}-{suffix}", f"--{alias}-{suffix}", f"{side}_{suffix}",
                             type=within((0.0, MAX_SECONDS)), default=None, metavar="SECONDS",
                             help=f"{side.capitalize()}'s ({alias}'s) --{suffix}, in place of the shared one.")(f)
    return f


def _side_control(side: str, shared: tuple[float | None, float | None, float | None],
                  sides: dict[str, float | None]) -> TimeControl | None:
    """``side``'s clock: its own options where given, else the shared ones (``None``: no clock)."""
    own = [sides.get(f"{side}_{suffix}") for suffix in _CLOCK_OPTIONS]
    main, byoyomi, increment = (mine if mine is not None else both for mine, both in zip(own, shared, strict=True))
    if main is None and byoyomi is None and increment is None:
        return None
    try:
        return TimeControl(main or 0.0, byoyomi=byoyomi or 0.0, increment=increment or 0.0)
    except ClockError as exc:
        names = "/".join(f"--{side}-{suffix}" if mine is not None else f"--{suffix}"
                         for suffix, mine in zip(_CLOCK_OPTIONS, own, strict=True))
        raise click.UsageError(str(exc).replace("clock: ", names + ": ")) from None


@click.command()
@click.option("--game", "-g", type=click.Choice(game_names()), default="shogi", show_default=True)
@click.option("--variant", "-v", default=None, metavar="NAME|FILE",
              help="For games with variants: " + VARIANT_HELP)
@click.option("--sente", "--black", "sente", default=None,
              help="Black's (sente's) spec (default: human if black moves first, else the game's engine).")
@click.option("--gote", "--white", "gote", default=None,
              help="White's (gote's) spec (default: the game's engine, e.g. engine:movetime=1; human in chess).")
@click.option("--position", "--sfen", "-s", "text", default=None,
              help="Start from this position (SFEN for shogi, the game's board text otherwise).")
@click.option("--record", "-o", "record", default=None, metavar="FILE",
              help="Save the game here after every move; the extension picks the format (.kif .kifu .ki2 .csa "
                   ".usi for shogi, .pgn .uci for chess, .txt: a move list for any game).")
@click.option("--compact", "-c", is_flag=True, help="Print moves only, no board (type b at the prompt to see it).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the board after each move.")
@click.option("--time", "main_time", type=within((0.0, MAX_SECONDS)), default=None, metavar="SECONDS",
              help="A clock for both sides: this much main time (0 with --byoyomi: byoyomi from the first move).")
@click.option("--byoyomi", type=within((0.0, MAX_SECONDS)), default=None, metavar="SECONDS",
              help="Seconds for every move once the main time is spent (秒読み).")
@click.option("--increment", type=within((0.0, MAX_SECONDS)), default=None, metavar="SECONDS",
              help="Seconds added after each move (Fischer); not with --byoyomi.")
@_side_clock_options
def play(game: str, variant: str | None, sente: str, gote: str | None, text: str | None, record: str | None,
         compact: bool, quiet: bool, main_time: float | None, byoyomi: float | None, increment: float | None,
         **sides: float | None) -> None:
    """Play a game: human, engine, thesis replica, USI engine.

    At the prompt: a move, p (legal moves), b (board), undo, save [FILE], quit (or Ctrl-D: the
    game stops unfinished and is saved), resign, help.  With --time (and --byoyomi or
    --increment) a side whose time runs out loses; --sente-time, --gote-byoyomi, … (or
    --black-…/--white-…) set one side's clock apart (the rest of it from --time/--byoyomi/--increment).
    """
    shared = (main_time, byoyomi, increment)
    controls = (_side_control("sente", shared, sides), _side_control("gote", shared, sides))
    spec = find_game(game)
    v = spec.variant(variant)
    pos = spec.position(text, v)
    players = [make_player(s, spec, v) for s in _sides(spec, sente, gote)]
    recorder = Recorder(spec, [p.name for p in players], record)
    humans = []
    for color, p in zip((Color.BLACK, Color.WHITE), players, strict=True):
        if isinstance(p, HumanPlayer):
            p.save, p.name = recorder.save, f"{spec.side_names[color]} {p.name}"
            humans.append(color)
    clock = None
    if controls != (None, None):
        clock = Clock(controls)
        recorder.time_controls = controls
        if controls[0] == controls[1]:
            click.echo(f"clock: {controls[0].text()} each")  # type: ignore[union-attr]
        else:
            click.echo("clock: " + " · ".join(f"{spec.side_names[c]} {tc.text() if tc else 'no clock'}"
                                              for c, tc in zip((Color.BLACK, Color.WHITE), controls, strict=True)))
    observer = _Saving(spec, show=not quiet, humans=humans, compact=compact, recorder=recorder, clock=clock)
    try:
        result = play_game(pos, players, observer, game=spec, clock=clock)
        _finish(recorder, spec, pos, result)
    finally:
        for p in players:
            p.close()


def _sides(spec: GameSpec, black: str | None, white: str | None) -> tuple[str, str]:
    """Black's and white's specs: a side not given is the human if it moves first, else the
    game's default opponent."""
    default = {spec.first: "human", spec.first.other: spec.default_opponent}
    return black or default[Color.BLACK], white or default[Color.WHITE]


class _Saving(PrintObserver):
    """:class:`PrintObserver` that also rewrites the ``-o`` file after every move."""

    def played(self, position: Game[Any]) -> None:
        super().played(position)
        if self.recorder is not None and self.recorder.path is not None and position.outcome() is None:
            self.recorder.save()

