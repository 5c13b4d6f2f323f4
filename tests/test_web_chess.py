"""Chess on the web server: the board, the from→to moves with a promotion choice, castling and
en passant from the server's legal moves, SAN labels, check, the engine and the PGN/UCI records."""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from komaken.web import create_app
from web_support import SAME_ORIGIN, wait_until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    with TestClient(create_app(), headers=SAME_ORIGIN) as c:
        yield c


def new(client, white=None, black=None, **kw):  # type: ignore[no-untyped-def]
    body = {"game": "chess", "white": white or {"kind": "human"}, "black": black or {"kind": "human"}, **kw}
    r = client.post("/api/play", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def play(client, st, *moves: str):  # type: ignore[no-untyped-def]
    for m in moves:
        r = client.post(f"/api/play/{st['id']}/move", json={"move": m})
        assert r.status_code == 200, r.text
        st = r.json()
    return st


def test_chess_is_offered_with_white_first_at_the_bottom(client) -> None:  # type: ignore[no-untyped-def]
    g = next(g for g in client.get("/api/games").json()["games"] if g["id"] == "chess")
    assert (g["game"], g["width"], g["height"], g["first"], g["bottom"]) == ("chess", 8, 8, 1, 1)
    assert g["formats"] == ["pgn", "uci"] and [p["kind"] for p in g["players"]] == ["human", "engine", "random"]
    st = new(client)
    cells = st["board"]["cells"]
    assert len(cells) == 64 and cells[0]["id"] == "a8" and cells[63]["id"] == "h1"
    assert cells[60]["piece"] == {"label": "♚", "side": 1, "kind": "K"}  # e1: white (Color.WHITE = 1)
    assert cells[0]["shade"] is False and cells[63]["shade"] is False and cells[56]["shade"] is True  # a1 dark
    assert st["turn"] == 1 and len(st["legal"]) == 20 and all(m["from"] for m in st["legal"])


def test_san_labels_castling_and_en_passant(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client)
    st = play(client, st, "e2e4", "a7a6", "e4e5", "d7d5")
    ep = [m for m in st["legal"] if m["from"] == "e5" and m["to"] == "d6"]
    assert [m["id"] for m in ep] == ["e5d6"]  # en passant comes from the server's move generator
    st = play(client, st, "e5d6", "a6a5", "g1f3", "a5a4", "f1e2", "a4a3")
    assert any(m["id"] == "e1g1" for m in st["legal"])  # castling is the king's two-square move
    st = play(client, st, "e1g1")
    assert [m["label"] for m in st["moves"]] == ["1. e4", "1… a6", "2. e5", "2… d5", "3. exd6", "3… a5", "4. Nf3",
                                                 "4… a4", "5. Be2", "5… a3", "6. O-O"]
    assert st["board"]["last"] == {"from": "e1", "to": "g1"}
    assert st["position"] == "rnbqkbnr/1pp1pppp/3P4/8/8/p4N2/PPPPBPPP/RNBQ1RK1 b kq - 1 6"


def test_promotion_offers_four_choices_and_plays_the_one_chosen(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, start="8/P6k/8/8/8/8/8/K7 w - - 0 1")
    cands = [m for m in st["legal"] if m["from"] == "a7" and m["to"] == "a8"]
    assert sorted(m["choice"] for m in cands) == ["B", "N", "Q", "R"]
    assert {m["choice"]: w.split()[1] for m in cands for w in [st["game"]["choices"][m["choice"]]]} == {
        "Q": "queen", "R": "rook", "B": "bishop", "N": "knight"}
    st = play(client, st, "a7a8n")
    assert st["moves"][0]["label"] == "1. a8=N"
    assert next(c for c in st["board"]["cells"] if c["id"] == "a8")["piece"]["kind"] == "N"


def test_check_mate_and_an_illegal_move(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client)
    st = play(client, st, "f2f3", "e7e5", "g2g4")
    bad = client.post(f"/api/play/{st['id']}/move", json={"move": "d8h5"})  # the queen reaches h4, not h5
    assert bad.status_code == 400 and state_fen(client, st) == st["position"]
    st = play(client, st, "d8h4")
    assert st["board"]["check"] == "e1" and st["board"]["check_label"] == "check"
    assert st["moves"][-1]["label"] == "2… Qh4#"
    assert st["outcome"]["reason"] == "checkmate" and st["outcome"]["winner"] == "black"
    assert st["outcome"]["result"] == "0-1"


def state_fen(client, st) -> str:  # type: ignore[no-untyped-def]
    return str(client.get(f"/api/play/{st['id']}").json()["position"])


def test_engine_thinks_by_depth_and_replies(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, black={"kind": "engine", "depth": 2})
    st = play(client, st, "e2e4")
    after = wait_until(lambda: (s := client.get(f"/api/play/{st['id']}").json())["ply"] == 2 and s, 30,
                       "the engine's reply")
    assert after["moves"][1]["label"].startswith("1… ") and after["thinking"] is None
    engine_first = new(client, white={"kind": "engine", "depth": 1}, black={"kind": "human"})
    wait_until(lambda: client.get(f"/api/play/{engine_first['id']}").json()["ply"] == 1, 30, "white's first move")


def test_pgn_and_uci_downloads_read_back(client) -> None:  # type: ignore[no-untyped-def]
    st = new(client, start="r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 7")
    st = play(client, st, "e8c8", "e1g1")
    pgn = client.get(f"/api/play/{st['id']}/record?format=pgn").text
    assert '[FEN "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 7"]' in pgn and "7... O-O-O 8. O-O *" in pgn
    uci = client.get(f"/api/play/{st['id']}/record?format=uci").text
    assert uci == "position fen r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 7 moves e8c8 e1g1\n"
    for text in (pgn, uci):
        again = new(client, record=text)
        assert again["position"] == st["position"]
    bad = client.post("/api/play", json={"game": "chess", "record": "1. e4 e5 2. Ke3"})
    assert bad.status_code == 400 and "move 3" in bad.json()["error"]
    assert client.get(f"/api/play/{st['id']}/record?format=kif").status_code == 400


def test_stored_chess_game_record_names_white_and_the_winner(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """In chess white moves first: a stored game's PGN puts the first mover under White and a
    black win as 0-1 (the lab stores who moved first, not a colour)."""
    from komaken.lab import ExperimentDB, GameRow, experiment_from_dict

    exp = experiment_from_dict({
        "experiment": {"name": "fools", "game": "chess", "games": 2, "seed": 1},
        "players": {"alice": {"engine": "random"}, "bob": {"engine": "random"}},
        "pairings": [{"a": "alice", "b": "bob"}],
    })
    db_path = tmp_path / "chess.db"
    with ExperimentDB.create(db_path, exp) as db:
        # alice moved first (white) and was mated: bob, black, won
        db.insert(GameRow("alice-vs-bob", 0, "alice", "bob", "b", "checkmate", "a", "f2f3 e7e5 g2g4 d8h4", 4, 0,
                          "", 0.1, 1, 0.0, termination="checkmate"))
    with TestClient(create_app([db_path])) as c:
        gid = c.get("/api/dbs/0/games").json()["games"][0]["id"]
        pgn = c.get(f"/api/dbs/0/games/{gid}/record", params={"format": "pgn"}).text
    assert '[White "alice"]' in pgn and '[Black "bob"]' in pgn
    assert '[Result "0-1"]' in pgn and pgn.rstrip().endswith("0-1")
