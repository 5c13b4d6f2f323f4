"""The USI protocol server: lets shogi GUIs and referees drive the engine over stdin/stdout.

Commands: ``usi``, ``isready``, ``setoption name N [value V]``, ``usinewgame``,
``position startpos|sfen S [moves ...]``, ``go [btime wtime byoyomi binc winc movetime depth
nodes infinite ponder mate]``, ``stop``, ``ponderhit``, ``gameover``, ``quit``.  The options
are listed in :mod:`komaken.usi.options`, the ``go`` parameters in :mod:`komaken.usi.go`.

Each search runs in its own thread, so ``stop`` is heard while thinking.  One search at a time:
a ``go`` first ends the previous search — normally it has already sent ``bestmove`` and is only
winding down; if not, it is stopped and sends its ``bestmove`` — and then starts.  So every
``go`` is answered, in order, however fast the next one follows.  Bad input never ends the
process and never changes state half-way: the line is answered with ``info string error: ...``
and the engine stays as it was.
"""

from __future__ import annotations

import io
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from komaken.errors import KomakenError
from komaken.players.base import RESIGN
from komaken.players.thesis import ThesisPlayer
from komaken.shogi.engine.evalparams import defaults_notice
from komaken.shogi.engine.search import Alarm, Engine, Limits, SearchResult
from komaken.shogi.position import Position
from komaken.shogi.variant import Variant, load_variant
from komaken.usi.go import Go, parse_go
from komaken.usi.options import IGNORED, OPTIONS, TERM_OPTIONS, default_options, lookup, piece_values, skill

NAME = "komaken"
AUTHOR = "the komaken developers"


class _Search:
    """One search in its own thread.  :meth:`halt` may come from any thread at any time: once the
    search has returned (:meth:`finish`) it no longer touches the engine, so a late timer never
    stops the next search."""

    def __init__(self, halt_engine: Callable[[], None], wait: bool, pending: Go | None = None) -> None:
        self.halted = threading.Event()
        self.released = threading.Event()  # infinite/ponder: bestmove only once this is set
        if not wait:
            self.released.set()
        self.pending = pending  # go ponder: the real limits, applied at ponderhit
        self.side = 0  # who is to move in the searched position (for the ponderhit budget)
        self.thread: threading.Thread | None = None
        self.timer: Alarm | None = None
        self._halt_engine = halt_engine
        self._lock = threading.Lock()
        self._done = False

    def halt(self) -> None:
        self.halted.set()
        self.released.set()
        with self._lock:
            if not self._done:
                self._halt_engine()

    def finish(self) -> None:
        with self._lock:
            self._done = True


class UsiServer:
    """Reads commands with :meth:`handle` (one line each); writes answers through ``out``."""

    def __init__(self, variant: str | Variant = "shogi", out: Callable[[str], None] | None = None) -> None:
        self._write = out or _stdout
        self._out_lock = threading.Lock()
        self.closed = False  # the output went away: nobody is listening
        self.variant = load_variant(variant)
        self.options = default_options(self.variant.name)
        self.explicit: set[str] = set()
        self.engine, self._thesis = self._build(self.variant, self.options, self.explicit)
        self.position = Position.start(self.variant)
        self._search: _Search | None = None
        self._warm: set[tuple[str, bool]] = set()

    # ---- output ----------------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self._out_lock:
            try:
                self._write(line)
            except (OSError, ValueError):
                self.closed = True

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
            handler = getattr(self, "_cmd_" + cmd, None) if cmd.isidentifier() else None
            if handler is None:
                self.error(f"unknown command {cmd[:40]!r}")
            else:
                handler(args)
        except KomakenError as exc:
            self.error(str(exc))
        except Exception as exc:  # noqa: BLE001 - whatever a line does, the engine keeps answering
            self.error(f"{cmd[:40]!r} failed: {type(exc).__name__}: {exc}")
        return not self.closed

    def _cmd_usi(self, args: list[str]) -> None:
        self.send(f"id name {NAME}")
        self.send(f"id author {AUTHOR}")
        for name, opt in OPTIONS.items():
            self.send(opt.usi(self.options[name] if name == "UCI_Variant" else None))
        self.send("usiok")

    def _cmd_isready(self, args: list[str]) -> None:
        key = (self.variant.name, self._thesis is not None)
        if key not in self._warm:  # load the compiled kernels now, not during the first move
            start = Position.start(self.variant)
            Engine(self.variant, hash_mb=1).search(start, Limits(depth=1))
            if self._thesis is not None:
                ThesisPlayer(self.variant, depth=1).choose(start)
            self._warm.add(key)
        # one tiny search with the engine that will play: the first touches of its tables' pages
        # would otherwise cost the first move some 40 ms; then the first move read from a
        # `position ... moves` line (9 ms of kernel loading, before `go` starts the clock) and
        # the first search that keeps its tables
        start = Position.start(self.variant)
        self.engine.search(start, Limits(depth=1))
        start.push_usi(start.legal_moves()[0].usi())
        self.engine.search(start, Limits(depth=1), keep_tables=True)
        self.send("readyok")

    # ---- options ---------------------------------------------------------------------------
    def _cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise KomakenError("expected 'setoption name <id> [value <x>]'")
        rest = args[1:]
        i = rest.index("value") if "value" in rest else len(rest)
        self._set_option(" ".join(rest[:i]), " ".join(rest[i + 1:]))

    def _set_option(self, name: str, value: str) -> None:
        """Check, build, then store: a rejected value leaves every setting as it was."""
        opt = lookup(name)
        if opt is None:
            if name.lower() in (n.lower() for n in IGNORED):
                return  # standard GUI options that change nothing here
            raise KomakenError(f"unknown option {name[:60]!r}")
        text = opt.parse(value)
        options = {**self.options, opt.name: text}
        if opt.name == "UCI_Variant":  # a parameter file belongs to one variant: back to the new one's
            options["EvalFile"] = ""
        explicit = self.explicit | {opt.name}
        variant = load_variant(text) if opt.name == "UCI_Variant" else self.variant
        engine, thesis = self._build(variant, options, explicit)
        self.options, self.explicit, self.engine, self._thesis = options, explicit, engine, thesis
        if variant is not self.variant:
            self.variant = variant
            self.options["UCI_Variant"] = variant.name
            self.position = Position.start(variant)
            note = defaults_notice(variant)
            if note is not None:
                self.send(f"info string {note}")

    @staticmethod
    def _build(variant: Variant, o: dict[str, str], explicit: set[str]) -> tuple[Engine, ThesisPlayer | None]:
        # weights not set keep the parameter file's (EvalFile, else the variant's shipped one)
        terms = {t: int(o[k]) / 100.0 for k, t in TERM_OPTIONS.items() if k in explicit}
        terms["noise"] = float(o["Noise"])
        values = piece_values(o, explicit)
        engine = Engine(variant, values, terms, hash_mb=int(o["USI_Hash"]), seed=int(o["Seed"]),
                        overhead=float(o["MoveOverhead"]) / 1000.0, skill=skill(o), params=o["EvalFile"] or None)
        thesis = None
        if o["Thesis"] == "true":
            thesis = ThesisPlayer(variant, values, depth=int(o["Depth"]) or 4, seed=int(o["Seed"]),
                                  hand_quirk=o["HandQuirk"] == "true", noise=int(o["Noise"]) or 500)
        return engine, thesis

    # ---- game ------------------------------------------------------------------------------
    def _cmd_usinewgame(self, args: list[str]) -> None:
        self._stop_and_wait()
        self.engine.clear()
        if self._thesis is not None:
            self._thesis.new_game()

    def _cmd_position(self, args: list[str]) -> None:
        if not args:
            raise KomakenError("expected 'position startpos|sfen <sfen> [moves ...]'")
        i = args.index("moves") if "moves" in args else len(args)
        head, moves = args[:i], args[i + 1:]
        if head[0] == "startpos" and len(head) == 1:
            pos = Position.start(self.variant)
        elif head[0] == "sfen":
            pos = Position.from_sfen(" ".join(head[1:]), self.variant)
        else:
            raise KomakenError(f"expected 'startpos' or 'sfen <sfen>', got {' '.join(head)[:60]!r}")
        for k, text in enumerate(moves):
            try:
                pos.push_usi(text)
            except KomakenError as exc:
                self.position = pos
                raise KomakenError(f"move {k + 1} ({text[:20]}): {exc}; position set up to the move before") from None
        self.position = pos

    def _cmd_gameover(self, args: list[str]) -> None:
        self._stop_and_wait()

    # ---- searching -------------------------------------------------------------------------
    def _cmd_go(self, args: list[str]) -> None:
        t_go = time.perf_counter()  # the clock runs from here, not from when the search thread starts
        go = parse_go(args)  # a bad line is refused before anything else happens
        self._stop_and_wait()
        pos = self.position.copy()
        wait = go.infinite or go.ponder
        if go.mate is not None:
            s = _Search(lambda: None, wait=False)
            self._start(s, lambda: self._mate(s, pos, go))
        elif self._thesis is not None:
            thesis = self._thesis
            s = _Search(thesis.stop, wait, go if go.ponder else None)
            self._start(s, lambda: self._think_thesis(s, thesis, pos, go, t_go))
        else:
            engine = self.engine
            default_depth = int(self.options["Depth"]) or None
            limits = go.limits(default_depth, infinite=True if go.ponder else None)
            s = _Search(engine.stop, wait, go if go.ponder else None)
            multipv = int(self.options["MultiPV"])
            self._start(s, lambda: self._think(s, engine, pos, limits, t_go, multipv))

    def _start(self, s: _Search, target: Callable[[], None]) -> None:
        s.side = int(self.position.turn)
        s.thread = threading.Thread(target=target, name="usi-search", daemon=True)
        self._search = s
        s.thread.start()

    def _think(self, s: _Search, engine: Engine, pos: Position, limits: Limits, t_go: float,
               multipv: int = 1) -> None:
        def info(r: SearchResult) -> None:
            if r.rank <= multipv:  # a skill level searches more lines than were asked for
                self.send(r.usi_info())
            if s.halted.is_set():  # a stop that came before the search began: say it again
                engine.stop()

        overhead = engine.overhead
        engine.overhead = overhead + _since(t_go)  # time lost before the search began
        try:
            result = engine.search(pos, limits, info=info, multipv=multipv)
            answer = _bestmove(result)
        except Exception as exc:  # noqa: BLE001 - the engine must keep answering
            self.error(f"search failed: {type(exc).__name__}: {exc}")
            answer = _fallback(pos)
        finally:
            engine.overhead = overhead
        s.finish()
        s.released.wait()  # USI: after infinite/ponder, answer only once told to
        self.send(answer)

    def _think_thesis(self, s: _Search, thesis: ThesisPlayer, pos: Position, go: Go, t_go: float) -> None:
        side = int(pos.turn)
        overhead = self.engine.overhead + _since(t_go)
        budget = None if go.ponder or go.infinite else go.limits().budget(side, overhead)
        try:
            mv = thesis.choose(pos, movetime=None if budget is None else budget[1])
            self.send(f"info depth {thesis.depth} score cp {thesis.last_score} nodes {thesis.last_nodes}")
            answer = "bestmove resign" if mv is RESIGN else f"bestmove {mv.usi()}"  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001
            self.error(f"search failed: {type(exc).__name__}: {exc}")
            answer = _fallback(pos)
        s.finish()
        s.released.wait()
        self.send(answer)

    def _mate(self, s: _Search, pos: Position, go: Go) -> None:
        from komaken.shogi.engine.mate import solve

        assert go.mate is not None
        limit = None if go.mate <= 0 else max(0.001, go.mate / 1000.0 - self.engine.overhead)
        try:
            r = solve(pos, nodes=2_000_000 if go.mate == 0 else 10**12, time_limit=limit, stop=s.halted)
            status = r.status
        except Exception as exc:  # noqa: BLE001
            self.error(f"mate search failed: {type(exc).__name__}: {exc}")
            status = "unknown"
        s.finish()
        if status == "mate":
            self.send("checkmate " + " ".join(m.usi() for m in r.pv))
        else:
            self.send("checkmate nomate" if status == "nomate" else "checkmate timeout")

    def _cmd_stop(self, args: list[str]) -> None:
        self._stop_and_wait()

    def _cmd_ponderhit(self, args: list[str]) -> None:
        s = self._search
        if s is None or s.pending is None or s.thread is None or not s.thread.is_alive():
            return
        go, s.pending = s.pending, None
        budget = go.limits().budget(s.side, self.engine.overhead)
        s.released.set()  # from now on the search answers as soon as it ends
        if budget is not None:
            s.timer = Alarm(time.perf_counter() + budget[1], s.halt)

    def _stop_and_wait(self) -> None:
        """Stop the search (if any) and wait until it has sent its answer."""
        s, self._search = self._search, None
        if s is None or s.thread is None:
            return
        while s.thread.is_alive():
            s.halt()  # again and again: a stop may land before the search has begun
            s.thread.join(0.005)
        if s.timer is not None:
            s.timer.cancel()


def _bestmove(result: SearchResult) -> str:
    if result.declare:
        return "bestmove win"
    if result.move is None:
        return "bestmove resign"
    return f"bestmove {result.move.usi()}"


def _fallback(pos: Position) -> str:
    """After an internal failure: any legal move beats none."""
    try:
        moves = pos.legal_moves()
    except Exception:  # noqa: BLE001
        return "bestmove resign"
    return f"bestmove {moves[0].usi()}" if moves else "bestmove resign"


def _since(t: float) -> float:
    """Seconds since ``t`` (a ``time.perf_counter()`` reading)."""
    return time.perf_counter() - t


def _stdout(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def run(variant: str | Variant = "shogi", stdin: TextIO | None = None) -> None:
    """Serve USI on stdin/stdout until ``quit`` or end of input (bytes that are not UTF-8 are
    read as U+FFFD and answered like any other junk)."""
    if stdin is None:
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    server = UsiServer(variant)
    for line in stdin:
        if not server.handle(line):
            return
    server._stop_and_wait()
