"""The game framework every komaken game implements.

Seed 004 lists what a game needs: pieces, a position, moves, a move generator, display, copy,
equality, a win check and an evaluation.  :class:`Game` is that list as a protocol: shogi
variants, reversi and tic-tac-toe all implement it, so generic search, the players and the
experiment lab work on any of them.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol, Self, TypeVar, runtime_checkable

from komaken.errors import KomakenError


class Color(enum.IntEnum):
    """The side to move. In shogi black (sente, ▲) moves first; in reversi black too.

    An ``int`` (0 and 1, usable as an index) that prints as its name:

    >>> str(Color.BLACK), f"{Color.WHITE} to move", Color.BLACK.mark, Color.WHITE.japanese
    ('black', 'white to move', '▲', '後手')
    >>> Color.parse("gote"), Color.parse("先手"), Color.parse(1)
    (Color.WHITE, Color.BLACK, Color.WHITE)
    """

    BLACK = 0
    WHITE = 1

    @property
    def other(self) -> Color:
        return Color(1 - self)

    @property
    def mark(self) -> str:
        """``▲`` for black (sente), ``△`` for white (gote)."""
        return "▲" if self is Color.BLACK else "△"

    @property
    def japanese(self) -> str:
        """``先手`` or ``後手``."""
        return "先手" if self is Color.BLACK else "後手"

    def __str__(self) -> str:
        return self.name.lower()

    def __repr__(self) -> str:
        return f"Color.{self.name}"

    def __format__(self, spec: str) -> str:
        """``f"{color}"`` and ``f"{color:>6}"`` give the name; numeric formats (``:d``) the number."""
        if spec and spec[-1] in "bcdoxXneEfFgG%":
            return int.__format__(int(self), spec)
        return format(str(self), spec)

    @classmethod
    def parse(cls, value: object) -> Color:
        """A colour from ``Color``, ``0``/``1``, or text: ``black``/``white``, ``b``/``w``,
        ``sente``/``gote``, ``先手``/``後手``, ``▲``/``△`` (case-insensitive).  Anything else raises
        :class:`~komaken.errors.KomakenError` (``TypeError`` for a value that is not a colour at all)."""
        if isinstance(value, Color):
            return value
        if isinstance(value, bool):
            raise TypeError(f"a colour is Color.BLACK / Color.WHITE or 'black' / 'white', not {value!r}")
        if isinstance(value, int):
            if value in (0, 1):
                return cls(value)
            raise _color_error(f"no colour {value} (0 is black, 1 is white)")
        if isinstance(value, str):
            found = _COLOR_NAMES.get(value.strip().lower())
            if found is None:
                raise _color_error(f"unknown colour {value!r} (black / white, sente / gote, 先手 / 後手)")
            return cls(found)
        raise TypeError(f"a colour is Color.BLACK / Color.WHITE or 'black' / 'white', not {type(value).__name__}")


_COLOR_NAMES = {
    **dict.fromkeys(("black", "b", "sente", "先手", "▲", "☗", "x", "黒"), 0),
    **dict.fromkeys(("white", "w", "gote", "後手", "△", "☖", "o", "白"), 1),
}


def _color_error(message: str) -> Exception:
    return KomakenError(message)


SENTE = Color.BLACK
GOTE = Color.WHITE


class Termination(enum.Enum):
    """Why a game ended."""

    CHECKMATE = "checkmate"  # 詰み: the side to move is in check and has no legal move
    NO_LEGAL_MOVES = "no legal moves"  # not in check but no move (a loss in shogi)
    REPETITION = "repetition"  # 千日手
    PERPETUAL_CHECK = "perpetual check"  # 連続王手の千日手: the checking side loses
    IMPASSE = "impasse"  # 持将棋 by the point count
    DECLARATION = "declaration"  # 入玉宣言 (27-point rule)
    MAX_PLIES = "max plies"  # adjudicated as a draw after the variant's ply limit
    KING_CAPTURED = "king captured"  # where kings are not royal (dobutsu's lion): taking one wins
    TRY = "try"  # トライ: a king reached its last rank and the enemy could not take it
    RESIGNATION = "resignation"  # 投了
    ILLEGAL_MOVE = "illegal move"  # 反則
    TIME_FORFEIT = "time forfeit"  # 切れ負け
    GAME_OVER = "game over"  # board games (reversi, tic-tac-toe): nobody can move / line made
    STALEMATE = "stalemate"  # chess: not in check, no legal move — a draw
    FIFTY_MOVES = "fifty moves"  # chess: 50 moves each without a capture or pawn move — a draw
    INSUFFICIENT_MATERIAL = "insufficient material"  # chess: neither side can ever mate — a draw
    ABORTED = "aborted"

    @property
    def japanese(self) -> str:
        return _JAPANESE[self]


_JAPANESE = {
    Termination.CHECKMATE: "詰み",
    Termination.NO_LEGAL_MOVES: "詰み",
    Termination.REPETITION: "千日手",
    Termination.PERPETUAL_CHECK: "連続王手の千日手",
    Termination.IMPASSE: "持将棋",
    Termination.DECLARATION: "入玉宣言",
    Termination.MAX_PLIES: "持将棋",
    Termination.KING_CAPTURED: "玉取り",
    Termination.TRY: "トライ",
    Termination.RESIGNATION: "投了",
    Termination.ILLEGAL_MOVE: "反則",
    Termination.TIME_FORFEIT: "切れ負け",
    Termination.GAME_OVER: "終局",
    Termination.STALEMATE: "ステイルメイト",
    Termination.FIFTY_MOVES: "50手ルール",
    Termination.INSUFFICIENT_MATERIAL: "戦力不足",
    Termination.ABORTED: "中断",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winner (``None`` for a draw) and the reason."""

    termination: Termination
    winner: Color | None

    def result(self) -> str:
        """``"1-0"`` (black won), ``"0-1"`` or ``"1/2-1/2"``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Color.BLACK else "0-1"


M = TypeVar("M")


@runtime_checkable
class Game(Protocol[M]):
    """What generic search, players and the lab need from a game position.

    Positions are mutable: ``push`` plays a move, ``pop`` takes the last one back.
    ``key`` is a hashable summary of the position (a Zobrist hash for shogi) used by
    transposition tables and repetition checks.
    """

    @property
    def turn(self) -> Color: ...

    @property
    def ply(self) -> int:
        """Moves pushed since the position was set up."""
        ...

    def legal_moves(self) -> Sequence[M]: ...

    def push(self, move: M) -> None: ...

    def pop(self) -> M: ...

    def outcome(self) -> Outcome | None: ...

    @property
    def key(self) -> Hashable: ...

    def copy(self) -> Self: ...
