"""A human at the terminal: reads moves in the game's own notation — for shogi USI (``7g7f``,
``P*5e``) or Japanese (``７六歩``, ``76歩``, ``同銀``, ``５五角打``); ``f5`` (or ``F5``) in reversi;
``5`` in tic-tac-toe.

Commands: ``p`` lists the legal moves (in Japanese and USI for shogi), ``b`` shows the board,
``undo`` takes back your last move (and the reply), ``save [FILE]`` writes the game so far,
``quit`` (or Ctrl-D) stops the game unfinished (中断: nobody resigns, the game is saved),
``resign`` (or ``投了``) resigns, ``hint`` asks the game's engine for a move (``hint 3``: three
seconds of search; it says the move, the score from your side and the line).
Anything else that is not a legal move gets a message saying
why, with an example from the current board, and the prompt again.

Under a game clock (the game loop sets :attr:`HumanPlayer.time_left`) the prompt shows the time
left for the move, and reading stops when it is up: the loop then records the loss on time.
"""

from __future__ import annotations

import codecs
import os
import select
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from komaken.analysis import SECONDS_RANGE, hint
from komaken.clock import TimeLeft, display
from komaken.errors import IllegalMoveError, KomakenError
from komaken.game import Game
from komaken.games import game_of
from komaken.match import QuitRequest, UndoRequest
from komaken.players.base import DECLARE, RESIGN, Interrupted, PlayerAction

if TYPE_CHECKING:
    from komaken.games import Analyser, GameSpec

HELP = ("type a move ({examples}); p: legal moves, b: board, hint [SECONDS]: the engine's move, "
        "undo: take back a move pair, save [FILE]: save the game, quit: stop unfinished (saved), resign")
#: seconds the engine searches for a hint unless told
HINT_SECONDS = 1.0


def parse_move(position: Any, text: str) -> Any:
    """The legal move ``text`` names in ``position`` (the game's :attr:`GameSpec.parse_move`)."""
    return game_of(position).parse_move(position, text)


def describe(position: Any, move: Any) -> str:
    """``move`` for people: ``▲７六歩 (7g7f)`` in shogi, the move text otherwise."""
    return game_of(position).describe(position, move)


def move_list(position: Game[Any], spec: GameSpec, width: int = 96) -> str:
    """The legal moves, wrapped: ``１四飛 1e1d`` (Japanese and USI) where the game describes moves
    in words, else the move text alone.

    >>> from komaken.games import find_game
    >>> shogi = find_game("shogi")
    >>> print(move_list(shogi.start(shogi.variant("minishogi")), shogi, width=40))
    １四飛 1e1d  １三飛 1e1c  １二飛 1e1b
    １四角 2e1d  ３四角 2e3d  ４三角 2e4c
    ５二角 2e5b  ３四銀 3e3d  ２四銀 3e2d
    ４四銀 3e4d  ４四金 4e4d  ３四金 4e3d
    ５三歩 5d5c  ４四玉 5e4d
    """
    items = []
    for move in position.legal_moves():
        text, words = spec.move_text(move), spec.describe(position, move)
        words = words.removesuffix(f" ({text})").lstrip("▲△☗☖")
        items.append(text if words == text else f"{words} {text}")
    if not items:
        return "(no legal move)"
    cell = max(len(i) + (sum(ord(c) > 0x2E7F for c in i)) for i in items) + 2
    per_line = max(1, width // cell)
    lines = []
    for k in range(0, len(items), per_line):
        row = items[k:k + per_line]
        lines.append("".join(i + " " * (cell - len(i) - sum(ord(c) > 0x2E7F for c in i)) for i in row).rstrip())
    return "\n".join(lines)


class HumanPlayer:
    """Reads a move with ``read`` (default :func:`input`) and writes messages with ``write``.

    ``game`` is the :class:`~komaken.games.GameSpec` whose notation to read (by default the
    game of the position it is asked about).  ``save(path_or_None)`` writes the game so far and
    returns what to tell the player (``komaken play`` passes one; without it ``save`` says it
    cannot).  ``board(position)`` is the diagram the ``b`` command shows.
    """

    def __init__(self, name: str = "human", read: Callable[[str], str] | None = None,
                 write: Callable[[str], None] | None = None, game: GameSpec | None = None,
                 save: Callable[[str | None], str] | None = None) -> None:
        self.name = name
        self.game = game
        self._read = read or input
        self._write = write or print
        self.save = save
        self._analyser: Analyser | None = None
        #: the game clock as the loop tells it before each move (``None``: no clock)
        self.time_left: TimeLeft | None = None
        self._timed = read is None  # the terminal: a clock can stop the reading
        self._lines: _StdinLines | None = None

    def new_game(self, seed: int | None = None) -> None:
        pass

    def _spec(self, position: Any) -> GameSpec:
        return self.game or game_of(position)

    def _ask(self, position: Game[Any], deadline: float | None) -> str:
        if deadline is None:
            return self._read(f"{self.name} > ")
        left = deadline - time.monotonic()
        prompt = f"{self.name} [{display(max(0.0, left))}] > "
        if not self._timed:
            return self._read(prompt)
        if self._lines is None:
            self._lines = _StdinLines()
        return self._lines.read(prompt, left)

    def choose(self, position: Game[Any]) -> Any:
        spec = self._spec(position)
        t = self.time_left
        deadline = None
        if t is not None:
            mine = t.btime if int(position.turn) == 0 else t.wtime
            deadline = time.monotonic() + mine + t.byoyomi
        while True:
            try:
                text = self._ask(position, deadline).strip()
            except TimeoutError:
                self._write("")
                raise Interrupted from None  # the loop's clock says the time is up
            except EOFError:
                self._write("")
                raise QuitRequest("input closed (Ctrl-D): game stopped, nobody resigned") from None
            if deadline is not None and time.monotonic() > deadline:
                raise Interrupted  # an answer after the flag (a reader the clock could not stop)
            answer = self._command(text, position, spec)
            if answer is not None:
                return answer

    def _command(self, text: str, position: Game[Any], spec: GameSpec) -> Any:
        """The answer for one input line, or ``None`` to prompt again."""
        low = text.lower()
        word, _, rest = text.partition(" ")
        if not text:
            return None
        if low in ("p", "moves", "?"):
            self._write(move_list(position, spec))
            return None
        if low in ("b", "board"):
            self._write(str(position))
            return None
        if low in ("resign", "投了", "%toryo"):
            return RESIGN
        if low in ("undo", "待った"):
            raise UndoRequest(2)
        if low in ("quit", "exit", "中断"):
            raise QuitRequest("quit: game stopped, nobody resigned")
        if low in ("win", "declare", "宣言"):
            return DECLARE
        if word.lower() == "save":
            self._save(rest.strip() or None)
            return None
        if word.lower() in ("hint", "ヒント"):
            self._hint(position, spec, rest.strip())
            return None
        if low in ("help", "h"):
            self._write(HELP.format(examples=_examples(position, spec)))
            return None
        try:
            return spec.parse_move(position, text)
        except IllegalMoveError as exc:
            legal = [spec.move_text(m) for m in position.legal_moves()]
            hint = f" (legal here: {' '.join(legal)})" if 0 < len(legal) <= 12 and "type p" not in str(exc) else ""
            self._write(f"{exc}{hint}")
            return None

    def _save(self, path: str | None) -> None:
        if self.save is None:
            self._write("save: this game has no record to write")
            return
        try:
            self._write(self.save(path))
        except (KomakenError, OSError) as exc:
            self._write(f"save: {exc}")

    def _hint(self, position: Game[Any], spec: GameSpec, seconds: str) -> None:
        """The engine's move for ``position`` (searched on a copy: the game is not touched)."""
        if spec.analyser is None:
            self._write(f"hint: {spec.name} has no engine to suggest a move")
            return
        try:
            t = float(seconds) if seconds else HINT_SECONDS
        except ValueError:
            t = -1.0
        low, high = SECONDS_RANGE
        if not low <= t <= high:
            self._write(f"hint: {seconds!r} is not a number of seconds within {low:g}..{high:g} (e.g. hint 2)")
            return
        try:
            if self._analyser is None:
                self._analyser = spec.analyser(position)
            self._write(hint(spec, position.copy(), t, self._analyser).text())
        except KomakenError as exc:
            self._write(f"hint: {exc}")

    def close(self) -> None:
        if self._analyser is not None:
            self._analyser.close()
            self._analyser = None


class _StdinLines:
    """Lines of standard input read with a deadline (``select`` on the descriptor, so a prompt
    left unanswered ends when the clock does); :func:`input` is used where that cannot work."""

    def __init__(self) -> None:
        self.buffer = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.eof = False
        try:
            self.fd: int | None = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # replaced stdin (a test's StringIO)
            self.fd = None

    def read(self, prompt: str, timeout: float) -> str:
        if self.fd is None or os.name == "nt":
            return input(prompt)
        sys.stdout.write(prompt)
        sys.stdout.flush()
        deadline = time.monotonic() + max(0.0, timeout)
        while "\n" not in self.buffer:
            if self.eof:
                if self.buffer:
                    line, self.buffer = self.buffer, ""
                    return line
                raise EOFError
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if not select.select([self.fd], [], [], left)[0]:
                continue  # woken at the deadline (or a hair before it): look again
            chunk = os.read(self.fd, 4096)
            self.eof = not chunk
            self.buffer += self.decoder.decode(chunk, final=self.eof)
        line, self.buffer = self.buffer.split("\n", 1)
        return line.rstrip("\r")


def _examples(position: Game[Any], spec: GameSpec) -> str:
    moves = list(position.legal_moves())[:2]
    return ", ".join(spec.describe(position, m) for m in moves) or "no legal move"


__all__ = ["HumanPlayer", "PlayerAction", "QuitRequest", "UndoRequest", "describe", "move_list", "parse_move"]
