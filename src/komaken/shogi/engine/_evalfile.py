"""Network files as the search reads them: :func:`load_network` (``EvalFile`` on USI,
``engine:eval=FILE`` for a player, ``Engine(net=...)``), :func:`save_network`, :func:`random_network`.

A network here is a :class:`~komaken.shogi.engine._context.NetArrays`: the integer arrays
:func:`~komaken.shogi.engine._nnue.refresh`, :func:`~komaken.shogi.engine._nnue.update` and
:func:`~komaken.shogi.engine._nnue.forward` take.  The file is a NumPy ``.npz`` archive holding
those arrays by name (``w``, ``b``, ``l1w``, ``l1b``, ``l2w``, ``l2b``, ``ow``, ``ob``) and, optionally,
``variant`` (the variant's name, checked when present).  :func:`load_network` is the one place
that reads such a file; everything else takes its :class:`NetArrays`.

Every problem with a file is one :class:`~komaken.errors.EvalError` naming the file and what is
wrong: missing, truncated or not an archive, an array missing, of the wrong kind or shape,
values that are not finite or do not fit the integer type, a network for another board or
variant.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import EvalError, KomakenError
from komaken.shogi._kernels import R_NSQ
from komaken.shogi.engine._context import NetArrays
from komaken.shogi.engine._nnue import n_features
from komaken.shogi.variant import Variant, load_variant

#: each array's integer type in the search (the accumulator's weights are int16, their sums int32)
DTYPES: dict[str, type[np.signedinteger[Any]]] = {
    "w": np.int16, "b": np.int32, "l1w": np.int64, "l1b": np.int64, "l2w": np.int64, "l2b": np.int64, "ow": np.int64,
    "ob": np.int64}


def is_network_file(path: str | Path) -> bool:
    """Whether an ``EvalFile`` names a network (anything but a ``.toml`` parameter file)."""
    return not str(path).lower().endswith(".toml")


def _shapes_fit(a: dict[str, np.ndarray]) -> str | None:
    """What is wrong with the arrays' shapes, or ``None``."""
    want_ndim = {"w": 2, "b": 1, "l1w": 2, "l1b": 1, "l2w": 2, "l2b": 1, "ow": 1, "ob": 1}
    for k, nd in want_ndim.items():
        if a[k].ndim != nd:
            return f"array {k} has {a[k].ndim} dimensions, not {nd}"
    h = a["w"].shape[1]
    n1, n2 = a["l1w"].shape[0], a["l2w"].shape[0]
    checks = [("b", a["b"].shape, (h,)), ("l1w", a["l1w"].shape, (n1, 2 * h)), ("l1b", a["l1b"].shape, (n1,)),
              ("l2w", a["l2w"].shape, (n2, n1)), ("l2b", a["l2b"].shape, (n2,)), ("ow", a["ow"].shape, (n2,)),
              ("ob", a["ob"].shape, (1,))]
    for k, got, want in checks:
        if got != want:
            return f"array {k} has shape {got}, the layers around it need {want}"
    if h == 0 or n1 == 0 or n2 == 0:
        return "a layer has no neurons"
    return None


def check_network(arrays: dict[str, np.ndarray], variant: Variant, where: str) -> NetArrays:
    """The arrays as a :class:`NetArrays` for ``variant``'s board, or :class:`EvalError` naming
    ``where`` (the file) and what is wrong."""
    missing = [k for k in NetArrays._fields if k not in arrays]
    if missing:
        raise EvalError(f"{where}: not a network: array {missing[0]} is missing "
                        f"(a network file holds {', '.join(NetArrays._fields)})")
    out = {}
    for k, dtype in DTYPES.items():
        a = np.asarray(arrays[k])
        if k == "ob":
            a = a.reshape(-1)  # a plain int or a one-element array
        if a.dtype.kind == "f":
            if not np.all(np.isfinite(a)):
                raise EvalError(f"{where}: array {k} holds NaN or infinite values")
            if not np.all(a == np.round(a)):
                raise EvalError(f"{where}: array {k} holds fractions: a network file holds quantized integers")
        elif a.dtype.kind not in "iu":
            raise EvalError(f"{where}: array {k} is of type {a.dtype}, not integers")
        info = np.iinfo(dtype)
        if a.size and (a.min() < info.min or a.max() > info.max):
            raise EvalError(f"{where}: array {k} holds values outside {np.dtype(dtype).name}")
        out[k] = np.ascontiguousarray(a.astype(dtype))
    problem = _shapes_fit(out)
    if problem is not None:
        raise EvalError(f"{where}: {problem}")
    nsq = int(variant.rules[R_NSQ])
    if out["w"].shape[0] != n_features(nsq):
        raise EvalError(f"{where}: a network for another board: {out['w'].shape[0]} features, "
                        f"{variant.name}'s {nsq} squares need {n_features(nsq)}")
    return NetArrays(**out)


def load_network(path: str | Path, variant: Variant | None) -> NetArrays:
    """The network in file ``path`` for ``variant`` (``None``: the one the file names), or
    :class:`EvalError`.

    This is the one reader of network files: a different file format is read here and the rest
    of the engine, USI and the players follow."""
    p = Path(path)
    if p.is_file() and not zipfile.is_zipfile(p):
        head = p.read_bytes()[:4]
        what = "truncated" if head[:2] == b"PK" else "not a network archive (.npz)"
        raise EvalError(f"network file {p}: {what}")
    try:
        with np.load(p, allow_pickle=False) as data:
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise EvalError(f"network file {p}: not a network archive (.npz)")
            arrays = {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise EvalError(f"network file {p}: no such file") from None
    except IsADirectoryError:
        raise EvalError(f"network file {p}: is a folder") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise EvalError(f"network file {p}: truncated or not a network archive ({exc})") from None
    named = arrays.pop("variant", None)
    if variant is None:
        if named is None:
            raise EvalError(f"network file {p}: names no variant")
        try:
            variant = load_variant(str(named))
        except KomakenError:
            raise EvalError(f"network file {p}: for the unknown variant {str(named)!r}") from None
    elif named is not None and str(named) != variant.name:
        raise EvalError(f"network file {p}: a network for {str(named)!r}, not {variant.name!r}")
    return check_network(arrays, variant, f"network file {p}")


def save_network(path: str | Path, net: NetArrays, variant: Variant) -> None:
    """Write ``net`` for ``variant`` as :func:`load_network` reads it."""
    with open(path, "wb") as f:
        np.savez(f, variant=np.array(variant.name), **net._asdict())


def random_network(variant: Variant, hidden: int = 64, n1: int = 16, n2: int = 16, seed: int = 0) -> NetArrays:
    """An untrained network of random weights for ``variant``'s board (tests and speed
    measurements: it plays nonsense, but every path of the search runs as with a trained one)."""
    rng = np.random.default_rng(seed)
    nf = n_features(int(variant.rules[R_NSQ]))
    return NetArrays(rng.integers(-40, 40, size=(nf, hidden)).astype(np.int16),
                     rng.integers(0, 60, size=hidden).astype(np.int32),
                     rng.integers(-64, 64, size=(n1, 2 * hidden)).astype(np.int64),
                     rng.integers(-4000, 4000, size=n1).astype(np.int64),
                     rng.integers(-64, 64, size=(n2, n1)).astype(np.int64),
                     rng.integers(-4000, 4000, size=n2).astype(np.int64),
                     rng.integers(-64, 64, size=n2).astype(np.int64), np.array([100], dtype=np.int64))
