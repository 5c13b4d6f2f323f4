"""Options shared by several commands."""

from __future__ import annotations

from typing import Any

import click

from komaken.errors import VariantError


def variant_option(default: str = "shogi") -> Any:
    """``--variant NAME|FILE.toml``: a built-in variant or a TOML file."""
    return click.option(
        "--variant",
        "-v",
        "variant",
        default=default,
        show_default=True,
        metavar="NAME|FILE",
        help="shogi, minishogi, judkins, or a variant TOML file.",
    )


def load(name: str) -> Any:
    from komaken.shogi import load_variant

    try:
        return load_variant(name)
    except VariantError:
        raise
