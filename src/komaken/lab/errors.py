"""Errors the experiment lab raises for bad input (all :class:`komaken.errors.KomakenError`)."""

from __future__ import annotations

from komaken.errors import KomakenError


class ConfigError(KomakenError):
    """An experiment file that cannot be run: the message names the file, the key and the problem."""


class ExperimentDBError(KomakenError):
    """A results database that cannot be used: missing, from another experiment or a newer schema."""


class RunError(KomakenError):
    """A run that cannot go on: a cluster that cannot be reached, a game that broke the rules code."""


class ExportError(KomakenError):
    """An export that cannot be written (unknown format, records support missing)."""
