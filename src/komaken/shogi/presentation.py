"""Shogi's presentation and record parts of its :class:`~komaken.games.GameSpec`: the board as
the web page draws it (kanji on pieces that point at the opponent, hands, kansuji ranks), moves
as from→to with a 成/不成 choice, Japanese move labels, and KIF/KI2/CSA/USI records.

>>> from komaken.shogi import Position
>>> pos = Position.start("minishogi")
>>> board = PRESENTATION.board(pos)
>>> board["cells"][0]
{'id': '5a', 'piece': {'label': '飛', 'side': 1, 'kind': 'R', 'promoted': False, 'letter': 'R'}}
>>> [c["piece"]["letter"] for c in PRESENTATION.board(Position.start("dobutsu"))["cells"][:3]]  # giraffe lion elephant
['G', 'L', 'E']
>>> board["ranks"], board["hands"]
(['一', '二', '三', '四', '五'], [[], []])
>>> PRESENTATION.move(Move.from_usi("2b2a+"))
{'from': '2b', 'to': '2a', 'drop': None, 'choice': '成', 'pass': False}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from komaken.errors import KomakenError
from komaken.game import Color, Game, Outcome
from komaken.presentation import Look, Presentation, grid_cells
from komaken.records import GameRecord, dumps, kif, parse, time_limit_header
from komaken.shogi._names import ENGLISH, PieceNames
from komaken.shogi.display import KANSUJI
from komaken.shogi.notation import japanese_marked
from komaken.shogi.position import Move, Position, Square

if TYPE_CHECKING:
    from komaken.games import Timing


def letter(names: PieceNames, kind: str) -> str:
    """The piece's Latin letter for the page's international set: the slot letter of a standard
    piece (``K R B G S N L P``), the first letter of a variant's own name otherwise (どうぶつしょうぎ's
    lion ``L``); a promoted piece keeps its unpromoted letter (the page marks it promoted)."""
    base = kind.removeprefix("+")
    own = names.english.get(base, base)
    return base if own == ENGLISH.get(base) else own[:1].upper()


def board(pos: Position) -> dict[str, Any]:
    width, height = pos.variant.width, pos.variant.height
    names = pos.variant.names
    kanji = names.kanji

    def square(col: int, row: int) -> tuple[str, dict[str, Any] | None]:
        sq = Square(width - col, row + 1)
        p = pos.piece_at((sq.file, sq.rank))
        piece = None if p is None else {"label": kanji[p.kind], "side": int(p.color), "kind": p.kind,
                                        "promoted": p.kind.startswith("+"), "letter": letter(names, p.kind)}
        return sq.usi(), piece

    kinds = {p.kind for _, p in pos.pieces()} | {k for c in (Color.BLACK, Color.WHITE) for k in pos.hand(c)}
    last = pos.peek()
    check = None
    if pos.is_check():
        check = next((sq.usi() for sq, p in pos.pieces() if p.kind == "K" and p.color is pos.turn), None)
    return {"width": width, "height": height, "look": Look().to_json(), "cells": grid_cells(width, height, square),
            "hands": [[{"kind": k, "label": kanji[k], "n": n, "letter": letter(names, k)}
                       for k, n in pos.hand(c).items()] for c in (Color.BLACK, Color.WHITE)],
            "hand_marks": ["☗", "☖"], "hand_empty": "なし",
            "files": [str(f) for f in range(width, 0, -1)], "ranks": KANSUJI[1:height + 1],
            "last": None if last is None else {"from": last.from_square.usi() if last.from_square else None,
                                               "to": last.to_square.usi()},
            "check": check, "check_label": "王手 check", "note": None,
            "moves": {k: movement(pos.variant.movement, k) for k in sorted(kinds)}}


def western(pos: Position, m: Move) -> str:
    """A move in Western (Hodges) notation, as lishogi's and English books write shogi, before it
    is played: the piece's letter (:func:`letter`; ``+R`` promoted), the origin square only when
    another piece of that kind could go there too, ``-`` a move, ``x`` a capture, ``*`` a drop,
    the square with its rank as a letter (``7f``, as USI and the international set's board name
    it), then ``+`` promoted or ``=`` not promoted where promoting was possible; ``▲``/``△`` first.

    >>> pos = Position.start("shogi")
    >>> [western(pos, Move.from_usi(t)) for t in ("7g7f", "5i6h", "3i4h")]
    ['▲P-7f', '▲K-6h', '▲S-4h']
    >>> pos = Position.from_sfen("4k4/9/9/9/9/9/9/1B7/4KG1G1 b P 1")
    >>> [western(pos, Move.from_usi(t)) for t in ("P*5e", "8h2b+", "8h2b", "4i3h", "2i1h")]
    ['▲P*5e', '▲B-2b+', '▲B-2b=', '▲G4i-3h', '▲G-1h']
    """
    mark = "▲" if pos.turn is Color.BLACK else "△"
    to = m.to_square.usi()
    if m.drop:
        return f"{mark}{letter(pos.variant.names, m.drop)}*{to}"
    frm = m.from_square
    assert frm is not None
    piece = pos.piece_at((frm.file, frm.rank))
    assert piece is not None
    kind = piece.kind
    legal = list(pos.legal_moves)
    rivals = {o.from_square for o in legal if o.from_square is not None and o.from_square != frm
              and o.to_square == m.to_square and (p := pos.piece_at((o.from_square.file, o.from_square.rank)))
              and p.kind == kind}
    name = ("+" if kind.startswith("+") else "") + letter(pos.variant.names, kind)
    origin = frm.usi() if rivals else ""
    sep = "x" if pos.piece_at((m.to_square.file, m.to_square.rank)) is not None else "-"
    other = Move.board_move(frm, m.to_square, not m.promotion)
    choice = ("+" if m.promotion else "=") if other in legal else ""
    return f"{mark}{name}{origin}{sep}{to}{choice}"


def movement(moves: Any, kind: str) -> dict[str, list[tuple[int, int]]]:
    """How a piece moves, for the international set's marks: its ``steps`` and ``slides`` as
    ``(x, y)`` on the screen for the side at the bottom (y -1: forward, x 1: to the right)."""
    steps, slides = moves.offsets(kind)
    return {"steps": [(-f, r) for f, r in steps], "slides": [(-f, r) for f, r in slides]}


def move(m: Move) -> dict[str, Any]:
    return {"from": m.from_square.usi() if m.from_square else None, "to": m.to_square.usi(), "drop": m.drop,
            "choice": "成" if m.promotion else "不成", "pass": False}


PRESENTATION = Presentation(
    board=board,
    size=lambda variant: (variant.width, variant.height),
    move=move,
    label=japanese_marked,
    western=western,
    side_names=("▲ sente", "△ gote"),
    choices={"成": "成 promote", "不成": "不成 keep"},
)


def write_record(pos: Game[Any], fmt: str, names: tuple[str | None, str | None], outcome: Outcome | None,
                 comment: str | None) -> str:
    """The game as KIF, KI2, CSA or USI (:mod:`komaken.records`)."""
    assert isinstance(pos, Position)
    rec = GameRecord.from_position(pos, black=names[0], white=names[1], result=outcome, comment=comment)
    return kif.dumps(rec) if fmt == "kif" else dumps(rec, fmt)  # type: ignore[arg-type]


def write_timed(pos: Game[Any], fmt: str, names: tuple[str | None, str | None], outcome: Outcome | None,
                timing: Timing) -> str:
    """The game as KIF, KI2, CSA or USI with each move's seconds (KIF ``( 0:12/00:01:30)``, CSA
    ``,T12``), the clocks as the 持ち時間 header (CSA ``$TIME_LIMIT``) and the start time."""
    assert isinstance(pos, Position)
    rec = GameRecord.from_position(pos, black=names[0], white=names[1], result=outcome, start_time=timing.started)
    times: list[float | None] = list(timing.times)[-len(rec.moves):] if rec.moves else []
    unknown: list[float | None] = [None] * (len(rec.moves) - len(times))
    rec.times = unknown + times
    limit = time_limit_header(timing.controls, fmt)
    if limit is not None:
        rec.headers["持ち時間"] = limit
    return kif.dumps(rec) if fmt == "kif" else dumps(rec, fmt)  # type: ignore[arg-type]


def write_commented(pos: Game[Any], fmt: str, names: tuple[str | None, str | None], outcome: Outcome | None,
                    comments: list[str | None], original: str | None = None) -> str:
    """The game as KIF, KI2 or CSA with ``comments[k]`` after move ``k`` (``[0]``: before the first
    move); USI holds no comment.  Given the ``original`` record the game was read from, everything
    it holds is kept — headers, times, the end (投了), side lines and its own comments, each
    followed by the new one."""
    assert isinstance(pos, Position)
    if fmt == "usi":
        raise KomakenError("a USI record holds no comments: write kif, ki2 or csa")
    rec = GameRecord.from_position(pos, black=names[0], white=names[1], result=outcome)
    if original is not None:
        first = parse(original, variant=pos.variant)
        if first.moves == rec.moves and first.initial_sfen == rec.initial_sfen:
            rec = first
    rec.comment = _joined(rec.comment, comments[0])
    notes = comments[1:len(rec.moves) + 1] + [None] * (len(rec.moves) + 1 - len(comments))
    rec.comments = [_joined(old, new) for old, new in zip(rec.comments, notes, strict=True)]
    return kif.dumps(rec) if fmt == "kif" else dumps(rec, fmt)  # type: ignore[arg-type]


def _joined(old: str | None, new: str | None) -> str | None:
    return "\n".join(c for c in (old, new) if c) or None


def read_record(text: str, variant: Any) -> tuple[Game[Any], tuple[str | None, str | None]]:
    """The position at the end of a KIF/KI2/CSA/USI record and the players' names."""
    try:
        rec = parse(text, variant=variant)
        return rec.position(), (rec.black, rec.white)
    except (IndexError, KeyError) as exc:
        raise KomakenError(f"record: {exc}") from None


__all__ = ["PRESENTATION", "read_record", "write_commented", "write_record"]
