"""Options shared by several commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from komaken.shogi import Variant


#: what ``--variant`` takes, wherever it is an option
VARIANT_HELP = "A shipped variant (`komaken variants` lists them) or a variant TOML file."


def variant_option(default: str = "shogi") -> Any:
    """``--variant NAME|FILE.toml``: a shipped variant or a TOML file."""
    return click.option(
        "--variant",
        "-v",
        "variant",
        default=default,
        show_default=True,
        metavar="NAME|FILE",
        help=VARIANT_HELP,
    )


def load(name: str) -> Variant:
    """The variant named by ``--variant`` (raises :class:`komaken.errors.VariantError`)."""
    from komaken.shogi import load_variant

    return load_variant(name)
