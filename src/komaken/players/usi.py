"""An external USI engine as a :class:`~komaken.players.base.Player` (driven over a subprocess).

>>> player = UsiPlayer("komaken usi", {"USI_Hash": "16"})  # doctest: +SKIP
"""

from __future__ import annotations

import shlex
import subprocess
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game
from komaken.players.base import DECLARE, RESIGN, PlayerAction
from komaken.shogi.position import Move, Position


class UsiPlayer:
    """Starts ``command`` once, sets ``options`` (``{"USI_Hash": "64"}``), and asks for each move
    with ``go`` plus ``go_args`` (default ``movetime 1000``)."""

    def __init__(self, command: str, options: dict[str, str] | None = None, go_args: str = "movetime 1000",
                 timeout: float = 60.0) -> None:
        self.command = command
        self.options = dict(options or {})
        self.go_args = str(self.options.pop("go", go_args))
        self.timeout = timeout
        self.name = "usi:" + command
        try:
            self._proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as exc:
            raise KomakenError(f"cannot start USI engine {command!r}: {exc}") from None
        self._send("usi")
        for line in self._until("usiok"):
            if line.startswith("id name "):
                self.name = line[8:].strip()
        variant = self.options.pop("UCI_Variant", None)
        if variant:
            self._send(f"setoption name UCI_Variant value {variant}")
        for k, v in self.options.items():
            self._send(f"setoption name {k} value {v}")
        self._ready()
        self._variant_sent = variant

    def _send(self, line: str) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise KomakenError(f"USI engine {self.command!r} went away: {exc}") from None

    def _until(self, prefix: str) -> list[str]:
        assert self._proc.stdout is not None
        lines = []
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise KomakenError(f"USI engine {self.command!r} closed its output")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def _ready(self) -> None:
        self._send("isready")
        self._until("readyok")

    def new_game(self, seed: int | None = None) -> None:
        self._send("usinewgame")
        self._ready()

    def choose(self, position: Game[Any]) -> Move | PlayerAction:
        if not isinstance(position, Position):
            raise KomakenError("USI engines play shogi variants only")
        if self._variant_sent is None and position.variant.name != "shogi":
            self._send(f"setoption name UCI_Variant value {position.variant.name}")
            self._variant_sent = position.variant.name
            self._ready()
        first = position.copy()
        moves = []
        while first.ply:
            moves.append(first.pop().usi())
        text = f"position sfen {first.sfen()}" + (" moves " + " ".join(reversed(moves)) if moves else "")
        self._send(text)
        self._send("go " + self.go_args)
        answer = self._until("bestmove")[-1].split()
        word = answer[1] if len(answer) > 1 else "resign"
        if word == "resign":
            return RESIGN
        if word == "win":
            return DECLARE
        return Move.from_usi(word)

    def close(self) -> None:
        try:
            self._send("quit")
            self._proc.wait(timeout=5)
        except Exception:  # noqa: BLE001 - best effort
            self._proc.kill()

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()


__all__ = ["UsiPlayer"]
