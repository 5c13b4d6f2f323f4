"""The USI protocol server: lets shogi GUIs and referees drive the engine over stdin/stdout.

Commands: ``usi``, ``isready``, ``setoption name N [value V]``, ``usinewgame``,
``position startpos|sfen S [moves ...]``, ``go [btime wtime byoyomi binc winc movetime depth
nodes movestogo infinite ponder mate]``, ``stop``, ``ponderhit``, ``gameover``, ``quit``.  The
options are listed in :mod:`komaken.usi.options`, the ``go`` parameters in :mod:`komaken.usi.go`;
docs/usi.md has the states and what each command does in each.

The thread that reads the commands never waits on a search: each search runs in its own thread
(:mod:`komaken.usi.thinking`), which waits for the one before it to answer, so every ``go`` is
answered, in order, however fast the next one follows, and ``isready``, ``stop``,
``ponderhit`` and ``quit`` are heard whatever is thinking.  Bad input never ends the process and
never changes state half-way: the line is answered with ``info string error: ...`` and the
engine stays as it was — except a ``UCI_Variant`` that cannot be set up, after which the engine
refuses ``position`` and ``go`` until a variant that loads is set (it never plays a move on a
board the GUI did not ask for).
"""

from __future__ import annotations

import enum
import io
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from komaken.clock import StopLag, settle_garbage
from komaken.errors import KomakenError
from komaken.players.thesis import ThesisPlayer
from komaken.shogi.engine._context import NetArrays
from komaken.shogi.engine._evalfile import NetChoice, is_network_file, load_network
from komaken.shogi.engine.evalparams import defaults_notice
from komaken.shogi.engine.search import Engine, Limits, load_kernels
from komaken.shogi.position import Position
from komaken.shogi.variant import Variant, load_variant
from komaken.usi.go import Go, parse_go
from komaken.usi.options import (
    AT_GO,
    AT_POSITION,
    IGNORED,
    OPTIONS,
    TERM_OPTIONS,
    UNSUPPORTED,
    default_options,
    lookup,
    piece_values,
    skill,
)
from komaken.usi.thinking import Search, mate, think, think_thesis

NAME = "komaken"
AUTHOR = "the komaken developers"
#: how long ``quit`` (or the end of input) waits for a stopped search to send its answer
QUIT_GRACE = 2.0


class State(enum.Enum):
    """Where the USI conversation stands (docs/usi.md: what each command does in each)."""

    IDLE = "idle"
    SEARCHING = "searching"
    PONDERING = "pondering"
    STOPPING = "stopping"
    GAMEOVER = "after gameover"


def _network(path: str, variant: Variant) -> NetArrays:
    """The network ``EvalFile`` names, read once: setting another option rebuilds the engine and
    must not read a large file again (the file's size and time of change say whether it did)."""
    try:
        st = os.stat(path)
        key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns, variant.name)
    except OSError:
        key = None
    if key is None or _NET_CACHE.get("key") != key:
        net = load_network(path, variant)
        _NET_CACHE.clear()
        if key is not None:
            _NET_CACHE.update(key=key, net=net)
        return net
    cached: NetArrays = _NET_CACHE["net"]
    return cached


_NET_CACHE: dict[str, Any] = {}


class UsiServer:
    """Reads commands with :meth:`handle` (one line each); writes answers through ``out``
    (default: stdout), from the calling thread and from the search threads, one line at a time."""

    def __init__(self, variant: str | Variant = "shogi", out: Callable[[str], None] | None = None) -> None:
        self._write = out or _stdout
        self._out_lock = threading.Lock()
        self.closed = False  # the output went away: nobody is listening
        self.variant = load_variant(variant)
        self.options = default_options(self.variant)
        # what ``usi`` last listed as each default: a GUI sends these back until its user changes one
        self.listed = dict(self.options)
        self.explicit: set[str] = set()
        self.engine, self._thesis = self._build(self.variant, self.options, self.explicit)
        self.position = Position.start(self.variant)
        self.unset: str | None = None  # why no variant is set up (a UCI_Variant that failed)
        self._search: Search | None = None
        self._gameover = False
        self._fresh = False  # usinewgame came while a search ran: clear the tables before the next
        self._warm: set[tuple[str, bool]] = set()
        self._warm_engine: Engine | None = None
        #: how late this process's answers have come: an adaptive margin on every budget
        self.lag = StopLag()

    @property
    def state(self) -> State:
        s = self._search
        if s is not None and not s.answered.is_set():
            if s.stopping:
                return State.STOPPING
            return State.PONDERING if s.pondering else State.SEARCHING
        return State.GAMEOVER if self._gameover else State.IDLE

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
        """Handle one command line; ``False`` after ``quit`` (then call :meth:`shutdown`) or
        once nobody reads the output."""
        words = line.strip().split()
        if not words:
            return True
        cmd, args = words[0], words[1:]
        if cmd == "quit":
            self._halt()
            return False
        try:
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

    def shutdown(self, grace: float = QUIT_GRACE) -> bool:
        """Stop any search and wait up to ``grace`` seconds for its answer; whether every
        search thread has ended."""
        self._halt()
        s = self._search
        return s is None or s.join(grace)

    def _halt(self) -> None:
        if self._search is not None:
            self._search.halt()

    def _busy(self) -> bool:
        s = self._search
        return s is not None and not s.answered.is_set()

    def _cmd_usi(self, args: list[str]) -> None:
        self.send(f"id name {NAME}")
        self.send(f"id author {AUTHOR}")
        if self.unset is None:  # the listing shows the values the current variant plays
            self.listed = default_options(self.variant)
        for name, opt in OPTIONS.items():
            self.send(opt.usi(self.listed[name] if opt.kind != "string" else None))
        self.send(f"info string not supported: {UNSUPPORTED}")
        self.send("usiok")

    def _cmd_isready(self, args: list[str]) -> None:
        """``readyok`` at once while a search runs (the engine is loaded); when idle, first load
        the kernels and touch the tables the next search will use."""
        if not self._busy() and self.unset is None:
            try:
                self._warm_up()
            except Exception as exc:  # noqa: BLE001 - readyok is owed whatever happens
                self.error(f"isready: warming up failed: {type(exc).__name__}: {exc}")
            settle_garbage()
        self.send("readyok")

    def _warm_up(self) -> None:
        key = (self.variant.name, self._thesis is not None)
        if key not in self._warm:  # load the compiled kernels now, not during the first move
            load_kernels(self.variant, self.engine.net)
            if self._thesis is not None:
                ThesisPlayer(self.variant, depth=1).choose(Position.start(self.variant))
            self._warm.add(key)
        if self._warm_engine is self.engine:
            return  # a second warm-up would clear the tables the game has filled
        self._warm_engine = self.engine
        # one tiny search with the engine that will play: the first touches of its tables' pages
        # would otherwise cost the first move some 40 ms; then the first move read from a
        # `position ... moves` line (9 ms of kernel loading, before `go` starts the clock) and
        # the first search that keeps its tables
        start = Position.start(self.variant)
        self.engine.search(start, Limits(depth=1))
        start.push_usi(start.legal_moves()[0].usi())
        self.engine.search(start, Limits(depth=1), keep_tables=True)

    # ---- options ---------------------------------------------------------------------------
    def _cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise KomakenError("expected 'setoption name <id> [value <x>]'")
        rest = args[1:]
        i = rest.index("value") if "value" in rest else len(rest)
        name, value = " ".join(rest[:i]), " ".join(rest[i + 1:])
        opt = lookup(name)
        if opt is not None and opt.name == "UCI_Variant":
            self._set_variant(value)
        else:
            self._set_option(name, value)

    def _set_option(self, name: str, value: str) -> None:
        """Check, build, then store: a rejected value leaves every setting as it was."""
        opt = lookup(name)
        if opt is None:
            if name.lower() in (n.lower() for n in IGNORED):
                return  # standard GUI options that change nothing here
            raise KomakenError(f"unknown option {name[:60]!r}")
        options = {**self.options, opt.name: opt.parse(value)}
        # GUIs send every option at the default the ``usi`` listing gave: that asks for nothing, so
        # such a value leaves the setting to the parameter file or the net (a piece value or term
        # weight set counts only when it differs)
        at_default = options[opt.name] == opt.parse(self.listed[opt.name])
        explicit = self.explicit - {opt.name} if at_default else self.explicit | {opt.name}
        # with no variant there is nothing to build: checked, kept for the next one
        if self.unset is None and opt.name not in AT_GO + AT_POSITION:
            self.engine, self._thesis = self._build(self.variant, options, explicit)
        self.options, self.explicit = options, explicit

    def _set_variant(self, value: str) -> None:
        """A variant that cannot be set up, whatever the reason (an unknown name, a bad variant
        file, parameters that do not load), leaves no variant: ``position`` and ``go`` are
        refused until one that loads is set."""
        try:
            text = OPTIONS["UCI_Variant"].parse(value)
            variant = load_variant(text)
            # a parameter file or net is per variant: another variant starts from its own default,
            # the same one again (GUIs and referees set the variant at the start of each game) keeps it
            file = self.options["EvalFile"]
            kept, dropped = (file, "") if self.unset is None and variant == self.variant else ("", file)
            options = {**self.options, "UCI_Variant": variant.name, "EvalFile": kept}
            engine, thesis = self._build(variant, options, self.explicit | {"UCI_Variant"})
        except Exception as exc:  # noqa: BLE001 - any failure: the GUI's board is not the one set up here
            reason = exc if isinstance(exc, KomakenError) else f"{type(exc).__name__}: {exc}"
            self.unset = f"UCI_Variant {value.strip()[:80]!r} could not be set up ({reason})"
            raise KomakenError(f"option {self.unset}; no variant is set: position and go are refused until "
                               "UCI_Variant is set to one that loads") from None
        self.options, self.explicit = options, self.explicit | {"UCI_Variant"}
        self.engine, self._thesis, self.variant, self.unset = engine, thesis, variant, None
        self.position = Position.start(variant)
        if dropped:
            self.send(f"info string EvalFile {dropped} is not used for {variant.name}: set it again for this variant")
        note = defaults_notice(variant)
        if note is not None:
            self.send(f"info string {note}")

    @staticmethod
    def _build(variant: Variant, o: dict[str, str], explicit: set[str]) -> tuple[Engine, ThesisPlayer | None]:
        # weights not set keep the parameter file's (EvalFile, else the variant's shipped one)
        terms = {t: int(o[k]) / 100.0 for k, t in TERM_OPTIONS.items() if k in explicit}
        terms["noise"] = float(o["Noise"])
        values = piece_values(o, explicit)
        file = o["EvalFile"]
        # a network file; else the variant's default net unless UseNNUE is off or a parameter
        # file, piece values or term weights ask for the linear evaluation (Engine decides)
        net: NetChoice = "default" if o["UseNNUE"] == "true" else None
        if file and is_network_file(file):
            net = _network(file, variant)
        engine = Engine(variant, values, terms, hash_mb=int(o["USI_Hash"]), seed=int(o["Seed"]),
                        overhead=float(o["MoveOverhead"]) / 1000.0, skill=skill(o),
                        params=file if file and not is_network_file(file) else None, net=net)
        thesis = None
        if o["Thesis"] == "true":
            thesis = ThesisPlayer(variant, values, depth=int(o["Depth"]) or 4, seed=int(o["Seed"]),
                                  hand_quirk=o["HandQuirk"] == "true", noise=int(o["Noise"]) or 500)
        return engine, thesis

    def _rules(self) -> Variant:
        """The variant positions are set up with: ``MaxMovesToDraw`` N > 0 makes the game a draw
        after N plies from the position ``position`` starts from (the search scores a line that
        reaches it as a draw); 0 keeps the variant's own rule."""
        n = int(self.options["MaxMovesToDraw"])
        return replace(self.variant, max_plies=n) if n > 0 else self.variant

    # ---- game ------------------------------------------------------------------------------
    def _cmd_usinewgame(self, args: list[str]) -> None:
        self._halt()
        self._gameover = False
        if self._busy():  # the tables are the search's until it has answered
            self._fresh = True
        else:
            self._new_game(self.engine, self._thesis)

    @staticmethod
    def _new_game(engine: Engine, thesis: ThesisPlayer | None) -> None:
        engine.clear()
        if thesis is not None:
            thesis.new_game()

    def _cmd_position(self, args: list[str]) -> None:
        if self.unset is not None:
            raise KomakenError(f"position: refused: no variant is set ({self.unset})")
        if not args:
            raise KomakenError("expected 'position startpos|sfen <sfen> [moves ...]'")
        i = args.index("moves") if "moves" in args else len(args)
        head, moves = args[:i], args[i + 1:]
        if head[0] == "startpos" and len(head) == 1:
            pos = Position.start(self._rules())
        elif head[0] == "sfen":
            pos = Position.from_sfen(" ".join(head[1:]), self._rules())
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
        self._halt()
        self._gameover = True

    # ---- searching -------------------------------------------------------------------------
    def _cmd_go(self, args: list[str]) -> None:
        t_go = time.perf_counter()  # the clock runs from here, not from when the search thread starts
        go = parse_go(args)  # a bad line is refused before anything else happens
        if self.unset is not None:
            raise KomakenError(f"go: refused: no variant is set ({self.unset})")
        before = self._search
        if before is not None:
            before.halt()  # it answers first; this search waits for that
        s, job = self._job(go, self.position.copy(), t_go)
        self._gameover = False
        self._search = s
        s.start(job, self.send, before)

    def _job(self, go: Go, pos: Position, t_go: float) -> tuple[Search, Callable[[], str]]:
        """The :class:`Search` for ``go`` and the work its thread does."""
        overhead = float(self.options["MoveOverhead"]) / 1000.0 + self.lag.margin
        side, wait, pending = int(pos.turn), go.infinite or go.ponder, go if go.ponder else None
        timed = go.mate is None and go.limits().budget(side) is not None
        if timed and self.lag.margin >= 0.0005:  # a GUI's log shows why this answer comes early
            self.send(f"info string stop margin {self.lag.margin * 1000:.0f} ms: recent answers came late")
        engine, thesis = self.engine, self._thesis
        fresh, self._fresh = self._fresh, False
        if go.mate is not None:
            s = Search(lambda: None, wait=False, side=side, overhead=overhead)
            return s, lambda: mate(s, pos, go, self.send)
        if thesis is not None:
            s = Search(thesis.stop, wait=wait, pending=pending, side=side, overhead=overhead)

            def job() -> str:
                if fresh:
                    self._new_game(engine, thesis)
                return think_thesis(s, thesis, pos, go, t_go, self.send)
            return s, job
        limits = go.limits(int(self.options["Depth"]) or None, infinite=True if go.ponder else None)
        multipv, ponder_move = int(self.options["MultiPV"]), self.options["USI_Ponder"] == "true"
        s = Search(engine.stop, wait=wait, pending=pending, side=side, overhead=overhead, lag=self.lag,
                   stop_at=engine.stop_at)

        def search() -> str:
            if fresh:
                self._new_game(engine, None)
            return think(s, engine, pos, limits, t_go, self.send, multipv, ponder_move)
        return s, search

    def _cmd_stop(self, args: list[str]) -> None:
        self._halt()

    def _cmd_ponderhit(self, args: list[str]) -> None:
        s = self._search
        if s is not None and s.pondering:
            s.ponderhit()


def _stdout(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def run(variant: str | Variant = "shogi", stdin: TextIO | None = None,
        out: Callable[[str], None] | None = None) -> bool:
    """Serve USI on ``stdin`` (default: the process's, bytes that are not UTF-8 read as U+FFFD
    and answered like any other junk) until ``quit`` or the end of input; answers go to ``out``
    (default: stdout).  Returns whether every search thread has ended (a search that does not
    answer within :data:`QUIT_GRACE` of ``quit`` is left behind: the caller may exit anyway)."""
    if stdin is None:
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    server = UsiServer(variant, out)
    for line in stdin:
        if not server.handle(line):
            break
    return server.shutdown()
