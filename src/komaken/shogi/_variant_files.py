"""Variant files: finding them (shipped ids, aliases, paths) and resolving ``inherits``.

This module knows files and TOML tables only; :func:`komaken.shogi.variant.load_variant` turns
what it returns into a :class:`~komaken.shogi.variant.Variant` (through the ``build`` callback
below, which also checks every parent on its own, so an error names the file it is in).

Inheritance works as in Fairy-Stockfish's ``variants.ini``: a file names its parent with
``inherits = "minishogi"`` (a shipped id) or ``inherits = "base.toml"`` (a file, relative to the
inheriting one) and then gives only what differs.  Tables such as ``[rules]`` merge key by key;
``name``, ``description`` and ``aliases`` are never inherited.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from komaken.errors import VariantError

#: the folder of the shipped variant files (the package :mod:`komaken.variants`)
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "variants"
#: keys a file does not pass on to the files that inherit it
NOT_INHERITED = frozenset({"name", "description", "aliases", "inherits"})
#: the standard games of the family, which records recognise by their board size
STANDARD = ("shogi", "minishogi", "judkins")
#: deepest chain of ``inherits`` followed (a longer one is almost surely a mistake)
MAX_DEPTH = 16

Build = Callable[[dict[str, Any], str], object]


@cache
def shipped_ids() -> tuple[str, ...]:
    """The ids of the shipped variants (their file names): :data:`STANDARD` first, then the
    others in alphabetical order."""
    files = sorted(p.stem for p in SHIPPED_DIR.glob("*.toml"))
    return tuple(sorted(files, key=lambda vid: (STANDARD.index(vid) if vid in STANDARD else len(STANDARD), vid)))


@cache
def aliases() -> dict[str, str]:
    """Other names of shipped variants (``5x5`` → ``minishogi``), from their files' ``aliases``."""
    out: dict[str, str] = {}
    for vid in shipped_ids():
        for alias in _parse(SHIPPED_DIR / f"{vid}.toml", f"{vid}.toml").get("aliases", []):
            out[str(alias).lower()] = vid
    return out


def shipped_id(spec: str) -> str | None:
    """The shipped variant ``spec`` names (an id or an alias, any case), else ``None``."""
    key = spec.strip().lower()
    if key in shipped_ids():
        return key
    return aliases().get(key)


def shipped_path(vid: str) -> Path:
    """The file of the shipped variant ``vid`` (a value :func:`shipped_id` returned)."""
    if vid not in shipped_ids():
        raise VariantError(f"unknown variant {vid!r} (shipped: {', '.join(shipped_ids())})")
    return SHIPPED_DIR / f"{vid}.toml"


def user_path(text: str) -> Path:
    """``text`` as the path of a variant file, or the :class:`VariantError` saying it is neither
    a shipped variant nor a ``.toml`` file."""
    path = Path(text)
    if not text.strip() or "\0" in text or (path.suffix.lower() != ".toml" and not _is_file(path)):
        raise VariantError(f"unknown variant {text[:200]!r} (shipped: {', '.join(shipped_ids())}; "
                           "or a .toml file)")
    return path


def read_variant_data(path: Path, source: str, build: Build, *, shipped: bool = False) -> dict[str, Any]:
    """The variant table of the file at ``path`` with its ``inherits`` chain resolved (every
    parent checked with ``build``); errors name ``source`` (or the parent's file) and the key."""
    return _resolve(path, source, build, shipped, ())


def resolve_inherits(data: dict[str, Any], source: str, build: Build, base: Path) -> dict[str, Any]:
    """``data`` (a parsed variant table not read from a file) with its ``inherits`` resolved; a
    parent file is looked for in ``base``."""
    return _inherit(data, source, build, False, base / "<text>", ())


def _resolve(path: Path, source: str, build: Build, shipped: bool, chain: tuple[str, ...]) -> dict[str, Any]:
    here = _identity(path)
    if here in chain:
        names = [Path(c).name for c in (*chain[chain.index(here):], here)]
        raise VariantError(f"{source}: inherits: circular inheritance ({' -> '.join(names)})")
    if len(chain) >= MAX_DEPTH:
        raise VariantError(f"{source}: inherits: more than {MAX_DEPTH} levels of inheritance")
    return _inherit(_parse(path, source), source, build, shipped, path, (*chain, here))


def _inherit(data: dict[str, Any], source: str, build: Build, shipped: bool, path: Path,
             chain: tuple[str, ...]) -> dict[str, Any]:
    if "aliases" in data and not shipped:
        raise VariantError(f"{source}: aliases: only the shipped variant files name aliases")
    parent_spec = data.pop("inherits", None)
    data.pop("aliases", None)
    if parent_spec is None:
        return data
    if not isinstance(parent_spec, str) or not parent_spec.strip():
        raise VariantError(f"{source}: inherits: must be a variant id or a .toml file name, not {parent_spec!r}")
    parent_path, parent_source, parent_shipped = _parent(parent_spec, path, source, shipped)
    parent = _resolve(parent_path, parent_source, build, parent_shipped, chain)
    build(dict(parent), parent_source)  # a bad parent is reported in its own name
    return merge(parent, data)


def _parent(spec: str, child: Path, source: str, shipped: bool) -> tuple[Path, str, bool]:
    vid = shipped_id(spec)
    if vid is not None:
        return shipped_path(vid), f"{vid}.toml" if shipped else vid, True
    if shipped or Path(spec).suffix.lower() != ".toml":
        raise VariantError(f"{source}: inherits: unknown variant {spec[:200]!r} (shipped: "
                           f"{', '.join(shipped_ids())}; or a .toml file next to this one)")
    path = child.parent / spec
    if not _is_file(path):
        raise VariantError(f"{source}: inherits: variant file not found: {path}")
    return path, str(path), False


def merge(parent: Mapping[str, Any], child: Mapping[str, Any]) -> dict[str, Any]:
    """``child`` over ``parent``: tables merge key by key, anything else is replaced;
    :data:`NOT_INHERITED` keys come from ``child`` only."""
    out = {k: v for k, v in parent.items() if k not in NOT_INHERITED}
    for key, value in child.items():
        old = out.get(key)
        out[key] = merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return out


def _parse(path: Path, source: str) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise VariantError(f"variant file not found: {source}") from None
    except OSError as exc:
        raise VariantError(f"{source}: cannot read the variant file: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise VariantError(f"{source}: not UTF-8 (byte {exc.start + 1}: {exc.reason})") from None
    except ValueError as exc:  # TOMLDecodeError, or an integer of more than 4300 digits
        raise VariantError(f"{source}: invalid TOML: {exc}") from None


def _identity(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):  # a symlink loop: the plain path still tells files apart
        return str(path.absolute())


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the file system, ...
        return False


__all__ = ["NOT_INHERITED", "SHIPPED_DIR", "STANDARD", "aliases", "merge", "read_variant_data",
           "resolve_inherits", "shipped_id", "shipped_ids", "shipped_path", "user_path"]
