"""The web server's view of the game registry: it knows no game, only :class:`GameSpec`\\ s.

Every registered game with a presentation part (:class:`komaken.presentation.Presentation`)
is offered — each built-in variant and each variant file of a game with variants as an entry
of its own.  The board, the legal moves, move labels, records and the players a side may have
all come from the game's spec; this module turns request text into positions and moves and
bad input into :class:`GameInputError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game, Outcome
from komaken.games import GameSpec, Timing, find_game, game_names
from komaken.players.registry import PlayerType, player_types

#: option kinds a page may not set: a file name, a command, a table (it sets numbers and switches)
UNSETTABLE = ("str", "table")
MAX_MOVE_TEXT = 32


class GameInputError(KomakenError):
    """A move, position, record or player setting from a request that cannot be used."""


@dataclass(frozen=True)
class GameInfo:
    """One game the server offers: ``spec`` and, for a game with variants, the ``variant``."""

    id: str
    title: str
    spec: GameSpec
    variant: Any = None
    width: int = 0
    height: int = 0

    @property
    def shown(self) -> bool:
        """Whether the page can draw it (else its games are shown as move lists)."""
        return self.spec.presentation is not None

    def to_json(self) -> dict[str, Any]:
        """``first``: the side (0 black, 1 white) that moves first; ``bottom``: the side drawn at
        the bottom of an unflipped board; ``side_names`` indexed the same way; ``numbered``: the
        move labels carry their own move numbers; ``choices``: words for a move's choice."""
        p = self.spec.presentation
        return {"id": self.id, "title": self.title, "game": self.spec.name, "width": self.width,
                "height": self.height, "formats": list(self.spec.text_formats) if p else [],
                "players": player_kinds(self.spec) if p else [], "first": int(self.spec.first),
                "bottom": int(p.bottom) if p else 0,
                "side_names": list(p.side_names if p else self.spec.side_names),
                "numbered": bool(p and p.numbered), "choices": dict(p.choices) if p else {},
                "analysis": self.spec.analyser is not None}


def catalog(variant_files: list[str] | tuple[str, ...] = ()) -> dict[str, GameInfo]:
    """The games to offer: each registered game the page can draw; a game with variants as
    its shipped variants and the variant files (loaded by the first game that reads them)."""
    games: dict[str, GameInfo] = {}
    specs = [find_game(name) for name in game_names()]
    shown = [s for s in specs if s.presentation is not None]
    files = list(variant_files)
    for spec in shown:
        if not spec.has_variants:
            games[spec.name] = info_for(spec, None, spec.name)
            continue
        loaded = [spec.variant(name) for name in spec.variants]
        if spec.load_variant is not None:
            loaded += [spec.load_variant(f) for f in files]
            files = []
        for variant in loaded:
            if any(g.variant == variant for g in games.values()):
                continue  # a file naming a shipped variant: offered once
            key, n = variant.name, 2
            while key in games:
                key, n = f"{variant.name}-{n}", n + 1
            games[key] = info_for(spec, variant, key)
    return games


def info_for(spec: GameSpec, variant: Any, key: str | None = None) -> GameInfo:
    """The entry for ``spec`` (and ``variant``): ``minishogi (5×5)``, ``chess (8×8)``."""
    name = getattr(variant, "name", None) or spec.name
    if spec.presentation is None:
        return GameInfo(key or name, spec.title, spec, variant)
    w, h = spec.presentation.size(variant)
    title = f"{name} ({w}×{h})" if variant is not None else f"{spec.title.split(' (')[0]} ({w}×{h})"
    return GameInfo(key or name, title, spec, variant, w, h)


def experiment_info(exp: Any) -> GameInfo:
    """The game an experiment plays."""
    return info_for(exp.spec, exp.load_variant() if exp.spec.has_variants else None)


# ---- positions and moves -----------------------------------------------------------------------
def new_position(info: GameInfo, start: str | None = None) -> Game[Any]:
    """The start position, or the one ``start`` describes (the game's text: SFEN, FEN, …)."""
    if not info.shown:
        raise GameInputError(f"{info.id}: positions of this game cannot be shown")
    try:
        return info.spec.position((start or "").strip(), info.variant)
    except KomakenError as exc:
        raise GameInputError(f"start position: {exc}") from None


def from_record(info: GameInfo, text: str) -> tuple[Game[Any], dict[str, str | None]]:
    """The position at the end of a record (the game's formats or a move list) and the names."""
    if not info.shown:
        raise GameInputError(f"{info.id}: positions of this game cannot be shown")
    try:
        pos, (black, white) = info.spec.read_game(text, info.variant)
    except KomakenError as exc:
        raise GameInputError(f"record: {exc}") from None
    return pos, {"black": black, "white": white}


def replay(info: GameInfo, start: str, moves: list[str]) -> Game[Any]:
    """The position after ``moves`` (stored text) from ``start`` (empty: the game's start)."""
    pos = new_position(info, start)
    for m in moves:
        push(pos, info, m)
    return pos


def position_text(info: GameInfo, pos: Game[Any]) -> str:
    return info.spec.to_text(pos)


def parse_move(pos: Game[Any], info: GameInfo, text: Any) -> Any:
    """The legal move ``text`` names (the game's move text, or any notation it reads)."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_TEXT:
        raise GameInputError(f"not a move: {str(text)[:MAX_MOVE_TEXT]!r}")
    try:
        return info.spec.parse_move(pos, text)
    except KomakenError as exc:
        raise GameInputError(str(exc)) from None


def push(pos: Game[Any], info: GameInfo, text: str) -> Any:
    """Play the move ``text`` if legal (else :class:`GameInputError`, position unchanged)."""
    move = parse_move(pos, info, text)
    pos.push(move)
    return move


def move_label(pos: Game[Any], info: GameInfo, move: Any, western: bool = False) -> str:
    """The move as people write it, before it is played: ``▲７六歩``, ``1. e4``, ``●f5``;
    ``western``: as the international piece set shows it (``▲P-7f``)."""
    p = info.spec.presentation
    if p is None:
        return info.spec.move_text(move)
    return p.western_label(pos, move) if western else p.label(pos, move)


def board_json(pos: Game[Any], info: GameInfo) -> dict[str, Any]:
    assert info.spec.presentation is not None
    return info.spec.presentation.board(pos)


def legal_json(pos: Game[Any], info: GameInfo) -> list[dict[str, Any]]:
    assert info.spec.presentation is not None
    return info.spec.presentation.legal(pos, info.spec.move_text)


def outcome_json(outcome: Outcome | None, info: GameInfo, detail: str = "") -> dict[str, Any] | None:
    """The end of a game for the page; ``result`` is ``1-0`` when the side that moves first won."""
    if outcome is None:
        return None
    return {"result": info.spec.result(outcome),
            "winner": None if outcome.winner is None else ("black", "white")[int(outcome.winner)],
            "reason": outcome.termination.value, "japanese": outcome.termination.japanese,
            "text": info.spec.termination_text(outcome.termination), "detail": detail}


def record_text(info: GameInfo, pos: Game[Any], fmt: str, names: tuple[str | None, str | None] = (None, None),
                result: Outcome | None = None, comment: str | None = None, timing: Timing | None = None) -> str:
    """The game on ``pos`` (from where it was set up) in ``fmt``; ``names`` are (black, white);
    ``timing`` (move times, clocks) where the format holds it."""
    try:
        return info.spec.write_game(pos, fmt, names, result, comment, timing)
    except KomakenError as exc:
        raise GameInputError(str(exc)) from None


# ---- players -----------------------------------------------------------------------------------
def offered(spec: GameSpec) -> dict[str, PlayerType]:
    """The player types a page may pick: those that run no command and import no code."""
    return {name: t for name, t in player_types(spec).items() if t.remote}


def player_kinds(spec: GameSpec) -> list[dict[str, Any]]:
    """What the page offers for a side: each type with the settings it takes (numbers and
    switches, with their ranges; seconds for times)."""
    out: list[dict[str, Any]] = []
    for name, ptype in offered(spec).items():
        settings = [{"name": o.name, "kind": o.kind, "help": o.help, "low": o.low, "high": o.high}
                    for o in ptype.options if o.kind not in UNSETTABLE]
        out.append({"kind": name, "help": ptype.help, "settings": settings})
    # a person first, then the game's own players, then the generic ones
    rank = {"human": 0, **{name: 1 + i for i, name in enumerate(spec.players)}}
    out.sort(key=lambda k: rank.get(k["kind"], len(rank) + 1))
    return out
