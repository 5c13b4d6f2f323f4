"""Record files as bytes: which encoding each format and extension gets, reading it back, and
saving without ever leaving a half-written file.

Programs decide a record file's encoding from its extension, not from the ``#KIF … encoding=``
line: Kifu for Windows, ShogiGUI, 将棋所 and cshogi read ``.kif``/``.ki2`` as Shift_JIS (cp932)
and ``.kifu``/``.ki2u`` as UTF-8.  So :func:`encode_text` writes ``.kif``/``.ki2`` as Shift_JIS
whenever every character fits, and UTF-8 (saying so on the ``#KIF`` line, with a warning) only
when one does not.  Reading stays lenient (:func:`decode`).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Literal, NamedTuple, TextIO, TypeVar, cast

from komaken.records.record import RecordError

Format = Literal["kif", "ki2", "csa", "usi"]

#: every target (``--to`` name, or file extension without the dot) → (format, encoding written)
TARGETS: dict[str, tuple[Format, str]] = {
    "kif": ("kif", "cp932"), "kifu": ("kif", "utf-8"), "ki2": ("ki2", "cp932"), "ki2u": ("ki2", "utf-8"),
    "csa": ("csa", "utf-8"), "usi": ("usi", "utf-8"), "sfen": ("usi", "utf-8"),
}
_CHARSETS = {"cp932": "Shift_JIS", "utf-8": "UTF-8"}


def target_of(where: str | os.PathLike[str]) -> str | None:
    """The target a ``--to`` name, an extension or a file name says: ``"kif"`` for ``"kif"``,
    ``".kif"`` or ``"game.KIF"``; ``None`` when it says none (``game.txt``)."""
    name = Path(where).name.lower()
    ext = name.rpartition(".")[2]
    return ext if ext in TARGETS else None


def format_of(path: str | os.PathLike[str]) -> Format | None:
    """The format an extension implies (``None`` if it does not say)."""
    target = target_of(path)
    return TARGETS[target][0] if target else None


class Encoded(NamedTuple):
    """A record's bytes for a target: ``charset`` is ``"Shift_JIS"`` or ``"UTF-8"`` (for an HTTP
    ``Content-Type``); ``warning`` is set when a Shift_JIS target had to be UTF-8."""

    data: bytes
    charset: str
    warning: str | None = None


_UTF8_LINE = re.compile(r"^(#KI[F2] version=2\.0 encoding=)UTF-8$", re.M)


def encode_text(text: str, target: str | os.PathLike[str]) -> Encoded:
    """Record ``text`` (as :func:`komaken.records.dumps` writes it, one game or several) as the
    bytes a file of ``target`` holds (a ``--to`` name, an extension or a file name): Shift_JIS for
    ``kif``/``ki2`` when every character fits — its ``#KIF``/``#KI2`` lines then say
    ``encoding=Shift_JIS`` — else UTF-8 with a warning; UTF-8 for every other target."""
    name = target_of(target)
    if name is not None and TARGETS[name][1] == "cp932":
        shift_jis = _UTF8_LINE.sub(r"\1Shift_JIS", text)
        try:
            return Encoded(shift_jis.encode("cp932"), "Shift_JIS")
        except UnicodeEncodeError as exc:
            return Encoded(text.encode("utf-8"), "UTF-8", _misfit(shift_jis, exc.start, name, target))
    return Encoded(text.encode("utf-8"), "UTF-8")


def _misfit(text: str, index: int, name: str, target: str | os.PathLike[str]) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    where = Path(target).name if Path(target).suffix else f"{name} output"
    return (f"{where}: written as UTF-8, since {text[index]!r} (line {line} column {column}) has no Shift_JIS "
            f"form; most programs read .{name} files as Shift_JIS and will fail on it (.{name}u is UTF-8)")


# ---- reading ---------------------------------------------------------------------------------------
_ENCODINGS = {"utf-8": "utf-8", "utf8": "utf-8", "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932",
              "cp932": "cp932", "windows-31j": "cp932", "ms932": "cp932", "euc-jp": "euc_jp", "euc_jp": "euc_jp",
              "eucjp": "euc_jp", "iso-2022-jp": "iso2022_jp"}
_HALFWIDTH_KANA = re.compile("[\uff61-\uff9f]")


def decode(data: bytes, path: str | os.PathLike[str]) -> str:
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
    target = target_of(path)
    candidates = [declared] if declared else []
    candidates += ["cp932", "utf-8"] if target and TARGETS[target][1] == "cp932" else ["utf-8", "cp932"]
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


# ---- saving ----------------------------------------------------------------------------------------
def save_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file holds either its old bytes or all the new ones:
    written beside it and renamed over it (a failure or a kill midway loses nothing saved).
    Something that is not a regular file (``/dev/stdout``, a pipe) is written directly."""
    _save(path, lambda fh: fh.write(data))


def _save(path: str | os.PathLike[str], fill: Callable[[IO[bytes]], object]) -> None:
    """:func:`save_bytes` of the bytes ``fill`` writes into the file it is given."""
    target = Path(path).resolve()
    try:
        mode: int | None = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "wb") as fh:
            fill(fh)
        return
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.saving")
    try:
        with open(tmp, "xb") as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, stat.S_IMODE(mode))
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


T = TypeVar("T")


class _Encoder:
    """Text written onto a binary file in one encoding, a ``#KIF``/``#KI2`` line saying which;
    a character the encoding lacks raises ``UnicodeEncodeError``."""

    def __init__(self, raw: IO[bytes], encoding: str) -> None:
        self.raw, self.encoding = raw, encoding

    def write(self, text: str) -> int:
        if self.encoding == "cp932":
            text = _UTF8_LINE.sub(r"\1Shift_JIS", text)
        self.raw.write(text.encode(self.encoding))
        return len(text)


def save_streamed(write: Callable[[TextIO], T], target: str | os.PathLike[str],
                  output: str | os.PathLike[str] | None, stdout: IO[bytes]) -> tuple[T, str | None]:
    """Run ``write`` on a text stream and put what it wrote in ``output`` (as :func:`save_bytes`
    does) or on ``stdout``, encoded as :func:`encode_text` would encode it whole for ``target``:
    many games at a time without holding them in memory.  The text goes to a temporary file
    first; a character Shift_JIS lacks starts it over in UTF-8.  Returns what ``write`` returned,
    and the warning when a Shift_JIS target had to be UTF-8."""
    name = target_of(target)
    first = TARGETS[name][1] if name is not None else "utf-8"
    warning = None
    for encoding in dict.fromkeys((first, "utf-8")):
        with tempfile.TemporaryFile() as spool:
            try:
                result = write(cast(TextIO, _Encoder(spool, encoding)))
            except UnicodeEncodeError as exc:
                if encoding == "utf-8":
                    raise
                where = Path(target).name if Path(target).suffix else f"{name} output"
                warning = (f"{where}: written as UTF-8, since {exc.object[exc.start]!r} has no Shift_JIS form; "
                           f"most programs read .{name} files as Shift_JIS and will fail on it (.{name}u is UTF-8)")
                continue
            spool.seek(0)
            if output is None:
                shutil.copyfileobj(spool, stdout)
            else:
                _save(output, lambda fh: shutil.copyfileobj(spool, fh))
            return result, warning
    raise AssertionError("the UTF-8 pass returns or raises")
