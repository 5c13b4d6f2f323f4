"""Variant files shipped with komaken (TOML, read with :func:`komaken.shogi.load_variant`).

* ``ctrl5`` … ``ctrl9`` — the controlled family of the piece-values study: minishogi's army on
  5×5 … 9×9 (see docs/piece-values-by-board-size.md §1.4);
* ``shogi7x7`` — the 7×7 shogi of ``examples/shogi7x7.toml``.

>>> from komaken.variants import variant_path
>>> variant_path("ctrl7").name
'ctrl7.toml'
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
#: names of the variant files in this package
NAMES = tuple(sorted(p.stem for p in HERE.glob("*.toml")))


def variant_path(name: str) -> Path:
    """The path of the shipped variant file ``name`` (``KeyError`` if there is none)."""
    if name not in NAMES:
        raise KeyError(name)
    return HERE / f"{name}.toml"


__all__ = ["NAMES", "variant_path"]
