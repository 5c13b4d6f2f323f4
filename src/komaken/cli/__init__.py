"""The ``komaken`` command line.

Each sub-command lives in its own module of this package, listed in :data:`COMMANDS` and imported
when it runs.  Bad input (any :class:`komaken.errors.KomakenError`, a missing file, a usage
error) is reported as one line on stderr with exit status 2 — never a traceback.  ``SIGTERM``
(``kill``, a supervisor stopping a job) stops a command as Ctrl-C does: its clean-up runs (an
experiment drops its games in flight, shuts its workers and engines down and clears its live
folder) and it exits with status 143 (128 + 15, what a shell reports for a process the signal
ended), printing nothing more.  ``komaken serve`` leaves the signal to its web server, which
shuts down gracefully and exits 0.
"""

from __future__ import annotations

import importlib
import signal
import sys
import textwrap
import threading
from typing import Any

import click

from komaken.errors import KomakenError


def fail(message: str) -> None:
    """Print one error line and exit with status 2."""
    click.echo(f"komaken: error: {message}", err=True)
    sys.exit(2)


class Terminated(KeyboardInterrupt):
    """``SIGTERM`` arrived.  A :class:`KeyboardInterrupt`, so that every clean-up written for
    Ctrl-C (``finally`` blocks, pools cancelled, engines quit) runs for it too; by default the
    signal ends the process at once, leaving worker pools and half-published files behind."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


class _Group(click.Group):
    def main(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        kwargs["standalone_mode"] = False
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _terminate)
        try:
            return super().main(*args, **kwargs)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except (Terminated, click.exceptions.Abort) as exc:  # click turns a KeyboardInterrupt into Abort
            if Terminated in (type(exc), type(exc.__context__)):
                # the status a shell reports for a process SIGTERM ended, reached through the
                # interpreter's own exit: dying by the signal's default action would skip it, and
                # multiprocessing's resource tracker would report the pool's semaphores as leaked
                sys.exit(128 + signal.SIGTERM)
            fail("aborted")
        except click.ClickException as exc:
            fail(exc.format_message().replace("\n", " "))
        except KomakenError as exc:
            fail(str(exc).replace("\n", " "))
        except OSError as exc:
            fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
        except KeyboardInterrupt:
            fail("interrupted")


#: each sub-command: the ``module:attribute`` that defines it, and its summary (its docstring's
#: first sentence; a test keeps the two equal).  A command's module is imported when the command
#: runs, and ``komaken --help`` lists the summaries without importing any, so neither loads the
#: lab, the web page or the engine's kernels for nothing.
COMMANDS = {
    "perft": ("komaken.cli.perft:perft", "Count the leaf nodes of the legal move tree DEPTH plies deep."),
    "show": ("komaken.cli.show:show", "Print the board of a position."),
    "variants": ("komaken.cli.variants:variants", "List the shipped variants (id, board, other names, "
                 "description); with a variant id or a TOML file, print that variant resolved (its "
                 "`inherits` chain applied) as TOML."),
    "experiment": ("komaken.cli.experiment:experiment",
                   "Run AI-vs-AI experiments into an SQLite database and report their statistics."),
    "convert": ("komaken.cli.records:convert", "Convert a game record between KIF, KI2, CSA and USI."),
    "replay": ("komaken.cli.records:replay", "Step through a game record on the board."),
    "analyse": ("komaken.cli.analyse:analyse",
                "Analyse a game record with the engine: score, best move and marks for every move."),
    "play": ("komaken.cli.play:play", "Play a game: human, engine, thesis replica, USI engine."),
    "usi": ("komaken.cli.usi:usi",
            "Speak USI on stdin/stdout until 'quit' (UCI_Variant picks the variant, as in Fairy-Stockfish)."),
    "mate": ("komaken.cli.mate:mate", "Find the shortest mate by checks (詰将棋) of the position."),
    "serve": ("komaken.cli.serve:serve",
              "Serve the web page: play, watch experiments live, browse games, read reports."),
    "values": ("komaken.cli.values:values",
               "Measure piece values by self-play (regression) and material odds, on any board size."),
    "tune": ("komaken.cli.tune:tune", "Fit an evaluation to data: the linear evaluation's parameters (`tune "
             "linear`) or an NNUE network (`tune nnue`)."),
}


class _Commands(_Group):
    """The sub-commands of :data:`COMMANDS`, each imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, _, attr = COMMANDS[cmd_name][0].partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help`` from the summaries, as click would write it from the
        commands themselves."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, textwrap.shorten(COMMANDS[name][1], limit, placeholder="...", break_on_hyphens=False))
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="komaken")
def main() -> None:
    """komaken (駒研): shogi-family game AI for players and researchers."""
