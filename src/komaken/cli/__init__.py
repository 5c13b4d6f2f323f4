"""The ``komaken`` command line.

Each sub-command lives in its own module of this package and is registered below.  Bad input
(any :class:`komaken.errors.KomakenError`, a missing file, a usage error) is reported as one
line on stderr with exit status 2 — never a traceback.
"""

from __future__ import annotations

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


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="komaken")
def main() -> None:
    """komaken (駒研): shogi-family game AI for players and researchers."""


#: sub-command modules of this package; each has ``register(main)``
COMMANDS = ("perft", "show", "variants", "experiment", "records", "play", "usi", "mate", "serve", "values", "tune")


def _register() -> None:
    import importlib

    for name in COMMANDS:
        importlib.import_module(f"komaken.cli.{name}").register(main)


_register()
