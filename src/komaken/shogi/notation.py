"""Japanese move text as people write it: ``▲７六歩``, ``△同　銀``, ``５二金直``, ``２二角成(88)``.

:func:`japanese` writes the move about to be played in a position, in one of three styles:

``"ki2"``
    The federation's notation (KI2 files, newspapers).  No origin square: when two or more pieces
    of the same kind can reach the square the writer adds the marks of the 日本将棋連盟 rules —

    * motion first: 上 (moves forward), 引 (moves back), 寄 (moves sideways);
    * if that is not enough, position: 左 / 右 (the piece on the mover's left / right), 直 (the
      piece straight behind, moving straight forward);
    * both when needed: 左上, 右引 …;
    * 竜 and 馬 never take 直: the one moving straight is 左 or 右 of the other;
    * since 2015 the federation writes 直 for *every* straight-forward move with two or more
      candidates, even when 上 alone would do.

    打 is written only when a piece of the same kind on the board could also move there;
    成 / 不成 only when the move had the choice (成 also for a forced promotion).
``"kif"``
    KIF move text: destination, piece, 成/不成, then the origin in parentheses (``７六歩(77)``);
    drops always end in 打; 同 is written ``同　`` (with an ideographic space).
``"origin"``
    The KI2 text followed by the origin (``５二金直(53)``), drops always with 打: both the marks
    and where the piece came from, handy for display.

In every style a move to the square of the previous move is written 同 (``同　歩``).

:func:`parse_japanese` reads any of these back, leniently: half- or full-width digits, kanji
ranks (``７六``, ``76``, ``七六``), 玉/王, 竜/龍, 成銀/全, 不成/生, a leading ▲/△ and an
optional origin ``(77)``.  It raises :class:`IllegalMoveError` naming the text and the reason.

>>> from komaken.shogi import Move, Position
>>> pos = Position.start()
>>> japanese(pos, Move.from_usi("7g7f"))
'７六歩'
>>> parse_japanese(pos, "▲76歩").usi()
'7g7f'
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import TYPE_CHECKING, Literal

from komaken.errors import IllegalMoveError
from komaken.game import Color
from komaken.shogi._names import ENGLISH, KIND_OF_NAME
from komaken.shogi._names import KANJI_MOVE as NAMES
from komaken.shogi.square import Square

if TYPE_CHECKING:
    from komaken.shogi.move import Move
    from komaken.shogi.position import Position
    from komaken.shogi.variant import Variant

Style = Literal["ki2", "kif", "origin"]

_ZEN = "０１２３４５６７８９"
_KAN = "〇一二三四五六七八九"
_UP, _SIDE, _DOWN = 1, 0, -1
_LEFT, _CENTER, _RIGHT = 1, 0, -1
_V = {_UP: "上", _SIDE: "寄", _DOWN: "引"}
_H = {_LEFT: "左", _RIGHT: "右", _CENTER: "直"}


def square_text(file: int, rank: int) -> str:
    """``７六``: full-width file, kanji rank."""
    return _ZEN[file] + _KAN[rank]


def side_mark(color: Color) -> str:
    """``▲`` for black (sente), ``△`` for white (gote)."""
    return "▲" if color == Color.BLACK else "△"


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _vector(move: Move, turn: Color) -> tuple[int, int]:
    """(horizontal, vertical) of a board move from the mover's side: +1 = origin on the left /
    moving forward."""
    frm, to = move.from_square, move.to_square
    assert frm is not None
    s = 1 if turn == Color.BLACK else -1
    return _sign(frm.file - to.file) * s, _sign(frm.rank - to.rank) * s


def _kind(position: Position, move: Move) -> str:
    if move.drop:
        return move.drop
    assert move.from_square is not None
    piece = position.piece_at(move.from_square)
    if piece is None:
        raise IllegalMoveError(f"illegal move {move.usi()}: no piece on {move.from_square.usi()}")
    return piece.kind


def _candidates(position: Position, move: Move, kind: str) -> list[Move]:
    """Board moves (one per origin) of pieces of ``kind`` to ``move``'s square."""
    seen: dict[tuple[int, int], Move] = {}
    for m in position._legal_list(move.to_square.index):  # only the moves landing there are built
        if m.drop:
            continue
        frm = m.from_square
        assert frm is not None and m.piece is not None  # a legal move knows its piece
        if frm not in seen and m.piece.kind == kind:
            seen[frm] = m
    return list(seen.values())


def _can_promote(position: Position, move: Move) -> bool:
    """Whether the board move had a choice between promoting and not."""
    if move.drop:
        return False
    assert move.from_square is not None
    other = type(move).board_move(move.from_square, move.to_square, not move.promotion)
    return position.is_legal(other)


def marks(position: Position, move: Move) -> str:
    """The federation's disambiguation marks for a board move (``""``, ``上``, ``左上``, ``直``…),
    or ``打`` for a drop that a board piece of the same kind could also make."""
    kind = _kind(position, move)
    if move.drop:
        return "打" if _candidates(position, move, kind) else ""
    cands = _candidates(position, move, kind)
    if len(cands) < 2:
        return ""
    turn = position.turn
    x, y = _vector(move, turn)
    long_range = kind in ("+R", "+B")
    if x == _CENTER and y == _UP and not long_range:
        return "直"  # the 2015 rule: a straight-forward move among several is always 直
    vectors = [_vector(c, turn) for c in cands]
    if sum(1 for v in vectors if v[1] == y) == 1:
        return _V[y]
    if sum(1 for v in vectors if v[0] == x) == 1:
        if x == _CENTER:
            # 竜/馬 moving straight: 左 if the other one stands on its right, else 右
            assert move.from_square is not None
            f = move.from_square.file
            s = 1 if turn == Color.BLACK else -1
            others = [c.from_square.file for c in cands if c.from_square != move.from_square]  # type: ignore[union-attr]
            return "左" if all((o - f) * s < 0 for o in others) else "右"
        return _H[x]
    return (_H[x] if x != _CENTER else "") + _V[y]


def japanese(position: Position, move: Move, *, style: Style = "ki2", previous: Move | None = None) -> str:
    """Japanese text of ``move``, about to be played in ``position`` (see the module docs).

    ``previous`` is the move before it (for 同); by default the position's last move.
    """
    if style not in ("ki2", "kif", "origin"):
        raise ValueError(f"unknown notation style {style!r} (ki2, kif or origin)")
    if not position.is_legal(move):
        raise IllegalMoveError(f"illegal move {move.usi()} in {position.sfen()}")
    prev = previous if previous is not None else position.peek()
    kind = _kind(position, move)
    name = position.variant.names.kanji_move[kind]
    to = move.to_square
    if prev is not None and prev.to_square == to:
        dest = "同　" if style == "kif" or len(name) == 1 else "同"
    else:
        dest = square_text(to.file, to.rank)
    if move.drop:
        return dest + name + ("打" if style != "ki2" else marks(position, move))
    promo = "成" if move.promotion else "不成" if _can_promote(position, move) else ""
    frm = move.from_square
    assert frm is not None
    if style == "kif":
        return f"{dest}{name}{promo}({frm.file}{frm.rank})"
    text = dest + name + marks(position, move) + promo
    return text + (f"({frm.file}{frm.rank})" if style == "origin" else "")


def japanese_marked(position: Position, move: Move, *, style: Style = "ki2", previous: Move | None = None) -> str:
    """:func:`japanese` with the mover's ▲/△ in front: ``▲７六歩``, ``△同　銀``."""
    return side_mark(position.turn) + japanese(position, move, style=style, previous=previous)


# ---- reading ---------------------------------------------------------------------------------
_DIGIT = "1-9１-９一二三四五六七八九"
_NAME = "成香|成桂|成銀|成歩|成角|成飛|[歩香桂銀金角飛玉王と杏圭全馬龍竜]"


@cache
def _move_re(own: tuple[str, ...]) -> re.Pattern[str]:
    """The move-text pattern, with a variant's ``own`` piece names (longest first) before the standard ones."""
    names = "".join(re.escape(n) + "|" for n in sorted(own, key=len, reverse=True))
    return re.compile(
        rf"^(?P<side>[▲△☗☖])?\s*"
        rf"(?:(?P<sq>[{_DIGIT}][{_DIGIT}])\s*(?P<same2>[同仝])?|(?P<same>[同仝]))\s*"
        rf"(?P<piece>{names}{_NAME})"
        r"(?P<marks>[左右直上引寄行入]*)"
        r"(?P<prom>不成|生|成)?"
        r"(?P<marks2>[左右直上引寄行入]*)"
        r"(?P<drop>打)?"
        r"\s*(?:[(（]\s*(?P<origin>[0-9０-９]{2})\s*[)）])?\s*$"
    )


def looks_japanese(variant: Variant, text: str) -> bool:
    """Whether ``text`` has the shape of Japanese move text with ``variant``'s piece names
    (``７六歩``, ``同　銀``; どうぶつしょうぎ's ``２二ヒ``), legal or not."""
    return _move_re(variant.names.own).match(text.strip()) is not None


def _digit(ch: str) -> int:
    if ch in _KAN:
        return _KAN.index(ch)
    return int(unicodedata.digit(ch))


def parse_japanese(position: Position, text: str) -> Move:
    """The legal move that Japanese move ``text`` names in ``position``.

    Accepts ``７六歩``, ``76歩``, ``▲７六歩``, ``７六歩(77)``, ``同銀``, ``同　銀``, ``５五角打``,
    ``５二金左上``, ``２二角成``/``不成``/``生`` …  Raises :class:`IllegalMoveError` when the text
    is malformed, names no legal move, or could be more than one.
    """
    raw = text.strip()
    names = position.variant.names
    m = _move_re(names.own).match(raw)
    if not m:
        raise IllegalMoveError(f"move {raw!r} is not Japanese move text (e.g. ７六歩, 同　銀, ５五角打)")
    turn = position.turn
    if m["side"] and (m["side"] in "▲☗") != (turn == Color.BLACK):
        raise IllegalMoveError(f"move {raw} is marked {m['side']} but {side_mark(turn)} is to move")
    if m["sq"]:
        to = Square(_digit(m["sq"][0]), _digit(m["sq"][1]))
    else:
        prev = position.peek()
        if prev is None:
            raise IllegalMoveError(f"move {raw} says 同 but there is no previous move")
        to = prev.to_square
    W, H = position.variant.width, position.variant.height
    if not (1 <= to.file <= W and 1 <= to.rank <= H):
        raise IllegalMoveError(f"move {raw}: square {square_text(to.file, to.rank)} is off the {W}x{H} board")
    kind = names.reading[m["piece"]]
    where = square_text(to.file, to.rank)
    want_marks = (m["marks"] or "") + (m["marks2"] or "")
    promote = {"成": True, "不成": False, "生": False, None: None}[m["prom"]]
    english = names.english
    if promote and kind.startswith("+"):
        raise IllegalMoveError(f"move {raw}: a {english[kind]} cannot promote")

    target = to.index  # only the legal moves landing there are built as Move objects
    legal = position._legal_list(target)
    board = [mv for mv in legal if not mv.drop and mv.piece.kind == kind]  # type: ignore[union-attr]
    drops = [mv for mv in legal if mv.drop == kind]
    if m["origin"]:
        f, r = _digit(m["origin"][0]), _digit(m["origin"][1])
        if (f, r) == (0, 0):
            board, drops = [], drops
        else:
            board, drops = [mv for mv in board if mv.from_square == (f, r)], []
            if not board:
                raise IllegalMoveError(f"move {raw} is illegal: {_why_not_from(position, kind, Square(f, r), to)}")
    if m["drop"]:
        pool = drops
        if not pool:
            have = position.hand(turn).get(kind, 0)
            why = f"no {english[kind]} in hand" if not have else f"a {english[kind]} cannot be dropped on {where}"
            raise IllegalMoveError(f"move {raw} is illegal: {why}")
        return pool[0]
    if not board:
        if drops and promote is None and not want_marks:
            return drops[0]
        raise IllegalMoveError(f"move {raw} is illegal: no {english[kind]} can reach {where}")
    # promotion
    if promote is None:
        plain = [mv for mv in board if not mv.promotion]
        board = plain or board  # a forced promotion written without 成 is still understood
    else:
        board = [mv for mv in board if mv.promotion == promote]
        if not board:
            what = "promote" if promote else "stay unpromoted"
            raise IllegalMoveError(f"move {raw} is illegal: the {english[kind]} cannot {what} on {where}")
    if len(board) == 1 and not want_marks:
        return board[0]
    return _resolve_marks(position, board, want_marks, raw, kind, where)


def _why_not_from(position: Position, kind: str, frm: object, to: object) -> str:
    assert isinstance(frm, Square) and isinstance(to, Square)
    english = position.variant.names.english
    piece = position.piece_at(frm) if 1 <= frm.file <= position.variant.width else None
    if piece is None or piece.color != position.turn:
        return f"no {english[kind]} of the mover on {square_text(frm.file, frm.rank)}"
    if piece.kind != kind:
        return f"the piece on {square_text(frm.file, frm.rank)} is a {english[piece.kind]}, not a {english[kind]}"
    return f"the {english[kind]} on {square_text(frm.file, frm.rank)} cannot move to {square_text(to.file, to.rank)}"


def _resolve_marks(position: Position, cands: list[Move], want: str, raw: str, kind: str, where: str) -> Move:
    want = want.replace("行", "上").replace("入", "上")
    english = position.variant.names.english
    # the writer's own marks first: they are exact
    exact = [mv for mv in cands if sorted(marks(position, mv)) == sorted(want)]
    if len(exact) == 1:
        return exact[0]
    turn = position.turn
    pool = list(cands)
    for ch in want:
        vec = {id(mv): _vector(mv, turn) for mv in pool}
        if ch in _V.values():
            y = {v: k for k, v in _V.items()}[ch]
            kept = [mv for mv in pool if vec[id(mv)][1] == y]
        elif ch == "直":
            kept = [mv for mv in pool if vec[id(mv)] == (_CENTER, _UP)]
        else:
            x = _LEFT if ch == "左" else _RIGHT
            kept = [mv for mv in pool if vec[id(mv)][0] == x]
            if not kept and pool:
                # 竜/馬 moving straight: 左/右 compares the pieces with each other
                s = 1 if turn == Color.BLACK else -1
                key = [mv.from_square.file * s * x for mv in pool]  # type: ignore[union-attr]
                best = max(key)
                kept = [mv for mv, k in zip(pool, key, strict=True) if k == best]
        pool = kept
    if len(pool) == 1:
        return pool[0]
    n = len(cands)
    if not pool:
        raise IllegalMoveError(f"move {raw} is illegal: no {english[kind]} reaching {where} fits {want!r}")
    origins = "、".join(square_text(mv.from_square.file, mv.from_square.rank) for mv in pool)  # type: ignore[union-attr]
    raise IllegalMoveError(
        f"move {raw} is ambiguous: {n} {english[kind]}s can reach {where} (from {origins}); "
        "add 上, 引, 寄, 左, 右 or 直"
    )


__all__ = ["ENGLISH", "KIND_OF_NAME", "NAMES", "japanese", "japanese_marked", "marks", "parse_japanese",
           "side_mark", "square_text"]
