"""Network files as the search reads them: :func:`load_network` (``EvalFile`` on USI,
``engine:eval=FILE`` for a player, ``Engine(net=...)``), :func:`save_network`, :func:`random_network`,
and :func:`default_network`, the net the engine evaluates with when nothing else is asked.

A network here is a :class:`~komaken.shogi.engine._context.NetArrays`: the integer arrays
:func:`~komaken.shogi.engine._nnue.refresh`, :func:`~komaken.shogi.engine._nnue.update` and
:func:`~komaken.shogi.engine._nnue.forward` take.  The file is the ``.nnue`` format of
:class:`~komaken.shogi.engine.nnue.Network`, which reads and checks it (every problem is one
:class:`~komaken.errors.EvalError` naming the file and what is wrong); this module only turns a
:class:`Network` into the search's arrays and back.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

import numpy as np

from komaken.shogi._kernels import R_NSQ
from komaken.shogi.engine._context import NetArrays
from komaken.shogi.engine._nnue import n_features, reads_threats
from komaken.shogi.engine.evalparams import params_id
from komaken.shogi.engine.nnue import FEATURE_SET, THREAT_SET, Network, find_network
from komaken.shogi.variant import Variant, shipped_id

#: What an engine evaluates with: a network's arrays, ``None`` for the linear evaluation, or
#: ``"default"``: :func:`default_network` of the variant.
NetChoice = NetArrays | Literal["default"] | None

#: The shipped variants whose shipped net is the engine's default evaluation.  A net is listed
#: here once it beat the linear evaluation in an SPRT at equal time (docs/engine.md, "Shipped
#: nets"); the other shipped nets stay an ``EvalFile`` away until theirs do.
DEFAULT_NETS = frozenset({"minishogi", "judkins"})


def is_network_file(path: str | Path) -> bool:
    """Whether an ``EvalFile`` names a network (anything but a ``.toml`` parameter file)."""
    return not str(path).lower().endswith(".toml")


def arrays(net: Network) -> NetArrays:
    """``net``'s weights as the search takes them."""
    return NetArrays(net.w, net.b, net.l1w, net.l1b, net.l2w, net.l2b, net.ow, np.array([net.ob], dtype=np.int64))


def load_network(path: str | Path, variant: Variant | None) -> NetArrays:
    """The network in file ``path`` for ``variant`` (``None``: the one the file names), or
    :class:`~komaken.errors.EvalError`."""
    return arrays(Network.load(path, variant))


def default_network(variant: Variant) -> NetArrays | None:
    """The net ``variant`` is evaluated with by default: its shipped net when the variant is in
    :data:`DEFAULT_NETS`, else ``None`` (the linear evaluation, with the variant's parameter file;
    a custom variant says so once, :func:`~komaken.shogi.engine.evalparams.defaults_notice`)."""
    vid = params_id(variant)  # a shipped game under another name plays its net too
    return _shipped_arrays(vid) if vid in DEFAULT_NETS else None


@functools.cache
def _shipped_arrays(vid: str) -> NetArrays | None:
    """Read once per process: every engine of a variant shares the same read-only arrays."""
    net = find_network(vid)
    return None if net is None else arrays(net)


def resolve_net(net: NetChoice, variant: Variant, linear_asked: bool) -> NetArrays | None:
    """What ``net`` means for an engine of ``variant``: ``"default"`` is :func:`default_network`,
    unless the caller asked for something only the linear evaluation has (``linear_asked``: piece
    values, positional term weights or a parameter file), which keeps the linear evaluation."""
    if isinstance(net, str):
        if net != "default":
            raise ValueError(f"net must be a network, None or 'default', not {net!r}")
        return None if linear_asked else default_network(variant)
    return net


def save_network(path: str | Path, net: NetArrays, variant: Variant) -> None:
    """Write ``net`` for ``variant`` as a ``.nnue`` file :func:`load_network` reads."""
    threats = reads_threats(net.w, int(variant.rules[R_NSQ]))
    Network(shipped_id(variant) or variant.name, (variant.width, variant.height), net.w.astype(np.int16),
            net.b.astype(np.int32), net.l1w.astype(np.int16), net.l1b.astype(np.int32), net.l2w.astype(np.int16),
            net.l2b.astype(np.int32), net.ow.astype(np.int16), int(net.ob[0]), THREAT_SET if threats else FEATURE_SET,
            provenance={"made": "save_network"}).save(path)


def random_network(variant: Variant, hidden: int = 64, n1: int = 16, n2: int = 16, seed: int = 0,
                   threats: bool = False) -> NetArrays:
    """An untrained network of random weights for ``variant``'s board, with the threat features
    or without (tests and speed measurements: it plays nonsense, but every path of the search
    runs as with a trained one)."""
    rng = np.random.default_rng(seed)
    nf = n_features(int(variant.rules[R_NSQ]), threats)
    # the dtypes of a loaded net (:func:`arrays`), so both run one compiled search
    return NetArrays(rng.integers(-40, 40, size=(nf, hidden)).astype(np.int16),
                     rng.integers(0, 60, size=hidden).astype(np.int32),
                     rng.integers(-64, 64, size=(n1, 2 * hidden)).astype(np.int16),
                     rng.integers(-4000, 4000, size=n1).astype(np.int32),
                     rng.integers(-64, 64, size=(n2, n1)).astype(np.int16),
                     rng.integers(-4000, 4000, size=n2).astype(np.int32),
                     rng.integers(-64, 64, size=n2).astype(np.int16), np.array([100], dtype=np.int64))
