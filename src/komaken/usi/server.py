"""The USI protocol server: lets shogi GUIs and referees drive the engine over stdin/stdout.

Commands: ``usi``, ``isready``, ``setoption name N [value V]``, ``usinewgame``,
``position startpos|sfen S [moves ...]``, ``go [btime wtime byoyomi binc winc movetime depth
nodes infinite ponder mate]``, ``stop``, ``ponderhit``, ``gameover``, ``quit``.  The search runs
in a thread so ``stop`` is heard while thinking.  Bad input never ends the process: it is
answered with ``info string error: ...`` and the engine stays usable.

Options: ``USI_Hash`` (MB), ``Threads`` (1 only), ``UCI_Variant`` / ``Variant`` (``shogi``,
``minishogi``, ``judkins`` as Fairy-Stockfish names them too), ``Thesis`` (play as the thesis
replica), ``Depth``, ``Noise``, ``HandQuirk``, ``MoveOverhead`` (ms), ``Seed``, and one spin per
piece value (``Value_P``, ``Value_+R``, ...; ``ValueHand_P``...) plus ``EvalMobility``,
``EvalKingSafety``, ``EvalPsq``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TextIO

from komaken.errors import KomakenError
from komaken.shogi.engine.search import Engine, Limits, SearchResult
from komaken.shogi.engine.values import HAND_LETTERS, SEED_TABLE
from komaken.shogi.position import Position
from komaken.shogi.variant import BUILTIN, load_variant

NAME = "komaken"
AUTHOR = "the komaken developers"
_VARIANT_ALIASES = {"shogi": "shogi", "minishogi": "minishogi", "5x5": "minishogi", "judkins": "judkins",
                    "6x6": "judkins"}
_TERM_OPTIONS = {"EvalMobility": "mobility", "EvalKingSafety": "king_safety", "EvalPsq": "psq"}


class UsiServer:
    """Reads commands with :meth:`handle` (one line each); writes answers through ``out``."""

    def __init__(self, variant: str = "shogi", out: Callable[[str], None] | None = None) -> None:
        self._write = out or _stdout
        self._out_lock = threading.Lock()
        self.variant = load_variant(variant)
        self.options: dict[str, str] = {"USI_Hash": "16", "Threads": "1", "Thesis": "false", "Depth": "0",
                                        "Noise": "0", "HandQuirk": "false", "MoveOverhead": "30", "Seed": "0",
                                        "EvalMobility": "0", "EvalKingSafety": "100", "EvalPsq": "100"}
        self.values: dict[str, int] = {}
        self.engine = Engine(self.variant)
        self.position = Position.start(self.variant)
        self._thread: threading.Thread | None = None
        self._pending: Limits | None = None
        self._thesis = None

    # ---- output ----------------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self._out_lock:
            self._write(line)

    def error(self, message: str) -> None:
        self.send(f"info string error: {message}")

    # ---- dispatch --------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Handle one command line; ``False`` after ``quit``."""
        words = line.strip().split()
        if not words:
            return True
        cmd, args = words[0], words[1:]
        try:
            if cmd == "quit":
                self._stop_and_wait()
                return False
            handler = getattr(self, "_cmd_" + cmd, None)
            if handler is None:
                self.error(f"unknown command {cmd!r}")
            else:
                handler(args)
        except KomakenError as exc:
            self.error(str(exc))
        except (ValueError, IndexError) as exc:
            self.error(f"malformed {cmd!r} command: {exc}")
        return True

    def _cmd_usi(self, args: list[str]) -> None:
        self.send(f"id name {NAME}")
        self.send(f"id author {AUTHOR}")
        names = " ".join(f"var {n}" for n in BUILTIN)
        self.send(f"option name UCI_Variant type combo default {self.variant.name} {names}")
        self.send("option name USI_Hash type spin default 16 min 1 max 4096")
        self.send("option name Threads type spin default 1 min 1 max 1")
        self.send("option name Thesis type check default false")
        self.send("option name HandQuirk type check default false")
        self.send("option name Depth type spin default 0 min 0 max 100")
        self.send("option name Noise type spin default 0 min 0 max 10000")
        self.send("option name Seed type spin default 0 min 0 max 2147483647")
        self.send("option name MoveOverhead type spin default 30 min 0 max 5000")
        for name, default in (("EvalMobility", 0), ("EvalKingSafety", 100), ("EvalPsq", 100)):
            self.send(f"option name {name} type spin default {default} min 0 max 1000")
        for letter, v in SEED_TABLE.items():
            self.send(f"option name Value_{letter} type spin default {v} min -100000 max 100000")
        for letter in HAND_LETTERS:
            self.send(f"option name ValueHand_{letter} type spin default {SEED_TABLE[letter]} min -100000 max 100000")
        self.send("usiok")

    def _cmd_isready(self, args: list[str]) -> None:
        # compile / load the kernels now, not during the first move
        Engine(self.variant, hash_mb=1).search(Position.start(self.variant), Limits(depth=1))
        self.send("readyok")

    def _cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise ValueError("expected 'setoption name <id> [value <x>]'")
        rest = args[1:]
        if "value" in rest:
            i = rest.index("value")
            name, value = " ".join(rest[:i]), " ".join(rest[i + 1:])
        else:
            name, value = " ".join(rest), ""
        self._set_option(name, value)

    def _set_option(self, name: str, value: str) -> None:
        if name in ("UCI_Variant", "Variant"):
            key = _VARIANT_ALIASES.get(value.lower(), value)
            self.variant = load_variant(key)
            self._rebuild()
            self.position = Position.start(self.variant)
        elif name == "USI_Hash":
            self.options[name] = str(int(value))
            self.engine.set_hash(int(value))
        elif name == "Threads":
            if int(value) != 1:
                self.error("Threads: only 1 thread is supported")
        elif name in ("Thesis", "HandQuirk"):
            self.options[name] = "true" if value.lower() == "true" else "false"
            self._rebuild()
        elif name in ("Depth", "Noise", "Seed", "MoveOverhead") or name in _TERM_OPTIONS:
            self.options[name] = str(int(value))
            self._rebuild()
        elif name.startswith("ValueHand_"):
            self.values.setdefault("hand", {})  # type: ignore[arg-type]
            self.values["hand"][name[10:]] = int(value)  # type: ignore[index]
            self._rebuild()
        elif name.startswith("Value_"):
            self.values[name[6:]] = int(value)
            self._rebuild()
        elif name in ("USI_Ponder", "USI_OwnBook", "USI_ShowCurrLine", "USI_AnalyseMode", "UCI_AnalyseMode"):
            pass  # standard GUI options we accept and ignore
        else:
            self.error(f"unknown option {name!r}")

    def _rebuild(self) -> None:
        o = self.options
        terms = {t: int(o[k]) / 100.0 for k, t in _TERM_OPTIONS.items()}
        terms["noise"] = float(o["Noise"])
        self.engine = Engine(self.variant, self.values, terms, hash_mb=int(o["USI_Hash"]), seed=int(o["Seed"]),
                             overhead=float(o["MoveOverhead"]) / 1000.0)
        self._thesis = None
        if o["Thesis"] == "true":
            from komaken.players.thesis import ThesisPlayer

            self._thesis = ThesisPlayer(self.variant, self.values, depth=int(o["Depth"]) or 4, seed=int(o["Seed"]),
                                        hand_quirk=o["HandQuirk"] == "true", noise=int(o["Noise"]) or 500)

    def _cmd_usinewgame(self, args: list[str]) -> None:
        self._stop_and_wait()
        self.engine.clear()
        if self._thesis is not None:
            self._thesis.new_game()

    def _cmd_position(self, args: list[str]) -> None:
        if not args:
            raise ValueError("expected 'position startpos|sfen <sfen> [moves ...]'")
        if "moves" in args:
            i = args.index("moves")
            head, moves = args[:i], args[i + 1:]
        else:
            head, moves = args, []
        if head[0] == "startpos":
            pos = Position.start(self.variant)
        elif head[0] == "sfen":
            pos = Position.from_sfen(" ".join(head[1:]), self.variant)
        else:
            raise ValueError(f"expected startpos or sfen, got {head[0]!r}")
        for k, text in enumerate(moves):
            try:
                pos.push_usi(text)
            except KomakenError as exc:
                self.position = pos
                raise KomakenError(f"move {k + 1} ({text}): {exc}; position set up to the move before") from None
        self.position = pos

    def _cmd_go(self, args: list[str]) -> None:
        if self._thread is not None and self._thread.is_alive():
            raise KomakenError("already thinking (send 'stop' first)")
        kv: dict[str, float] = {}
        flags = set()
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("infinite", "ponder"):
                flags.add(a)
                i += 1
            elif a == "mate":
                flags.add("mate")
                if i + 1 < len(args) and args[i + 1] != "infinite":
                    kv["mate"] = float(args[i + 1])
                    i += 1
                i += 1
            elif a in ("btime", "wtime", "byoyomi", "binc", "winc", "movetime", "depth", "nodes", "movestogo"):
                kv[a] = float(args[i + 1])
                i += 2
            else:
                raise ValueError(f"unknown go parameter {a!r}")
        if "mate" in flags:
            self._start(lambda: self._mate(kv.get("mate")))
            return
        depth = int(kv["depth"]) if "depth" in kv else (int(self.options["Depth"]) or None)
        sec = {k: kv[k] / 1000.0 for k in ("movetime", "btime", "wtime", "byoyomi", "binc", "winc") if k in kv}
        limits = Limits(depth=depth, nodes=int(kv["nodes"]) if "nodes" in kv else None,
                        infinite="infinite" in flags, **sec)
        if "ponder" in flags:
            self._pending = limits
            limits = Limits(depth=depth, infinite=True)
        pos = self.position.copy()
        self._start(lambda: self._think(pos, limits, "infinite" in flags or "ponder" in flags))

    def _start(self, target: Callable[[], None]) -> None:
        self.engine._ctl[:] = 0
        self._thread = threading.Thread(target=target, daemon=True)
        self._thread.start()

    def _think(self, pos: Position, limits: Limits, wait_for_stop: bool) -> None:
        try:
            if self._thesis is not None:
                mv = self._thesis.choose(pos)
                self.send(f"info depth {self._thesis.depth} score cp {self._thesis.last_score} "
                          f"nodes {self._thesis.last_nodes}")
                self.send(f"bestmove {mv.usi() if hasattr(mv, 'usi') else 'resign'}")
                return
            result = self.engine.search(pos, limits, info=lambda r: self.send(r.usi_info()))
            if wait_for_stop:  # USI: after infinite/ponder, answer only once told to stop
                while not self.engine._ctl[1]:
                    threading.Event().wait(0.005)
            self.send(_bestmove(result))
        except Exception as exc:  # noqa: BLE001 - the engine must keep answering
            self.error(f"search failed: {exc}")
            self.send("bestmove resign")

    def _mate(self, limit_ms: float | None) -> None:
        from komaken.shogi.engine.mate import solve

        r = solve(self.position, nodes=2_000_000)
        if r.status == "mate":
            self.send("checkmate " + " ".join(m.usi() for m in r.pv))
        elif r.status == "nomate":
            self.send("checkmate nomate")
        else:
            self.send("checkmate timeout")

    def _cmd_stop(self, args: list[str]) -> None:
        self.engine.stop()
        if self._thread is not None:
            self._thread.join()

    def _cmd_ponderhit(self, args: list[str]) -> None:
        limits, self._pending = self._pending, None
        if limits is None:
            return
        budget = limits.budget(int(self.position.turn), self.engine.overhead)
        if budget is not None:
            self.engine.stop_after(budget[1])

    def _cmd_gameover(self, args: list[str]) -> None:
        self._stop_and_wait()

    def _stop_and_wait(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self.engine.stop()
            self._thread.join()


def _bestmove(result: SearchResult) -> str:
    if result.declare:
        return "bestmove win"
    if result.move is None:
        return "bestmove resign"
    return f"bestmove {result.move.usi()}"


def _stdout(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def run(variant: str = "shogi", stdin: TextIO | None = None) -> None:
    """Serve USI on stdin/stdout until ``quit`` or end of input."""
    server = UsiServer(variant)
    source = stdin or sys.stdin
    for line in source:
        if not server.handle(line):
            return
    server._stop_and_wait()
