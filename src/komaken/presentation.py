"""The presentation part of a :class:`~komaken.games.GameSpec`: what an interface that draws
boards (the web page) needs to show any game, as JSON, without knowing the game.

A board is a grid of ``cells`` in drawing order (row-major from the top-left as the side at the
bottom sees it); each cell has an ``id`` (the square's name, echoed back by the page) and a
``piece`` (``{"label", "side", "kind", "promoted"}``, and ``letter``: a Latin letter for the
page's international piece set, where the label is not one) or ``None``; ``moves`` (optional)
gives each kind's ``steps`` and ``slides`` as ``(x, y)`` screen offsets for the side at the bottom,
which the international set marks on the piece.  A game with pieces in hand
gives ``hands`` (per side: ``{"kind", "label", "n"}``).  ``look`` says how to draw it: the cell
size, colours and the shape of a piece (``koma``: a shogi piece pointing at the opponent,
``disc``, ``glyph``: a figurine filled by side, ``mark``: a coloured letter).

A legal move is ``{"id", "from", "to", "drop", "choice", "pass"}`` and is played by its ``id``
(the game's move text).  Every game's moves are "from a square (or a piece in hand) to a
square"; a move with neither ``from`` nor ``drop`` is played by clicking its ``to``.  Moves that
share from and to differ by ``choice`` (``成``/``不成``, ``Q R B N``), which the page offers as
buttons worded by :attr:`Presentation.choices`.

>>> from komaken.games import find_game
>>> ttt = find_game("tictactoe")
>>> pos = ttt.start(None)
>>> ttt.presentation.legal(pos)[0]
{'from': None, 'to': '1', 'drop': None, 'choice': None, 'pass': False, 'id': '1'}
>>> ttt.presentation.label(pos, ttt.parse_move(pos, "5"))
'×5'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from komaken.game import Color


@dataclass(frozen=True)
class Look:
    """How a board is drawn: ``cell`` pixels a square, colours, the pieces' ``shape`` and whether
    a grid of lines is drawn between the squares (chess shades its dark squares instead)."""

    cell: int = 52
    background: str = "#f0d59a"
    line: str = "#6b4b1b"
    dark: str | None = None
    shape: str = "koma"
    grid: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"cell": self.cell, "background": self.background, "line": self.line, "dark": self.dark,
                "shape": self.shape, "grid": self.grid}


def to_square(move: Any) -> dict[str, Any]:
    """A move that puts something on one square (reversi, tic-tac-toe; ``pass`` passes)."""
    is_pass = bool(getattr(move, "is_pass", False))
    return {"from": None, "to": None if is_pass else str(move), "drop": None, "choice": None, "pass": is_pass}


def marked(marks: tuple[str, str]) -> Callable[[Any, Any], str]:
    """A label function: the mover's mark and the move text (``●f5``, ``×5``)."""

    def label(position: Any, move: Any) -> str:
        return marks[int(position.turn)] + str(move)

    return label


@dataclass(frozen=True)
class Presentation:
    """How a game looks, for interfaces that draw it.

    * ``board(position)`` — the board JSON (module docstring): ``style`` keys plus ``last``
      (``{"from", "to"}`` of the last move), ``check`` (the square in check), ``check_label``,
      ``note`` (a line for the status, e.g. the disc count);
    * ``move(move)`` — a move's squares: ``{"from", "to", "drop", "choice", "pass"}``;
    * ``label(position, move)`` — a move for people before it is played: ``▲７六歩``, ``1. e4``,
      ``●f5`` (default: the side's mark from ``marks`` and the move text);
    * ``side_names`` — the sides as the page names them, indexed by :class:`Color`
      (``▲ sente``, ``♔ white``); ``bottom`` — the side drawn at the bottom of an unflipped
      board; ``numbered`` — the labels carry their own move numbers;
    * ``choices`` — button words for a move's ``choice`` (``成`` → ``成 promote``);
    * ``size(variant)`` — the board's width and height;
    * ``western(position, move)`` — the move in Western letters for the page's international
      piece set (shogi: Hodges's ``▲P-7f``); ``None``: the label serves every set.
    """

    board: Callable[[Any], dict[str, Any]]
    size: Callable[[Any], tuple[int, int]]
    move: Callable[[Any], dict[str, Any]] = to_square
    label: Callable[[Any, Any], str] = field(default=marked(("▲", "△")))
    side_names: tuple[str, str] = ("black", "white")
    bottom: Color = Color.BLACK
    numbered: bool = False
    choices: Mapping[str, str] = field(default_factory=dict)
    western: Callable[[Any, Any], str] | None = None

    def western_label(self, position: Any, move: Any) -> str:
        """The move in Western letters (:attr:`western`), else its :attr:`label`."""
        return (self.western or self.label)(position, move)

    def legal(self, position: Any, move_text: Callable[[Any], str] = str) -> list[dict[str, Any]]:
        """Every legal move of ``position`` as JSON, with its ``id`` (``move_text``)."""
        return [{**self.move(m), "id": move_text(m)} for m in position.legal_moves()]

    def labels(self, position: Any, moves: list[Any], western: bool = False) -> list[str]:
        """The labels of ``moves`` played in turn from ``position`` (not modified), as far as
        they are legal (a principal variation); ``western``: in Western letters."""
        walker, out = position.copy(), []
        label = self.western_label if western else self.label
        for m in moves:
            if m not in walker.legal_moves():
                break
            out.append(label(walker, m))
            walker.push(m)
        return out


def grid_cells(width: int, height: int, square: Callable[[int, int], tuple[str, dict[str, Any] | None]],
               shade: Callable[[int, int], bool] | None = None) -> list[dict[str, Any]]:
    """Cells row by row from the top (``row`` 0) and the left (``col`` 0): ``square(col, row)``
    gives the square's id and piece."""
    cells = []
    for row in range(height):
        for col in range(width):
            sq, piece = square(col, row)
            cell: dict[str, Any] = {"id": sq, "piece": piece}
            if shade is not None:
                cell["shade"] = shade(col, row)
            cells.append(cell)
    return cells


__all__ = ["Look", "Presentation", "grid_cells", "marked", "to_square"]
