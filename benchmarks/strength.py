"""Refereed matches of ``komaken usi`` against Fairy-Stockfish (Debian's ``fairy-stockfish``) or gpsshogi.

    python benchmarks/strength.py --size 5 --skill 2 --games 40          # 5x5, byoyomi 200 ms
    python benchmarks/strength.py --size 9 --skill 0 5 --games 10        # 9x9, byoyomi 300 ms
    python benchmarks/strength.py --skill 10 --option EvalFile=my.toml   # komaken with other parameters
    python benchmarks/strength.py --skill 10 --games 100 --seed 1        # another set of openings
    python benchmarks/strength.py --skill 20 --quiet --seed 4141         # quiet 4-ply openings
    python benchmarks/strength.py --size 9 --opponent gpsshogi --byoyomi 1 --margin 1 --real --games 40

Both engines run as USI subprocesses at the same time on the same machine.  Each game starts
from a fixed opening (a seeded set of two-ply openings, each played with both colours; colours
alternate game by game) and is played with ``go btime 0 wtime 0 byoyomi B`` every move.  The
referee is an independent library: cshogi on 9×9; on 5×5 minishogilib, cross-checked with
komaken's rules (both Fairy-Stockfish and minishogilib allow some 打ち歩詰め, which komaken
forbids: such a move loses as illegal, and each disagreement is counted).  A reply later than
byoyomi + ``--margin`` (0.05 s) loses on time; an engine silent for 10 s more is killed, loses on time
and is restarted.  Printed per Skill Level: W/L/D for komaken, its score with a 95% interval
and the Elo difference, illegal moves and time losses of each side, and each engine's longest
reply.  If the opponent is missing the script says how to install it.

``--opponent gpsshogi`` plays Debian's ``gpsshogi`` (``/usr/games/gpsusi``, 9×9 only, one thread,
its opening book as shipped) instead; it has no skill levels.  It overruns a byoyomi of 1 s by up
to about 0.5 s whatever it is told, so its matches need a wider ``--margin``, which can only
favour it.  ``--real`` draws the openings from real games, as ``benchmarks/arena.py`` does: distinct
16- and 24-move prefixes (``--plies``) of the record corpus's games from the normal start.

``--engine fairy-stockfish`` seats Fairy-Stockfish at full strength where komaken sits (any USI
command works): the same opponent, openings, referee and clock then say what a target asks of
an engine, e.g. what the reference engine itself scores against gpsshogi.  The lines it prints
name the seated engine.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import sys
import time
from dataclasses import dataclass, field

from komaken.shogi import Position
from komaken.usi.client import EngineError, EngineTimeoutError, UsiProcess

KOMAKEN = [sys.executable, "-m", "komaken", "usi"]
VARIANT = {5: "minishogi", 6: "judkins", 9: "shogi"}  # quiet_openings draws on each; the referee plays 5x5 and 9x9
BYOYOMI = {5: 200, 9: 300}
MAX_PLIES = 400  # a draw, should a game get there


@dataclass
class Tally:
    wins: int = 0
    losses: int = 0
    draws: int = 0
    illegal: dict[str, int] = field(default_factory=lambda: {"komaken": 0, "peer": 0})
    time_losses: dict[str, int] = field(default_factory=lambda: {"komaken": 0, "peer": 0})
    max_reply: dict[str, float] = field(default_factory=lambda: {"komaken": 0.0, "peer": 0.0})
    #: every reply time (ms, from writing ``go`` to reading ``bestmove``) of each engine, in order
    replies: dict[str, list[float]] = field(default_factory=lambda: {"komaken": [], "peer": []})
    #: and when each ``go`` was written (``time.perf_counter()``, the same clock as an engine's on Linux)
    sent: dict[str, list[float]] = field(default_factory=lambda: {"komaken": [], "peer": []})
    disagreements: int = 0
    plies: int = 0


class Referee:
    """Legality and the end of the game, by an independent library (komaken only cross-checks on 5x5)."""

    def __init__(self, size: int, opening: list[str]) -> None:
        self.size = size
        self.pos = Position.start(VARIANT[size])
        if size == 9:
            import cshogi

            self.cshogi = cshogi
            self.board = cshogi.Board()
        else:
            import minishogilib

            self.board = minishogilib.Position()
            self.board.set_start_position()
        for m in opening:
            assert self.push(m) is None

    def peer_legal(self) -> set[str]:
        if self.size == 9:
            return {self.cshogi.move_to_usi(m) for m in self.board.legal_moves}
        return {m.sfen() for m in self.board.generate_moves()}

    def push(self, word: str) -> str | None:
        """Play ``word``; ``None`` if legal, else why not."""
        ours = {m.usi(): m for m in self.pos.legal_moves()}
        peer = self.peer_legal()
        if word not in peer:
            return f"{word} is illegal (referee)"
        if word not in ours:  # 5x5: minishogilib allows some 打ち歩詰め
            return f"{word} is illegal (komaken rules; the referee library allows it)"
        self.pos.push(ours[word])
        if self.size == 9:
            self.board.push_usi(word)
        else:
            self.board.do_move(self.board.sfen_to_move(word))
        return None

    def result(self) -> float | None:
        """From the side to move's view: 0 lost (mated), 0.5 draw, None: go on."""
        if self.size == 9:
            if self.board.is_game_over():
                return 0.0
            draw = self.board.is_draw()
            if draw == self.cshogi.REPETITION_DRAW:
                return 0.5
            if draw == self.cshogi.REPETITION_WIN:
                return 1.0
            if draw == self.cshogi.REPETITION_LOSE:
                return 0.0
        elif not self.peer_legal() and not self.pos.legal_moves():
            return 0.0
        out = self.pos.outcome()  # repetition and ply limit by komaken's variant rules
        if out is None:
            return 0.5 if self.pos.ply >= MAX_PLIES else None
        if out.winner is None:
            return 0.5
        return 1.0 if int(out.winner) == int(self.pos.turn) else 0.0

    def moves(self) -> list[str]:
        first, out = self.pos.copy(), []
        while first.ply:
            out.append(first.pop().usi())
        return list(reversed(out))


def start(command: list[str], options: dict[str, str], name: str) -> UsiProcess:
    eng = UsiProcess(command, name=name)
    eng.handshake(options, timeout=300)
    return eng


@dataclass(frozen=True)
class Opponent:
    """The engine komaken plays: its command and options at one level (``skill``: a Fairy-Stockfish
    Skill Level, ``None`` for an engine without levels)."""

    name: str
    command: str
    skill: int | None

    def options(self, variant: str) -> dict[str, str]:
        if self.name == "gpsshogi":
            return {"Thread": "1"}
        return {"UCI_Variant": variant, "Skill Level": str(self.skill)}

    def label(self) -> str:
        return self.name if self.skill is None else f"{self.name} Skill {self.skill}"


def openings(size: int, n: int, seed: int = 0) -> list[list[str]]:
    rng = random.Random(seed)
    out: list[list[str]] = []
    while len(out) < n:
        pos = Position.start(VARIANT[size])
        line = []
        for _ in range(2):
            m = rng.choice(pos.legal_moves())
            pos.push(m)
            line.append(m.usi())
        if line not in out:
            out.append(line)
    return out


def quiet_openings(size: int, n: int, seed: int = 0, plies: int = 4) -> list[list[str]]:
    """``n`` distinct random ``plies``-ply lines that stay quiet: no move captures, and at the
    end the side to move is not in check and has no capture (unfiltered random lines hang pieces,
    and the side that moves first then wins almost every game)."""
    rng = random.Random(seed)
    out: list[list[str]] = []
    tries = 0
    while len(out) < n:
        tries += 1
        if tries > 1000 * n:
            raise SystemExit(f"only {len(out)} quiet {plies}-ply openings found for {size}x{size}")
        pos = Position.start(VARIANT[size])
        line = []
        for _ in range(plies):
            quiet = [m for m in pos.legal_moves() if m.drop or pos.piece_at(m.to_square) is None]
            if not quiet:
                break
            m = rng.choice(quiet)
            pos.push(m)
            line.append(m.usi())
        if len(line) == plies and is_quiet(pos) and line not in out:
            out.append(line)
    return out


def is_quiet(pos: Position) -> bool:
    """Where a quiet opening may end: the side to move is not in check and has no capture."""
    if pos.is_check():
        return False
    return not any(not m.drop and pos.piece_at(m.to_square) is not None for m in pos.legal_moves())


def play(engines: dict[str, UsiProcess], restart: dict[str, object], sente: str, opening: list[str], size: int,
         byoyomi: int, margin: float, t: Tally, show_moves: bool = False) -> float:
    """One game; komaken's score (1, 0.5, 0)."""
    ref = Referee(size, opening)
    players = [sente, "peer" if sente == "komaken" else "komaken"]
    for eng in engines.values():
        eng.send("usinewgame")
        eng.send("isready")
        eng.until("readyok", 60)
    while True:
        mover = players[int(ref.pos.turn)]
        r = ref.result()
        if r is not None:
            t.plies += ref.pos.ply
            if show_moves:
                print("    moves:", " ".join(ref.moves()), flush=True)
            return r if mover == "komaken" else 1.0 - r
        eng = engines[mover]
        eng.send("position startpos moves " + " ".join(ref.moves()))
        t0 = eng.send(f"go btime 0 wtime 0 byoyomi {byoyomi}")
        try:
            arrived, line = eng.until_timed("bestmove", byoyomi / 1000 + 10)[-1]
        except EngineTimeoutError:
            engines[mover] = restart[mover]()  # type: ignore[operator]
            t.time_losses[mover] += 1
            return 0.0 if mover == "komaken" else 1.0
        reply = (arrived - t0) * 1000
        t.max_reply[mover] = max(t.max_reply[mover], reply)
        t.replies[mover].append(reply)
        t.sent[mover].append(t0)
        if reply > byoyomi + margin:
            t.time_losses[mover] += 1
            print(f"    {mover} lost on time: {reply:.0f} ms at ply {ref.pos.ply + 1}", flush=True)
            return 0.0 if mover == "komaken" else 1.0
        word = line.split()[1] if len(line.split()) > 1 else "resign"
        if word == "resign":
            return 0.0 if mover == "komaken" else 1.0
        if word == "win":
            won = ref.pos.can_declare()
            return 1.0 if (mover == "komaken") == won else 0.0
        why = ref.push(word)
        if why is not None:
            t.illegal[mover] += 1
            t.disagreements += "komaken rules" in why
            print(f"    {mover}: {why} at ply {ref.pos.ply + 1} ({ref.pos.sfen()})", flush=True)
            return 0.0 if mover == "komaken" else 1.0


def score_line(t: Tally) -> str:
    """Score with its 95% Wilson interval (draws count half; the lab's statistic) and the Elo of each.
    A normal interval around 19 of 20 or 10 of 10 claims too much: Wilson's stays honest there."""
    from komaken.lab.stats import wilson_interval

    n = t.wins + t.losses + t.draws
    s = (t.wins + 0.5 * t.draws) / n
    lo, hi = wilson_interval(t.wins + 0.5 * t.draws, n)
    return f"score {s:.3f} [{lo:.3f}, {hi:.3f}]  Elo {_elo(s)} [{_elo(lo)}, {_elo(hi)}]"


def _elo(s: float) -> str:
    if s <= 0:
        return "-inf"
    if s >= 1:
        return "+inf"
    elo = round(-400 * math.log10(1 / s - 1))
    return f"{elo:+d}"


def match(peer: Opponent, size: int, games: int, margin: float, byoyomi: int,
          options: dict[str, str] | None = None, show_moves: bool = False, seed: int = 0,
          book_kind: str = "random", plies: tuple[int, ...] = (16, 24), seat: list[str] = KOMAKEN) -> Tally:
    """Play ``games`` against ``peer``; ``seat`` is the command in komaken's place."""
    variant = VARIANT[size]
    name = seat_name(seat)

    def new_komaken() -> UsiProcess:
        return start(seat, {"UCI_Variant": variant, **(options or {})}, name)

    def new_peer() -> UsiProcess:
        return start([peer.command], peer.options(variant), peer.name)

    restart = {"komaken": new_komaken, "peer": new_peer}
    engines = {"komaken": new_komaken(), "peer": new_peer()}
    n = max(1, (games + 1) // 2)
    if book_kind == "real":
        from arena import corpus_openings

        book = corpus_openings(n, list(plies), seed)
    else:
        book = (quiet_openings if book_kind == "quiet" else openings)(size, n, seed)
    t = Tally()
    try:
        for g in range(games):
            sente = "komaken" if g % 2 == 0 else "peer"
            r = play(engines, restart, sente, book[g // 2], size, byoyomi, margin, t, show_moves)
            t.wins += r == 1.0
            t.losses += r == 0.0
            t.draws += r == 0.5
            print(f"  game {g + 1}: {name} {'sente' if sente == 'komaken' else 'gote '} "
                  f"{ {1.0: 'win', 0.0: 'loss', 0.5: 'draw'}[r]}  (W/L/D {t.wins}/{t.losses}/{t.draws}; longest reply "
                  f"so far {name} {t.max_reply['komaken']:.0f} ms, {peer.name} {t.max_reply['peer']:.0f} ms)",
                  flush=True)
    except EngineError as exc:
        print(f"  match stopped: {exc}")
    finally:
        for eng in engines.values():
            eng.close()
    return t


def seat_command(engine: str | None) -> list[str]:
    """``--engine``'s command (looked up on PATH, then in /usr/games); without one komaken's own."""
    if not engine:
        return KOMAKEN
    found = shutil.which(engine) or shutil.which(engine, path="/usr/games")
    if found is None:
        sys.exit(f"--engine {engine!r}: no such command")
    return [found]


def seat_name(command: list[str]) -> str:
    """What the printed lines call the engine in komaken's seat."""
    return "komaken" if command == KOMAKEN else os.path.basename(command[0])


def machine() -> str:
    """Date, CPU model, cores and load: the line a strength figure must be read with."""
    import datetime
    import platform

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"{when}; {model}, {os.cpu_count()} cores, load average {load}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, choices=(5, 9), default=5)
    ap.add_argument("--opponent", choices=("fairy-stockfish", "gpsshogi"), default="fairy-stockfish")
    ap.add_argument("--skill", type=int, nargs="+", default=[2], help="Fairy-Stockfish Skill Level(s), 0..20")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--byoyomi", type=float, default=None,
                    help="seconds a move (default 0.2 on 5x5, 0.3 on 9x9; sent to the engines in ms)")
    ap.add_argument("--margin", type=float, default=0.05, help="seconds past byoyomi before a reply loses on time")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a USI option for komaken, e.g. EvalFile=my.toml (repeatable)")
    ap.add_argument("--engine", default=None, metavar="COMMAND",
                    help="the engine in komaken's seat (default: komaken usi), e.g. fairy-stockfish at full strength")
    ap.add_argument("--moves", action="store_true", help="print each game's moves")
    ap.add_argument("--quiet", action="store_true",
                    help="quiet random 4-ply openings (no capture in the line, none available at its end, "
                         "no check) instead of random 2-ply ones")
    ap.add_argument("--real", action="store_true",
                    help="9x9: openings from the record corpus's real games (prefixes of --plies moves)")
    ap.add_argument("--plies", type=int, nargs="+", default=[16, 24], help="with --real: the prefix lengths")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the opening set (0: the default set; docs/strength.md names the sets it reports)")
    args = ap.parse_args()
    options = {}
    for item in args.option:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            sys.exit(f"--option {item!r}: write NAME=VALUE")
        options[name.strip()] = value
    program, package = {"fairy-stockfish": ("fairy-stockfish", "fairy-stockfish"),
                        "gpsshogi": ("gpsusi", "gpsshogi")}[args.opponent]
    command = shutil.which(program) or shutil.which(program, path="/usr/games")
    if command is None:
        sys.exit(f"{program} not found: install Debian's package (apt-get install {package}; "
                 "it lands in /usr/games) and run again")
    seat = seat_command(args.engine)
    who = seat_name(seat)
    if (args.opponent == "gpsshogi" or args.real) and args.size != 9:
        sys.exit("gpsshogi and --real openings are 9x9 only: add --size 9")
    book_kind = "real" if args.real else "quiet" if args.quiet else "random"
    levels: list[int | None] = list(args.skill) if args.opponent == "fairy-stockfish" else [None]
    byoyomi = round(args.byoyomi * 1000) if args.byoyomi else BYOYOMI[args.size]  # ms, as USI writes it
    if byoyomi <= 0 or args.margin < 0:
        sys.exit("--byoyomi must be positive and --margin not negative (seconds)")
    margin = args.margin * 1000
    print(machine(), flush=True)
    for skill in levels:
        peer = Opponent(args.opponent, command, skill)
        print(f"{args.size}x{args.size}, byoyomi {byoyomi} ms (+{margin:.0f} ms margin), "
              f"{peer.label()}, {args.games} games, {book_kind} openings", flush=True)
        t0 = time.perf_counter()
        t = match(peer, args.size, args.games, margin, byoyomi, options, args.moves, args.seed, book_kind,
                  tuple(args.plies), seat)
        if t.wins + t.losses + t.draws == 0:
            continue
        print(f"{who} vs {peer.label()}: W/L/D {t.wins}/{t.losses}/{t.draws}  {score_line(t)}")
        print(f"  illegal moves: {who} {t.illegal['komaken']}, {peer.name} {t.illegal['peer']} "
              f"(komaken rules vs referee library: {t.disagreements});  losses on time: {who} "
              f"{t.time_losses['komaken']}, {peer.name} {t.time_losses['peer']}")
        print(f"  longest reply: {who} {t.max_reply['komaken']:.0f} ms, {peer.name} {t.max_reply['peer']:.0f} ms "
              f"(byoyomi {byoyomi});  {t.plies} plies, {time.perf_counter() - t0:.0f} s;  {machine()}",
              flush=True)


if __name__ == "__main__":
    main()
