"""A report as data: blocks of text, tables and figures, rendered as Markdown, HTML or JSON.

Every report of the lab (an experiment's, the piece-values study's) is a :class:`Report`: a
title, a list of blocks — ``("h1", text)``, ``("h2", text)``, ``("p", text)``,
``("ul", [items])``, ``("table", caption, header, rows)``, ``("figure", number, Figure)`` — and
its figures, each kept in memory as SVG and PNG.  The CLI writes it with :meth:`Report.write`
(``report.md``, a self-contained ``report.html``, each figure as PNG and SVG); the web page shows
:meth:`Report.json_blocks`, so every rendering says exactly the same thing.  ``**bold**`` and
```code``` are the only inline markup.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Block = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure: its file base name (``score_ci``), caption, SVG markup and PNG bytes."""

    name: str
    caption: str
    svg: str
    png: bytes


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure(fig: Any, name: str, caption: str, dpi: int = 120) -> Figure:
    """Render a matplotlib figure to SVG and PNG in memory, and close it."""
    plt = pyplot()
    try:
        svg, png = io.StringIO(), io.BytesIO()
        fig.savefig(svg, format="svg")
        fig.savefig(png, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    text = svg.getvalue()
    return Figure(name, caption, text[text.index("<svg"):], png.getvalue())


@dataclass(frozen=True, slots=True)
class Report:
    """A finished report; ``data`` (when given) is also written as ``report.json``."""

    title: str
    blocks: list[Block]
    data: dict[str, Any] | None = None
    figures: list[Figure] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "figures", [b[2] for b in self.blocks if b[0] == "figure"])

    def markdown(self) -> str:
        return markdown(self.blocks)

    def html(self) -> str:
        return html_page(self.title, self.blocks)

    def json_blocks(self) -> list[dict[str, Any]]:
        """The blocks as JSON objects: ``{"kind": "h1" | "h2" | "p", "text"}``, ``{"kind": "ul", "items"}``,
        ``{"kind": "table", "number", "caption", "header", "rows"}``, ``{"kind": "figure", "number", "name",
        "caption"}`` (the figure's SVG is :meth:`svg`)."""
        out: list[dict[str, Any]] = []
        tables = 0
        for block in self.blocks:
            tag = block[0]
            if tag in ("h1", "h2", "p"):
                out.append({"kind": tag, "text": block[1]})
            elif tag == "ul":
                out.append({"kind": "ul", "items": list(block[1])})
            elif tag == "table":
                tables += 1
                _, caption, header, rows = block
                out.append({"kind": "table", "number": tables, "caption": caption, "header": list(header),
                            "rows": [list(r) for r in rows]})
            elif tag == "figure":
                _, n, fig = block
                out.append({"kind": "figure", "number": n, "name": fig.name, "caption": fig.caption})
        return out

    def svg(self, name: str) -> bytes | None:
        """Figure ``name`` as an SVG file's bytes, or ``None`` if the report has no such figure."""
        for fig in self.figures:
            if fig.name == name:
                return ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n' + fig.svg).encode("utf-8")
        return None

    def write(self, out: str | Path) -> list[Path]:
        """Write ``report.md``, ``report.html`` (``report.json`` with data) and every figure as PNG
        and SVG into the folder ``out``; the files written."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = [out / "report.md", out / "report.html"]
        files[0].write_text(self.markdown(), encoding="utf-8")
        files[1].write_text(self.html(), encoding="utf-8")
        if self.data is not None:
            files.append(out / "report.json")
            files[-1].write_text(json.dumps(self.data, indent=1, default=float), encoding="utf-8")
        for fig in self.figures:
            (out / f"{fig.name}.png").write_bytes(fig.png)
            (out / f"{fig.name}.svg").write_bytes(self.svg(fig.name) or b"")
            files += [out / f"{fig.name}.png", out / f"{fig.name}.svg"]
        return files


def prose(lines: Sequence[str]) -> list[Block]:
    """Blocks from plain lines: runs of ``- item`` lines become one list, every other non-empty
    line a paragraph."""
    blocks: list[Block] = []
    for line in lines:
        if line.startswith("- "):
            if blocks and blocks[-1][0] == "ul":
                blocks[-1][1].append(line[2:])
            else:
                blocks.append(("ul", [line[2:]]))
        elif line.strip():
            blocks.append(("p", line))
    return blocks


# ---- rendering ------------------------------------------------------------------------------
def markdown(blocks: Sequence[Block]) -> str:
    """The blocks as Markdown (figures linked as the SVG files beside it)."""
    out: list[str] = []
    tables = 0
    for block in blocks:
        kind = block[0]
        if kind == "h1":
            out += [f"# {block[1]}", ""]
        elif kind == "h2":
            out += [f"## {block[1]}", ""]
        elif kind == "p":
            out += [block[1], ""]
        elif kind == "ul":
            out += [f"* {item}" for item in block[1]] + [""]
        elif kind == "table":
            tables += 1
            _, caption, header, rows = block
            out += [f"*Table {tables}. {caption}*", "", "| " + " | ".join(header) + " |",
                    "|" + "|".join("---" for _ in header) + "|"]
            out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows] + [""]
        elif kind == "figure":
            _, n, fig = block
            out += [f"![Figure {n}]({fig.name}.svg)", "", f"*Figure {n}. {fig.caption}*", ""]
    return "\n".join(out).rstrip() + "\n"


CSS = """
body{font-family:Georgia,'Times New Roman','IPAexMincho','IPAMincho','Noto Serif CJK JP',serif;color:#222;
 margin:2em auto;padding:0 1.5em;line-height:1.5;max-width:110em}
p,ul,.summary{max-width:62em}
h1{font-size:1.7em;line-height:1.25;margin-bottom:.2em}
h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #bbb;padding-bottom:.15em}
.summary{background:#f7f5ee;border-left:4px solid #7a1f1f;padding:.3em 1.2em;margin:1em 0}
.wrap{overflow-x:auto;margin:.6em 0 1em}
table{border-collapse:collapse;font-size:.85em;font-variant-numeric:tabular-nums;border-top:2px solid #333;
 border-bottom:2px solid #333}
caption{caption-side:top;text-align:left;padding:.3em 0;font-size:.95em}
th{border-bottom:1px solid #333;padding:3px 9px;text-align:right;white-space:nowrap;font-weight:600}
td{padding:2px 9px;text-align:right;white-space:nowrap}
tr:nth-child(even) td{background:#f6f6f6}
th:first-child,td:first-child{text-align:left}
td.ref{color:#888}
figure{margin:1.2em 0}figure img{max-width:100%;height:auto}
figcaption{font-size:.95em;max-width:48em}
code{font-size:.9em;background:#f0f0f0;padding:0 .2em}
"""


def html_page(title: str, blocks: Sequence[Block]) -> str:
    """The blocks as one self-contained HTML page: the figures are embedded as SVG data URIs."""
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"]
    tables = 0
    in_summary = False
    for block in blocks:
        kind = block[0]
        if kind == "h2" and in_summary:
            out.append("</div>")
            in_summary = False
        if kind in ("h1", "h2", "p"):
            out.append(f"<{kind}>{_inline(block[1])}</{kind}>")
            if kind == "h2" and block[1] == "Summary":
                out.append("<div class='summary'>")
                in_summary = True
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in block[1]) + "</ul>")
        elif kind == "table":
            tables += 1
            out.append(_table(tables, *block[1:]))
        elif kind == "figure":
            _, n, fig = block
            data = base64.b64encode(fig.svg.encode("utf-8")).decode("ascii")
            out.append(f"<figure id='{fig.name}'><img alt='Figure {n}: {html.escape(fig.caption)}' "
                       f"src='data:image/svg+xml;base64,{data}'><figcaption><b>Figure {n}.</b> "
                       f"{_inline(fig.caption)}</figcaption></figure>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _table(number: int, caption: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    muted = bool(header) and header[-1] == "pairing"  # the pairing's name: a reference, not a result
    out = [f"<div class='wrap'><table><caption><b>Table {number}.</b> {_inline(caption)}</caption><tr>"
           + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"]
    out += ["<tr>" + "".join(f"<td{_cls(muted and i == len(row) - 1)}>{_inline(c)}</td>"
                             for i, c in enumerate(row)) + "</tr>" for row in rows]
    return "\n".join(out + ["</table></div>"])


def _cls(ref: bool) -> str:
    return " class='ref'" if ref else ""


def _inline(text: str) -> str:
    """Escape, then ``**bold**`` → ``<strong>`` and ```code``` → ``<code>``."""
    t = html.escape(text)
    t = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", t)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", t)


__all__ = ["Block", "Figure", "Report", "figure", "html_page", "markdown", "prose", "pyplot"]
