"""Game analysis: every position of a game searched by the game's engine, as ShogiHome and lishogi do.

:class:`GameAnalysis` walks a game (a start position and its moves) and has each position searched
for ``seconds`` with ``multipv`` lines (1..5) by the game's analyser (:attr:`GameSpec.analyser`;
a game without one cannot be analysed: :class:`AnalysisError`).  Iterating it yields one
:class:`PlyAnalysis` per position as soon as that position is done (position 0 is the start, ``k``
the position after ``k`` moves), so a page can draw the graph while the engine works; another
thread may :meth:`~GameAnalysis.cancel` it between or during searches.

Every score is given **from the first player's view** (:attr:`GameSpec.first`: black — sente — in
shogi, white in chess): positive when that side stands better; "black's view" below means that.
``cp`` is the engine's score in centipawns (``None`` for a forced mate),
``mate`` the plies to mate (positive: black mates), and ``win`` black's winning chance in percent,
from the logistic curve :func:`win_rate` (``1 / (1 + e^(−cp/600))``, ShogiHome's default; a mate is
100 or 0).

The move played into position ``k`` is judged by what it cost its mover: ``loss`` is the mover's
win % before the move (position ``k − 1``'s best line) minus after it (position ``k``), and the
move is marked when the loss reaches a threshold (:data:`THRESHOLDS`, lichess's and lishogi's:
a drop of 0.1 / 0.2 / 0.3 in winning chances on the −1..1 scale, that is 5 / 10 / 15 points of
win %).  The engine's own best move is never marked.

>>> from komaken.games import find_game
>>> shogi = find_game("shogi")
>>> start = shogi.start(shogi.variant("minishogi"))
>>> plies = list(GameAnalysis(shogi, start, ["5d5c"], seconds=0.05, multipv=2))
>>> [p.ply for p in plies], len(plies[0].lines), plies[1].move
([0, 1], 2, '5d5c')
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from komaken.errors import KomakenError
from komaken.game import Color, Game

if TYPE_CHECKING:
    from komaken.games import Analyser, GameSpec
    from komaken.search.result import SearchResult

#: cp → win probability: 1 / (1 + exp(-cp / WIN_RATE_SCALE)) (ShogiHome's default coefficient).
WIN_RATE_SCALE = 600.0
#: the time per position an analysis may take, in seconds
SECONDS_RANGE = (0.01, 60.0)
#: how many lines (MultiPV) an analysis may ask for
MULTIPV_RANGE = (1, 5)
#: the longest game an analysis takes (moves)
MAX_MOVES = 1000
#: (mark, win-% points the mover lost), worst first: lichess's and lishogi's Advice thresholds
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 15.0), ("mistake", 10.0), ("inaccuracy", 5.0))
#: the marks in ShogiHome's words (its comment header ``【悪手】``)
JAPANESE_MARKS = {"blunder": "大悪手", "mistake": "悪手", "inaccuracy": "緩手"}
#: a mate's score in ShogiHome's and floodgate's comments
MATE_SCORE = 30000


class AnalysisError(KomakenError):
    """An analysis that cannot be made: a game without an engine, a time or line count out of range."""


def win_rate(cp: float) -> float:
    """The win probability a centipawn score stands for (logistic, scale 600).

    >>> round(win_rate(0), 2), round(win_rate(600), 2), round(win_rate(-1200), 2)
    (0.5, 0.73, 0.12)
    """
    return 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, -cp / WIN_RATE_SCALE))))


def judge(loss: float | None) -> str | None:
    """The mark a move that cost its mover ``loss`` win-% points earns (:data:`THRESHOLDS`).

    >>> judge(4.9), judge(5.0), judge(12), judge(40)
    (None, 'inaccuracy', 'mistake', 'blunder')
    """
    if loss is None:
        return None
    return next((mark for mark, at in THRESHOLDS if loss >= at), None)


def line_words(game: GameSpec, position: Game[Any], moves: Sequence[Any], limit: int = 24) -> list[str]:
    """The moves of a line in the game's words (``▲５三歩``, ``△同　飛``), as far as they are legal."""
    walker, words = position.copy(), []
    for move in list(moves)[:limit]:
        if move not in walker.legal_moves():
            break
        text = game.move_text(move)
        words.append(game.describe(walker, move).removesuffix(f" ({text})"))
        walker.push(move)
    return words


@dataclass(frozen=True)
class Line:
    """One line (a MultiPV entry) of a position: its moves (the game's move text and words), its
    score from black's view (``cp``, ``mate``, ``win`` %)."""

    moves: list[str]
    words: list[str]
    cp: float | None
    mate: int | None
    win: float
    western: list[str] = field(default_factory=list)  # the words in Western letters (shogi: ``▲P-7f``)

    def score_text(self) -> str:
        """``+123`` or ``mate +5`` (black's view)."""
        if self.mate is not None:
            return f"mate {self.mate:+d}" if self.mate else ("mated" if self.win < 50 else "mates")
        return f"{self.cp:+.0f}"

    def to_json(self) -> dict[str, Any]:
        return {"moves": self.moves, "words": self.words, "western": self.western or self.words, "cp": self.cp,
                "mate": self.mate, "win": round(self.win, 2), "score": self.score_text()}


@dataclass(frozen=True)
class PlyAnalysis:
    """What the engine found in the position after ``ply`` moves.

    ``move``/``move_words`` is the move played into this position (``None`` at ply 0), ``turn``
    the side to move here, ``lines`` the best lines (the first is the engine's choice; empty when
    the game is over here), ``cp``/``mate``/``win`` the first line's score from black's view,
    ``loss`` the win % the mover of ``move`` gave away and ``mark`` the judgement of it.
    """

    ply: int
    move: str | None
    move_words: str | None
    turn: Color
    lines: list[Line]
    cp: float | None
    mate: int | None
    win: float
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
    loss: float | None = None
    mark: str | None = None
    over: str | None = None  # the game is over here: how

    @property
    def best(self) -> str | None:
        return self.lines[0].moves[0] if self.lines and self.lines[0].moves else None

    @property
    def best_words(self) -> str | None:
        return self.lines[0].words[0] if self.lines and self.lines[0].words else None

    def score_text(self) -> str:
        if self.lines:
            return self.lines[0].score_text()
        return self.over or "—"

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "move": self.move, "move_words": self.move_words, "turn": int(self.turn),
                "cp": self.cp, "mate": self.mate, "win": round(self.win, 2), "score": self.score_text(),
                "best": self.best, "best_words": self.best_words, "lines": [ln.to_json() for ln in self.lines],
                "depth": self.depth, "nodes": self.nodes, "seconds": round(self.seconds, 3),
                "loss": None if self.loss is None else round(self.loss, 2), "mark": self.mark, "over": self.over}


def check_settings(seconds: Any, multipv: Any) -> tuple[float, int]:
    """``seconds`` and ``multipv`` if within :data:`SECONDS_RANGE` and :data:`MULTIPV_RANGE`."""
    lo, hi = SECONDS_RANGE
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(seconds) \
            or not lo <= seconds <= hi:
        raise AnalysisError(f"time per move {seconds!r} is not a number of seconds within {lo:g}..{hi:g}")
    a, b = MULTIPV_RANGE
    if isinstance(multipv, bool) or not isinstance(multipv, int) or not a <= multipv <= b:
        raise AnalysisError(f"multipv {multipv!r} is not a whole number within {a}..{b}")
    return float(seconds), multipv


def game_moves(position: Game[Any]) -> tuple[Game[Any], list[Any]]:
    """The start position and the moves of the game played on ``position`` (as a record reader
    returns it), ``position`` left unchanged."""
    start = position.copy()
    moves = list(position.move_stack)  # type: ignore[attr-defined]
    for _ in moves:
        start.pop()
    return start, moves


class GameAnalysis:
    """The analysis of the game ``moves`` (the game's moves or their text) played from ``start``;
    iterate it for one :class:`PlyAnalysis` per position, in order.  ``results`` keeps those
    done.  :meth:`cancel` (from any thread) ends it after the search in progress, which it cuts
    short."""

    def __init__(self, game: GameSpec, start: Game[Any], moves: Sequence[Any], *, seconds: float = 1.0,
                 multipv: int = 1, analyser: Analyser | None = None) -> None:
        self.seconds, self.multipv = check_settings(seconds, multipv)
        if game.analyser is None and analyser is None:
            raise AnalysisError(f"{game.name} has no engine to analyse with")
        if len(moves) > MAX_MOVES:
            raise AnalysisError(f"the game has {len(moves)} moves: an analysis takes at most {MAX_MOVES}")
        self.game = game
        self.start = start.copy()
        self.positions: list[Game[Any]] = [self.start.copy()]
        self.moves: list[Any] = []
        walker = self.start.copy()
        for k, m in enumerate(moves, 1):
            try:
                move = game.parse_move(walker, m) if isinstance(m, str) else m
                if move not in walker.legal_moves():
                    raise KomakenError(f"{game.move_text(move)} is not legal here")
            except KomakenError as exc:
                raise AnalysisError(f"move {k}: {exc}") from None
            self.moves.append(move)
            walker.push(move)
            self.positions.append(walker.copy())
        self._analyser = analyser
        self._own = analyser is None  # an analyser made here is closed here
        self._cancelled = threading.Event()
        self.results: list[PlyAnalysis] = []

    @property
    def total(self) -> int:
        """How many positions there are to analyse (the moves plus the start)."""
        return len(self.positions)

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        self._cancelled.set()
        if self._analyser is not None:
            self._analyser.stop()

    def analyser(self) -> Analyser:
        if self._analyser is None:
            assert self.game.analyser is not None
            self._analyser = self.game.analyser(self.start)
        return self._analyser

    def __iter__(self) -> Iterator[PlyAnalysis]:
        try:
            for k in range(len(self.results), self.total):
                if self.cancelled:
                    return
                item = self._analyse(k)
                if self.cancelled:
                    return
                self.results.append(item)
                yield item
        finally:
            if self._analyser is not None and self._own:
                self._analyser.close()
                self._analyser = None

    def run(self) -> list[PlyAnalysis]:
        """Analyse every position (or until cancelled) and return the results."""
        for _ in self:
            pass
        return self.results

    def _analyse(self, k: int) -> PlyAnalysis:
        position = self.positions[k]
        move = self.moves[k - 1] if k else None
        move_text = None if move is None else self.game.move_text(move)
        move_words = None
        if move is not None:
            before = self.positions[k - 1]
            move_words = self.game.describe(before, move).removesuffix(f" ({move_text})")
        turn = position.turn
        first = self.game.first
        sign = 1 if turn == first else -1
        outcome = position.outcome()
        base: dict[str, Any] = {"ply": k, "move": move_text, "move_words": move_words, "turn": turn}
        if outcome is not None or not position.legal_moves():
            winner = outcome.winner if outcome is not None else turn.other
            win = 50.0 if winner is None else (100.0 if winner == first else 0.0)
            over = outcome.termination.value if outcome is not None else "no legal move"
            item = PlyAnalysis(**base, lines=[], cp=None if winner is not None else 0.0,
                               mate=0 if winner is not None else None, win=win, over=over)
        else:
            result = self.analyser().analyse(position, self.seconds, self.multipv)
            lines = [self._line(position, r, sign) for r in (result.lines or [result])][: self.multipv]
            best = lines[0]
            item = PlyAnalysis(**base, lines=lines, cp=best.cp, mate=best.mate, win=best.win,
                               depth=result.depth, nodes=result.nodes, seconds=result.seconds)
        if k and self.results:
            prev = self.results[k - 1]
            mover = self.positions[k - 1].turn
            before_win = prev.win if mover == first else 100.0 - prev.win
            after_win = item.win if mover == first else 100.0 - item.win
            loss = max(0.0, before_win - after_win)
            mark = None if prev.best == move_text else judge(loss)
            item = PlyAnalysis(**{**item.__dict__, "loss": loss, "mark": mark})
        return item

    def _line(self, position: Game[Any], result: SearchResult[Any], sign: int) -> Line:
        pv = list(result.pv) or ([result.move] if result.move is not None else [])
        moves = [self.game.move_text(m) for m in pv]
        words = line_words(self.game, position, pv)
        look = self.game.presentation
        western = look.labels(position, pv[:len(words)], western=True) if look is not None and look.western else []
        if result.mate is not None:
            black_wins = (result.mate > 0) == (sign == 1)
            return Line(moves, words, None, sign * result.mate, 100.0 if black_wins else 0.0, western)
        if result.declare:
            return Line(moves, words, None, 0, 100.0 if sign == 1 else 0.0, western)
        cp = float(sign * result.score)
        return Line(moves, words, cp, None, 100.0 * win_rate(cp), western)


# ---- the analysis in a record: ShogiHome's engine comments ------------------------------------
def situation(cp: float) -> str:
    """How ShogiHome names a score (black's view): 互角 within ±200, then 有望, 有利, 優勢, 勝勢.

    >>> situation(0), situation(450), situation(-2000)
    ('互角', '先手有利', '後手勝勢')
    """
    for at, word in ((1500, "勝勢"), (600, "優勢"), (400, "有利"), (200, "有望")):
        if cp >= at:
            return "先手" + word
        if cp <= -at:
            return "後手" + word
    return "互角"


def engine_comment(item: PlyAnalysis, engine: str | None = None) -> str | None:
    """The comment ShogiHome writes on a position it analysed (a KIF file shows each line after
    ``*``): the mark of the move played (``【悪手】``), ``#詰み=先手勝ち:5手`` for a mate, the
    situation and ``#評価値=`` (black's view; a mate ±30000), ``#読み筋=`` (the best line in the
    game's words, run together), ``#深さ=``, ``#ノード数=``, ``#エンジン=``; further MultiPV lines
    follow as ``#候補2=`` with their scores.  ``None`` where the game was over."""
    if not item.lines:
        return None
    out = [f"【{JAPANESE_MARKS[item.mark]}】"] if item.mark else []
    first = item.lines[0]
    if first.mate is not None:
        side = "先手勝ち" if first.win >= 50 else "後手勝ち"
        out.append(f"#詰み={side}" + (f":{abs(first.mate)}手" if first.mate else ""))
    score = _comment_score(first)
    out.append(situation(score))
    out.append(f"#評価値={score}")
    if first.words:
        out.append("#読み筋=" + "".join(first.words))
    if item.depth:
        out.append(f"#深さ={item.depth}")
    if item.nodes:
        out.append(f"#ノード数={item.nodes}")
    for rank, line in enumerate(item.lines[1:], 2):
        out.append(f"#候補{rank}={_comment_score(line)} " + "".join(line.words))
    if engine:
        out.append(f"#エンジン={engine}")
    return "\n".join(out)


def _comment_score(line: Line) -> int:
    if line.cp is None:
        return MATE_SCORE if line.win >= 50 else -MATE_SCORE
    return int(round(line.cp))


def comments(results: Sequence[PlyAnalysis], engine: str | None = None) -> list[str | None]:
    """One comment per position (``[0]``: the start), as :func:`engine_comment` writes them."""
    return [engine_comment(item, engine) for item in results]


def pgn_comment(item: PlyAnalysis, before: PlyAnalysis | None = None) -> str | None:
    """The comment lichess writes on an analysed move of a PGN: ``[%eval 0.25,5]`` (pawns from
    the first player's — white's — view, then the depth; ``#3`` / ``#-3`` a mate in moves, as
    lichess counts them), for a marked move ``Mistake. Nf3 was best.`` (the engine's choice in
    ``before``, the position the move was played from), then the engine's line from here.
    python-chess reads the evaluation back (``node.eval()``).  ``None`` where the game was over."""
    if not item.lines:
        return None
    first = item.lines[0]
    if first.mate is not None:
        moves = (abs(first.mate) + 1) // 2
        value = f"#{moves if first.win >= 50 else -moves}"
    else:
        value = f"{(first.cp or 0.0) / 100:.2f}"
    out = [f"[%eval {value},{item.depth}]" if item.depth else f"[%eval {value}]"]
    if item.mark:
        out.append(f"{item.mark.capitalize()}."
                   + (f" {before.best_words} was best." if before is not None and before.best_words else ""))
    if first.words:
        out.append("Line: " + " ".join(first.words))
    return " ".join(out)


def pgn_comments(results: Sequence[PlyAnalysis]) -> list[str | None]:
    """One lichess-style comment per position (``[0]``: the start), as :func:`pgn_comment` writes them."""
    return [pgn_comment(item, results[k - 1] if k else None) for k, item in enumerate(results)]


def annotated(game: GameSpec, analysis: GameAnalysis, fmt: str, names: tuple[str | None, str | None] = (None, None),
              engine: str | None = None, original: str | None = None) -> str:
    """The analysed game in ``fmt`` (one of the game's record formats) with the analysis as
    ShogiHome's engine comments on each move (and on the start).  ``original``: the record's text
    the game was read from — its headers, times, end and comments are kept, the analysis added."""
    io = game.record_io
    if io is None or io.write_comments is None or fmt not in io.comment_formats:
        known = ", ".join(io.comment_formats) if io is not None and io.write_comments is not None else "none"
        raise AnalysisError(f"{game.name} cannot write an annotated record as {fmt!r} (formats: {known})")
    position = analysis.positions[-1].copy()
    notes = pgn_comments(analysis.results) if fmt == "pgn" else comments(analysis.results, engine)
    notes += [None] * (analysis.total - len(notes))
    return io.write_comments(position, fmt, names, position.outcome(), notes, original)


def summary(results: Sequence[PlyAnalysis]) -> dict[str, dict[str, int]]:
    """How many moves of each mark each side made: ``{"black": {"blunder": 1, ...}, "white": ...}``
    (by colour, whichever moves first)."""
    out: dict[str, dict[str, int]] = {"black": {}, "white": {}}
    for item in results:
        if item.mark:
            side = item.turn.other.name.lower()  # the mover is the other side
            out[side][item.mark] = out[side].get(item.mark, 0) + 1
    return out


@dataclass
class Hint:
    """The engine's suggestion for the side to move: the move (text and words), the score from
    the side to move's view (``cp`` or ``mate``), its win %, and the line."""

    move: str
    words: str
    cp: float | None
    mate: int | None
    win: float
    line: list[str] = field(default_factory=list)

    def text(self) -> str:
        """``hint: ▲７六歩 (7g7f) · score +35 cp for you (win 51%) · line ▲７六歩 △３四歩``."""
        score = (f"mate {self.mate:+d}" if self.mate else "mate") if self.cp is None else f"{self.cp:+.0f} cp"
        move = self.words if self.words == str(self.move) else f"{self.words} ({self.move})"
        return (f"hint: {move} · score {score} for you (win {self.win:.0f}%)"
                + (f" · line {' '.join(self.line[:10])}" if self.line else ""))


def hint(game: GameSpec, position: Game[Any], seconds: float = 1.0, analyser: Analyser | None = None) -> Hint:
    """The move the game's engine suggests in ``position`` after ``seconds``, scored for the side to move."""
    analysis = GameAnalysis(game, position, [], seconds=seconds, multipv=1, analyser=analyser)
    item = next(iter(analysis), None)
    if item is None or not item.lines:
        raise AnalysisError("the game is over: there is no move to suggest")
    first = item.lines[0]
    black = position.turn == game.first
    cp = None if first.cp is None else (first.cp if black else -first.cp)
    mate = None if first.mate is None else (first.mate if black else -first.mate)
    return Hint(first.moves[0], first.words[0] if first.words else first.moves[0], cp, mate,
                first.win if black else 100.0 - first.win, first.words)


__all__ = ["JAPANESE_MARKS", "MULTIPV_RANGE", "SECONDS_RANGE", "THRESHOLDS", "WIN_RATE_SCALE", "AnalysisError",
           "GameAnalysis", "Hint", "Line", "PlyAnalysis", "annotated", "check_settings", "comments",
           "engine_comment", "game_moves", "hint", "judge", "line_words", "pgn_comment", "pgn_comments",
           "situation", "summary", "win_rate"]
