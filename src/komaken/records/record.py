"""The format-independent game record: :class:`GameRecord`, :class:`Variation`, :class:`RecordError`."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache

from komaken.errors import KomakenError
from komaken.game import Color, Outcome, Termination
from komaken.shogi.position import Move, Position
from komaken.shogi.variant import BUILTIN, SHOGI, Variant, shipped_variants


class RecordError(KomakenError):
    """A record that cannot be read or written: the message names the file, the line (and the
    column where it is known) and the reason.

    ``file``, ``line``, ``column`` and ``reason`` are kept as attributes too.
    """

    def __init__(self, reason: str, *, file: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.reason = reason
        self.file = file
        self.line = line
        self.column = column if line else None
        at = f"line {line}" + (f" column {self.column}" if self.column else "") if line else ""
        where = " ".join(p for p in (file or "", at) if p)
        super().__init__(f"{where}: {reason}" if where else reason)

    def located(self, file: str | None) -> RecordError:
        """The same error naming ``file``."""
        return RecordError(self.reason, file=file, line=self.line, column=self.column)


# ---- the numbers a record holds: readers refuse what is out of range, writers never write it ----------
#: the longest time one move may take (KIF ``( m:ss/…)``, CSA ``T``): 7 days, for correspondence games
MAX_MOVE_SECONDS = 7 * 24 * 3600
#: the longest total a player may use (KIF ``(…/hh:mm:ss)``): 366 days
MAX_TOTAL_SECONDS = 366 * 24 * 3600
#: the highest KIF move number (moves, the final illegal move and the end line all count)
MAX_PLIES = 10_000


def shown(text: str, limit: int = 24) -> str:
    """``text`` short enough for a one-line message (a hostile number may have 10⁵ digits)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def bounded_int(text: str, low: int, high: int, field: str, *, line: int | None = None,
                column: int | None = None) -> int:
    """The ASCII digits ``text`` as an int in ``low..high``; else a :class:`RecordError` naming the
    field, its value and the range (never ``int()`` of a number too long to convert)."""
    if text.isascii() and text.isdigit() and len(text.lstrip("0")) <= 18:
        value = int(text)
        if low <= value <= high:
            return value
    raise RecordError(f"{field} {shown(text)} is out of range ({low} to {high})", line=line, column=column)


def check_seconds(t: object, where: str, high: int = MAX_MOVE_SECONDS) -> float:
    """A time a writer is about to write: a number of seconds in ``0..high`` (``None`` is 0)."""
    if t is None:
        return 0.0
    if not (isinstance(t, int | float) and math.isfinite(t) and 0 <= t <= high):
        raise RecordError(f"{where}: time {t!r} is not a number of seconds from 0 to {high} ({_days(high)})")
    return float(t)


def _days(seconds: int) -> str:
    return f"{seconds // 86400} days"


@dataclass
class Variation:
    """A side line (KIF ``変化：N手``): ``moves`` replace the game from move number ``ply`` on,
    after the ``ply - 1`` moves of ``prefix``.  A side line that goes wrong (an illegal move, a
    wrong number) does not spoil the game: it keeps its moves before the problem and ``error``
    says what it was."""

    ply: int
    prefix: list[Move]
    moves: list[Move] = field(default_factory=list)
    times: list[float | None] = field(default_factory=list)
    comments: list[str | None] = field(default_factory=list)
    error: RecordError | None = None


@dataclass
class GameRecord:
    """One game: where it started, the moves, and what is known about it.

    ``times`` and ``comments`` run parallel to ``moves`` (``None`` where unknown).  ``result``
    is an :class:`~komaken.game.Outcome` whose termination is the reason (投了 →
    ``RESIGNATION`` …).  ``error`` is set only by readers called with ``strict=False``: the
    record then holds the moves before the bad line.
    """

    variant: Variant = SHOGI
    initial_sfen: str = SHOGI.start_sfen
    moves: list[Move] = field(default_factory=list)
    times: list[float | None] = field(default_factory=list)
    comments: list[str | None] = field(default_factory=list)
    black: str | None = None
    white: str | None = None
    start_time: datetime | None = None
    result: Outcome | None = None
    comment: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    variations: list[Variation] = field(default_factory=list)
    error: RecordError | None = None
    ending: str | None = None
    end_time: float | None = None
    end_comment: str | None = None
    illegal_move: str | None = None
    bookmarks: list[tuple[int, str]] = field(default_factory=list)

    @classmethod
    def from_position(cls, position: Position, **kwargs: object) -> GameRecord:
        """The record of the moves pushed on ``position`` (from where it was set up)."""
        start = position.copy()
        while start.ply:
            start.pop()
        moves = position.move_stack
        return cls(variant=position.variant, initial_sfen=start.sfen(), moves=moves,
                   times=[None] * len(moves), comments=[None] * len(moves), **kwargs)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        self.pad()

    def pad(self) -> None:
        """Make ``times`` and ``comments`` as long as ``moves``."""
        n = len(self.moves)
        for seq in (self.times, self.comments):
            del seq[n:]
            seq.extend([None] * (n - len(seq)))

    def initial_position(self) -> Position:
        """The start (a composed one may break 二歩 or hold dead pieces: see ``Position.from_sfen``)."""
        return Position.from_sfen(self.initial_sfen, self.variant, composed=True)

    @property
    def is_standard_start(self) -> bool:
        """Whether the game starts from the variant's start position, black to move."""
        return self.initial_sfen.split()[:3] == self.variant.start_sfen.split()[:3]

    def position(self, ply: int | None = None) -> Position:
        """The position after ``ply`` moves (all of them by default), history included."""
        pos = self.initial_position()
        for move in self.moves[: len(self.moves) if ply is None else ply]:
            pos.push(move)
        return pos

    def positions(self) -> Iterator[Position]:
        """The initial position and the one after each move (one Position, mutated: copy it
        to keep one)."""
        pos = self.initial_position()
        yield pos
        for move in self.moves:
            pos.push(move)
            yield pos

    def usi(self) -> str:
        """``startpos moves 7g7f …`` for the 9×9 start, else ``sfen <SFEN> moves …``."""
        if self.variant.name == "shogi" and self.is_standard_start:
            head = "startpos"
        else:
            head = "sfen " + self.initial_sfen
        return head + (" moves " + " ".join(m.usi() for m in self.moves) if self.moves else "")

    @property
    def winner(self) -> Color | None:
        return self.result.winner if self.result else None


# ---- how games end, shared by the KIF, KI2 and CSA readers and writers -----------------------------
#: KIF end words, to (termination, does the side to move win?) — None: a draw or no result
KIF_ENDINGS: dict[str, tuple[Termination, bool | None]] = {
    "投了": (Termination.RESIGNATION, False),
    "詰み": (Termination.CHECKMATE, False),
    "千日手": (Termination.REPETITION, None),
    "持将棋": (Termination.IMPASSE, None),
    "切れ負け": (Termination.TIME_FORFEIT, False),
    "反則勝ち": (Termination.ILLEGAL_MOVE, True),
    "反則負け": (Termination.ILLEGAL_MOVE, False),
    "入玉勝ち": (Termination.DECLARATION, True),
    "宣言勝ち": (Termination.DECLARATION, True),
    "入玉宣言": (Termination.DECLARATION, True),
    "中断": (Termination.ABORTED, None),
    "封じ手": (Termination.ABORTED, None),
    "不詰": (Termination.ABORTED, None),
    "反則": (Termination.ILLEGAL_MOVE, False),
    "時間切れ": (Termination.TIME_FORFEIT, False),
    "Time-up": (Termination.TIME_FORFEIT, False),
    "詰": (Termination.CHECKMATE, False),
}


def outcome_for(termination: Termination, mover_wins: bool | None, to_move: Color) -> Outcome:
    """An Outcome from a reason said about the side to move at the end."""
    if mover_wins is None:
        return Outcome(termination, None)
    return Outcome(termination, to_move if mover_wins else to_move.other)


def kif_ending(result: Outcome, to_move: Color, written: str | None = None) -> str:
    """The KIF end word for ``result``, the side to move at the end being ``to_move`` (``written``,
    the word the record had, when it says the same)."""
    t = result.termination
    if written in KIF_ENDINGS and written != "反則":
        termination, mover_wins = KIF_ENDINGS[written]
        if outcome_for(termination, mover_wins, to_move) == result:
            return written
    mover_wins = None if result.winner is None else result.winner == to_move
    if t in (Termination.CHECKMATE, Termination.NO_LEGAL_MOVES, Termination.KING_CAPTURED, Termination.TRY):
        return "詰み"  # the side to move lost and has no move: what the formats can say
    if t is Termination.PERPETUAL_CHECK:
        return "反則勝ち" if mover_wins else "反則負け"
    if t is Termination.ILLEGAL_MOVE:
        return "反則勝ち" if mover_wins else "反則負け"
    if t is Termination.REPETITION:
        return "千日手"
    if t in (Termination.IMPASSE, Termination.MAX_PLIES):
        return "持将棋"
    if t is Termination.DECLARATION:
        return "入玉勝ち"
    if t is Termination.TIME_FORFEIT:
        return "切れ負け"
    if t is Termination.RESIGNATION:
        return "投了"
    return "中断"


def summary_line(result: Outcome, plies: int, written: str | None = None) -> str:
    """KIF/KI2's last line: ``まで76手で先手の勝ち`` (``まで52手で封じ手`` when ``written`` says so)."""
    t = result.termination
    if result.winner is None and written == "封じ手" and t is Termination.ABORTED:
        return f"まで{plies}手で封じ手"
    if result.winner is None:
        word = {Termination.REPETITION: "千日手", Termination.IMPASSE: "持将棋",
                Termination.MAX_PLIES: "持将棋"}.get(t, "中断")
        return f"まで{plies}手で{word}"
    who = "先手" if result.winner == Color.BLACK else "後手"
    how = {Termination.ILLEGAL_MOVE: "反則勝ち", Termination.PERPETUAL_CHECK: "反則勝ち",
           Termination.DECLARATION: "入玉勝ち"}.get(t, "勝ち")
    if t is Termination.TIME_FORFEIT:
        return f"まで{plies}手で時間切れにより{who}の勝ち"
    return f"まで{plies}手で{who}の{how}"


@cache
def _sizes() -> dict[tuple[int, int], Variant]:
    """The variant a record's board size means: a standard game's size means it (5×5 is
    minishogi, not ctrl5); a shipped variant with pieces of its own means its size when no other
    shipped variant has that size (3×4 is どうぶつしょうぎ)."""
    out = {(v.width, v.height): v for v in BUILTIN.values()}
    sizes = Counter((v.width, v.height) for v in shipped_variants().values())
    for v in shipped_variants().values():
        if v.names.own and sizes[(v.width, v.height)] == 1:
            out.setdefault((v.width, v.height), v)
    return out


def variant_for_size(width: int, height: int, given: Variant | None, where: str) -> Variant:
    """The variant a board of this size means (``given`` wins when it fits)."""
    if given is not None:
        if (given.width, given.height) != (width, height):
            raise RecordError(f"{where}: a {width}x{height} board, but variant {given.name} is "
                              f"{given.width}x{given.height}")
        return given
    try:
        return _sizes()[(width, height)]
    except KeyError:
        raise RecordError(f"{where}: no shipped variant has a {width}x{height} board of its own: name the variant "
                          f"(--variant on the command line, variant= in Python)") from None

__all__ = ["GameRecord", "KIF_ENDINGS", "MAX_MOVE_SECONDS", "MAX_PLIES", "MAX_TOTAL_SECONDS", "RecordError",
           "Variation", "bounded_int", "check_seconds", "kif_ending", "outcome_for", "summary_line"]


def read_into(fill: Callable[[GameRecord], None], *, strict: bool, file: str | None) -> GameRecord:
    """Run a format's reader ``fill`` on a fresh record.  A :class:`RecordError` is raised naming
    ``file`` when ``strict``; otherwise the record keeps the moves before the problem and the
    error in ``record.error``."""
    record = GameRecord()
    try:
        fill(record)
    except RecordError as exc:
        if strict:
            raise exc.located(file) from None
        record.error = exc.located(file)
        record.pad()
    return record

