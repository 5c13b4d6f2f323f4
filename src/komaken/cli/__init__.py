"""The ``komaken`` command line.

Each sub-command lives in its own module of this package, listed in :data:`COMMANDS` and imported
when it runs.  Bad input (any :class:`komaken.errors.KomakenError`, a missing file, a usage
error) is reported as one line on stderr with exit status 2 — never a traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from komaken.errors import KomakenError


def fail(message: str) -> None:
    """Print one error line and exit with status 2."""
    click.echo(f"komaken: error: {message}", err=True)
    sys.exit(2)


class _Group(click.Group):
    def main(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        kwargs["standalone_mode"] = False
        try:
            return super().main(*args, **kwargs)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            fail("aborted")
        except click.ClickException as exc:
            fail(exc.format_message().replace("\n", " "))
        except KomakenError as exc:
            fail(str(exc).replace("\n", " "))
        except OSError as exc:
            fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
        except KeyboardInterrupt:
            fail("interrupted")


#: each sub-command and the ``module:attribute`` that defines it; a command's module is imported
#: when the command runs (or ``--help`` lists them all), so ``komaken usi`` loads no lab or web
COMMANDS = {
    "perft": "komaken.cli.perft:perft",
    "show": "komaken.cli.show:show",
    "variants": "komaken.cli.variants:variants",
    "experiment": "komaken.cli.experiment:experiment",
    "convert": "komaken.cli.records:convert",
    "replay": "komaken.cli.records:replay",
    "play": "komaken.cli.play:play",
    "usi": "komaken.cli.usi:usi",
    "mate": "komaken.cli.mate:mate",
    "serve": "komaken.cli.serve:serve",
    "values": "komaken.cli.values:values",
    "tune": "komaken.cli.tune:tune",
}


class _Commands(_Group):
    """The sub-commands of :data:`COMMANDS`, each imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, _, attr = COMMANDS[cmd_name].partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="komaken")
def main() -> None:
    """komaken (駒研): shogi-family game AI for players and researchers."""
