"""The engine: mates found, only legal moves, reproducible, time limits kept, piece values."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from komaken.errors import KomakenError
from komaken.players.engine import EnginePlayer
from komaken.shogi import Position
from komaken.shogi.engine import Engine, Limits, PieceValues, search
from komaken.shogi.engine.mate import solve

MATES = [  # (sfen, variant, plies) checked with both the α-β search and df-pn
    ("6snk/9/7PP/9/9/9/9/9/K8 b GG 1", "shogi", 1),
    ("4k/5/4P/5/K4 b G 1", "minishogi", 1),
    ("7gk/9/7P1/9/9/9/9/9/K8 b RG 1", "shogi", 3),
    ("7lk/7s1/9/9/9/9/9/9/K8 b RG 1", "shogi", 3),
    ("8k/9/9/9/9/9/9/9/K8 b RGG 1", "shogi", 5),
    ("8k/9/9/9/9/9/9/9/K8 b RBGS 1", "shogi", 5),
]


@pytest.mark.parametrize("sfen,variant,plies", MATES)
def test_search_finds_mate(sfen: str, variant: str, plies: int) -> None:
    pos = Position.from_sfen(sfen, variant)
    r = search(pos, Limits(depth=plies + 2))
    # quiet moves are allowed here (not in tsume), so a mate may come sooner than by checks only
    assert r.mate is not None and 0 < r.mate <= plies
    line = pos.copy()
    for mv in r.pv:
        line.push(mv)
    assert len(r.pv) == r.mate and not line.legal_moves()


@pytest.mark.parametrize("sfen,variant,plies", MATES)
def test_dfpn_finds_shortest_mate(sfen: str, variant: str, plies: int) -> None:
    pos = Position.from_sfen(sfen, variant)
    r = solve(pos, max_plies=9)
    assert r.status == "mate" and r.plies == plies
    for mv in r.pv:
        pos.push(mv)
    assert pos.is_checkmate()


def test_dfpn_no_mate() -> None:
    assert solve(Position.from_sfen("8k/9/8P/9/9/9/9/9/K8 b S 1"), max_plies=5).status == "nomate"


def test_dfpn_runs_share_a_table_without_reading_each_others_entries() -> None:
    """``solve`` runs the proof search once per depth on one table, which is not cleared between
    runs (clearing a table of some megabytes before each depth cost more than the proofs): a run
    number in the keys retires the earlier runs' entries.  So each run searches exactly the nodes
    a fresh table would and gives the same answer."""
    from komaken.shogi.engine.mate import _Solver

    for sfen in ("lnsgk2nl/6gs1/p1ppppb1p/9/1r7/2P3R2/PP1PPPP1P/1BG6/LNS1KGSNL b 2P2p 21", MATES[4][0]):
        pos = Position.from_sfen(sfen)
        shared = _Solver(1, 10**6)
        for depth in (1, 3, 5, 7):
            fresh = _Solver(1, 10**6)
            before = shared.nodes
            assert shared.run(pos, depth) == fresh.run(pos, depth)
            assert shared.nodes - before == fresh.nodes > 0


def test_being_mated_scores_negative_mate() -> None:
    pos = Position.from_sfen("6snk/9/7PP/9/9/9/9/9/K8 b GG 1")
    pos.push_usi("9i9h")
    r = search(pos, Limits(depth=4))
    assert r.mate is None or r.mate > 0  # white to move is not being mated...
    pos.pop()
    pos.push_usi("G*1b")
    r = search(pos, Limits(depth=2))
    assert r.move is None and r.mate is not None and r.mate <= 0  # ...but is here: no move at all


def _random_positions(variant: str, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.start(variant)
        for _ in range(rng.randrange(4, 60)):
            moves = pos.legal_moves()
            if not moves or pos.outcome():
                break
            pos.push(rng.choice(moves))
        if pos.legal_moves() and not pos.outcome():
            out.append(pos)
    return out


@pytest.mark.parametrize("variant", ["minishogi", "judkins", "shogi"])
def test_never_an_illegal_move(variant: str) -> None:
    engine = Engine(variant, hash_mb=4)
    for pos in _random_positions(variant, 25, seed=len(variant)):
        before = pos.sfen()
        r = engine.search(pos, Limits(nodes=3000))
        assert pos.sfen() == before  # the position is not modified
        assert r.move in pos.legal_moves(), (pos.sfen(), r)


def test_reproducible_with_seed_and_depth() -> None:
    pos = _random_positions("minishogi", 1, seed=7)[0]
    a = search(pos, Limits(depth=6), terms={"noise": 30}, seed=5)
    b = search(pos, Limits(depth=6), terms={"noise": 30}, seed=5)
    assert (a.move, a.score, a.nodes, a.pv) == (b.move, b.score, b.nodes, b.pv)
    p1 = EnginePlayer("minishogi", nodes=5000, seed=3)
    p2 = EnginePlayer("minishogi", nodes=5000, seed=3)
    assert p1.choose(pos) == p2.choose(pos)


def test_tables_kept_between_timed_searches_only() -> None:
    """Depth or node limits start from cleared tables (so the same search gives the same
    answer whatever came before); a search bound by time alone keeps them, as in a game."""
    pos = Position.start("minishogi")
    fresh = Engine("minishogi").search(pos, Limits(depth=6))
    engine = Engine("minishogi")
    engine.search(pos, Limits(depth=8))
    again = engine.search(pos, Limits(depth=6))
    assert (again.move, again.score, again.nodes, again.pv) == (fresh.move, fresh.score, fresh.nodes, fresh.pv)
    fresh8 = Engine("minishogi").search(pos, Limits(depth=8))
    engine.search(pos, Limits(depth=8))
    kept = engine.search(pos, Limits(depth=8), keep_tables=True)  # depth 8 was read already
    assert kept.nodes < fresh8.nodes / 2
    clears: list[int] = []
    engine.clear = lambda: clears.append(1)  # type: ignore[method-assign]
    for limits in (Limits(movetime=0.05), Limits(btime=0, wtime=0, byoyomi=0.05)):
        engine.search(pos, limits)
    assert clears == []
    engine.search(pos, Limits(nodes=500))
    engine.search(pos, Limits(depth=2, movetime=1.0))
    assert clears == [1, 1]


def resident_kb(table: Any) -> int:
    """Resident kB of the memory mapping that holds ``table``'s data (Linux ``/proc/self/smaps``)."""
    address, inside = table.ctypes.data, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            low, high = (int(x, 16) for x in head.split("-"))
            inside = low <= address < high
        elif inside and head == "Rss:":
            return int(line.split()[1])
    raise AssertionError("no mapping holds the table")


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux /proc/self/smaps")
def test_tables_cost_memory_only_while_used() -> None:
    """An engine that has not searched holds none of its tables' pages, however full the
    allocator's heap is (a long-running server makes engines for sessions that may never think);
    a search makes them resident, clear() and close() give them back."""
    churn = [bytearray(1 << 20) for _ in range(40)]  # freed blocks the allocator could hand out
    del churn[:-1]
    player = EnginePlayer("minishogi", depth=3, hash_mb=16)
    tables = lambda: (player.engine._ctx.tt_key, player.engine._ctx.tt_data, player.engine._ctx.mbuf,  # noqa: E731
                      player.engine._ctx.sbuf, player.engine._ctx.history)
    player.new_game()
    assert [resident_kb(t) for t in tables()] == [0] * 5
    player.choose(Position.start("minishogi"))
    assert resident_kb(player.engine._ctx.tt_key) > 0 and resident_kb(player.engine._ctx.mbuf) > 0
    player.close()
    assert [resident_kb(t) for t in tables()][:2] + [resident_kb(player.engine._ctx.history)] == [0] * 3
    assert player.choose(Position.start("minishogi")) in Position.start("minishogi").legal_moves()


def test_byoyomi_is_kept() -> None:
    engine = Engine("shogi")
    pos = Position.start("shogi")
    engine.search(pos, Limits(depth=2))  # kernels loaded
    t0 = time.perf_counter()
    r = engine.search(pos, Limits(btime=0, wtime=0, byoyomi=0.1))
    elapsed = (time.perf_counter() - t0) * 1000
    assert r.move is not None and r.depth >= 1
    assert elapsed < 100 + 150  # generous: the budget aims at 100 - 30 ms


def test_stop_from_another_thread() -> None:
    import threading

    engine = Engine("minishogi")
    pos = Position.start("minishogi")
    timer = threading.Timer(0.2, engine.stop)
    timer.start()
    r = engine.search(pos, Limits(infinite=True))
    assert r.move in pos.legal_moves()


def test_declaration_and_no_moves() -> None:
    mated = Position.from_sfen("4k/4G/4P/5/K4 w - 1", "minishogi")
    assert search(mated, Limits(depth=2)).move is None


def test_piece_values() -> None:
    v = PieceValues.default("shogi")
    assert v.board["P"] == 100 and v.board["+R"] == 2200 and v.hand["R"] == 2000
    w = v.with_values({"R": 1500, "hand": {"P": 150}})
    assert w.board["R"] == 1500 and w.hand["R"] == 1500 and w.hand["P"] == 150
    assert PieceValues.from_mapping({"P*": 90}).hand["P"] == 90
    with pytest.raises(KomakenError):
        PieceValues.from_mapping({"X": 1})
    with pytest.raises(KomakenError):
        PieceValues.from_mapping({"P": "a lot"})
    assert "歩(P) 100" in str(v)


def test_piece_values_toml(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "v.toml"
    f.write_text('B = 1500\nR = 1700\n[hand]\nP = 130\n', encoding="utf-8")
    v = PieceValues.from_toml(f, "minishogi")
    assert (v.board["B"], v.board["R"], v.hand["P"]) == (1500, 1700, 130)


def test_values_change_the_choice() -> None:
    # the rook on 3c can take an undefended silver (4c) or gold (2c): the table decides
    pos = Position.from_sfen("k4/5/1sRg1/5/K4 b - 1", "minishogi")
    material = {"mobility": 0, "king_safety": 0, "psq": 0}
    assert search(pos, Limits(depth=3), terms=material).move.usi() == "3c2c"  # type: ignore[union-attr]
    pricey_silver = search(pos, Limits(depth=3), {"S": 2000}, terms=material)
    assert pricey_silver.move is not None and pricey_silver.move.usi() == "3c4c"


def test_clearing_the_control_record_clears_every_field() -> None:
    """A counter added to CONTROL but not to clear_control would carry over between searches."""
    from komaken.shogi.engine._context import CONTROL, clear_control

    ctl = np.zeros(1, dtype=CONTROL)
    ctl[0] = tuple(range(1, len(CONTROL.names) + 1))
    clear_control(ctl)
    assert ctl[0].tolist() == (0,) * len(CONTROL.names)


def test_a_context_is_sized_in_one_place() -> None:
    from komaken.shogi.engine._context import capture_context, new_context

    bval, hval = Engine("minishogi")._ctx.bval, Engine("minishogi")._ctx.hval
    with pytest.raises(ValueError, match="power of two"):
        new_context(bval, hval, np.zeros(4), np.zeros(4, dtype=np.int64), np.zeros((2, 2), dtype=np.int64), 1000)
    q = capture_context(bval, hval)
    assert q.tt_key.size == 1 and not q.w.any() and not q.sp.any()
