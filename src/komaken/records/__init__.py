"""Game records: KIF, KI2, CSA and USI, read and written.

>>> from komaken.records import parse, dumps
>>> rec = parse("startpos moves 7g7f 3c3d 8h2b+", format="usi")
>>> print(dumps(rec, "ki2").splitlines()[-1])
▲７六歩　　△３四歩　　▲２二角成

* :func:`read` / :func:`write` pick the format from the file's extension (``.kif`` ``.kifu``
  ``.ki2`` ``.ki2u`` ``.csa`` ``.usi``/``.sfen``) and the encoding from the extension too:
  ``.kif``/``.ki2`` are read as Shift_JIS (cp932) unless they start with a BOM or say
  ``#KIF version=2.0 encoding=UTF-8``, and written as Shift_JIS when every character fits;
  ``.kifu``/``.ki2u``/``.csa``/``.usi`` are UTF-8.  KIF/KI2 text always starts with its
  ``#KIF version=2.0 encoding=…`` line.
* :func:`parse` / :func:`dumps` work on text; ``format=None`` sniffs it.
* Bad input raises :class:`RecordError` ("game.kif line 23: move ５五角 is illegal: no bishop
  can reach ５五"); ``strict=False`` returns the valid prefix with ``record.error`` set.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from komaken.records import csa, ki2, kif, usi
from komaken.records.record import GameRecord, RecordError, Variation
from komaken.shogi.variant import Variant

Format = Literal["kif", "ki2", "csa", "usi"]
FORMATS: tuple[str, ...] = ("kif", "ki2", "csa", "usi")
_EXTENSIONS = {".kif": "kif", ".kifu": "kif", ".ki2": "ki2", ".ki2u": "ki2", ".csa": "csa",
               ".usi": "usi", ".sfen": "usi", ".txt": None}
_UTF8_EXTENSIONS = (".kifu", ".ki2u", ".csa", ".usi", ".sfen", ".txt")
_MODULES = {"kif": kif, "ki2": ki2, "csa": csa, "usi": usi}


def format_of(path: str | Path) -> Format | None:
    """The format an extension implies (``None`` if it does not say)."""
    return _EXTENSIONS.get(Path(path).suffix.lower())  # type: ignore[return-value]


def detect_format(text: str) -> Format:
    """Guess a record's format from its text."""
    lines = [ln.strip() for ln in text.lstrip("\ufeff").splitlines() if ln.strip()]
    head = lines[0] if lines else ""
    if head.startswith(("position", "startpos", "sfen ")):
        return "usi"
    if re.search(r"^\s*\d+\s+\S", text, re.M) and ("手数" in text or "(" in text or "投了" in text):
        return "kif"
    if re.search(r"[▲△☗☖▼▽]", text):
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


_ENCODINGS = {"utf-8": "utf-8", "utf8": "utf-8", "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932",
              "cp932": "cp932", "windows-31j": "cp932", "ms932": "cp932", "euc-jp": "euc_jp", "euc_jp": "euc_jp",
              "eucjp": "euc_jp", "iso-2022-jp": "iso2022_jp"}


_HALFWIDTH_KANA = re.compile("[\uff61-\uff9f]")


def decode(data: bytes, path: str | Path) -> str:
    """Bytes of a record file as text: BOM, an encoding line (``#KIF … encoding=UTF-8``, CSA
    ``'encoding=Shift_JIS``), then what the extension implies, then EUC-JP (old CSA files)."""
    name = Path(path).name
    if data.startswith(b"\xef\xbb\xbf"):
        try:
            return data[3:].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(f"not valid UTF-8 after the BOM (byte {exc.start + 3})", file=name) from None
    head = data[:400].decode("ascii", errors="ignore").lower()
    m = re.search(r"encoding\s*=\s*([\w-]+)", head)
    declared = _ENCODINGS.get(m[1]) if m else None  # an unknown name is ignored: the bytes tell
    candidates = [declared] if declared else []
    candidates += ["utf-8", "cp932"] if Path(path).suffix.lower() in _UTF8_EXTENSIONS else ["cp932", "utf-8"]
    for enc in [*candidates, "euc_jp"]:
        try:
            text = data.decode(enc)
        except UnicodeError:
            continue
        if enc == "cp932" and not declared and _HALFWIDTH_KANA.search(text):
            try:  # EUC-JP bytes read as Shift_JIS come out as half-width kana (old CSA files)
                return data.decode("euc_jp")
            except UnicodeError:
                pass
        return text
    raise RecordError("cannot decode the file as UTF-8, Shift_JIS or EUC-JP", file=name)


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


def write(record: GameRecord, path: str | Path, format: Format | None = None) -> None:
    """Write a record; the extension gives the format.  ``.kif``/``.ki2`` are Shift_JIS when every
    character fits (what Kifu for Windows and cshogi expect), else UTF-8 with the
    ``#KIF version=2.0 encoding=UTF-8`` line; ``.kifu``/``.ki2u``/others are UTF-8."""
    p = Path(path)
    fmt = _check(format or format_of(p))
    data = encode(record, fmt, shift_jis=p.suffix.lower() in (".kif", ".ki2"))  # type: ignore[arg-type]
    p.write_bytes(data)


def encode(record: GameRecord, format: Format, *, shift_jis: bool = False) -> bytes:
    """The record as the bytes of a file: UTF-8, or Shift_JIS if asked and every character fits."""
    fmt = _check(format)
    if shift_jis and fmt in ("kif", "ki2"):
        try:
            return _text(record, fmt, "Shift_JIS").encode("cp932")
        except UnicodeEncodeError:
            pass
    return _text(record, fmt, "UTF-8").encode("utf-8")


def _text(record: GameRecord, fmt: str, encoding: str) -> str:
    if fmt == "kif":
        return kif.dumps(record, encoding=encoding)
    if fmt == "ki2":
        return ki2.dumps(record, encoding=encoding)
    return dumps(record, fmt)  # type: ignore[arg-type]


__all__ = ["FORMATS", "Format", "GameRecord", "RecordError", "Variation", "decode", "detect_format", "dumps", "encode",
           "format_of", "parse", "parse_all", "read", "read_all", "split_games", "write"]
