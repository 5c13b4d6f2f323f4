"""The web server's JSON API: every endpoint, bad input, and the databases left untouched.

Play endpoints run in-process (Starlette's TestClient); the event streams and the concurrent
readers run against a real ``komaken serve`` subprocess (see ``web_support.py``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

from komaken import records
from komaken.shogi import Position

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from komaken.web import create_app
from web_support import SAME_ORIGIN, play_experiment, wait_until, write_experiment

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def finished_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("webdb")
    db = folder / "small.db"
    play_experiment(write_experiment(folder, 6), db)
    return db


@pytest.fixture(scope="module")
def client(finished_db: Path):  # type: ignore[no-untyped-def]
    app = create_app([finished_db], ["shogi7x7"])
    with TestClient(app, headers=SAME_ORIGIN) as c:
        yield c


def new(client, game="minishogi", black=None, white=None, **kw):  # type: ignore[no-untyped-def]
    body = {"game": game, "black": black or {"kind": "human"}, "white": white or {"kind": "human"}, **kw}
    r = client.post("/api/play", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def state(client, sid):  # type: ignore[no-untyped-def]
    r = client.get(f"/api/play/{sid}")
    assert r.status_code == 200
    return r.json()


# ---- pages and the game list ---------------------------------------------------------------------
def test_index_and_static_assets(client) -> None:  # type: ignore[no-untyped-def]
    r = client.get("/")
    assert r.status_code == 200 and "komaken" in r.text and "/static/app.js" in r.text
    for name in ("app.js", "board.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/%2e%2e/app.py").status_code == 404


def test_game_list_has_every_game_and_the_toml_variant(client) -> None:  # type: ignore[no-untyped-def]
    games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert {"shogi", "minishogi", "judkins", "shogi7x7", "reversi", "tictactoe"} <= set(games)
    assert (games["judkins"]["width"], games["judkins"]["height"]) == (6, 6)
    assert (games["shogi7x7"]["width"], games["shogi7x7"]["height"]) == (7, 7)
    assert games["shogi"]["formats"] == ["kif", "ki2", "csa", "usi"]


@pytest.mark.parametrize(("game", "cells", "moves"), [("shogi", 81, 30), ("minishogi", 25, 14), ("judkins", 36, None),
                                                      ("shogi7x7", 49, None), ("reversi", 64, 4), ("tictactoe", 9, 9)])
def test_every_game_starts_with_its_board_and_legal_moves(client, game, cells, moves) -> None:  # type: ignore[no-untyped-def]
    st = new(client, game)
    assert len(st["board"]["cells"]) == cells
    if moves is not None:
        assert len(st["legal"]) == moves
    assert st["ply"] == 0 and st["outcome"] is None


# ---- moves -----------------------------------------------------------------------------------------
def test_move_labels_are_japanese_and_the_board_follows(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "shogi")
    r = client.post(f"/api/play/{st['id']}/move", json={"move": "7g7f"})
    assert r.status_code == 200
    st = r.json()
    assert st["moves"] == [{"label": "▲７六歩", "western": "▲P-7f", "id": "7g7f"}]  # western: the international set
    assert st["board"]["last"] == {"from": "7g", "to": "7f"}
    assert st["position"].startswith("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w")
    st = client.post(f"/api/play/{st['id']}/move", json={"move": "3c3d"}).json()
    assert st["moves"][-1]["label"] == "△３四歩"


@pytest.mark.parametrize("bad", ["7g7e", "zz", "", "P*5e", "1a1b", "7g7f7f", 123, None, ["7g7f"], "x" * 5000])
def test_an_illegal_or_malformed_move_is_refused_and_the_board_stays(client, bad) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "shogi")
    r = client.post(f"/api/play/{st['id']}/move", json={"move": bad})
    assert r.status_code == 400
    assert "error" in r.json()
    after = state(client, st["id"])
    assert after["position"] == st["position"] and after["ply"] == 0


def test_malformed_bodies_are_400(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "shogi")
    for body in (b"not json", b"[1, 2]", b"\xff\xfe", b'"text"'):
        r = client.post(f"/api/play/{st['id']}/move", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, body
        assert r.json()["error"]
    r = client.post("/api/play", content=b"{", headers={"Content-Type": "application/json"})
    assert r.status_code == 400


@pytest.mark.parametrize("body", [
    {"game": "shogi", "start": "lnsgkgsnl/9/9/9 b - 1"},
    {"game": "shogi", "start": "not a position"},
    {"game": "minishogi", "start": "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"},
    {"game": "reversi", "start": "XXXX"},
    {"game": "tictactoe", "start": "XXX/OO./... X"},
    {"game": "shogi", "record": "this is not a record"},
    {"game": "shogi", "record": "startpos moves 7g7f 7g7f"},
    {"game": "shogi", "black": {"kind": "engine", "movetime": "fast"}},
    {"game": "shogi", "black": {"kind": "engine", "depth": 0}},
    {"game": "shogi", "black": {"kind": "wizard"}},
    {"game": "shogi", "black": "engine"},
    {"game": "shogi", "start": 5},
])
def test_bad_positions_records_and_players_are_400(client, body) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/api/play", json=body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]


def test_unknown_game_and_session_are_404(client) -> None:  # type: ignore[no-untyped-def]
    assert client.post("/api/play", json={"game": "../../etc/passwd"}).status_code == 404
    assert client.get("/api/play/nope").status_code == 404
    assert client.post("/api/play/nope/move", json={"move": "7g7f"}).status_code == 404
    assert client.get("/api/nothing").status_code == 404
    assert client.get("/api/nothing").json()["error"]


def test_start_from_sfen_and_from_records(client) -> None:  # type: ignore[no-untyped-def]
    sfen = "4k/5/5/5/K3P b G 1"
    st = new(client, "minishogi", start=sfen)
    assert st["position"] == sfen
    assert st["board"]["hands"][0] == [{"kind": "G", "label": "金", "n": 1, "letter": "G"}]
    st = new(client, "shogi", record="startpos moves 7g7f 3c3d 8h2b+")
    assert st["ply"] == 3 and st["position"].split()[2] == "B"
    kif = records.dumps(records.parse("startpos moves 2g2f 8c8d", format="usi"), "kif")
    st = new(client, "shogi", record=kif)
    assert st["ply"] == 2
    assert st["position"] == Position.from_sfen("startpos").sfen() or st["position"].endswith("b - 3")


def test_promotion_choice_and_drop(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "minishogi", start="k4/2S2/5/5/4K b S 1")
    ids = {m["id"] for m in st["legal"]}
    assert {"3b3a", "3b3a+"} <= ids
    assert any(m["drop"] == "S" and m["to"] == "1c" for m in st["legal"])
    st = client.post(f"/api/play/{st['id']}/move", json={"move": "3b3a+"}).json()
    assert st["moves"][-1]["label"] == "▲３一銀成"
    assert next(c for c in st["board"]["cells"] if c["id"] == "3a")["piece"]["promoted"]
    st = client.post(f"/api/play/{st['id']}/move", json={"move": "5a5b"}).json()
    st = client.post(f"/api/play/{st['id']}/move", json={"move": "S*1c"}).json()
    assert st["moves"][-1]["label"] == "▲１三銀"
    assert st["board"]["hands"][0] == []


def test_check_is_marked(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "minishogi", start="k4/5/5/5/4K b G 1")
    st = client.post(f"/api/play/{st['id']}/move", json={"move": "G*5b"}).json()
    assert st["board"]["check"] == "5a"
    assert st["outcome"] is None and all(m["from"] == "5a" or m["to"] == "5b" for m in st["legal"])


def test_engine_replies_and_reports_its_thinking(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "minishogi", white={"kind": "engine", "movetime": 0.2})
    client.post(f"/api/play/{st['id']}/move", json={"move": st["legal"][0]["id"]})
    after = wait_until(lambda: (s := state(client, st["id"]))["ply"] == 2 and s, 10, "the engine's reply")
    assert after["thinking"] is None and after["moves"][1]["label"].startswith("△")
    assert len(after["legal"]) > 0


def test_engine_moves_first_when_it_has_black(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "minishogi", black={"kind": "engine", "depth": 2})
    wait_until(lambda: state(client, st["id"])["ply"] == 1, 10, "the engine's first move")
    r = client.post(f"/api/play/{st['id']}/move", json={"move": "5e4d"})
    assert r.status_code == 400  # black's king move is not white's


def test_undo_takes_back_the_human_move_and_the_reply(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "minishogi", white={"kind": "engine", "depth": 1})
    assert client.post(f"/api/play/{st['id']}/undo", json={}).status_code == 400
    client.post(f"/api/play/{st['id']}/move", json={"move": st["legal"][0]["id"]})
    wait_until(lambda: state(client, st["id"])["ply"] == 2, 10, "the engine's reply")
    r = client.post(f"/api/play/{st['id']}/undo", json={})
    assert r.status_code == 200
    assert r.json()["ply"] == 0 and r.json()["position"] == st["position"] and r.json()["moves"] == []


def test_resign_ends_the_game(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "shogi", white={"kind": "engine", "depth": 1})
    st = client.post(f"/api/play/{st['id']}/resign", json={}).json()
    assert st["outcome"]["reason"] == "resignation" and st["outcome"]["winner"] == "white"
    assert client.post(f"/api/play/{st['id']}/resign", json={}).status_code == 400
    assert client.post(f"/api/play/{st['id']}/move", json={"move": "7g7f"}).status_code == 400
    assert "投了" in client.get(f"/api/play/{st['id']}/record?format=kif").text


def test_tictactoe_full_game_against_the_perfect_engine_is_a_draw_or_loss(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "tictactoe", white={"kind": "engine"})
    sid = st["id"]
    for _ in range(9):
        wait_until(lambda: (x := state(client, sid))["outcome"] or x["legal"], 10, "our turn or the end")
        s = state(client, sid)
        if s["outcome"]:
            break
        assert client.post(f"/api/play/{sid}/move", json={"move": s["legal"][0]["id"]}).status_code == 200
    s = wait_until(lambda: state(client, sid)["outcome"], 10, "the end of the game")
    assert s["winner"] in (None, "white")
    assert client.get(f"/api/play/{sid}/record?format=txt").text.split()


def test_reversi_pass_is_offered_when_it_is_the_only_move(client) -> None:  # type: ignore[no-untyped-def]
    board = "XXXXXXXX" + "XXXXXXXX" * 6 + "XXXXXXO-"
    st = new(client, "reversi", start=board + " O")
    assert [m["id"] for m in st["legal"]] == ["pass"] and st["legal"][0]["pass"]


@pytest.mark.parametrize("fmt", ["kif", "ki2", "csa", "usi"])
def test_record_downloads_read_back(client, fmt) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "shogi")
    for mv in ("7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"):
        assert client.post(f"/api/play/{st['id']}/move", json={"move": mv}).status_code == 200
    r = client.get(f"/api/play/{st['id']}/record?format={fmt}")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rec = records.parse(r.text, fmt)
    assert [m.usi() for m in rec.moves] == ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]


def test_record_download_rejects_unknown_formats(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "shogi")
    for fmt in ("pdf", "../kif", "txt"):
        r = client.get(f"/api/play/{st['id']}/record", params={"format": fmt})
        assert r.status_code == 400 and r.json()["error"]
    st = new(client, "reversi")
    assert client.get(f"/api/play/{st['id']}/record?format=kif").status_code == 400


# ---- whatever a request carries, the answer is JSON and never a 500 ---------------------------------

_KIF_BITS = st_.sampled_from(["手数----指手---------消費時間--", "   1 ７六歩(77)", "   2 ３四歩(33)", "開始日時：",
                              "後手の持駒：なし", "|v香v桂v銀v金v玉v金v銀v桂v香|一", "P1-KY", "+7776FU", "'",
                              "startpos moves", "7g7f", "▲７六歩", "△同　歩", "sfen 9/9 b - 1", "投了", "N+", "PI",
                              "%TORYO"])


# 30 examples: each posts four games' starts, records and moves (both 201 and 400 answers on each path)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(move=st_.text(max_size=12), start=st_.text(max_size=40),
       record=st_.lists(st_.one_of(_KIF_BITS, st_.text(max_size=10)), max_size=6).map("\n".join))
def test_fuzzed_moves_positions_and_records_never_500(client, move, start, record) -> None:  # type: ignore[no-untyped-def]
    for game in ("shogi", "minishogi", "reversi", "tictactoe"):
        r = client.post("/api/play", json={"game": game, "start": start})
        assert r.status_code in (201, 400), (game, start, r.text)
        r = client.post("/api/play", json={"game": game, "record": record})
        assert r.status_code in (201, 400), (game, record, r.text)
        if r.status_code == 201:
            sid = r.json()["id"]
            before = r.json()["position"]
            r = client.post(f"/api/play/{sid}/move", json={"move": move})
            assert r.status_code in (200, 400), (game, move, r.text)
            if r.status_code == 400:
                assert client.get(f"/api/play/{sid}").json()["position"] == before


@pytest.mark.parametrize("game", ["minishogi", "tictactoe"])
def test_engine_against_engine_plays_to_the_end(client, game) -> None:  # type: ignore[no-untyped-def]
    side = {"kind": "engine", "depth": 1}
    st = new(client, game, black=side, white=side)
    end = wait_until(lambda: (s := state(client, st["id"]))["outcome"] and s, 60, "the end of the game")
    assert end["ply"] == len(end["moves"]) >= 5 and end["thinking"] is None and end["legal"] == []
    assert client.post(f"/api/play/{st['id']}/undo", json={}).status_code == 400  # over: nothing to take back


def test_resign_while_the_engine_thinks_stops_it(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, "minishogi", black={"kind": "engine", "movetime": 600}, white={"kind": "human"})
    assert st["thinking"] is not None and st["thinking"]["side"] == 0
    st = client.post(f"/api/play/{st['id']}/resign", json={}).json()  # the person (white) resigns at once
    assert st["outcome"]["reason"] == "resignation" and st["outcome"]["winner"] == "black" and st["ply"] == 0


def test_page_only_offers_players_and_settings_it_may_build(client) -> None:  # type: ignore[no-untyped-def]
    games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    kinds = [p["kind"] for p in games["shogi"]["players"]]
    assert kinds[:2] == ["human", "engine"] and "usi" not in kinds and "python" not in kinds
    engine = next(p for p in games["shogi"]["players"] if p["kind"] == "engine")
    assert {"depth", "nodes", "movetime"} <= {s["name"] for s in engine["settings"]}
    assert all(s["kind"] in ("int", "float", "seconds", "bool") for s in engine["settings"])
    for side in ({"kind": "usi", "command": "/bin/sh"}, {"kind": "engine", "params": "/etc/passwd"},
                 {"kind": "python", "factory": "os:system"}):
        r = client.post("/api/play", json={"game": "shogi", "black": side})
        assert r.status_code == 400 and r.json()["error"], side
