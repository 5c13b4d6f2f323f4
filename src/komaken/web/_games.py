"""Everything the web server knows about particular games, in one place.

The rest of :mod:`komaken.web` treats a position as an opaque object and asks this module for
text in and out: the board as JSON for the page's board component, the legal moves, a move's
label (``▲７六歩`` for shogi), the position's text (SFEN for shogi), records, and a player that
thinks in a worker thread and reports its progress.  A new game kind only needs a branch here.

Square ids are strings the page echoes back (``"7g"`` in shogi, ``"f5"`` in reversi, ``"7"`` in
tic-tac-toe, ``"e4"`` in chess); a legal move is ``{"id", "from", "to", "drop", "promo", "choice",
"pass"}`` and is played by its ``id`` (the game's own move text: USI for shogi, UCI for chess).

The page knows one move model for every game: click (or drag) from a square — or a piece in the
hand — to a square; a move without ``from`` is played by clicking its ``to``.  When several legal
moves share the same from and to, they differ by ``choice`` (``成`` / ``不成`` in shogi, ``Q`` ``R``
``B`` ``N`` in chess) and the page offers those choices as buttons.  Chess lives in
:mod:`komaken.web._chess`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from komaken.errors import KomakenError
from komaken.game import Color, Outcome
from komaken.shogi._names import KANJI as _KANJI

if TYPE_CHECKING:
    from komaken.games import GameSpec

Info = Callable[[dict[str, Any]], None]


class GameInputError(KomakenError):
    """A move, position, record or player setting from a request that cannot be used."""


@dataclass(frozen=True)
class GameInfo:
    """One game the server offers: ``kind`` is ``shogi``, ``reversi``, ``tictactoe``, ``chess``
    (or ``other`` for a game only known to an experiment, shown as a move list)."""

    id: str
    title: str
    kind: str
    variant: Any = None
    width: int = 0
    height: int = 0

    @property
    def record_formats(self) -> tuple[str, ...]:
        if self.kind == "chess":
            from komaken.web._chess import FORMATS

            return FORMATS
        return ("kif", "ki2", "csa", "usi") if self.kind == "shogi" else ("txt",) if self.kind != "other" else ()

    def to_json(self) -> dict[str, Any]:
        """``first``: the side (0 black, 1 white) that moves first; ``bottom``: the side drawn at
        the bottom of an unflipped board; ``side_names`` indexed the same way; ``numbered``: the
        move labels carry their own move numbers (``1. e4``, ``1… e5``)."""
        first = 0 if self.kind == "other" else int(game_spec(self).first)
        return {"id": self.id, "title": self.title, "kind": self.kind, "width": self.width, "height": self.height,
                "formats": list(self.record_formats), "players": player_kinds(self), "first": first,
                "bottom": 1 if self.kind == "chess" else 0, "side_names": list(side_names(self)),
                "numbered": self.kind == "chess"}


#: Registered games without variants that the page has a board for (``board.js``): name → size.
BOARDS = {"reversi": (8, 8), "tictactoe": (3, 3), "chess": (8, 8)}


def catalog(variant_files: list[str] | tuple[str, ...] = ()) -> dict[str, GameInfo]:
    """The games to offer, from the game registry: the shogi variants known by name (built in and
    shipped) and each variant file, then every other registered game the page can draw (:data:`BOARDS`)."""
    from komaken.games import find_game, game_names
    from komaken.shogi import load_variant
    from komaken.shogi.variant import shipped_variants

    games: dict[str, GameInfo] = {}
    variants = list(shipped_variants().values()) + [load_variant(f) for f in variant_files]
    for v in variants:
        key = v.name
        n = 2
        while key in games:
            key, n = f"{v.name}-{n}", n + 1
        games[key] = shogi_info(v, key)
    for name in game_names():
        if name in BOARDS and not find_game(name).has_variants:
            w, h = BOARDS[name]
            games[name] = GameInfo(name, f"{find_game(name).title.split(' (')[0]} ({w}×{h})", name, None, w, h)
    return games


def shogi_info(variant: Any, key: str | None = None) -> GameInfo:
    title = f"{variant.name} ({variant.width}×{variant.height})"
    return GameInfo(key or variant.name, title, "shogi", variant, variant.width, variant.height)


def experiment_info(exp: Any) -> GameInfo:
    """The game an experiment plays."""
    if exp.spec.has_variants:
        return shogi_info(exp.load_variant())
    games = catalog()
    if exp.game in games:
        return games[exp.game]
    return GameInfo(exp.game, exp.spec.title, "other")


# ---- positions ---------------------------------------------------------------------------------
def new_position(info: GameInfo, start: str | None = None) -> Any:
    """The start position, or the one ``start`` describes (SFEN; board text for the others)."""
    if info.kind == "other":
        raise GameInputError(f"{info.id}: positions of this game cannot be shown")
    try:
        return game_spec(info).position((start or "").strip(), info.variant)
    except KomakenError as exc:
        raise GameInputError(f"start position: {exc}") from None


def game_spec(info: GameInfo) -> GameSpec:
    """The registry's description of the game ``info`` shows."""
    from komaken.games import find_game

    return find_game(info.id if info.kind == "other" else info.kind)


def from_record(info: GameInfo, text: str) -> tuple[Any, dict[str, str | None]]:
    """The position at the end of a record (KIF/KI2/CSA/USI for shogi, a transcript otherwise)
    and the players' names it gives."""
    if info.kind == "shogi":
        from komaken.records import parse

        try:
            rec = parse(text, variant=info.variant)
            return rec.position(), {"black": rec.black, "white": rec.white}
        except (KomakenError, IndexError, KeyError) as exc:
            raise GameInputError(f"record: {exc}") from None
    if info.kind == "chess":
        from komaken.web import _chess

        try:
            return _chess.from_record(text), {"black": None, "white": None}
        except KomakenError as exc:
            raise GameInputError(f"record: {exc}") from None
    pos = new_position(info)
    for token in text.split():
        push(pos, info, token)
    return pos, {"black": None, "white": None}


def replay(info: GameInfo, start: str, moves: list[str]) -> Any:
    """The position after ``moves`` (stored text) from ``start`` (empty: the game's start)."""
    pos = new_position(info, start)
    for m in moves:
        push(pos, info, m)
    return pos


def position_text(pos: Any) -> str:
    """SFEN for shogi, the board text for the board games."""
    from komaken.games import game_of

    return game_of(pos).to_text(pos)


def parse_move(pos: Any, info: GameInfo, text: str) -> Any:
    if not isinstance(text, str) or not text or len(text) > 16:
        raise GameInputError(f"not a move: {text!r}")
    try:
        if info.kind == "shogi":
            from komaken.shogi import Move

            return Move.from_usi(text)
        if info.kind == "chess":
            from komaken.web._chess import parse

            return parse(text)
        if info.kind == "reversi":
            from komaken.reversi import ReversiMove

            return ReversiMove.parse(text)
        from komaken.tictactoe import TicTacToeMove

        return TicTacToeMove.parse(text)
    except KomakenError as exc:
        raise GameInputError(str(exc)) from None


def push(pos: Any, info: GameInfo, text: str) -> Any:
    """Play the move ``text`` if legal (else :class:`GameInputError`, position unchanged)."""
    move = parse_move(pos, info, text)
    if move not in pos.legal_moves():
        raise GameInputError(f"illegal move {text!r} in {position_text(pos)}")
    pos.push(move)
    return move


def move_id(move: Any) -> str:
    return str(move)  # USI for shogi moves


def move_label(pos: Any, info: GameInfo, move: Any) -> str:
    """The move as people write it, before it is played: ``▲７六歩``, ``●f5``, ``×5``."""
    if info.kind == "shogi":
        from komaken.shogi.notation import japanese_marked

        return japanese_marked(pos, move)
    if info.kind == "chess":
        from komaken.web._chess import label

        return label(pos, move)
    marks = {"reversi": ("●", "○"), "tictactoe": ("×", "○")}.get(info.kind, ("▲", "△"))
    return marks[int(pos.turn)] + str(move)


def labels(info: GameInfo, start: str, moves: list[str]) -> list[str]:
    pos = new_position(info, start)
    out = []
    for m in moves:
        mv = parse_move(pos, info, m)
        out.append(move_label(pos, info, mv))
        push(pos, info, m)
    return out


def outcome_json(outcome: Outcome | None, info: GameInfo | None = None) -> dict[str, Any] | None:
    """The end of a game for the page; ``result`` is ``1-0`` when the side that moves first won
    (:meth:`komaken.games.GameSpec.result`)."""
    if outcome is None:
        return None
    names = ("black", "white")
    result = outcome.result() if info is None else game_spec(info).result(outcome)
    return {"result": result, "winner": None if outcome.winner is None else names[int(outcome.winner)],
            "reason": outcome.termination.value, "japanese": outcome.termination.japanese}


# ---- the board as the page draws it ------------------------------------------------------------
_RANKS = "一二三四五六七八九"


def board_json(pos: Any, info: GameInfo) -> dict[str, Any]:
    """``{"style", "width", "height", "cells", "hands", "files", "ranks", "last", "check"}``.

    ``cells`` is row-major from the top-left as black sees the board; each is
    ``{"id": square, "piece": {"label", "side": 0|1, "promoted"} | None}``.
    """
    if info.kind == "shogi":
        return _shogi_board(pos, info)
    if info.kind == "chess":
        from komaken.web._chess import board_json as chess_board

        return chess_board(pos)
    if info.kind == "reversi":
        from komaken.reversi import square_name

        cells = []
        for r in range(7, -1, -1):
            for f in range(8):
                sq = r * 8 + f
                c = pos.piece_at(sq)
                cells.append({"id": square_name(sq), "piece": None if c is None else {"label": "", "side": int(c)}})
        last = pos.move_stack[-1] if pos.ply else None
        return {"style": "disc", "width": 8, "height": 8, "cells": cells, "hands": None,
                "files": list("abcdefgh"), "ranks": [str(r) for r in range(8, 0, -1)],
                "last": None if last is None or last.is_pass else {"from": None, "to": str(last)},
                "check": None, "score": [pos.discs(Color.BLACK), pos.discs(Color.WHITE)]}
    from komaken.tictactoe import ROWS

    cells = []
    for row in ROWS:
        for sq in row:
            c = pos.at(sq)
            cells.append({"id": str(sq), "piece": None if c is None else {"label": "×○"[int(c)], "side": int(c)}})
    last = pos.move_stack[-1] if pos.ply else None
    return {"style": "mark", "width": 3, "height": 3, "cells": cells, "hands": None, "files": [], "ranks": [],
            "last": None if last is None else {"from": None, "to": str(last)}, "check": None}


def _shogi_board(pos: Any, info: GameInfo) -> dict[str, Any]:
    from komaken.shogi import Square

    W, H = info.width, info.height
    cells = []
    for r in range(1, H + 1):
        for f in range(W, 0, -1):
            p = pos.piece_at((f, r))
            piece = None if p is None else {"label": _KANJI[p.kind], "side": int(p.color), "kind": p.kind,
                                            "promoted": p.kind.startswith("+")}
            cells.append({"id": Square(f, r).usi(), "piece": piece})
    hands = [[{"kind": k, "label": _KANJI[k], "n": n} for k, n in pos.hand(c).items()]
             for c in (Color.BLACK, Color.WHITE)]
    last = pos.peek()
    check = None
    if pos.is_check():
        for sq, p in pos.pieces():
            if p.kind == "K" and p.color is pos.turn:
                check = sq.usi()
    return {"style": "shogi", "width": W, "height": H, "cells": cells, "hands": hands,
            "files": [str(f) for f in range(W, 0, -1)], "ranks": list(_RANKS[:H]),
            "last": None if last is None else {"from": last.from_square.usi() if last.from_square else None,
                                               "to": last.to_square.usi()},
            "check": check, "check_label": "王手 check"}


def legal_json(pos: Any, info: GameInfo) -> list[dict[str, Any]]:
    """Every legal move as ``{"id", "from", "to", "drop", "promo", "choice", "pass"}``."""
    if info.kind == "chess":
        from komaken.web._chess import legal_json as chess_legal

        return chess_legal(pos)
    out = []
    for m in pos.legal_moves():
        if info.kind == "shogi":
            out.append({"id": m.usi(), "from": m.from_square.usi() if m.from_square else None,
                        "to": m.to_square.usi(), "drop": m.drop, "promo": m.promotion,
                        "choice": "成" if m.promotion else "不成", "pass": False})
        else:
            is_pass = bool(getattr(m, "is_pass", False))
            out.append({"id": str(m), "from": None, "to": None if is_pass else str(m), "drop": None,
                        "promo": False, "choice": None, "pass": is_pass})
    return out


def side_names(info: GameInfo) -> tuple[str, str]:
    return {"shogi": ("▲ sente", "△ gote"), "reversi": ("● black", "○ white"),
            "tictactoe": ("× X", "○ O"), "chess": ("♚ black", "♔ white")}.get(info.kind, ("black", "white"))


# ---- records -----------------------------------------------------------------------------------
def record_text(info: GameInfo, pos: Any, fmt: str, names: tuple[str | None, str | None] = (None, None),
                result: Outcome | None = None, comment: str | None = None) -> str:
    """The game on ``pos`` (from where it was set up) as KIF/KI2/CSA/USI, or a transcript."""
    if fmt not in info.record_formats:
        raise GameInputError(f"format {fmt!r} is not available for {info.id} (use {', '.join(info.record_formats)})")
    if info.kind == "chess":
        from komaken.web._chess import record_text as chess_record

        return chess_record(pos, fmt, names, game_spec(info).result(result))
    if info.kind != "shogi":
        return " ".join(str(m) for m in pos.move_stack) + "\n"
    from komaken.records import GameRecord, dumps, kif

    rec = GameRecord.from_position(pos, black=names[0], white=names[1], result=result, comment=comment)
    return kif.dumps(rec) if fmt == "kif" else dumps(rec, fmt)  # type: ignore[arg-type]


# ---- players -----------------------------------------------------------------------------------
def player_kinds(info: GameInfo) -> list[dict[str, Any]]:
    """What the page offers for a side: kinds and the settings each takes."""
    if info.kind == "shogi":
        return [{"kind": "human"}, {"kind": "engine", "settings": ["movetime", "depth", "nodes"]},
                {"kind": "thesis", "settings": ["depth"]}, {"kind": "random"}]
    if info.kind in ("reversi", "chess"):
        return [{"kind": "human"}, {"kind": "engine", "settings": ["depth"]}, {"kind": "random"}]
    if info.kind == "tictactoe":
        return [{"kind": "human"}, {"kind": "engine", "settings": []}, {"kind": "random"}]
    return []


class Thinker:
    """A computer player: :meth:`think` runs in a worker thread and calls ``info`` with
    ``{"depth", "score", "pv", "nodes"}`` as its search deepens; :meth:`stop` ends it early."""

    name = "computer"

    def think(self, pos: Any, info: Info) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def stop(self) -> None:
        pass


class _ShogiEngine(Thinker):
    """komaken's engine; its search tables (16 MB) are made when it first thinks, so a session
    whose engine never moves costs no more than one without an engine."""

    def __init__(self, info: GameInfo, depth: int | None, nodes: int | None, movetime: float | None, seed: int):
        from komaken.shogi.engine.search import Engine, Limits

        self.game = info
        if depth is None and nodes is None and movetime is None:
            movetime = 1.0
        self.limits = Limits(depth=depth, nodes=nodes, movetime=movetime)  # seconds
        self.seed = seed
        self.engine: Engine | None = None
        parts = [f"{k}={v:g}" for k, v in (("depth", depth), ("nodes", nodes), ("movetime", movetime)) if v]
        self.name = "engine(" + ", ".join(parts) + ")"

    def think(self, pos: Any, info: Info) -> Any:
        def report(r: Any) -> None:
            info({"depth": r.depth, "score": r.usi_score(), "nodes": r.nodes, "time": round(r.time_ms / 1000, 3),
                  "pv": _pv_labels(pos, self.game, r.pv)})

        if self.engine is None:
            from komaken.shogi.engine.search import Engine

            self.engine = Engine(self.game.variant, seed=self.seed)
        result = self.engine.search(pos, self.limits, info=report)
        if result.declare:
            return "declare"
        return "resign" if result.move is None else result.move

    def stop(self) -> None:
        if self.engine is not None:
            self.engine.stop()


def _pv_labels(pos: Any, info: GameInfo, pv: list[Any]) -> list[str]:
    p = pos.copy()
    out = []
    for m in pv:
        if m not in p.legal_moves():
            break
        out.append(move_label(p, info, m))
        p.push(m)
    return out


class _Wrapped(Thinker):
    """A :class:`komaken.players.base.Player` that reports only its final choice."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.name = player.name
        player.new_game()

    def think(self, pos: Any, info: Info) -> Any:
        mv = self.player.choose(pos.copy())
        last = getattr(self.player, "last", None)
        from komaken.search.result import SearchResult

        if isinstance(last, SearchResult):
            info({"depth": last.depth, "score": str(last.score), "nodes": last.nodes, "pv": []})
        from komaken.players.base import PlayerAction

        return mv.value if isinstance(mv, PlayerAction) else mv


def make_player(info: GameInfo, spec: dict[str, Any]) -> Thinker | None:
    """``None`` for a human; else a :class:`Thinker` from ``{"kind", "depth", "movetime", ...}``
    as :func:`komaken.web._fields.side` checked it (every setting in range)."""
    kind = spec.get("kind", "human")
    seed = spec.get("seed", 0)
    if kind == "human":
        return None
    if kind == "random":
        from komaken.players.boardgames import RandomPlayer

        return _Wrapped(RandomPlayer(seed))
    if info.kind == "shogi" and kind == "engine":
        return _ShogiEngine(info, spec.get("depth"), spec.get("nodes"), spec.get("movetime"), seed)
    if info.kind == "shogi":
        from komaken.players.thesis import ThesisPlayer

        return _Wrapped(ThesisPlayer(info.variant, None, depth=spec.get("depth", 4), seed=seed))
    if info.kind == "chess":
        from komaken.web._chess import ChessThinker

        return ChessThinker(spec.get("depth"), seed)
    from komaken.players.boardgames import make_player as board_player

    depth = spec.get("depth")
    text = "engine" + (f":depth={depth}" if depth and info.kind == "reversi" else "")
    return _Wrapped(board_player(info.kind, text))

