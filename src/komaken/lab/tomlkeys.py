"""Where a key of a TOML file is written, so an error can name its line.

:mod:`tomllib` gives values without positions; this finds the line of a dotted key such as
``pairings[1].sprt.elo1`` in the text by following the table headers (``[players.weak]``,
the second ``[[pairings]]``) to the line that assigns the key — or, for a key inside an inline
table (``sprt = { elo1 = … }``, ``values = { Q = … }``), the line that assigns that table.

>>> text = '[experiment]\\nname = "x"\\ngames = 5\\n\\n[[pairings]]\\na = "p"\\n[[pairings]]\\na = "q"\\ngames = 0\\n'
>>> key_line(text, "experiment.games"), key_line(text, "pairings[1].games"), key_line(text, "pairings[1]")
(3, 9, 7)
>>> key_line(text, "players.x.depth") is None
True
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_PART = re.compile(r"\[(\d+)\]|[^.\[\]]+")
Path_ = tuple[str | int, ...]


def _parts(key: str) -> Path_:
    return tuple(int(m.group(1)) if m.group(1) is not None else m.group(0).strip().strip("\"'")
                 for m in _PART.finditer(key))


def _headers(lines: list[str]) -> dict[Path_, int]:
    """Each table's path (``("pairings", 1)`` for the second ``[[pairings]]``) → its line index."""
    out: dict[Path_, int] = {}
    arrays: dict[Path_, int] = {}
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m is None:
            continue
        name = tuple(p.strip().strip("\"'") for p in m.group(2).split("."))
        if m.group(1) == "[[":
            arrays[name] = arrays.get(name, -1) + 1
            out[(*name, arrays[name])] = i
        else:
            out[name] = i
    return out


def _assignment(lines: list[str], start: int, leaf: str) -> int | None:
    """The line assigning ``leaf`` in the table that starts after line ``start`` (-1: the top)."""
    pattern = re.compile(rf"^\s*[\"']?{re.escape(leaf)}[\"']?\s*=")
    for i in range(start + 1, len(lines)):
        if _HEADER.match(lines[i]):
            return None
        if pattern.match(lines[i]):
            return i
    return None


def key_line(text: str, key: str) -> int | None:
    """The 1-based line of ``key`` (as the lab's errors name keys) in ``text``; ``None`` if unknown."""
    lines = text.splitlines()
    headers = _headers(lines)
    parts = _parts(key)
    if parts in headers:
        return headers[parts] + 1
    for cut in range(len(parts) - 1, -1, -1):
        section, leaf = parts[:cut], parts[cut]
        if isinstance(leaf, int) or (section and section not in headers):
            continue
        found = _assignment(lines, headers[section] if section else -1, leaf)
        if found is not None:
            return found + 1
    for cut in range(len(parts) - 1, 0, -1):
        if parts[:cut] in headers:
            return headers[parts[:cut]] + 1
    return None
