"""The board-size study on the web server: a study database given with ``--db`` is recognised by
its ``meta`` table, read only through a snapshot, and its report rendered as the page's blocks."""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

import numpy as np
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from komaken.web import create_app, study
from test_values_study import _synthetic_db
from web_support import play_experiment, write_experiment

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("study")
    lab = folder / "lab.db"
    play_experiment(write_experiment(folder, 2), lab)
    mini = folder / "mini.db"
    _synthetic_db(mini, 300, np.random.default_rng(6))
    return lab, mini


def test_a_study_database_is_listed_as_a_study(dbs) -> None:  # type: ignore[no-untyped-def]
    with TestClient(create_app(list(dbs))) as client:
        listing = client.get("/api/dbs").json()["dbs"]
    assert [d["kind"] for d in listing] == ["experiment", "study"]
    assert listing[1]["games"] == 300 and listing[1]["experiment"] == "piece-values study: minishogi"


def test_the_study_report_has_its_tables_and_figure_and_the_file_is_untouched(dbs, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(study, "BOOTSTRAP", 20)
    lab, mini = dbs
    before = _digest(mini)
    with TestClient(create_app([lab, mini])) as client:
        r = client.get("/api/dbs/1/report")
        assert r.status_code == 200, r.text
        doc = r.json()
        svg = client.get("/api/dbs/1/plots/values_vs_n.svg")
        for tail in ("", "/games", "/facets", "/games/1", "/games/1/record"):
            bad = client.get(f"/api/dbs/1{tail}")
            assert bad.status_code == 404 and "piece-values study" in bad.json()["error"]
        assert client.get("/api/dbs/0/report").json()["kind"] == "experiment"
    assert doc["kind"] == "study" and doc["blocks"][0] == {"kind": "h1", "text": "Piece values against board size"}
    assert "mini.db" in doc["blocks"][1]["text"]
    tables = [b for b in doc["blocks"] if b["kind"] == "table"]
    assert tables[0]["caption"].startswith("Method A")
    assert tables[0]["header"][:4] == ["variant", "n", "budget", "games"]
    assert tables[0]["rows"][0][:4] == ["minishogi", "5", "1000 nodes", "300"]
    assert [b["name"] for b in doc["blocks"] if b["kind"] == "figure"] == ["values_vs_n"]
    assert any(b["kind"] == "h2" and b["text"].startswith("Hypotheses") for b in doc["blocks"])
    assert svg.status_code == 200 and b"<svg" in svg.content
    # unchanged; a read-only reader of a WAL database leaves at most an empty -wal (SQLite's own)
    wal = mini.with_name("mini.db-wal")
    assert _digest(mini) == before and (not wal.exists() or wal.stat().st_size == 0)
