"""Game records: KIF, KI2, CSA and USI, read and written.

>>> from komaken.records import parse, dumps
>>> rec = parse("startpos moves 7g7f 3c3d 8h2b+", format="usi")
>>> print(dumps(rec, "ki2").splitlines()[-1])
▲７六歩　　△３四歩　　▲２二角成

* :func:`read` / :func:`write` pick the format from the file's extension (``.kif`` ``.kifu``
  ``.ki2`` ``.ki2u`` ``.csa`` ``.usi``/``.sfen``) and the encoding from the extension too, as
  other programs do: ``.kif``/``.ki2`` are written as Shift_JIS (cp932) when every character
  fits, else UTF-8 with a :class:`RecordEncodingWarning`; ``.kifu``/``.ki2u``/``.csa``/``.usi``
  are UTF-8.  Reading takes a BOM or an ``encoding=`` line first, then the extension's guess.
  :func:`encode` / :func:`encode_text` give those bytes without writing a file.
* :func:`parse` / :func:`dumps` work on text; ``format=None`` sniffs it.
* Bad input raises :class:`RecordError` ("game.kif line 23: move ５五角 is illegal: no bishop
  can reach ５五"); ``strict=False`` returns the valid prefix with ``record.error`` set.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from komaken.clock import TimeControl
from komaken.records import csa, ki2, kif, usi
from komaken.records._files import (
    TARGETS,
    Encoded,
    Format,
    decode,
    encode_text,
    format_of,
    save_bytes,
    save_streamed,
    target_of,
)
from komaken.records.record import (
    MAX_MOVE_SECONDS,
    MAX_PLIES,
    MAX_TOTAL_SECONDS,
    GameRecord,
    RecordError,
    Variation,
)
from komaken.shogi.variant import Variant

FORMATS: tuple[str, ...] = ("kif", "ki2", "csa", "usi")
_MODULES = {"kif": kif, "ki2": ki2, "csa": csa, "usi": usi}


class RecordEncodingWarning(UserWarning):
    """A ``.kif``/``.ki2`` record written as UTF-8 (a character has no Shift_JIS form): most
    programs read those extensions as Shift_JIS and will fail on it."""


def detect_format(text: str) -> Format:
    """Guess a record's format from its text."""
    lines = [ln.strip() for ln in text.lstrip("\ufeff").splitlines() if ln.strip()]
    head = lines[0] if lines else ""
    if head.startswith(("position", "startpos", "sfen ")):
        return "usi"
    if re.search(r"^\s*\d+\s+\S", text, re.M) and ("手数" in text or "(" in text or "投了" in text):
        return "kif"
    # a CSA comment line (') may hold Japanese moves (ShogiHome's #読み筋=▲７六歩): not KI2 for that
    if any(re.search(r"[▲△☗☖▼▽]", ln) for ln in lines if not ln.startswith("'")):
        return "ki2"
    if any(ln.startswith(("V2", "PI", "P1", "N+", "N-", "$", "+", "-", "%")) for ln in lines[:40]):
        return "csa"
    if "：" in text:
        return "kif"
    raise RecordError("cannot tell the record's format (kif, ki2, csa or usi): pass format=")


def _check(fmt: str | None) -> str:
    if fmt not in _MODULES:
        raise RecordError(f"unknown record format {fmt!r} (kif, ki2, csa or usi)")
    return fmt  # type: ignore[return-value]


def parse(text: str, format: Format | None = None, *, strict: bool = True, file: str | None = None,
          variant: Variant | None = None) -> GameRecord:
    """One game from text (the first, for CSA and USI texts holding several)."""
    fmt = _check(format or detect_format(text))
    return _MODULES[fmt].parse(text.lstrip("\ufeff"), strict=strict, file=file, variant=variant)  # type: ignore[attr-defined, no-any-return]


def parse_all(text: str, format: Format | None = None, *, strict: bool = True, file: str | None = None,
              variant: Variant | None = None) -> list[GameRecord]:
    """Every game of a text: CSA files separate games by ``/``, USI files hold one a line, and
    KIF/KI2 games follow one another, each from its header (:func:`split_games`)."""
    fmt = _check(format or detect_format(text))
    text = text.lstrip("\ufeff")
    if fmt == "csa":
        return csa.parse_all(text, strict=strict, file=file, variant=variant)
    if fmt == "usi":
        return usi.parse_all(text, strict=strict, file=file, variant=variant)
    module = _MODULES[fmt]
    return [module.parse(part, strict=strict, file=file, variant=variant)  # type: ignore[attr-defined]
            for part in split_games(text)]


#: a line that starts a game's header: ``#KIF …``, ``key：value`` (開始日時：, 手合割：, 後手の持駒：…)
#: or a diagram row; and a line of the moves (KIF numbered lines, the 手数 line, KI2 ▲△ moves)
_HEADER_LINE = re.compile(r"^(#KIF|[^\s*&#0-9０-９▲△☗☖▼▽変][^：]*：|\|)")
_MOVES_LINE = re.compile(r"^([0-9]|手数-|[▲△☗☖▼▽])")


def split_games(text: str) -> list[str]:
    """KIF or KI2 text of several games written one after another (as ``komaken experiment
    export --format kif`` writes them) → the text of each game.  A game ends where a header line
    follows its moves and more moves come after that header.  Each part keeps its lines' numbers:
    it starts with as many empty lines as the file has before it, so errors name the file's line."""
    lines = text.splitlines(keepends=True)
    begins = [0]
    in_moves = False
    header_at: int | None = None  # the first header line after moves, if more moves follow it
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if in_moves and header_at is None and _HEADER_LINE.match(stripped):
            header_at = i
        elif _MOVES_LINE.match(stripped):
            if header_at is not None:
                begins.append(header_at)
                header_at = None
            in_moves = True
    return ["\n" * b + "".join(lines[b:e]) for b, e in zip(begins, begins[1:] + [len(lines)], strict=True)]


def read(path: str | Path, *, strict: bool = True, format: Format | None = None,
         variant: Variant | None = None) -> GameRecord:
    """Read the (first) game of a record file."""
    text = decode(Path(path).read_bytes(), path)
    return parse(text, format or format_of(path), strict=strict, file=Path(path).name, variant=variant)


def read_all(path: str | Path, *, strict: bool = True, format: Format | None = None,
             variant: Variant | None = None) -> list[GameRecord]:
    """Read every game of a record file (see :func:`parse_all`)."""
    text = decode(Path(path).read_bytes(), path)
    return parse_all(text, format or format_of(path), strict=strict, file=Path(path).name, variant=variant)


def dumps(record: GameRecord, format: Format = "kif") -> str:
    """The record as text in ``format``."""
    fmt = _check(format)
    return _MODULES[fmt].dumps(record)  # type: ignore[attr-defined, no-any-return]


def encode(record: GameRecord, target: str | Path = "kif") -> bytes:
    """The record as the bytes of a file of ``target`` — a ``--to`` name (``kif`` ``kifu`` ``ki2``
    ``ki2u`` ``csa`` ``usi``), an extension or a file name, which gives both the format and the
    encoding (:func:`encode_text`).  Warns :class:`RecordEncodingWarning` when a ``.kif``/``.ki2``
    has to be UTF-8."""
    name = target_of(target)
    if name is None:
        raise RecordError(f"{Path(target).name}: not a record format or file name "
                          f"({', '.join('.' + t for t in TARGETS)})")
    encoded = encode_text(dumps(record, TARGETS[name][0]), target)
    if encoded.warning:
        warnings.warn(encoded.warning, RecordEncodingWarning, stacklevel=2)
    return encoded.data


def time_limit_header(controls: tuple[TimeControl | None, TimeControl | None], kind: str) -> str | None:
    """The 持ち時間 header of a record in ``kind`` for the clocks ``controls`` (black's, white's):
    KIF's words (``各10分、秒読み30秒``; ``先手：10分、秒読み30秒　後手：5分、秒読み30秒`` when
    the sides differ, ``なし`` for a side without a clock), CSA's ``$TIME_LIMIT`` (``00:10+30``:
    hours, minutes and byoyomi seconds, the same for both sides; it has no increment, so ``None``
    for a Fischer clock, a main time of whole seconds or clocks that differ).  ``None`` without
    clocks.

    >>> ten = TimeControl(600, byoyomi=30)
    >>> time_limit_header((ten, ten), "kif"), time_limit_header((ten, ten), "csa")
    ('各10分、秒読み30秒', '00:10+30')
    >>> time_limit_header((TimeControl(90, increment=5),) * 2, "kif")
    '各90秒、1手ごとに5秒加算'
    >>> time_limit_header((ten, TimeControl(300, byoyomi=30)), "kif")
    '先手：10分、秒読み30秒　後手：5分、秒読み30秒'
    """
    black, white = controls
    if black is None and white is None:
        return None
    if kind == "csa":
        if black != white or black is None or black.increment or black.main % 60 \
                or not float(black.byoyomi).is_integer():
            return None
        minutes = int(black.main // 60)
        return f"{minutes // 60:02}:{minutes % 60:02}+{int(black.byoyomi):02}"
    if black == white:
        return "各" + _control_words(black)
    return f"先手：{_control_words(black)}　後手：{_control_words(white)}"


def _control_words(tc: TimeControl | None) -> str:
    if tc is None:
        return "なし"
    main = f"{tc.main / 60:g}分" if tc.main and tc.main % 60 == 0 else f"{tc.main:g}秒"
    if tc.byoyomi:
        return f"{main}、秒読み{tc.byoyomi:g}秒"
    if tc.increment:
        return f"{main}、1手ごとに{tc.increment:g}秒加算"
    return main


def write(record: GameRecord, path: str | Path, format: Format | None = None) -> None:
    """Write a record; the extension gives the format and the encoding (``.kif``/``.ki2``
    Shift_JIS when every character fits, as Kifu for Windows and cshogi expect, else UTF-8 with
    a :class:`RecordEncodingWarning`; ``.kifu``/``.ki2u``/``.csa``/``.usi`` UTF-8).  ``format``
    is for a file name that does not say (``game.txt``: UTF-8).  The file is replaced whole or
    not at all (:func:`save_bytes`)."""
    p = Path(path)
    fmt = _check(format or format_of(p))
    said = format_of(p)
    if said is not None and said != fmt:
        raise RecordError(f"{p.name} is a {said} file name: cannot write {fmt} into it")
    encoded = encode_text(dumps(record, fmt), p if said else fmt)  # type: ignore[arg-type]
    if encoded.warning:
        warnings.warn(encoded.warning, RecordEncodingWarning, stacklevel=2)
    save_bytes(p, encoded.data)


__all__ = ["FORMATS", "MAX_MOVE_SECONDS", "MAX_PLIES", "MAX_TOTAL_SECONDS", "TARGETS", "Encoded", "Format",
           "GameRecord", "RecordEncodingWarning", "RecordError", "Variation", "decode", "detect_format", "dumps",
           "encode", "encode_text", "format_of", "parse", "parse_all", "read", "read_all", "save_bytes",
           "time_limit_header",
           "save_streamed", "split_games", "target_of", "write"]
