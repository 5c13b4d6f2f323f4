"""MultiPV: the k lines of ``Engine.search(..., multipv=k)`` against a brute-force ranking of
every root move, and the USI ``MultiPV`` option's ``info multipv`` lines."""

from __future__ import annotations

import dataclasses
import random

import pytest

from komaken.errors import KomakenError
from komaken.shogi import Position
from komaken.shogi.engine import Engine, Limits, search
from komaken.shogi.engine._search import MATE_BOUND
from komaken.shogi.engine.evalparams import EvalParams, search_defaults


def _full_width(variant: object) -> EvalParams:
    """The variant's evaluation with the plain search (every check extended, nothing pruned):
    the brute force below ranks root moves the way that search does."""
    return dataclasses.replace(EvalParams.default(variant), search=search_defaults())  # type: ignore[arg-type]


def _random_positions(variant: str, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.start(variant)
        for _ in range(rng.randrange(2, 14)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos.push(rng.choice(moves))
        if len(pos.legal_moves()) >= 4 and not pos.is_check():
            out.append(pos)
    return out


def _brute_force(pos: Position, depth: int) -> dict[str, int]:
    """Each root move's value: minus a fresh engine's full search of the position after it, one
    ply shallower — or as deep when the move gives check, as the search extends checks (a
    full-width ranking of all root moves, independent of the MultiPV machinery)."""
    out = {}
    for mv in pos.legal_moves():
        child = pos.copy()
        child.push(mv)
        r = search(child, Limits(depth=depth - 1 + (1 if pos.gives_check(mv) else 0)),
                   params=_full_width(pos.variant))
        out[mv.usi()] = -int(r.score)
    return out


@pytest.mark.parametrize("variant,seed", [("minishogi", 1), ("minishogi", 2), ("judkins", 3)])
def test_multipv_matches_brute_force_ranking(variant: str, seed: int) -> None:
    for pos in _random_positions(variant, 3, seed):
        values = _brute_force(pos, 2)
        if any(abs(v) > MATE_BOUND for v in values.values()):
            continue  # mate scores count plies from a different root
        k = min(4, len(values))
        r = Engine(pos.variant, params=_full_width(pos.variant)).search(pos, Limits(depth=2), multipv=k)
        assert [line.rank for line in r.lines] == list(range(1, k + 1))
        got = [int(line.score) for line in r.lines]
        want = sorted(values.values(), reverse=True)[:k]
        assert got == want, pos.sfen()
        for line in r.lines:  # every line's move has the value the brute force gives it
            assert values[line.move.usi()] == int(line.score)
        assert len({line.move.usi() for line in r.lines}) == k
        assert r.move == r.lines[0].move and r.pv == r.lines[0].pv


def test_multipv_one_is_the_plain_search() -> None:
    pos = Position.start("minishogi")
    a = Engine(pos.variant).search(pos, Limits(depth=4))
    b = Engine(pos.variant).search(pos, Limits(depth=4), multipv=1)
    assert (a.move, a.score, a.pv, a.nodes) == (b.move, b.score, b.pv, b.nodes)
    assert a.rank == 0 and len(a.lines) == 1 and "multipv" not in a.usi_info()


def test_multipv_more_than_legal_moves_and_info_lines() -> None:
    pos = Position.from_sfen("4k/5/4P/5/K4 b G 1", "minishogi")  # mate in 1 with G*1b... and few moves
    n = len(pos.legal_moves())
    infos: list[str] = []
    r = Engine(pos.variant).search(pos, Limits(depth=2), multipv=n + 5, info=lambda x: infos.append(x.usi_info()))
    assert len(r.lines) == n and r.mate == 1
    assert any(" multipv 1 " in line for line in infos) and any(f" multipv {n} " in line for line in infos)
    with pytest.raises(KomakenError, match="multipv"):
        Engine(pos.variant).search(pos, Limits(depth=1), multipv=0)


def test_lines_stay_best_first_when_the_search_stops_inside_a_depth() -> None:
    """A search stopped part-way through a depth mixes lines of two depths: still best first."""
    pos = Position.start("minishogi")
    engine = Engine(pos.variant)
    stopped_inside = 0
    for nodes in range(300, 6000, 211):
        engine.clear()
        r = engine.search(pos, Limits(nodes=nodes), multipv=4)
        scores = [line.score for line in r.lines]
        assert scores == sorted(scores, reverse=True), (nodes, scores)
        assert [line.rank for line in r.lines] == [1, 2, 3, 4] and r.move == r.lines[0].move
        stopped_inside += len({line.depth for line in r.lines}) > 1
    assert stopped_inside > 0  # the case under test happened
