"""The lab's view of the game loop: :func:`komaken.match.play_game`, with sente and gote seated
by :func:`komaken.match.seat` (sente is the colour that moves first: black, white in chess).

:class:`MatchResult` is :class:`komaken.match.GameResult`: the outcome (termination and
winner), the moves as text, the reason in words, who crashed.
"""

from __future__ import annotations

from komaken.match import GameResult, play_game, seat

MatchResult = GameResult

__all__ = ["MatchResult", "play_game", "seat"]
