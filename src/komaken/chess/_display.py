"""Text and SVG boards, drawn by hand: pieces are letters, Unicode glyphs or SVG text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from komaken.chess._move import FILE_NAMES, UNICODE_PIECES
from komaken.game import Color

if TYPE_CHECKING:
    from komaken.chess._board import Board

_LIGHT, _DARK = "#eeddbb", "#b08860"
_GLYPH = {"k": "♚", "q": "♛", "r": "♜", "b": "♝", "n": "♞", "p": "♟"}
_TEXT_STYLE = "\ufe0e"  # variation selector: draw ♟ as text, not as an emoji


def status_line(board: Board) -> str:
    """``"white to move"``, ``"black to move, check"``, ``"checkmate, white wins"``, ``"stalemate, draw"``."""
    outcome = board.outcome()
    if outcome is not None:
        verdict = "draw" if outcome.winner is None else f"{outcome.winner.name.lower()} wins"
        return f"{outcome.termination.value}, {verdict}"
    text = f"{board.turn.name.lower()} to move"
    return text + ", check" if board.is_check() else text


def board_text(board: Board, style: Literal["ascii", "unicode"] = "ascii", coordinates: bool = True) -> str:
    """Rank 8 at the top, white's pieces upper case (``ascii``) or white glyphs ``♔`` (``unicode``).

    With ``coordinates`` the files and ranks are labelled and a status line follows.
    """
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(file + 8 * rank)
            if piece is None:
                cells.append("." if style == "ascii" else "·")
            else:
                cells.append(piece.symbol() if style == "ascii" else UNICODE_PIECES[piece.symbol()])
        row = " ".join(cells)
        lines.append(f"{rank + 1} {row}" if coordinates else row)
    if coordinates:
        lines.append("  " + " ".join(FILE_NAMES))
        lines.append(status_line(board))
    return "\n".join(lines)


def _piece_svg(symbol: str, x: float, y: float, cell: float) -> str:
    """A piece as font glyphs: black is the solid glyph in black; white is the solid glyph filled
    white with the outline glyph (``♔``) drawn over it in black, so it reads on any square."""
    where = (
        f'x="{x + cell / 2:.1f}" y="{y + cell * 0.80:.1f}" font-size="{cell * 0.82:.1f}" text-anchor="middle" '
        'font-family="DejaVu Sans, Segoe UI Symbol, Noto Sans Symbols2, sans-serif"'
    )
    solid = _GLYPH[symbol.lower()] + _TEXT_STYLE
    if symbol.islower():
        return f'<text {where} fill="#000000">{solid}</text>'
    outline = UNICODE_PIECES[symbol] + _TEXT_STYLE
    return f'<text {where} fill="#ffffff">{solid}</text><text {where} fill="#000000">{outline}</text>'


def svg(board: Board, size: int = 360, flipped: bool = False) -> str:
    """An SVG board: light and dark squares, coordinates, the last move tinted, a king in check ringed.

    Pieces are the chess glyphs of the font (see :func:`_piece_svg`).  ``flipped`` puts
    black at the bottom.
    """
    margin = size / 18
    cell = (size - 2 * margin) / 8
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">',
        f'<rect width="{size}" height="{size}" fill="#404040"/>',
    ]
    last = board.peek()
    marked = {last.from_square, last.to_square} if last else set()
    checked = board.king(board.turn) if board.is_check() else None

    def corner(square: int) -> tuple[float, float]:
        file, rank = square % 8, square // 8
        if flipped:
            file, rank = 7 - file, 7 - rank
        return margin + file * cell, margin + (7 - rank) * cell

    for square in range(64):
        x, y = corner(square)
        light = (square % 8 + square // 8) % 2 == 1
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" '
                     f'fill="{_LIGHT if light else _DARK}"/>')
        if square in marked:
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" '
                         f'fill="#cdd26a" fill-opacity="0.6"/>')
        if square == checked:
            parts.append(f'<circle cx="{x + cell / 2:.1f}" cy="{y + cell / 2:.1f}" r="{cell * 0.46:.1f}" '
                         f'fill="none" stroke="#e02020" stroke-width="{cell * 0.08:.1f}"/>')
        piece = board.piece_at(square)
        if piece is not None:
            parts.append(_piece_svg(piece.symbol(), x, y, cell))
    label = f'font-size="{margin * 0.7:.1f}" fill="#e0e0e0" text-anchor="middle" font-family="sans-serif"'
    for i in range(8):
        file_name = FILE_NAMES[7 - i if flipped else i]
        rank_name = str(i + 1 if flipped else 8 - i)
        c = margin + i * cell + cell / 2
        parts.append(f'<text x="{c:.1f}" y="{size - margin * 0.3:.1f}" {label}>{file_name}</text>')
        parts.append(f'<text x="{margin / 2:.1f}" y="{c + margin * 0.25:.1f}" {label}>{rank_name}</text>')
    side = "white" if board.turn is Color.WHITE else "black"
    parts.append(f"<desc>{board.fen()} ({side} to move)</desc></svg>")
    return "".join(parts)
