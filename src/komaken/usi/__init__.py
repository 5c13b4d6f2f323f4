"""A USI engine front end (``komaken usi``): see :class:`komaken.usi.server.UsiServer`."""

from komaken.usi.server import UsiServer, run

__all__ = ["UsiServer", "run"]
