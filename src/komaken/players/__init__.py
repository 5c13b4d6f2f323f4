"""Players: anything that picks a move in a position (a human at the terminal, an engine, the
thesis replica, an external USI engine)."""

from komaken.players.base import DECLARE, RESIGN, Player, PlayerAction

__all__ = ["DECLARE", "RESIGN", "Player", "PlayerAction"]
