"""Chess games as text: PGN (SAN movetext; ``SetUp``/``FEN`` tags when the game did not start
at the start) and UCI ``position fen … moves …`` lines, written and read back.

>>> board = Board()
>>> for uci in ("e2e4", "e7e5"):
...     board.push(board.parse_move(uci))
>>> print(write_record(board, "uci", (None, None), None, None), end="")
position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4 e7e5
>>> read_record("1. e4 e5 2. Nf3 *", None)[0].fen()
'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2'
"""

from __future__ import annotations

import re
from typing import Any

from komaken.chess._board import Board
from komaken.errors import KomakenError
from komaken.game import Color, Game, Outcome

FORMATS = ("pgn", "uci")


def _start(pos: Board) -> Board:
    start = pos.copy()
    while start.ply:
        start.pop()
    return start


def _result(outcome: Outcome | None) -> str:
    if outcome is None:
        return "*"
    return "1/2-1/2" if outcome.winner is None else "1-0" if outcome.winner is Color.WHITE else "0-1"


def write_record(pos: Game[Any], fmt: str, names: tuple[str | None, str | None], outcome: Outcome | None,
                 comment: str | None) -> str:
    """The game as PGN or as a UCI line; ``names`` are (black, white); ``comment`` goes to PGN's
    ``Annotator``-free comment before the moves."""
    assert isinstance(pos, Board)
    if fmt == "uci":
        start = _start(pos)
        return f"position fen {start.fen()} moves {' '.join(m.uci() for m in pos.move_stack)}".rstrip() + "\n"
    return _pgn(pos, names, outcome, [comment], None)


def write_comments(pos: Game[Any], fmt: str, names: tuple[str | None, str | None], outcome: Outcome | None,
                   comments: list[str | None], original: str | None) -> str:
    """The game as PGN with ``comments[k]`` after move ``k`` (``comments[0]`` before the first
    move), each in braces as lichess writes its analysis (``{ [%eval 0.25,5] … }``); the tags of
    the ``original`` PGN the game was read from are kept.  A UCI line holds no comments."""
    assert isinstance(pos, Board)
    if fmt != "pgn":
        raise KomakenError(f"a {fmt} record holds no comments: write pgn")
    return _pgn(pos, names, outcome, comments, original)


def _pgn(pos: Board, names: tuple[str | None, str | None], outcome: Outcome | None,
         comments: list[str | None], original: str | None) -> str:
    start = _start(pos)
    result = _result(outcome)
    kept = dict(_TAG.findall(original)) if original and not original.lstrip().startswith("position") else {}
    tags = {"Event": "komaken", **kept, "White": names[1] or kept.get("White", "?"),
            "Black": names[0] or kept.get("Black", "?"), "Result": result}
    if start != Board():
        tags.update({"SetUp": "1", "FEN": start.fen()})
    notes = list(comments) + [None] * (len(pos.move_stack) + 1 - len(comments))
    words = [] if not notes[0] else [_comment(notes[0])]
    for i, m in enumerate(pos.move_stack):
        if start.turn is Color.WHITE or i == 0 or notes[i]:
            words.append(f"{start.fullmove_number}." if start.turn is Color.WHITE else f"{start.fullmove_number}...")
        words.append(start.san(m))
        start.push(m)
        note = notes[i + 1]
        if note:
            words.append(_comment(note))
    words.append(result)
    head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    return head + "\n" + _wrap(words) + "\n"


def _comment(text: str) -> str:
    return "{ " + " ".join(text.replace("}", ")").split()) + " }"


def _wrap(words: list[str], width: int = 79) -> str:
    lines, line = [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return "\n".join(lines + [line])


_TAG = re.compile(r'\[(\w+)\s+"([^"]*)"\]')
_NOISE = re.compile(r"\{[^}]*\}|\([^)]*\)|\$\d+|\d+\.(\.\.)?|\.\.\.|1-0|0-1|1/2-1/2|\*")


def read_record(text: str, variant: Any = None) -> tuple[Game[Any], tuple[str | None, str | None]]:
    """The position at the end of a PGN game (tags, SAN or UCI moves) or of a UCI
    ``position [startpos | fen …] moves …`` line, and the names (black, white) its tags give
    (:class:`KomakenError` naming the move at fault)."""
    t = text.strip()
    names: tuple[str | None, str | None] = (None, None)
    if t.startswith("position"):
        m = re.match(r"position\s+(startpos|fen\s+(.+?))(?:\s+moves\s+(.*))?\s*\Z", t, re.S)
        if not m:
            raise KomakenError("a UCI line reads 'position startpos moves e2e4 …' or 'position fen FEN moves …'")
        board, moves = Board.from_fen(m.group(2) or "startpos"), (m.group(3) or "").split()
    else:
        tags = dict(_TAG.findall(t))
        board = Board.from_fen(tags["FEN"]) if "FEN" in tags else Board()
        moves = _NOISE.sub(" ", _TAG.sub(" ", t)).split()
        names = (_name(tags.get("Black")), _name(tags.get("White")))
    for k, word in enumerate(moves, start=1):
        try:
            board.push(board.parse_move(word))
        except KomakenError as exc:
            raise KomakenError(f"move {k} ({word!r}): {exc}") from None
    return board, names


def _name(tag: str | None) -> str | None:
    return None if tag in (None, "", "?") else tag


__all__ = ["FORMATS", "read_record", "write_comments", "write_record"]
