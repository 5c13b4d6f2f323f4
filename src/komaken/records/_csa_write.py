"""Writing CSA (V2.2) records: :func:`dumps` and :func:`dumps_all` (see :mod:`komaken.records.csa`)."""

from __future__ import annotations

import re

from komaken.errors import KomakenError
from komaken.game import Color, Outcome, Termination
from komaken.records._csa_tables import _JAPANESE_KEYS, CSA_NAME
from komaken.records.record import GameRecord, check_seconds
from komaken.shogi.notation import parse_japanese
from komaken.shogi.position import Move, Position
from komaken.shogi.variant import SHOGI


def _ending(result: Outcome, to_move: Color) -> str:
    t = result.termination
    mover_wins = None if result.winner is None else result.winner == to_move
    if t in (Termination.ILLEGAL_MOVE, Termination.PERPETUAL_CHECK):
        if mover_wins:
            return "%+ILLEGAL_ACTION" if to_move == Color.WHITE else "%-ILLEGAL_ACTION"
        return "%ILLEGAL_MOVE"
    words = {Termination.RESIGNATION: "TORYO", Termination.CHECKMATE: "TSUMI", Termination.NO_LEGAL_MOVES: "TSUMI",
             Termination.KING_CAPTURED: "TSUMI", Termination.TRY: "TSUMI",
             Termination.REPETITION: "SENNICHITE", Termination.IMPASSE: "JISHOGI",
             Termination.MAX_PLIES: "MAX_MOVES", Termination.DECLARATION: "KACHI",
             Termination.TIME_FORFEIT: "TIME_UP"}
    return "%" + words.get(t, "CHUDAN")


def _position_lines(record: GameRecord) -> list[str]:
    pos = record.initial_position()
    side = "+" if pos.turn == Color.BLACK else "-"
    if record.variant.name == "shogi":
        standard = {(sq.file, sq.rank): p for sq, p in Position.start(SHOGI).pieces()}
        here = {(sq.file, sq.rank): p for sq, p in pos.pieces()}
        no_hands = not pos.hand(Color.BLACK) and not pos.hand(Color.WHITE)
        if no_hands and all(standard.get(k) == p for k, p in here.items()):
            gone = sorted(k for k in standard if k not in here)
            removed = "".join(f"{f}{r}{CSA_NAME[standard[(f, r)].kind]}" for f, r in gone)
            return ["PI" + removed, side]
    out = []
    for r in range(1, record.variant.height + 1):
        row = f"P{r}"
        for f in range(record.variant.width, 0, -1):
            p = pos.piece_at((f, r))
            row += " * " if p is None else ("+" if p.color == Color.BLACK else "-") + CSA_NAME[p.kind]
        out.append(row)
    for color, mark in ((Color.BLACK, "+"), (Color.WHITE, "-")):
        hand = pos.hand(color)
        if hand:
            out.append(f"P{mark}" + "".join(f"00{CSA_NAME[k]}" * n for k, n in hand.items()))
    return out + [side]


def move_text(pos: Position, move: Move) -> str:
    """CSA text of ``move`` about to be played in ``pos``: ``+7776FU``, ``-0055KA``, ``+8822UM``."""
    sign = "+" if pos.turn == Color.BLACK else "-"
    to = move.to_square
    if move.drop:
        return f"{sign}00{to.file}{to.rank}{CSA_NAME[move.drop]}"
    frm = move.from_square
    assert frm is not None
    kind = pos.piece_at(frm).kind  # type: ignore[union-attr]
    kind = "+" + kind if move.promotion else kind
    return f"{sign}{frm.file}{frm.rank}{to.file}{to.rank}{CSA_NAME[kind]}"


_ENGINE_RE = re.compile(r"^\*.*?評価値\s*(-?[0-9]{1,9})(?:.*?読み筋\s*(.*))?$")
_SCORE_RE = re.compile(r"^#評価値=([+-]?[0-9]{1,9})$")
_PV_RE = re.compile(r"^#読み筋=(.*)$")
_MARK_RE = re.compile(r"(?=[▲△☗☖])")


def _comment_lines(pos: Position, comment: str) -> list[str]:
    """A move's comment as CSA ``'`` lines; KIF engine lines (``*対局 … 評価値 113 読み筋 △３四歩(33)
    …``, after the move played in ``pos``) become CSA's ``'** 113 -3334FU …``.  ShogiHome's engine
    comment (``#評価値=113`` and ``#読み筋=△３四歩▲２六歩``) stays as it is, for ShogiHome, and gains
    that ``'**`` line after it, for the programs that read floodgate's."""
    out = []
    score: str | None = None
    for line in comment.split("\n"):
        m = _ENGINE_RE.match(line)
        if m is None:
            out.append("'" + line)
            s, pv = _SCORE_RE.match(line), _PV_RE.match(line)
            if s is not None:
                score = str(int(s[1]))
            elif pv is not None and score is not None:
                out.append("'** " + " ".join([score, *_csa_moves(pos, _MARK_RE.split(pv[1]))]))
            continue
        out.append("'** " + " ".join([m[1], *_csa_moves(pos, (m[2] or "").split())]))
    return out


def _csa_moves(pos: Position, tokens: list[str]) -> list[str]:
    """The Japanese moves ``tokens`` played from ``pos`` in CSA, as far as they are legal."""
    words, p = [], pos.copy()
    for token in tokens:
        if not token.strip():
            continue
        try:
            mv = parse_japanese(p, token.strip())
        except KomakenError:
            break
        words.append(move_text(p, mv))
        p.push(mv)
    return words


def dumps(record: GameRecord) -> str:
    """The record as CSA V2.2 text."""
    out = ["V2.2"]
    if record.black is not None:
        out.append(f"N+{record.black}")
    if record.white is not None:
        out.append(f"N-{record.white}")
    for key, value in record.headers.items():
        if key in ("CSA",):
            continue
        out.append(f"${_JAPANESE_KEYS.get(key, key)}:{value}")
    if record.start_time:
        out.append(f"$START_TIME:{record.start_time.strftime('%Y/%m/%d %H:%M:%S')}")
    if record.comment:
        out += ["'" + c for c in record.comment.split("\n")]
    out += _position_lines(record)
    pos = record.initial_position()
    for i, (move, t, comment) in enumerate(zip(record.moves, record.times, record.comments, strict=True)):
        out.append(move_text(pos, move))
        if t is not None:
            t = check_seconds(t, f"move {i + 1}")
            out.append("T" + (f"{t:.3f}".rstrip("0").rstrip(".") or "0"))  # ms precision, never 1e-05
        pos.push(move)
        if comment:
            out += _comment_lines(pos, comment)
    if record.illegal_move:
        out.append(f"'illegal move: {record.illegal_move.strip()}")
    if record.result is not None:
        out.append(_ending(record.result, pos.turn))
    if record.end_comment:
        out += ["'" + c for c in record.end_comment.split("\n")]
    return "\n".join(out) + "\n"


def dumps_all(records: list[GameRecord]) -> str:
    """Several games in one CSA text, separated by ``/``."""
    return "/\n".join(dumps(r) for r in records)


__all__ = ["dumps", "dumps_all", "move_text"]
