"""An NNUE network: its integer arrays, its file (``.nnue``), the shipped nets.

A :class:`Network` holds exactly the arrays the kernels of :mod:`komaken.shogi.engine._nnue`
take — the feature table and its bias for :func:`~komaken.shogi.engine._nnue.refresh` /
:func:`~komaken.shogi.engine._nnue.update`, the dense layers for
:func:`~komaken.shogi.engine._nnue.forward` — plus what they are for (variant, board, feature
set) and where they came from (``provenance``)::

    net = Network.load("minishogi.nnue", variant="minishogi")   # EvalError if it does not fit
    net.save("copy.nnue")
    evaluate(net, Position.start("minishogi"))                  # side to move's score

**The file** (``.nnue``) is a zip archive of numpy arrays (``numpy.savez_compressed``, read with
``allow_pickle=False``):

========== ======== ===================== ==============================================
member     dtype    shape                 meaning
========== ======== ===================== ==============================================
header     uint8    [bytes]               UTF-8 JSON: ``format`` ("komaken-nnue"),
                                          ``version`` (2), ``variant``, ``board``
                                          ([width, height]), ``nsq``, ``feature_set``
                                          ("halfkp-drop", or "halfkp-drop+threats"
                                          with the threat features), ``feature_version`` (1),
                                          ``n_features``, ``width`` (H), ``psqt`` (P: 1
                                          with a material column, else 0), ``dense``
                                          ([n1, n2]), ``scale`` ({QA, QB, OUT_SCALE}),
                                          ``provenance``
ft_base    int16    [32 · nsq, H + P]     king-independent part of the board rows
ft_rows    int16    [n_features, H + P]   feature table minus ``ft_base`` (board rows)
ft_bias    int32    [H + P]               accumulator bias (0 in the material column)
l1w, l1b   int16,   [n1, 2H], [n1]        first dense layer (1/QB; bias 1/(QA·QB))
           int32
l2w, l2b   int16,   [n2, n1], [n2]        second dense layer
           int32
ow, ob     int16,   [n2], [1]             output
           int32
========== ======== ===================== ==============================================

The feature table is stored as a king-independent base (one row per piece plane and square)
and, per king bucket, what differs from it: a trained net's table is that base plus small
corrections in the buckets the training data visited, and zeros compress to almost nothing (a
9×9 table is 212 832 rows).  Loading adds them back: ``w[b, plane, sq] = base[plane, sq] +
rows[b, plane, sq]``, exactly.

Everything is checked before use and anything wrong is one :class:`~komaken.errors.EvalError`
naming the file and the fault: not a net file or truncated, another format version, variant,
board, feature set or scale, a missing member, a wrong shape or dtype, weights that are not
finite (a float array) or do not fit int16.
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import EvalError
from komaken.shogi._kernels import R_NSQ
from komaken.shogi.engine._nnue import OUT_SCALE, PLANES, QA, QB, full_score, n_features
from komaken.shogi.position import Position
from komaken.shogi.variant import Variant, load_variant, shipped_id

FORMAT = "komaken-nnue"
FORMAT_VERSION = 2
#: the versions this komaken reads (1: no material column)
READS_VERSIONS = (1, 2)
FEATURE_SET = "halfkp-drop"
#: the board and hand features plus "this piece is attacked / defended" (see ``_nnue``)
THREAT_SET = "halfkp-drop+threats"
#: the feature sets this komaken evaluates, and whether each has the threat features
FEATURE_SETS = {FEATURE_SET: False, THREAT_SET: True}
FEATURE_VERSION = 1
SUFFIX = ".nnue"
#: the widths of the dense layers after the accumulator
DENSE = (16, 16)
_NETS = resources.files("komaken.shogi.engine").joinpath("nets")
_INT16 = np.iinfo(np.int16)
_INT32 = np.iinfo(np.int32)


@dataclasses.dataclass(frozen=True, eq=False)
class Network:
    """A quantised NNUE network for one variant (see the module docstring for the file).

    The arrays are what the kernels take: ``w`` int16 ``[n_features(nsq), width + psqt]`` and
    ``b`` int32 ``[width + psqt]`` for ``refresh``/``update`` (``psqt`` is 1 when the last column
    is the material column, in evaluation units; see :func:`~komaken.shogi.engine._nnue.forward`);
    ``l1w`` int16 ``[n1, 2·width]``, ``l1b`` int32 ``[n1]``, ``l2w`` int16 ``[n2, n1]``, ``l2b``
    int32 ``[n2]``, ``ow`` int16 ``[n2]``, ``ob`` an int for ``forward`` (in that order:
    :meth:`dense`).  ``provenance`` says where the net came from (data, command, commit, held-out
    loss), strings by key.
    """

    variant: str
    board: tuple[int, int]
    w: np.ndarray
    b: np.ndarray
    l1w: np.ndarray
    l1b: np.ndarray
    l2w: np.ndarray
    l2b: np.ndarray
    ow: np.ndarray
    ob: int
    feature_set: str = FEATURE_SET
    feature_version: int = FEATURE_VERSION
    provenance: Mapping[str, str] = dataclasses.field(default_factory=dict)

    @property
    def nsq(self) -> int:
        return self.board[0] * self.board[1]

    @property
    def threats(self) -> bool:
        """Whether the net reads the threat features (feature set ``halfkp-drop+threats``)."""
        return FEATURE_SETS[self.feature_set]

    @property
    def width(self) -> int:
        """The accumulator's width per perspective that the layers read (``H``)."""
        return int(self.l1w.shape[1]) // 2

    @property
    def psqt(self) -> int:
        """1 when the feature table carries a material column beyond ``H``, else 0."""
        return int(self.w.shape[1]) - self.width

    @property
    def widths(self) -> tuple[int, int, int]:
        """``(H, n1, n2)``."""
        return self.width, int(self.l1w.shape[0]), int(self.l2w.shape[0])

    def dense(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """``(l1w, l1b, l2w, l2b, ow, ob)``: what ``forward`` takes after the two accumulators."""
        return self.l1w, self.l1b, self.l2w, self.l2b, self.ow, self.ob

    # ---- files ---------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path, variant: str | Variant | None = None) -> Network:
        """The net in ``path``, checked whole (and, given ``variant``, checked to be for it)."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise EvalError(f"{path}: cannot read the net file ({e.strerror or e})") from None
        net = _parse(data, str(path))
        if variant is not None:
            net.check_variant(variant, str(path))
        return net

    def save(self, path: str | Path) -> None:
        """Write the net to ``path`` (a ``.nnue`` file; see the module docstring)."""
        Path(path).write_bytes(self.to_bytes())

    def to_bytes(self) -> bytes:
        base, rows = _split(self.w, self.nsq)
        header = {"format": FORMAT, "version": FORMAT_VERSION, "variant": self.variant, "board": list(self.board),
                  "nsq": self.nsq, "feature_set": self.feature_set, "feature_version": self.feature_version,
                  "n_features": int(self.w.shape[0]), "width": self.width, "psqt": self.psqt,
                  "dense": list(self.widths[1:]),
                  "scale": {"QA": QA, "QB": QB, "OUT_SCALE": OUT_SCALE}, "provenance": dict(self.provenance)}
        buf = io.BytesIO()
        np.savez_compressed(buf, header=np.frombuffer(json.dumps(header, indent=1).encode(), dtype=np.uint8),
                            ft_base=base, ft_rows=rows, ft_bias=self.b, l1w=self.l1w, l1b=self.l1b, l2w=self.l2w,
                            l2b=self.l2b, ow=self.ow, ob=np.array([self.ob], dtype=np.int32))
        return buf.getvalue()

    def check_variant(self, variant: str | Variant, where: str = "net") -> None:
        """:class:`EvalError` unless the net is for ``variant`` (by name and board)."""
        v = load_variant(variant)
        name = shipped_id(v) or v.name
        if self.variant != name or self.board != (v.width, v.height):
            raise EvalError(f"{where}: the net is for {self.variant} ({self.board[0]}x{self.board[1]}), "
                            f"not {name} ({v.width}x{v.height})")

    # ---- for tests and experiments -----------------------------------------------------------
    @classmethod
    def random(cls, variant: str | Variant, width: int = 32, seed: int = 0, psqt: bool = False,
               threats: bool = False) -> Network:
        """An untrained net of the shape a trained one has (small random weights; with ``psqt``
        a random material column too, with ``threats`` the threat features' rows)."""
        v = load_variant(variant)
        rng = np.random.default_rng(seed)
        nsq = v.width * v.height
        n1, n2 = DENSE

        def ints(scale: float, shape: tuple[int, ...], dtype: type[np.generic]) -> np.ndarray:
            return np.round(rng.normal(0, scale, shape)).astype(dtype)

        cols = width + (1 if psqt else 0)
        return cls(shipped_id(v) or v.name, (v.width, v.height), ints(8, (n_features(nsq, threats), cols), np.int16),
                   ints(30, (cols,), np.int32), ints(8, (n1, 2 * width), np.int16), ints(QA * QB / 4, (n1,), np.int32),
                   ints(16, (n2, n1), np.int16), ints(QA * QB / 4, (n2,), np.int32), ints(32, (n2,), np.int16),
                   int(rng.integers(-QA * QB // 8, QA * QB // 8)), THREAT_SET if threats else FEATURE_SET,
                   provenance={"made": f"Network.random(seed={seed})"})


def evaluate(network: Network, position: Position) -> int:
    """The net's score of ``position`` for the side to move (evaluation units), by a full
    refresh of both accumulators and ``forward``: the reference the search's incremental
    evaluation must equal."""
    network.check_variant(position.variant)
    s = position.kernel_state()
    if int(s.rules[R_NSQ]) != network.nsq:
        raise EvalError(f"net: {network.nsq} squares, the position has {int(s.rules[R_NSQ])}")
    return full_score(s.bd, s.hd, s.st, s.rules, network.w, network.b, *network.dense())


def shipped_path(variant: str | Variant) -> Path | None:
    """Where the shipped net of ``variant`` is (``None``: no shipped net for it)."""
    vid = shipped_id(load_variant(variant))
    if vid is None:
        return None
    res = _NETS.joinpath(vid + SUFFIX)
    return Path(str(res)) if res.is_file() else None


def find_network(variant: str | Variant) -> Network | None:
    """The shipped net of ``variant``, or ``None`` when there is none (a custom variant: the
    caller falls back to the linear evaluation)."""
    path = shipped_path(variant)
    return None if path is None else Network.load(path, variant)


# ---- the file's parts ------------------------------------------------------------------------
def _split(w: np.ndarray, nsq: int) -> tuple[np.ndarray, np.ndarray]:
    """``(base, rows)`` with ``rows[board] = w[board] - base`` per king bucket, ``base`` the
    middle of each (plane, square)'s values over the buckets (exactly zero rows where a bucket
    was never trained); all zeros when that would not fit int16."""
    cells = PLANES * nsq
    board = w[:(nsq + 1) * cells].astype(np.int32).reshape(nsq + 1, cells, -1)
    base = np.median(board, axis=0).round().astype(np.int32)
    rows = w.astype(np.int32)
    rows[:(nsq + 1) * cells] = (board - base).reshape(-1, w.shape[1])
    if rows.min() < _INT16.min or rows.max() > _INT16.max:
        return np.zeros((cells, w.shape[1]), dtype=np.int16), w.astype(np.int16)
    return base.astype(np.int16), rows.astype(np.int16)


def _parse(data: bytes, where: str) -> Network:
    def bad(what: str) -> EvalError:
        return EvalError(f"{where}: {what}")

    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as e:
        raise bad(f"not a komaken NNUE file, or truncated ({type(e).__name__}: {e})") from None
    if "header" not in arrays:
        raise bad("not a komaken NNUE file (no header)")
    try:
        h = json.loads(arrays["header"].tobytes().decode())
        if not isinstance(h, dict):
            raise ValueError("not an object")
    except (UnicodeDecodeError, ValueError) as e:
        raise bad(f"unreadable header ({e})") from None
    return _build(arrays, _checked_header(h, bad), bad)


def _checked_header(h: dict[str, Any], bad: Callable[[str], EvalError]) -> dict[str, Any]:
    """The header ``h`` if it is one this komaken reads (``bad(what)`` is the error otherwise)."""
    if h.get("format") != FORMAT:
        raise bad(f"not a komaken NNUE file (format {h.get('format')!r})")
    if h.get("version") not in READS_VERSIONS:
        raise bad(f"file format version {h.get('version')!r}; this komaken reads versions "
                  f"{', '.join(map(str, READS_VERSIONS))}")
    if h.get("feature_set") not in FEATURE_SETS or h.get("feature_version") != FEATURE_VERSION:
        raise bad(f"feature set {h.get('feature_set')!r} version {h.get('feature_version')!r}; this komaken "
                  f"evaluates {' and '.join(map(repr, FEATURE_SETS))} version {FEATURE_VERSION}")
    if h.get("scale") != {"QA": QA, "QB": QB, "OUT_SCALE": OUT_SCALE}:
        raise bad(f"quantisation scale {h.get('scale')!r}; this komaken uses QA={QA}, QB={QB}, "
                  f"OUT_SCALE={OUT_SCALE}")
    board, variant, provenance = h.get("board"), h.get("variant"), h.get("provenance", {})
    if (not isinstance(board, list) or len(board) != 2 or not all(isinstance(x, int) and 1 <= x <= 16 for x in board)
            or not isinstance(variant, str) or not isinstance(provenance, dict)):
        raise bad("header lacks a valid variant, board or provenance")
    nsq = board[0] * board[1]
    nf = n_features(nsq, FEATURE_SETS[h["feature_set"]])
    if h.get("n_features") != nf or h.get("nsq") != nsq:
        raise bad(f"{h.get('n_features')} features for {h.get('nsq')} squares; a {board[0]}x{board[1]} board "
                  f"has {nf} features in {h['feature_set']!r} and {nsq} squares")
    width, dense = h.get("width"), h.get("dense")
    if (not isinstance(width, int) or not 1 <= width <= 4096 or not isinstance(dense, list) or len(dense) != 2
            or not all(isinstance(x, int) and 1 <= x <= 4096 for x in dense)):
        raise bad(f"invalid widths (width {width!r}, dense {dense!r})")
    if h.get("psqt", 0) not in (0, 1) or (h["version"] == 1 and h.get("psqt", 0)):
        raise bad(f"invalid material column flag psqt {h.get('psqt')!r} (0 or 1, version 2 only)")
    return h


def _build(arrays: dict[str, np.ndarray], h: dict[str, Any], bad: Callable[[str], EvalError]) -> Network:
    """The network of the file's ``arrays`` (its ``h``eader checked), each array checked."""
    board, width, (n1, n2) = h["board"], h["width"], h["dense"]
    cols = width + h.get("psqt", 0)
    nsq = board[0] * board[1]
    nf = h["n_features"]
    shapes: dict[str, tuple[tuple[int, ...], type[np.generic]]] = {
        "ft_base": ((PLANES * nsq, cols), np.int16), "ft_rows": ((nf, cols), np.int16),
        "ft_bias": ((cols,), np.int32), "l1w": ((n1, 2 * width), np.int16), "l1b": ((n1,), np.int32),
        "l2w": ((n2, n1), np.int16), "l2b": ((n2,), np.int32), "ow": ((n2,), np.int16), "ob": ((1,), np.int32)}
    got: dict[str, np.ndarray] = {}
    for name, (shape, dtype) in shapes.items():
        if name not in arrays:
            raise bad(f"missing array {name!r}")
        a = arrays[name]
        if a.shape != shape:
            raise bad(f"{name} has shape {list(a.shape)}, expected {list(shape)} (width {width}, dense {n1}x{n2})")
        if a.dtype.kind == "f":
            if not np.isfinite(a).all():
                raise bad(f"{name} holds NaN or infinite weights")
            raise bad(f"{name} is {a.dtype}, expected {np.dtype(dtype)} (a float net must be quantised first)")
        if a.dtype != dtype:
            raise bad(f"{name} is {a.dtype}, expected {np.dtype(dtype)}")
        got[name] = a
    cells = PLANES * nsq
    w = got["ft_rows"].astype(np.int32)
    w[:(nsq + 1) * cells] += np.tile(got["ft_base"].astype(np.int32), (nsq + 1, 1))
    if w.min() < _INT16.min or w.max() > _INT16.max:
        raise bad("feature weights (ft_base + ft_rows) overflow int16")
    return Network(h["variant"], (board[0], board[1]), w.astype(np.int16), got["ft_bias"], got["l1w"], got["l1b"],
                   got["l2w"], got["l2b"], got["ow"], int(got["ob"][0]), h["feature_set"], FEATURE_VERSION,
                   {str(k): str(v) for k, v in h.get("provenance", {}).items()})


__all__ = ["DENSE", "FEATURE_SET", "FEATURE_SETS", "THREAT_SET",
           "FORMAT", "Network", "SUFFIX", "evaluate", "find_network", "shipped_path"]
