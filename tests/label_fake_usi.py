"""A scripted USI engine for the labelling tests (written out as a script, no komaken import).

:func:`fake_label_engine` writes it with its two settings in front:

* ``MODE`` — how it answers ``go``: ``"log"`` scores every position ``cp`` = the number of moves
  after ``position … moves``; ``"none"`` never scores; ``"some"`` scores every other position and
  resigns unscored every fourth; ``"resign"`` resigns unscored; ``"stateful"`` scores ``cp`` =
  moves + 1000 × the searches since its process started or its ``Threads`` option was last set
  (a Stockfish-family engine keeps per-thread tables across ``usinewgame``; only new threads forget);
* ``LOG`` — where it appends each ``position`` line (and each ``setoption`` line to
  ``LOG + ".options"``), or ``None``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_BODY = '''
import sys
log = open(LOG, "a") if LOG else None
moves = n = since = 0
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "usi":
        print("id name fake-" + MODE, flush=True)
        if MODE == "stateful":
            print("option name Threads type spin default 1 min 1 max 8", flush=True)
        print("usiok", flush=True)
    elif cmd[0] == "isready":
        print("readyok", flush=True)
    elif cmd[0] == "setoption":
        if LOG:
            open(LOG + ".options", "a").write(line)
        if cmd[1:3] == ["name", "Threads"]:
            since = 0
    elif cmd[0] == "position":
        if log:
            log.write(line)
            log.flush()
        moves = len(cmd) - cmd.index("moves") - 1 if "moves" in cmd else 0
    elif cmd[0] == "go":
        n += 1
        if MODE == "stateful":
            print(f"info depth 1 score cp {moves + 1000 * since} pv 1a1b", flush=True)
            since += 1
        if MODE == "log" or (MODE == "some" and n % 2 == 0):
            print(f"info depth 1 score cp {moves if MODE == 'log' else 7} pv 1a1b", flush=True)
        resign = MODE == "resign" or (MODE == "some" and n % 4 == 1)
        print("bestmove resign" if resign else "bestmove 1a1b", flush=True)
    elif cmd[0] == "quit":
        break
'''


def fake_label_engine(folder: Path, mode: str, log: Path | None = None, name: str = "engine.py") -> list[str]:
    """Write the engine into ``folder`` as ``name`` (executable, with a ``#!`` line) and return
    the command that starts it."""
    script = folder / name
    script.write_text(f"#!{sys.executable}\nMODE = {mode!r}\nLOG = {str(log) if log else None!r}\n" + _BODY)
    script.chmod(0o755)
    return [sys.executable, str(script)]
