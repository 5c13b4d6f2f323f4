"""The game registry: every game komaken plays, found by name.

A game package describes itself with one :class:`GameSpec` named ``GAME`` in its ``game``
module (the rules below it never import players or records: the description does);
:data:`BUILTIN` maps each built-in game's name to its package, and any other distribution can
add games through the ``komaken.games`` entry-point group::

    [project.entry-points."komaken.games"]
    xiangqi = "komaken_xiangqi:GAME"

Callers (the CLI, the lab, the players) never test a game's name: they ask its spec.

>>> shogi = find_game("shogi")
>>> shogi.to_text(shogi.start("minishogi"))
'rbsgk/4p/5/P4/KGSBR b - 1'
>>> {"reversi", "shogi", "tictactoe"} <= set(game_names())
True
>>> find_game("go")
Traceback (most recent call last):
...
komaken.errors.KomakenError: unknown game 'go' (known: ...reversi, shogi, tictactoe...)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Protocol

from komaken.clock import TimeControl
from komaken.errors import IllegalMoveError, KomakenError
from komaken.game import Color, Game, Outcome, Termination
from komaken.presentation import Presentation

if TYPE_CHECKING:
    from komaken.players.registry import PlayerType
    from komaken.search.result import SearchResult

Names = tuple[str | None, str | None]

#: Built-in games: name → the package whose ``game`` module's ``GAME`` describes it.  Adding a game
#: is one line here.
BUILTIN: dict[str, str] = {
    "shogi": "komaken.shogi",
    "reversi": "komaken.reversi",
    "tictactoe": "komaken.tictactoe",
    "chess": "komaken.chess",
}

ENTRY_POINT_GROUP = "komaken.games"


def _str(move: Any) -> str:
    return str(move)


def _parse_by_text(position: Game[Any], text: str) -> Any:
    """The legal move whose ``str()`` is ``text`` (case-insensitive): the default parser."""
    wanted = text.strip().lower()
    for move in position.legal_moves():
        if str(move).lower() == wanted:
            return move
    raise IllegalMoveError(f"{text.strip()!r} is not a legal move here (type p for the list)")


def checked_move(position: Game[Any], move: Any) -> Any:
    """``move`` if it is legal in ``position``, else the :class:`IllegalMoveError` that pushing
    it raises (which says why: an occupied square, no flips, ...)."""
    if move in position.legal_moves():
        return move
    position.copy().push(move)  # raises with the reason
    raise IllegalMoveError(f"{move} is not a legal move here (type p for the list)")


def _termination_name(termination: Termination) -> str:
    return termination.value


def termination_with_japanese(termination: Termination) -> str:
    """``詰み (checkmate)``: the shogi word, then the English name (for games from shogi's family)."""
    return f"{termination.japanese} ({termination.value})"


def _no_text(position: Game[Any]) -> str:
    raise KomakenError(f"{type(position).__name__} has no text form")


@dataclass(frozen=True)
class RecordIO:
    """A game's own record formats, whole games as text: ``write(position, fmt, names, outcome,
    comment)`` writes the game on ``position`` (from where it was set up; ``names`` are black's
    and white's) in one of ``formats``; ``read(text, variant)`` gives the position at the end of a record and
    the names it gives (a :class:`KomakenError` naming the move at fault otherwise).
    ``write_comments(position, fmt, names, outcome, comments, original)``, when the formats hold a
    comment on each move, writes ``comments[k]`` after move ``k`` (``comments[0]``: before the
    first); given the ``original`` text the game was read from, it keeps what that record holds.
    ``comment_formats``: the formats ``write_comments`` writes (an analysis's downloads).
    ``write_timed(position, fmt, names, outcome, timing)``, when the formats hold a clock, writes
    the game with its :class:`Timing` (each move's seconds, the clocks, the start)."""

    formats: tuple[str, ...]
    write: Callable[[Any, str, Names, Outcome | None, str | None], str]
    read: Callable[[str, Any], tuple[Game[Any], Names]]
    write_comments: Callable[[Any, str, Names, Outcome | None, list[str | None], str | None], str] | None = None
    comment_formats: tuple[str, ...] = ()
    write_timed: Callable[[Any, str, Names, Outcome | None, Timing], str] | None = None


@dataclass(frozen=True)
class Timing:
    """How a game was timed, for a record: ``times[k]`` the seconds move ``k`` took (``None``
    where unknown: moves of a record the game continued), ``controls`` black's and white's clocks
    (``None``: untimed), ``started`` when the game began."""

    times: list[float | None] = field(default_factory=list)
    controls: tuple[TimeControl | None, TimeControl | None] = (None, None)
    started: datetime | None = None


class Analyser(Protocol):
    """A game's engine as an analysis uses it (:mod:`komaken.analysis`): ``analyse(position,
    seconds, multipv)`` searches ``position`` (not modified) for about ``seconds`` and returns
    the best ``multipv`` lines (:attr:`SearchResult.lines`, scores from the side to move's view
    in centipawns) — also where only one move is legal; ``stop()`` (any thread) cuts a search
    short; ``close()`` gives its tables back."""

    def analyse(self, position: Any, seconds: float, multipv: int) -> SearchResult[Any]: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class GameSpec:
    """Everything the CLI, the lab and the players need to know about one game.

    * ``start(variant)`` — the start position (``variant`` is ``None`` for games without
      variants, else what :attr:`load_variant` returned);
    * ``from_text(text, variant)`` / ``to_text(position)`` — the game's native position text
      (SFEN for shogi, board text for reversi and tic-tac-toe, FEN for chess);
    * ``parse_move(position, text)`` — a legal move from text, or :class:`IllegalMoveError`
      saying why; ``move_text(move)`` — a move as the game writes it (USI, ``f5``, ``e2e4``);
      ``describe_move(position, move)`` — a move for people (``▲７六歩 (7g7f)``);
    * ``load_variant(name)`` — ``None`` when the game has no variants (a name or a file);
      ``default_variant`` is the one commands play when none is named, ``lab_variant`` the one an
      experiment plays then (default: ``default_variant``); ``variants`` — the names of its
      shipped variants (what a menu offers);
    * ``players`` — the player types only this game has (``engine``, ``thesis``, ``perfect``);
      generic ones (``human``, ``random``, ``python``) come from :mod:`komaken.players.registry`;
    * ``default_opponent`` — the player spec ``komaken play`` uses for the second side;
    * ``side_names`` — how results name the sides, indexed by :class:`Color` (``side_names[0]``
      is ``Color.BLACK``'s: ``"sente (▲)"``, ``"black"``, ``"X"``);
    * ``first`` — the colour that moves first in the start position (``Color.BLACK`` in shogi,
      reversi and tic-tac-toe; ``Color.WHITE`` in chess): ``komaken play`` seats the human
      there, the lab's sente is that colour, and :meth:`result` writes its win as ``1-0``;
    * ``record_formats`` — the game-record formats it can be exported to (``kif``, ``csa``);
    * ``can_declare(position)`` — whether the side to move may win by declaring (shogi's 入玉宣言);
    * ``termination_text(termination)`` — how a game's end is named: ``checkmate`` by default,
      ``詰み (checkmate)`` in shogi (:func:`termination_with_japanese`);
    * ``record_io`` — the game's own record formats (KIF, CSA…; PGN, UCI), read and written
      whole (:class:`RecordIO`); every game also has the move list (``txt``);
    * ``presentation`` — how the game looks, for interfaces that draw boards
      (:class:`~komaken.presentation.Presentation`: the board and legal moves as JSON, move
      labels, side names); ``None``: shown as a move list only;
    * ``analyser(position)`` — the game's engine for analysing positions like ``position`` (its
      variant) and giving hints (:class:`Analyser`); ``None``: the game cannot be analysed.
    """

    name: str
    title: str
    start: Callable[[Any], Game[Any]]
    from_text: Callable[[str, Any], Game[Any]]
    to_text: Callable[[Any], str] = _no_text
    parse_move: Callable[[Any, str], Any] = _parse_by_text
    move_text: Callable[[Any], str] = _str
    describe_move: Callable[[Any, Any], str] | None = None
    load_variant: Callable[[str], Any] | None = None
    default_variant: str | None = None
    lab_variant: str | None = None
    variants: tuple[str, ...] = ()
    players: Mapping[str, PlayerType] = field(default_factory=dict)
    default_opponent: str = "random"
    side_names: tuple[str, str] = ("black", "white")
    first: Color = Color.BLACK
    record_formats: tuple[str, ...] = ()
    svg: Callable[[Any], str] | None = None
    can_declare: Callable[[Any], bool] | None = None
    termination_text: Callable[[Termination], str] = _termination_name
    record_io: RecordIO | None = None
    presentation: Presentation | None = None
    analyser: Callable[[Any], Analyser] | None = None

    @property
    def has_variants(self) -> bool:
        return self.load_variant is not None

    def variant(self, name: str | None = None) -> Any:
        """The variant called ``name`` (default: :attr:`default_variant`); ``None`` for games
        without variants.  Naming a variant for such a game is an error."""
        if self.load_variant is None:
            if name is not None:
                raise KomakenError(f"{self.name} has no variants (got {name!r})")
            return None
        return self.load_variant(name or self.default_variant or self.name)

    def position(self, text: str | None = None, variant: Any = None) -> Game[Any]:
        """The start position, or the one ``text`` describes (native text)."""
        return self.from_text(text, variant) if text else self.start(variant)

    @property
    def text_formats(self) -> tuple[str, ...]:
        """The formats :meth:`write_game` writes: the game's own, else the move list."""
        return self.record_io.formats if self.record_io is not None else (MOVE_LIST,)

    def write_game(self, position: Game[Any], fmt: str, names: Names = (None, None),
                   outcome: Outcome | None = None, comment: str | None = None, timing: Timing | None = None) -> str:
        """The game on ``position`` as text in ``fmt`` (one of :attr:`text_formats`); ``comment``
        goes where the format has room for one, ``timing`` (each move's seconds, the clocks) where
        the game's formats hold it (KIF's 持ち時間 and move times)."""
        if fmt not in self.text_formats:
            raise KomakenError(f"format {fmt!r} is not available for {self.name} "
                               f"(use {', '.join(self.text_formats)})")
        if self.record_io is not None and timing is not None and self.record_io.write_timed is not None:
            return self.record_io.write_timed(position, fmt, names, outcome, timing)
        if self.record_io is not None:
            return self.record_io.write(position, fmt, names, outcome, comment)
        return move_list_text(self, position, tuple(n or "?" for n in names),
                              None if outcome is None else self.result(outcome))

    def read_game(self, text: str, variant: Any = None) -> tuple[Game[Any], Names]:
        """The position at the end of a record (the game's own formats, a move list, or bare
        moves from the start) and the players' names it gives."""
        if self.record_io is not None:
            return self.record_io.read(text, variant)
        if text.lstrip().startswith("# komaken"):
            spec, position, moves = read_move_list_text(text)
            if spec is not self:
                raise KomakenError(f"the move list is a {spec.name} game, not {self.name}")
        else:
            position, moves = self.start(variant), text.split()
        for k, token in enumerate(moves, 1):
            try:
                position.push(self.parse_move(position, token) if isinstance(token, str) else token)
            except KomakenError as exc:
                raise KomakenError(f"move {k} ({token}): {exc}") from None
        return position, (None, None)

    def describe(self, position: Any, move: Any) -> str:
        """``move`` (about to be played in ``position``) for people."""
        if self.describe_move is not None:
            return self.describe_move(position, move)
        return self.move_text(move)

    def winner_text(self, winner: Color | None) -> str:
        """``"black wins"``, ``"sente (▲) wins"`` or ``"draw"``."""
        return "draw" if winner is None else f"{self.side_names[int(winner)]} wins"

    def result(self, outcome: Outcome | None) -> str:
        """``"1-0"`` when the side that moves first (:attr:`first`) won, ``"0-1"``, ``"1/2-1/2"``,
        or ``"*"`` while the game goes on."""
        if outcome is None:
            return "*"
        if outcome.winner is None:
            return "1/2-1/2"
        return "1-0" if outcome.winner is self.first else "0-1"


MOVE_LIST = "txt"


def move_list_text(spec: GameSpec, position: Game[Any], names: tuple[str, ...], result: str | None = None) -> str:
    """The game on ``position`` (from where it was set up) as a move list: ``#`` lines naming the
    game, the players, the start position when it is not the usual one and the result, then the
    moves in the game's own notation on one line."""
    start = position.copy()
    moves = list(position.move_stack)  # type: ignore[attr-defined]
    for _ in moves:
        start.pop()
    lines = [f"# komaken {spec.name}"]
    lines += [f"# {side}: {name}" for side, name in zip(spec.side_names, names, strict=True)]
    if start != spec.start(start.variant if spec.has_variants else None):  # type: ignore[attr-defined]
        lines.append(f"# start: {spec.to_text(start)}")
    if spec.has_variants:
        lines.insert(1, f"# variant: {start.variant.name}")  # type: ignore[attr-defined]
    if result:
        lines.append(f"# result: {result}")
    lines.append(" ".join(spec.move_text(m) for m in moves))
    return "\n".join(lines) + "\n"


def read_move_list_text(text: str) -> tuple[GameSpec, Game[Any], list[Any]]:
    """A move list back: the game, its start position and the moves (each checked as legal)."""
    head: dict[str, str] = {}
    body = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].strip().partition(":")
            head.setdefault("game" if key.startswith("komaken ") else key.strip(), value.strip() or key[8:])
        elif line.strip():
            body.extend(line.split())
    if "game" not in head:
        raise KomakenError("not a komaken move list: the first line should be '# komaken GAME'")
    spec = find_game(head["game"])
    variant = spec.variant(head.get("variant")) if spec.has_variants else None
    position = spec.position(head.get("start"), variant)
    start = position.copy()
    moves = []
    for k, token in enumerate(body, 1):
        try:
            move = spec.parse_move(position, token)
        except KomakenError as exc:
            raise KomakenError(f"move {k} ({token}): {exc}") from None
        position.push(move)
        moves.append(move)
    return spec, start, moves


def game_names() -> list[str]:
    """Every registered game: the built-ins, then those from entry points."""
    names = list(BUILTIN)
    names += [ep.name for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in BUILTIN]
    return names


@cache
def find_game(name: str) -> GameSpec:
    """The :class:`GameSpec` registered as ``name``.

    ``"package.module:factory"`` (a callable returning a start position) is accepted too: a
    minimal game for the lab, played with the generic players only.
    """
    if name in BUILTIN:
        return _spec_of(importlib.import_module(f"{BUILTIN[name]}.game").GAME, name)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            loaded = ep.load()
            return _spec_of(getattr(loaded, "GAME", loaded), name)
    if ":" in name:
        return _factory_game(name)
    raise KomakenError(f"unknown game {name!r} (known: {', '.join(sorted(game_names()))})")


def game_of(position: object) -> GameSpec:
    """The registered game ``position`` belongs to (by the package its class comes from)."""
    name = _game_of_module(type(position).__module__)
    if name is None:
        raise KomakenError(f"{type(position).__name__} is not a position of any registered game")
    return find_game(name)


@cache
def _game_of_module(module: str) -> str | None:
    """The game whose package holds ``module``: the built-ins first, since reading the installed
    packages' entry points takes tens of milliseconds and a game loop asks once a game."""
    def inside(package: str) -> bool:
        return module == package or module.startswith(package + ".")
    for name, package in BUILTIN.items():
        if inside(package):
            return name
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if inside(ep.value.partition(":")[0]):
            return ep.name
    return None


def _spec_of(obj: object, name: str) -> GameSpec:
    if not isinstance(obj, GameSpec):
        raise KomakenError(f"game {name!r} is registered, but not with a GameSpec (got {type(obj).__name__})")
    return obj


def import_object(spec: str) -> Any:
    """``"package.module:attr"`` → the object (``ImportError``/``AttributeError`` if missing)."""
    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _factory_game(name: str) -> GameSpec:
    try:
        factory = import_object(name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise KomakenError(f"cannot load game {name!r}: {exc}") from None
    if not callable(factory):
        raise KomakenError(f"game {name!r} is not callable")

    def from_text(text: str, variant: Any) -> Game[Any]:
        raise KomakenError(f"game {name!r} has no text form; it can only start from its start position")

    return GameSpec(name=name, title=name, start=lambda variant: factory(), from_text=from_text)


__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "MOVE_LIST", "Analyser", "GameSpec", "RecordIO", "checked_move", "find_game",
           "game_names", "game_of", "import_object", "move_list_text", "read_move_list_text",
           "termination_with_japanese"]
