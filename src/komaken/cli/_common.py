"""Options shared by several commands."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import click

from komaken.shogi import load_variant

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
    return load_variant(name)


class FiniteRange(click.FloatRange):
    """A number within bounds that is also finite (``click.FloatRange`` lets ``nan`` through)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number in the range {self.min:g}<=x<={self.max:g}.", param, ctx)
        return number


def within(bounds: tuple[float, float]) -> click.ParamType:
    """The click type of a number in ``bounds`` (one of :mod:`komaken.lab.limits`' ranges): out of
    them, the command says which option and what range in one line (exit 2)."""
    low, high = bounds
    if isinstance(low, int) and isinstance(high, int):
        return click.IntRange(low, high)
    return FiniteRange(low, high)
