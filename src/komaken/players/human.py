"""A human at the terminal: reads moves in USI (``7g7f``, ``P*5e``) or Japanese (``７六歩``,
``76歩``, ``同銀``, ``５五角打``, once :mod:`komaken.shogi.notation` can read them).

Commands: ``p`` lists the legal moves, ``undo`` takes back your last move (and the reply),
``resign`` (or ``投了``) resigns.  Anything else that is not a legal move gets a message and the
prompt again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from komaken.errors import IllegalMoveError, KomakenError
from komaken.game import Game
from komaken.players.base import DECLARE, RESIGN, PlayerAction


class UndoRequest(Exception):  # noqa: N818 - a request, not an error
    """Raised by :meth:`HumanPlayer.choose` when the user types ``undo``."""


def parse_move(position: Any, text: str) -> Any:
    """The legal move ``text`` names in ``position`` (USI, Japanese, or a board game's own
    notation); raises :class:`IllegalMoveError` with a message for the user otherwise."""
    t = text.strip()
    legal = list(position.legal_moves())
    by_text = {str(m): m for m in legal}
    if t in by_text:
        return by_text[t]
    if not hasattr(position, "sfen"):
        raise IllegalMoveError(f"{t!r} is not a legal move here (type p for the list)")
    from komaken.shogi.position import Move

    try:
        mv = Move.from_usi(t)
    except IllegalMoveError:
        mv = None
    if mv is not None:
        if mv in legal:
            return mv
        raise IllegalMoveError(f"illegal move {position._describe_illegal(mv)}")
    from komaken.shogi import notation

    parse = getattr(notation, "parse_japanese", None)
    if parse is None:
        raise IllegalMoveError(f"cannot read {t!r}: type a USI move such as 7g7f or P*5e (p lists them)")
    try:
        return parse(position, t)
    except KomakenError as exc:
        raise IllegalMoveError(f"{exc} (type p for the legal moves)") from None


def describe(position: Any, move: Any) -> str:
    """``▲７六歩(77) 7g7f`` for shogi (Japanese when available), ``str(move)`` otherwise."""
    if not hasattr(position, "sfen"):
        return str(move)
    try:
        from komaken.shogi.notation import japanese

        return f"{position.turn.mark}{japanese(position, move)} ({move.usi()})"
    except Exception:  # noqa: BLE001 - notation is optional decoration
        return f"{position.turn.mark}{move.usi()}"


class HumanPlayer:
    """Reads a move with ``read`` (default :func:`input`) and writes messages with ``write``."""

    def __init__(self, name: str = "human", read: Callable[[str], str] | None = None,
                 write: Callable[[str], None] | None = None) -> None:
        self.name = name
        self._read = read or input
        self._write = write or print

    def new_game(self, seed: int | None = None) -> None:
        pass

    def choose(self, position: Game[Any]) -> Any:
        while True:
            try:
                text = self._read(f"{self.name} > ").strip()
            except EOFError:
                return RESIGN
            if not text:
                continue
            low = text.lower()
            if low in ("p", "moves", "?"):
                moves = [m.usi() if hasattr(m, "usi") else str(m) for m in position.legal_moves()]
                self._write(" ".join(moves) if moves else "(no legal move)")
                continue
            if low in ("resign", "投了", "%toryo"):
                return RESIGN
            if low in ("undo", "待った"):
                raise UndoRequest
            if low in ("win", "declare", "宣言"):
                return DECLARE
            if low in ("help", "h"):
                self._write("a move (7g7f, P*5e, ７六歩, 同銀), p: legal moves, undo, resign")
                continue
            try:
                return parse_move(position, text)
            except IllegalMoveError as exc:
                self._write(str(exc))

    def close(self) -> None:
        pass


__all__ = ["HumanPlayer", "PlayerAction", "UndoRequest", "describe", "parse_move"]
