"""Remake the screenshots in docs/img from the current code (headless Chromium).

    python docs/img/screenshots.py boards
    python docs/img/screenshots.py report out/table6-small/report.html

``boards`` draws a 5×5 and a 9×9 position with ``Position._repr_svg_`` (last move shaded, side to
move marked); ``report`` photographs a report page.  Chromium needs Japanese fonts for the kanji
(Debian: ``apt-get install fonts-ipafont-mincho fonts-ipafont-gothic``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


def shoot(page: Path | str, png: Path, width: int, height: int) -> None:
    subprocess.run([*CHROMIUM, f"--window-size={width},{height}", f"--screenshot={png}", str(page)],
                   check=True, capture_output=True, timeout=120)
    print(png)


def boards() -> None:
    from komaken.shogi import Position

    games = {
        "board-5x5": ("minishogi", "5d5c 1b1c 5c5b 1c1d 5b5a+ 4a5b 5a4a"),
        "board-9x9": ("shogi", "7g7f 3c3d 8h2b+ 3a2b B*4e 4a3b"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, (variant, moves) in games.items():
            pos = Position.start(variant)
            for move in moves.split():
                pos.push_usi(move)
            svg = pos._repr_svg_()
            width, height = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', svg).groups())  # type: ignore[union-attr]
            page = Path(tmp) / f"{name}.svg"
            page.write_text(svg, encoding="utf-8")
            shoot(page, HERE / f"{name}.png", width, height)


def report(page: str) -> None:
    """The top (summary and table) and the figures section on its own page (same styles)."""
    shoot(Path(page).resolve(), HERE / "report.png", 1400, 1500)
    text = Path(page).read_text(encoding="utf-8")
    head = text[: text.index("<body>") + len("<body>")]
    start = text.index("<h2>Figures</h2>")
    end = text.index("<h2>", start + 5)
    with tempfile.TemporaryDirectory() as tmp:
        figures = Path(tmp) / "figures.html"
        figures.write_text(head + text[start:end] + "</body></html>", encoding="utf-8")
        shoot(figures, HERE / "report-figures.png", 1400, 1500)


if __name__ == "__main__":
    if sys.argv[1:2] == ["boards"]:
        boards()
    elif sys.argv[1:2] == ["report"] and len(sys.argv) >= 3:
        report(sys.argv[2])
    else:
        sys.exit(__doc__)
