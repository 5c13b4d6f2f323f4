"""Chess for the web page: the board as JSON, legal moves in the page's from→to model, SAN
labels, PGN and UCI records, and an engine that reports each depth while it thinks.

:mod:`komaken.web._games` calls these for positions of :mod:`komaken.chess`; nothing here is
used by another game.  Square ids are names (``"e4"``); a move's id is UCI (``"e7e8q"``).  A pawn
that reaches the last rank has four legal moves with the same from and to squares, told apart
by their ``choice`` (``Q``, ``R``, ``B``, ``N``): the page asks which.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from komaken.chess import Board, Move, square_name
from komaken.chess._move import PIECE_SYMBOLS
from komaken.errors import KomakenError
from komaken.game import Color
from komaken.web._games import Thinker

Info = Callable[[dict[str, Any]], None]

#: solid glyphs for both sides (the page fills them white or black)
_GLYPHS = {"p": "♟", "n": "♞", "b": "♝", "r": "♜", "q": "♛", "k": "♚"}
FORMATS = ("pgn", "uci")


def board_json(pos: Board) -> dict[str, Any]:
    """The 8×8 board from white's side (rank 8 at the top), dark squares ``shade``d."""
    cells = []
    for rank in range(7, -1, -1):
        for file in range(8):
            sq = rank * 8 + file
            p = pos.piece_at(sq)
            piece = None if p is None else {"label": _GLYPHS[PIECE_SYMBOLS[p.piece_type]], "side": int(p.color),
                                            "kind": p.symbol().upper()}
            cells.append({"id": square_name(sq), "piece": piece, "shade": (rank + file) % 2 == 0})
    m = pos.peek()
    last = None if m is None else {"from": square_name(m.from_square), "to": square_name(m.to_square)}
    return {"style": "chess", "width": 8, "height": 8, "cells": cells, "hands": None,
            "files": list("abcdefgh"), "ranks": [str(r) for r in range(8, 0, -1)],
            "last": last,
            "check": square_name(pos.king(pos.turn)) if pos.is_check() else None, "check_label": "check"}


def legal_json(pos: Board) -> list[dict[str, Any]]:
    """Every legal move as ``{"id", "from", "to", "drop", "promo", "choice", "pass"}``; castling
    is the king's two-square move and en passant the pawn's diagonal one, as the server generates them."""
    out = []
    for m in pos.legal_moves():
        choice = PIECE_SYMBOLS[m.promotion].upper() if m.promotion else None
        out.append({"id": m.uci(), "from": square_name(m.from_square), "to": square_name(m.to_square),
                    "drop": None, "promo": m.promotion is not None, "choice": choice, "pass": False})
    return out


def parse(text: str) -> Move:
    return Move.from_uci(text)


def label(pos: Board, move: Move) -> str:
    """``1. e4`` for white's move, ``1… e5`` for black's (SAN, with + and #)."""
    n = pos.fullmove_number
    return f"{n}. {pos.san(move)}" if pos.turn is Color.WHITE else f"{n}… {pos.san(move)}"


# ---- records -----------------------------------------------------------------------------------
def _start(pos: Board) -> Board:
    start = pos.copy()
    while start.ply:
        start.pop()
    return start


def record_text(pos: Board, fmt: str, names: tuple[str | None, str | None], result: str) -> str:
    """The game as PGN (SAN movetext; ``SetUp``/``FEN`` tags when it did not start at the
    start) or as a UCI ``position fen … moves …`` line.  ``names`` are (black, white)."""
    start = _start(pos)
    if fmt == "uci":
        return f"position fen {start.fen()} moves {' '.join(m.uci() for m in pos.move_stack)}".rstrip() + "\n"
    tags = [("Event", "komaken serve"), ("White", names[1] or "?"), ("Black", names[0] or "?"), ("Result", result)]
    if start != Board():
        tags += [("SetUp", "1"), ("FEN", start.fen())]
    words = []
    for i, m in enumerate(pos.move_stack):
        if start.turn is Color.WHITE or i == 0:
            words.append(f"{start.fullmove_number}." if start.turn is Color.WHITE else f"{start.fullmove_number}...")
        words.append(start.san(m))
        start.push(m)
    words.append(result)
    head = "".join(f'[{k} "{v}"]\n' for k, v in tags)
    return head + "\n" + _wrap(words) + "\n"


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


def from_record(text: str) -> Board:
    """The position at the end of a PGN game (tags, SAN or UCI moves) or of a UCI
    ``position [startpos | fen …] moves …`` line (:class:`KomakenError` naming the move at fault)."""
    t = text.strip()
    if t.startswith("position"):
        m = re.match(r"position\s+(startpos|fen\s+(.+?))(?:\s+moves\s+(.*))?\s*\Z", t, re.S)
        if not m:
            raise KomakenError("a UCI line reads 'position startpos moves e2e4 …' or 'position fen FEN moves …'")
        board, moves = Board.from_fen(m.group(2) or "startpos"), (m.group(3) or "").split()
    else:
        tags = dict(_TAG.findall(t))
        board = Board.from_fen(tags["FEN"]) if "FEN" in tags else Board()
        moves = _NOISE.sub(" ", _TAG.sub(" ", t)).split()
    for k, word in enumerate(moves, start=1):
        try:
            board.push(board.parse_move(word))
        except KomakenError as exc:
            raise KomakenError(f"move {k} ({word!r}): {exc}") from None
    return board


# ---- the engine --------------------------------------------------------------------------------
class ChessThinker(Thinker):
    """The registry's chess engine (α-β to ``depth`` plies), deepened one ply at a time so the
    page sees each finished depth: its score (centipawns, the mover's view), nodes and move."""

    def __init__(self, depth: int | None, seed: int) -> None:
        self.depth = depth or 3
        self.seed = seed
        self.name = f"chess-engine(depth={self.depth})"
        self._stop = threading.Event()

    def think(self, pos: Board, info: Info) -> Any:
        from komaken.chess import best_move

        self._stop.clear()
        move = None
        for d in range(1, self.depth + 1):
            r = best_move(pos, d, seed=self.seed + pos.ply)
            if r.move is None:
                return "resign"
            move = r.move
            info({"depth": d, "score": f"cp {r.score:+.0f}", "nodes": r.nodes, "pv": [label(pos, move)]})
            if self._stop.is_set():
                break
        return move

    def stop(self) -> None:
        self._stop.set()
