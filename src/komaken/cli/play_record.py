"""Saving a game of ``komaken play``: ``-o FILE``, the ``save [FILE]`` command, and Ctrl-D.

The file's extension picks the format. A game's own record formats (chess: ``.pgn``, ``.uci``) are
written by its :class:`~komaken.games.GameSpec` as the page's downloads are; games whose registry
entry lists record formats (:attr:`komaken.games.GameSpec.record_formats`; shogi: ``kif``, ``ki2``,
``csa``, ``usi``) are written with :mod:`komaken.records` (``.kif``/``.ki2`` Shift_JIS,
``.kifu``/``.ki2u``/``.csa``/``.usi`` UTF-8). Every game can also be saved as a *move list*
(``.txt``): ``#`` comment lines naming the game, the players, the start position when it is not the
usual one, and the result, then the moves in the game's own notation on one line — for reversi and
tic-tac-toe the only form, read back by :func:`read_move_list`.

>>> from komaken.games import find_game
>>> ttt = find_game("tictactoe")
>>> pos = ttt.start(None)
>>> for sq in "519":
...     pos.push(ttt.parse_move(pos, sq))
>>> print(move_list_text(ttt, pos, ("human", "perfect")), end="")
# komaken tictactoe
# X: human
# O: perfect
5 1 9
>>> game, start, moves = read_move_list_text(move_list_text(ttt, pos, ("human", "perfect")))
>>> game.name, [str(m) for m in moves]
('tictactoe', ['5', '1', '9'])
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from komaken.clock import TimeControl
from komaken.errors import KomakenError
from komaken.game import Game, Outcome
from komaken.games import GameSpec, Timing, move_list_text, read_move_list_text
from komaken.records import Encoded, encode_text, format_of, save_bytes

if TYPE_CHECKING:
    from komaken.records import Encoded

MOVE_LIST = ".txt"


def record_kind(spec: GameSpec, path: str | Path) -> str:
    """The format ``path``'s extension asks for: a record format of the game (``kif``; chess's
    ``pgn``, as the page downloads it), or ``"moves"`` (a ``.txt`` move list); a
    :class:`KomakenError` naming what would work otherwise."""
    p = Path(path)
    if p.suffix.lower() == MOVE_LIST:
        return "moves"
    fmt = format_of(p)
    if fmt is not None and fmt in spec.record_formats:
        return fmt
    own = p.suffix.lower().removeprefix(".")
    if own in spec.text_formats and spec.record_io is not None:
        return own
    if spec.record_io is not None:
        allowed = ".kif .kifu .ki2 .ki2u .csa .usi" if "kif" in spec.record_formats else \
            " ".join("." + f for f in spec.text_formats)
        raise KomakenError(f"{p.name}: cannot save a {spec.name} game as {p.suffix or 'a file without extension'}"
                           f" (use {allowed}, or .txt for a move list)")
    raise KomakenError(f"{p.name}: {spec.name} games are saved as a move list: use a .txt file name")


def read_move_list(path: str | Path) -> tuple[GameSpec, Game[Any], list[Any]]:
    """:func:`read_move_list_text` of a file."""
    return read_move_list_text(Path(path).read_text(encoding="utf-8"))


class Recorder:
    """Writes the game being played: to ``path`` (``-o``) after every move and at the end, and
    wherever ``save FILE`` says.  The first ``save`` without a file and no ``-o`` picks
    ``GAME-YYYYmmdd-HHMMSS.kif`` (``.txt`` for games without record formats) and keeps it."""

    def __init__(self, spec: GameSpec, names: Sequence[str], path: str | None = None) -> None:
        self.spec, self.names = spec, tuple(names)
        self.path = path
        if path is not None:
            record_kind(spec, path)  # refuse a bad extension before the game starts
        self.position: Game[Any] | None = None
        self.times: list[float] = []
        #: the game's clock, written as the record's 持ち時間 (CSA ``$TIME_LIMIT``) header
        self.time_controls: tuple[TimeControl | None, TimeControl | None] = (None, None)
        self.started = datetime.now().astimezone().replace(microsecond=0)

    def default_path(self) -> str:
        ext = ".kif" if "kif" in self.spec.record_formats else MOVE_LIST
        return f"{self.spec.name}-{self.started:%Y%m%d-%H%M%S}{ext}"

    def save(self, path: str | None = None, outcome: Outcome | None = None, result: str | None = None) -> str:
        """Write the game; returns ``"saved 12 moves to game.kif"``."""
        if self.position is None:
            raise KomakenError("the game has not started")
        target = path or self.path or self.default_path()
        kind = record_kind(self.spec, target)
        if path is None and self.path is None:
            self.path = target

        encoded = self._encoded(kind, target, outcome, result)
        save_bytes(target, encoded.data)  # replaced whole: a save cut short never spoils the last one
        said = f"saved {self.position.ply} moves to {target}"
        return f"{said} (warning: {encoded.warning})" if encoded.warning else said

    def _encoded(self, kind: str, target: str, outcome: Outcome | None, result: str | None) -> Encoded:
        """The file's bytes: a move list in UTF-8, or a record as :func:`komaken.records.encode_text`
        gives them for the file's extension (``.kif``/``.ki2`` in Shift_JIS when every character
        fits, else UTF-8 with a warning)."""
        assert self.position is not None
        if kind == "moves":
            return Encoded(move_list_text(self.spec, self.position, self.names, result).encode("utf-8"), "UTF-8")
        if kind not in self.spec.record_formats:  # the game's own format (PGN), written by its GameSpec
            text = self.spec.write_game(self.position, kind, (self.names[0], self.names[1]), outcome, result)
            return Encoded(text.encode("utf-8"), "UTF-8")
        timing = Timing(list(self.times), self.time_controls, self.started)
        text = self.spec.write_game(self.position, kind, (self.names[0], self.names[1]), outcome, timing=timing)
        return encode_text(text, target)


__all__ = ["Recorder", "read_move_list", "read_move_list_text", "record_kind", "move_list_text"]
