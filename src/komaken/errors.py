"""Exceptions komaken raises for bad input.

Every error a user can provoke with bad input is a :class:`ValueError` subclass, so
``except ValueError`` catches them all; the CLI turns them into one line and exit code 2.
"""

from __future__ import annotations


class KomakenError(ValueError):
    """Base class of every bad-input error komaken raises."""


class InvalidPositionError(KomakenError):
    """A position (SFEN, board text, ...) that cannot be read or breaks the rules."""


class IllegalMoveError(KomakenError):
    """A move that is malformed or not legal in the position it is played in."""


class VariantError(KomakenError):
    """A variant definition (built-in name or TOML file) that is unknown or inconsistent."""


class EvalError(KomakenError):
    """A network or parameter file that cannot be used: unreadable or truncated, for another
    variant, board or feature set, arrays of the wrong shape or type, or weights that are not
    finite.  The message names the file and what is wrong with it."""
