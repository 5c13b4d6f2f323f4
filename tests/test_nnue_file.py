"""The NNUE net file: written and read back exactly, and every fault found before use."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from komaken.errors import EvalError
from komaken.shogi import Position
from komaken.shogi.engine._nnue import n_features
from komaken.shogi.engine.nnue import Network, evaluate, find_network
from komaken.shogi.engine.nnue_train import position_features


def _members(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _rewrite(path: Path, members: dict[str, np.ndarray]) -> None:
    buf = io.BytesIO()
    np.savez_compressed(buf, **members)  # type: ignore[arg-type]
    path.write_bytes(buf.getvalue())


def _header(members: dict[str, np.ndarray]) -> dict[str, object]:
    h = json.loads(members["header"].tobytes().decode())
    assert isinstance(h, dict)
    return h


def _set_header(members: dict[str, np.ndarray], **changes: object) -> None:
    h = _header(members) | changes
    members["header"] = np.frombuffer(json.dumps(h).encode(), dtype=np.uint8)


@pytest.mark.parametrize("threats", [False, True])
@pytest.mark.parametrize("psqt", [False, True])
@pytest.mark.parametrize("variant", ["minishogi", "judkins", "shogi"])
def test_a_net_round_trips_exactly(tmp_path: Path, variant: str, psqt: bool, threats: bool) -> None:
    net = Network.random(variant, width=16, seed=3, psqt=psqt, threats=threats)
    path = tmp_path / "a.nnue"
    net.save(path)
    back = Network.load(path, variant=variant)
    for name in ("w", "b", "l1w", "l1b", "l2w", "l2b", "ow"):
        a, b = getattr(net, name), getattr(back, name)
        assert a.dtype == b.dtype and (a == b).all(), name
    assert back.ob == net.ob and back.widths == (16, 16, 16) and back.board == net.board
    assert back.provenance == net.provenance and back.w.shape == (n_features(net.nsq, threats), 16 + psqt)
    assert back.threats == threats and back.feature_set == _header(_members(path))["feature_set"]
    assert back.psqt == int(psqt) and _header(_members(path))["psqt"] == int(psqt)
    pos = Position.start(variant)
    assert evaluate(back, pos) == evaluate(net, pos)


def test_a_version_1_file_without_material_column_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "v1.nnue"
    net = Network.random("minishogi", width=8, seed=5)
    net.save(path)
    m = _members(path)
    h = _header(m)
    del h["psqt"]
    h["version"] = 1
    m["header"] = np.frombuffer(json.dumps(h).encode(), dtype=np.uint8)
    _rewrite(path, m)
    back = Network.load(path, "minishogi")
    assert back.psqt == 0 and (back.w == net.w).all()
    assert evaluate(back, Position.start("minishogi")) == evaluate(net, Position.start("minishogi"))


def test_the_material_column_adds_half_the_difference_of_the_perspectives() -> None:
    """The score with the material column is the score of the same layers without it plus
    ``(us − them) / 2`` of the column's sums over each perspective's active features."""
    net = Network.random("judkins", width=8, seed=6, psqt=True)
    bare = Network(**{**net.__dict__, "w": net.w[:, :8].copy(), "b": net.b[:8].copy()})
    assert bare.psqt == 0
    pos = Position.start("judkins")
    differed = 0
    for ply in range(6):
        feats = position_features(pos)
        col = [int(net.b[8]) + sum(int(net.w[f, 8]) for f in feats[s] if f >= 0) for s in range(2)]
        differed += col[0] != col[1]
        assert evaluate(net, pos) == evaluate(bare, pos) + (col[0] - col[1]) // 2
        moves = pos.legal_moves()
        pos.push(moves[(7 * ply) % len(moves)])
    assert differed >= 3  # the start is symmetric, the positions after it are not


def test_a_trained_looking_table_is_stored_small(tmp_path: Path) -> None:
    """A base per (piece, square) plus corrections in a few king buckets: the file holds the
    base once and the zeros compress, yet the table comes back exactly."""
    net = Network.random("shogi", width=16, seed=1)
    rng = np.random.default_rng(0)
    nsq, cells = 81, 32 * 81
    base = rng.integers(-300, 300, (cells, 16))
    w = np.zeros_like(net.w, dtype=np.int64)
    w[:(nsq + 1) * cells] = np.tile(base, (nsq + 1, 1))
    for bucket in (4, 13, 76):
        w[bucket * cells:(bucket + 1) * cells] += rng.integers(-20, 20, (cells, 16))
    w[(nsq + 1) * cells:] = rng.integers(-50, 50, (w.shape[0] - (nsq + 1) * cells, 16))
    net = Network(**{**net.__dict__, "w": w.astype(np.int16)})
    path = tmp_path / "s.nnue"
    net.save(path)
    assert (Network.load(path).w == net.w).all()
    assert path.stat().st_size < 400_000, path.stat().st_size  # the table alone is 6.8 MB


def _faulty(tmp_path: Path, fault: str) -> Path:
    path = tmp_path / f"{fault}.nnue"
    Network.random("minishogi", width=8, seed=2).save(path)
    m = _members(path)
    if fault == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
        return path
    if fault == "empty":
        path.write_bytes(b"")
        return path
    if fault == "not-a-net":
        path.write_text("[search]\nfutility = 1\n")
        return path
    if fault == "other-zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("hello.txt", "hi")
        return path
    if fault == "no-header":
        del m["header"]
    elif fault == "feature-set":
        _set_header(m, feature_set="halfkp-chess")
    elif fault == "feature-version":
        _set_header(m, feature_version=2)
    elif fault == "format-version":
        _set_header(m, version=9)
    elif fault == "scale":
        _set_header(m, scale={"QA": 255, "QB": 64, "OUT_SCALE": 600})
    elif fault == "feature-count":
        _set_header(m, n_features=12345)
    elif fault == "threats-without-rows":
        _set_header(m, feature_set="halfkp-drop+threats")
    elif fault == "missing-array":
        del m["l2w"]
    elif fault == "shape":
        m["l1w"] = m["l1w"][:, :-1]
    elif fault == "nan":
        f = m["l2w"].astype(np.float32)
        f[0, 0] = np.nan
        m["l2w"] = f
    elif fault == "inf":
        f = m["ft_rows"].astype(np.float32)
        f[5, 1] = -np.inf
        m["ft_rows"] = f
    elif fault == "float":
        m["ow"] = m["ow"].astype(np.float64)
    elif fault == "overflow":
        base = m["ft_base"].copy()
        base[:] = 30000
        rows = m["ft_rows"].copy()
        rows[:] = 30000
        m["ft_base"], m["ft_rows"] = base, rows
    elif fault == "header-json":
        m["header"] = np.frombuffer(b"{not json", dtype=np.uint8)
    elif fault == "psqt-flag":
        _set_header(m, psqt=3)
    elif fault == "psqt-in-v1":
        _set_header(m, version=1, psqt=1)
    elif fault == "psqt-shape":
        _set_header(m, psqt=1)
    _rewrite(path, m)
    return path


FAULTS = {"truncated": "truncated", "empty": "truncated", "not-a-net": "not a komaken NNUE file",
          "other-zip": "no header", "no-header": "no header", "feature-set": "feature set 'halfkp-chess'",
          "feature-version": "version 2", "format-version": "file format version 9", "scale": "quantisation",
          "feature-count": "12345 features", "threats-without-rows": "features in 'halfkp-drop+threats'",
          "missing-array": "missing array 'l2w'", "shape": "l1w has shape",
          "nan": "l2w holds NaN", "inf": "ft_rows holds NaN or infinite", "float": "ow is float64",
          "overflow": "overflow int16", "header-json": "unreadable header", "psqt-flag": "material column flag psqt 3",
          "psqt-in-v1": "material column flag", "psqt-shape": "ft_base has shape [800, 8], expected [800, 9]"}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_is_one_eval_error_naming_file_and_fault(tmp_path: Path, fault: str) -> None:
    path = _faulty(tmp_path, fault)
    with pytest.raises(EvalError) as e:
        Network.load(path, variant="minishogi")
    assert str(path) in str(e.value) and FAULTS[fault] in str(e.value), str(e.value)
    assert isinstance(e.value, ValueError)


def test_a_net_for_another_variant_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.nnue"
    Network.random("minishogi", width=8).save(path)
    for other in ("judkins", "shogi", "ctrl5"):
        with pytest.raises(EvalError, match=f"m.nnue: the net is for minishogi .5x5., not {other}"):
            Network.load(path, variant=other)
    with pytest.raises(EvalError, match="cannot read"):
        Network.load(tmp_path / "missing.nnue")
    with pytest.raises(EvalError, match="the net is for minishogi"):
        evaluate(Network.load(path), Position.start("judkins"))


def test_a_custom_variant_has_no_shipped_net(tmp_path: Path) -> None:
    custom = tmp_path / "mini2.toml"
    custom.write_text('inherits = "minishogi"\nname = "mini2"\n[rules]\nrepetition = "draw"\n')
    assert find_network(str(custom)) is None
