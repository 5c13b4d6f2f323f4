"""A human at the terminal: reads moves in the game's own notation — for shogi USI (``7g7f``,
``P*5e``) or Japanese (``７六歩``, ``76歩``, ``同銀``, ``５五角打``); ``f5`` in reversi; ``5`` in
tic-tac-toe.

Commands: ``p`` lists the legal moves, ``undo`` takes back your last move (and the reply),
``resign`` (or ``投了``) resigns.  Anything else that is not a legal move gets a message saying
why and the prompt again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from komaken.errors import IllegalMoveError
from komaken.game import Game
from komaken.match import UndoRequest
from komaken.players.base import DECLARE, RESIGN, PlayerAction

if TYPE_CHECKING:
    from komaken.games import GameSpec


def parse_move(position: Any, text: str) -> Any:
    """The legal move ``text`` names in ``position`` (the game's :attr:`GameSpec.parse_move`)."""
    from komaken.games import game_of

    return game_of(position).parse_move(position, text)


def describe(position: Any, move: Any) -> str:
    """``move`` for people: ``▲７六歩 (7g7f)`` in shogi, the move text otherwise."""
    from komaken.games import game_of

    return game_of(position).describe(position, move)


class HumanPlayer:
    """Reads a move with ``read`` (default :func:`input`) and writes messages with ``write``.

    ``game`` is the :class:`~komaken.games.GameSpec` whose notation to read (by default the
    game of the position it is asked about).
    """

    def __init__(self, name: str = "human", read: Callable[[str], str] | None = None,
                 write: Callable[[str], None] | None = None, game: GameSpec | None = None) -> None:
        self.name = name
        self.game = game
        self._read = read or input
        self._write = write or print

    def new_game(self, seed: int | None = None) -> None:
        pass

    def _spec(self, position: Any) -> GameSpec:
        from komaken.games import game_of

        return self.game or game_of(position)

    def choose(self, position: Game[Any]) -> Any:
        spec = self._spec(position)
        while True:
            try:
                text = self._read(f"{self.name} > ").strip()
            except EOFError:
                return RESIGN
            answer = self._command(text, position, spec)
            if answer is not None:
                return answer

    def _command(self, text: str, position: Game[Any], spec: GameSpec) -> Any:
        """The answer for one input line, or ``None`` to prompt again."""
        low = text.lower()
        if not text:
            return None
        if low in ("p", "moves", "?"):
            moves = [spec.move_text(m) for m in position.legal_moves()]
            self._write(" ".join(moves) if moves else "(no legal move)")
            return None
        if low in ("resign", "投了", "%toryo"):
            return RESIGN
        if low in ("undo", "待った"):
            raise UndoRequest(2)
        if low in ("win", "declare", "宣言"):
            return DECLARE
        if low in ("help", "h"):
            self._write("a move (7g7f, P*5e, ７六歩, 同銀 in shogi), p: legal moves, undo, resign")
            return None
        try:
            return spec.parse_move(position, text)
        except IllegalMoveError as exc:
            self._write(str(exc))
            return None

    def close(self) -> None:
        pass


__all__ = ["HumanPlayer", "PlayerAction", "UndoRequest", "describe", "parse_move"]
