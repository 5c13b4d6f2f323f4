"""Shogi in the game registry: the :class:`~komaken.games.GameSpec` and shogi's player types.

>>> pos = GAME.start(GAME.variant("minishogi"))
>>> GAME.parse_move(pos, "5d5c")
Move.from_usi('5d5c')
>>> GAME.describe(pos, GAME.parse_move(pos, "5d5c"))
'▲５三歩 (5d5c)'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from komaken.errors import IllegalMoveError, KomakenError
from komaken.games import GameSpec, RecordIO, termination_with_japanese
from komaken.players.base import Player
from komaken.players.engine import EngineAnalyser, EnginePlayer
from komaken.players.registry import SEED, BuildContext, Option, OptionError, PlayerType
from komaken.players.thesis import ThesisPlayer
from komaken.players.usi import UsiPlayer
from komaken.shogi.display import svg
from komaken.shogi.engine._evalfile import NetChoice, load_network
from komaken.shogi.engine._evaluate import TERMS
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.values import PieceValues
from komaken.shogi.notation import japanese, parse_japanese
from komaken.shogi.position import Move, Position
from komaken.shogi.presentation import PRESENTATION, read_record, write_commented, write_record, write_timed
from komaken.shogi.variant import Variant, load_variant, shipped_variants


def parse_move(position: Position, text: str) -> Move:
    """The legal move ``text`` names: USI (``7g7f``, ``P*5e``) or Japanese (``７六歩``, ``同銀``)."""
    t = text.strip()
    try:
        move = Move.from_usi(t)
    except IllegalMoveError:
        move = None
    if move is not None:
        if position.is_legal(move):
            return move
        raise IllegalMoveError(f"illegal move {position.explain_illegal(move)}")

    try:
        return parse_japanese(position, t)
    except KomakenError as exc:
        if str(exc).startswith(f"move {t!r} is not Japanese move text"):
            raise IllegalMoveError(_not_a_move(position, t)) from None
        raise IllegalMoveError(f"{exc} (type p for the legal moves)") from None


_CHESS_LIKE = re.compile(r"[a-z][1-9][a-z][1-9][a-z+=]?", re.IGNORECASE)


def _not_a_move(position: Position, text: str) -> str:
    """Why ``text`` is no move at all, with squares and an example taken from this board.

    >>> pos = Position.start("minishogi")
    >>> print(_not_a_move(pos, "e2e3"))
    'e2e3' looks like a chess move: a shogi square is its file number, then its rank letter ... ranks a-e ...
    >>> print(_not_a_move(pos, "asdf"))
    'asdf' is not a move: write it in USI or in Japanese, e.g. 1e1d or １四飛; type p for the legal moves
    """
    v = position.variant
    legal = list(position.legal_moves())
    example = ""
    if legal:
        move = legal[0]
        example = f", e.g. {move.usi()} ({move.japanese(position)})"
    if _CHESS_LIKE.fullmatch(text):
        return (f"{text!r} looks like a chess move: a shogi square is its file number, then its rank letter "
                f"(files 1-{v.width} from the right, ranks a-{chr(96 + v.height)} from the top on this "
                f"{v.width}x{v.height} board){example}; type p for the legal moves")
    if legal:
        example = f", e.g. {legal[0].usi()} or {legal[0].japanese(position)}"
    return f"{text!r} is not a move: write it in USI or in Japanese{example}; type p for the legal moves"


def describe_move(position: Position, move: Move) -> str:
    """``▲７六歩 (7g7f)``: the Japanese move with its USI text."""
    try:
        return f"{position.turn.mark}{japanese(position, move)} ({move.usi()})"
    except KomakenError:
        return f"{position.turn.mark}{move.usi()}"


def _svg(position: Position) -> str:
    return svg(position)


# ---- player types ---------------------------------------------------------------------------

def _values(value: Any, variant: Variant | None) -> dict[str, Any]:
    if isinstance(value, str):  # a value table file, e.g. written by `komaken values fit`
        return PieceValues.from_toml(value, variant).as_dict()
    letters = tuple(getattr(variant, "piece_letters", ()))
    out = {}
    for letter, v in value.items():
        if letters and letter not in letters:
            name = getattr(variant, "name", "this variant")
            raise OptionError(letter, f"unknown piece letter {letter!r} for {name} (known: {' '.join(letters)})")
        if isinstance(v, bool) or not isinstance(v, int):
            raise OptionError(letter, f"must be an integer, not {v!r}")
        if abs(v) > 1_000_000:
            raise OptionError(letter, f"must be within ±1000000, not {v}")
        out[letter] = v
    return out


#: ``eval = "linear"``: the linear evaluation where the variant's default is a net
LINEAR = "linear"


def _terms(value: Any, variant: Any) -> dict[str, float] | str:
    if isinstance(value, str) and value.strip() == LINEAR:
        return LINEAR
    if isinstance(value, str):  # a network file: read and checked whole now, so a bad one stops the run early
        load_network(value, variant)
        return str(Path(value).resolve())
    out = {}
    for term, v in value.items():
        if term not in TERMS:
            raise OptionError(term, f"unknown evaluation term {term!r} (known: {', '.join(TERMS)})")
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise OptionError(term, f"must be a number, not {v!r}")
        out[term] = float(v)
    return out


def _params(value: Any, variant: Any) -> str:
    """An evaluation parameter file: read and checked whole now, so a bad one stops the run early."""
    EvalParams.load(value, variant if variant is not None else "shogi")
    return str(Path(value).resolve())


def _usi_options(value: Any, variant: Any) -> dict[str, str]:
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in value.items()}


def _build_engine(ctx: BuildContext, o: dict[str, Any]) -> Player:
    ev = o.get("eval", {})
    net: NetChoice = "default"  # the variant's default net, unless values, terms or params ask for linear
    if ev == LINEAR:
        net = None
    elif isinstance(ev, str):
        net = load_network(ev, ctx.variant if ctx.variant is not None else load_variant("shogi"))
    return EnginePlayer(ctx.variant, depth=o.get("depth"), nodes=o.get("nodes"), movetime=o.get("movetime"),
                        values=o.get("values"), seed=o.get("seed", 0), hash_mb=o.get("hash", 16),
                        skill=o.get("skill"), elo=o.get("elo"), params=o.get("params"), net=net,
                        **({} if isinstance(ev, str) else ev))


def _build_thesis(ctx: BuildContext, o: dict[str, Any]) -> Player:
    theirs: Mapping[str, int] | None = None
    if ctx.opponent is not None:  # the published program held both players' tables
        theirs = ctx.opponent.options.get("values")
    return ThesisPlayer(ctx.variant, o.get("values"), depth=o.get("depth", 4), seed=o.get("seed", 0),
                        hand_quirk=o.get("hand_quirk", False), opponent_values=theirs)


def _build_usi(ctx: BuildContext, o: dict[str, Any]) -> Player:
    options = dict(o.get("options", {}))
    if ctx.variant is not None and ctx.variant.name != "shogi":
        options.setdefault("UCI_Variant", ctx.variant.name)
    return UsiPlayer(o["command"], options, timeout=o.get("timeout", 30.0), grace=o.get("grace", 1.0),
                     move_timeout=o.get("move_timeout"))


DEPTH = Option("depth", "int", "plies", 1, 112)
VALUES = Option("values", "table", "piece values such as { P = 100, R = 2000 }, or a value TOML file", check=_values,
                file_ok=True)

PLAYERS = {
    "engine": PlayerType(
        "engine", "komaken's α-β engine (1 s a move unless depth, nodes or movetime is given)", _build_engine,
        (DEPTH, Option("nodes", "int", "nodes", 1, 10**12), Option("movetime", "seconds", "seconds a move", 0.001,
                                                                     86400.0),
         SEED, VALUES, Option("eval", "table", "evaluation term weights", check=_terms, file_ok=True,
                              words=(LINEAR,)),  # also a .nnue file
         Option("hash", "int", "hash table MiB", 1, 4096),
         Option("params", "str", "evaluation parameter TOML (piece values, tables; see docs/engine.md)",
                check=_params, path=True),
         Option("skill", "int", "strength 0 (weakest) .. 20 (full); see docs/engine.md", 0, 20),
         Option("elo", "int", "strength as an (uncalibrated) Elo 500..2500, 100 a skill level", 500, 2500)),
        extra="eval"),
    "thesis": PlayerType(
        "thesis", "the replica of the thesis's 5五将棋 AI", _build_thesis,
        (DEPTH, SEED, Option("hand_quirk", "bool", "score hand pieces with both tables"),
         Option("values", "table", "piece values", check=_values, required_in_file=True))),
    "usi": PlayerType(
        "usi", "an external USI engine: usi:/path/to/engine [args]", _build_usi,
        (Option("command", "str", "the engine's command line"),
         Option("options", "table", "USI options to set", check=_usi_options),
         Option("move_timeout", "seconds", "seconds a move may take before the engine loses on time "
                "(default: the go time control + grace)", 0.001, 86400.0),
         Option("grace", "seconds", "seconds added to the go time control for the deadline", 0.0, 3600.0),
         Option("timeout", "seconds", "seconds for usi/isready answers", 0.001, 86400.0)),
        positional="command", remote=False),
}


GAME = GameSpec(
    name="shogi",
    title="shogi (将棋) and its variants",
    start=lambda variant: Position.start(variant if variant is not None else "shogi"),
    from_text=lambda text, variant: Position.from_sfen(text, variant if variant is not None else "shogi"),
    to_text=Position.sfen,
    parse_move=parse_move,
    move_text=Move.usi,
    describe_move=describe_move,
    load_variant=load_variant,
    default_variant="shogi",
    lab_variant="minishogi",  # the lab's first studies were on 5×5, and its quick runs still are
    variants=tuple(shipped_variants()),
    players=PLAYERS,
    default_opponent="engine:movetime=1",
    side_names=("sente (▲)", "gote (△)"),
    record_formats=("kif", "ki2", "csa", "usi"),
    svg=_svg,
    can_declare=Position.can_declare,
    termination_text=termination_with_japanese,
    record_io=RecordIO(("kif", "ki2", "csa", "usi"), write_record, read_record, write_commented,
                        ("kif", "ki2", "csa"), write_timed),
    presentation=PRESENTATION,
    analyser=lambda position: EngineAnalyser(position.variant),
)

__all__ = ["GAME", "PLAYERS", "describe_move", "parse_move"]
