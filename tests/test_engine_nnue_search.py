"""The α-β search evaluating with a network: its scores are the network's, its accumulators kept
move by move equal a refresh at every node it evaluates, it repeats itself, EvalFile /
``engine:eval=FILE`` load a network (a bad file is one error naming it), and which evaluation is
the default (minishogi's shipped net, unless something only the linear evaluation has is asked)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from komaken.errors import EvalError
from komaken.shogi import Position, load_variant
from komaken.shogi.engine import Engine, Limits
from komaken.shogi.engine._context import NetArrays
from komaken.shogi.engine._evalfile import default_network, load_network, random_network, save_network
from komaken.shogi.engine._nnue import full_score
from komaken.shogi.engine.nnue import shipped_path


def _reference(pos: Position, net: NetArrays) -> int:
    """The network's score of ``pos`` from accumulators refreshed whole (side to move's view),
    the threat features' rows added when the net has them."""
    s = pos.kernel_state()
    return full_score(s.bd, s.hd, s.st, s.rules, net.w, net.b, net.l1w, net.l1b, net.l2w, net.l2b, net.ow,
                      int(net.ob[0]))


@pytest.mark.parametrize("threats", [False, True])
def test_depth_one_scores_are_the_network_on_each_child(threats: bool) -> None:
    """From the 9x9 start no reply captures, so a depth-1 search scores each move by the
    network's evaluation of the position after it (the child's accumulators come from the
    root's by the move's changes, the threat features are added afresh): exactly what a refresh
    of that child gives."""
    start = Position.start("shogi")
    net = random_network(start.variant, 16, seed=3, threats=threats)
    result = Engine("shogi", net=net).search(start, Limits(depth=1), multipv=30)
    assert len(result.lines) == 30
    for line in result.lines:
        child = start.copy()
        child.push(line.move)
        assert line.score == -_reference(child, net), line.move


def _random_position(variant: str, seed: int, plies: int) -> Position:
    rng = np.random.default_rng(seed)
    pos = Position.start(variant)
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves or pos.is_game_over():
            break
        captures = [m for m in moves if pos.piece_at(m.to_square) is not None]
        pool = captures if captures and rng.random() < 0.5 else moves
        pos.push(pool[int(rng.integers(len(pool)))])
    return pos


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["minishogi", "judkins", "shogi", "dobutsu"]), seed=st.integers(0, 10_000),
       plies=st.integers(0, 30), multipv=st.sampled_from([1, 3]))
def test_every_evaluated_node_matches_a_refresh(variant: str, seed: int, plies: int, multipv: int) -> None:
    """Along every line the search reads (captures, drops, promotions, king moves, null moves,
    quiescence, MultiPV's repeated roots, hash-table cut-offs), each node it evaluates has
    accumulators equal to a full refresh of that position."""
    pos = _random_position(variant, seed, plies)
    if not pos.legal_moves():
        return
    engine = Engine(variant, net=random_network(pos.variant, 8, seed=seed))
    audit = engine._ctx.nn.audit
    audit[0] = 1
    r = engine.search(pos, Limits(depth=3), multipv=multipv)
    assert audit[2] == 0, (variant, seed, plies, audit)
    assert audit[1] > 0 or r.mate is not None or abs(r.score) >= 50_000_000  # decided at once: nothing to evaluate


def test_a_deeper_middle_game_search_matches_at_every_evaluation() -> None:
    """The audit above is not vacuous: a depth-5 search from a 9x9 middle game (where the
    search's null moves, reductions and hash cut-offs all run) evaluates thousands of nodes, and
    every one matches a refresh."""
    pos = Position.from_sfen("ln1g3nl/1r2g1sk1/p1sppp1pp/2p3p2/1p5P1/2P1P1P2/PPSP1PS1P/1KG4R1/LN1G3NL b Bb 27",
                             "shogi")
    engine = Engine("shogi", net=random_network(pos.variant, 8, seed=1))
    engine._ctx.nn.audit[0] = 1
    r = engine.search(pos, Limits(depth=5))
    assert engine._ctx.nn.audit[1] > 1000 and engine._ctx.nn.audit[2] == 0
    assert r.nodes > 1000


def test_the_network_search_is_deterministic_and_not_the_linear_one() -> None:
    pos = Position.start("minishogi")
    net = random_network(pos.variant, 16, seed=5)
    a = Engine("minishogi", net=net).search(pos, Limits(depth=5))
    b = Engine("minishogi", net=net).search(pos, Limits(depth=5))
    linear = Engine("minishogi", net=None).search(pos, Limits(depth=5))
    assert (a.move, a.score, a.nodes, a.pv) == (b.move, b.score, b.nodes, b.pv)
    assert (a.score, a.nodes) != (linear.score, linear.nodes)


def test_set_net_switches_the_evaluation_both_ways() -> None:
    """An engine given a network and then none again searches exactly as a linear engine does
    (the hash table's static evaluations of the network are forgotten)."""
    pos = Position.start("minishogi")
    engine = Engine("minishogi", net=None)
    engine.set_net(random_network(pos.variant, 16, seed=2))
    with_net = engine.search(pos, Limits(movetime=0.05))
    engine.set_net(None)
    again = engine.search(pos, Limits(depth=5))
    linear = Engine("minishogi", net=None).search(pos, Limits(depth=5))
    assert with_net.move is not None
    assert (again.move, again.score, again.nodes) == (linear.move, linear.score, linear.nodes)


# ---- files -------------------------------------------------------------------------------------

@pytest.mark.parametrize("threats", [False, True])
def test_a_saved_network_loads_back(tmp_path: Path, threats: bool) -> None:
    v = load_variant("minishogi")
    net = random_network(v, 8, seed=1, threats=threats)
    save_network(tmp_path / "n.nnue", net, v)
    back = load_network(tmp_path / "n.nnue", v)
    assert all(x.shape == y.shape and (x == y).all() for x, y in zip(net, back, strict=True))
    pos = Position.from_sfen("rb1gk/1s2p/5/P1S2/KG1BR b - 5", "minishogi")
    a, b = (Engine("minishogi", net=n).search(pos, Limits(depth=6)) for n in (net, back))
    assert (a.move, a.score, a.nodes) == (b.move, b.score, b.nodes)


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    v = load_variant("minishogi")
    net = random_network(v, 8, seed=1)
    good = tmp_path / "good.nnue"
    save_network(good, net, v)
    data = good.read_bytes()
    cases: dict[str, tuple[Path, str]] = {}
    (tmp_path / "cut.nnue").write_bytes(data[: len(data) // 2])
    cases["truncated"] = (tmp_path / "cut.nnue", "truncated")
    save_network(tmp_path / "nine.nnue", random_network(load_variant("shogi"), 8), load_variant("shogi"))
    cases["another board"] = (tmp_path / "nine.nnue", "for shogi (9x9), not minishogi")
    cases["no file"] = (tmp_path / "absent.nnue", "No such file")
    return cases


def test_a_bad_network_file_is_one_error_naming_it(tmp_path: Path) -> None:
    for what, (path, words) in _bad_files(tmp_path).items():
        with pytest.raises(EvalError) as err:
            load_network(path, load_variant("minishogi"))
        assert str(path) in str(err.value) and words in str(err.value), (what, str(err.value))


def test_usi_evalfile_loads_a_network_and_a_bad_one_keeps_the_evaluation(tmp_path: Path) -> None:
    from komaken.usi.server import UsiServer

    v = load_variant("minishogi")
    net = random_network(v, 16, seed=4)
    save_network(tmp_path / "net.nnue", net, v)
    lines: list[str] = []
    usi = UsiServer("minishogi", out=lines.append)
    usi.handle(f"setoption name EvalFile value {tmp_path / 'net.nnue'}")
    assert usi.engine.net is not None and not any("error" in line for line in lines), lines
    loaded = usi.engine
    usi.handle(f"setoption name EvalFile value {tmp_path / 'cut.nnue'}")  # no such file
    assert usi.engine is loaded and lines[-1].startswith("info string error:") and "cut.nnue" in lines[-1]
    bad = _bad_files(tmp_path)["another board"][0]
    usi.handle(f"setoption name EvalFile value {bad}")
    assert usi.engine is loaded and "not minishogi" in lines[-1]
    pos = Position.start("minishogi")
    r = usi.engine.search(pos, Limits(depth=3))
    assert r.score == Engine("minishogi", net=net).search(pos, Limits(depth=3)).score
    # the variant set again (the lab's USI player does at its first move) keeps the net, and the
    # search is still the net's
    usi.handle("setoption name UCI_Variant value minishogi")
    assert usi.engine.search(pos, Limits(depth=3)).score == r.score
    usi.handle("setoption name EvalFile value <empty>")
    assert usi.engine.net is default_network(v)  # back to the variant's default: its shipped net


def test_player_spec_eval_file_plays_with_the_network(tmp_path: Path) -> None:
    from komaken.games import find_game
    from komaken.players.registry import PlayerSpec, PlayerSpecError

    v = load_variant("minishogi")
    save_network(tmp_path / "net.nnue", random_network(v, 16, seed=4), v)
    game = find_game("shogi")
    spec = PlayerSpec.parse(f"engine:eval={tmp_path / 'net.nnue'},depth=2", game)
    player = spec.build(game, v)
    assert player.engine.net is not None  # type: ignore[attr-defined]
    with pytest.raises(PlayerSpecError, match="absent.nnue"):
        PlayerSpec.parse(f"engine:eval={tmp_path / 'absent.nnue'}", game).build(game, v)
    with pytest.raises(PlayerSpecError, match="king_safety: cannot be given beside eval="):
        PlayerSpec.parse(f"engine:eval={tmp_path / 'net.nnue'},king_safety=0", game)
    terms = PlayerSpec.parse("engine:king_safety=0,depth=2", game).build(game, v)
    assert terms.engine.net is None  # type: ignore[attr-defined]


def test_minishogi_evaluates_with_its_shipped_net_unless_linear_is_asked(tmp_path: Path) -> None:
    v = load_variant("minishogi")
    shipped = load_network(shipped_path("minishogi"), v)  # type: ignore[arg-type]
    pos = Position.start("minishogi")
    pos.push_usi("1e1d")
    default = Engine("minishogi")
    assert default.net is default_network(v) is not None
    for name in ("w", "l1w", "ow"):  # the same weights as the file
        assert np.array_equal(getattr(default.net, name), getattr(shipped, name))
    deep = Limits(depth=4)
    assert default.search(pos, deep).score == Engine("minishogi", net=shipped).search(pos, deep).score
    assert default.search(pos, deep).score != Engine("minishogi", net=None).search(pos, deep).score
    assert Engine("minishogi", terms={"noise": 10}).net is not None  # noise applies to a net too
    # what only the linear evaluation has keeps it: piece values, term weights, a parameter file
    assert Engine("minishogi", values={"R": 1500}).net is None
    assert Engine("minishogi", terms={"mobility": 1}).net is None
    params = tmp_path / "p.toml"
    params.write_text('variant = "minishogi"\n')
    assert Engine("minishogi", params=params).net is None
    # judkins's net beat its linear evaluation too; shogi's has not: linear by default
    assert Engine("judkins").net is not None and Engine("judkins", net=None).net is None
    assert Engine("shogi").net is None
    with pytest.raises(ValueError, match="'nnue'"):
        Engine("minishogi", net="nnue")  # type: ignore[arg-type]


def test_a_renamed_minishogi_plays_the_net_and_another_game_says_it_plays_linear(tmp_path: Path) -> None:
    renamed = tmp_path / "mini2.toml"
    renamed.write_text('inherits = "minishogi"\nname = "mini2"\n')
    assert Engine(load_variant(str(renamed))).net is default_network(load_variant("minishogi"))
    other = tmp_path / "mini3.toml"
    other.write_text('inherits = "minishogi"\nname = "mini3"\nstart = "rbgsk/4p/5/P4/KSGBR b - 1"\n')
    from komaken.usi.server import UsiServer

    lines: list[str] = []
    usi = UsiServer("minishogi", out=lines.append)
    usi.handle(f"setoption name UCI_Variant value {other}")
    assert usi.engine.net is None
    notes = [line for line in lines if "linear evaluation" in line]
    assert len(notes) == 1 and "no shipped net or evaluation parameters" in notes[0], lines


def test_usi_usennue_and_value_options_choose_the_linear_evaluation() -> None:
    from komaken.usi.server import UsiServer

    v = load_variant("minishogi")
    lines: list[str] = []
    usi = UsiServer("minishogi", out=lines.append)
    assert usi.engine.net is default_network(v) is not None
    assert any(line == "option name UseNNUE type check default true" for line in _usi_lines(usi, lines))
    usi.handle("setoption name UseNNUE value false")
    assert usi.engine.net is None
    usi.handle("setoption name UseNNUE value true")
    assert usi.engine.net is default_network(v)
    usi.handle("setoption name Value_R value 1500")  # a piece value: the linear evaluation plays it
    assert usi.engine.net is None and usi.engine.values.board["R"] == 1500


def test_usi_options_sent_at_their_listed_defaults_change_no_evaluation() -> None:
    """A GUI sends every option the ``usi`` listing gave at its listed default: the shipped net
    and parameter files stay (a piece value or weight counts only where it differs)."""
    from komaken.usi.server import UsiServer

    for variant in ("minishogi", "shogi"):
        lines: list[str] = []
        usi = UsiServer(variant, out=lines.append)
        before = usi.engine.search(Position.start(variant), Limits(depth=4))
        for line in _usi_lines(usi, lines):
            if line.startswith("option name ") and " type button" not in line:
                name, default = line[len("option name "):].split(" type ")[0], line.split(" default ")[1].split()[0]
                usi.handle(f"setoption name {name} value {default}")
        shipped = Engine(variant)
        assert usi.engine.net is default_network(load_variant(variant))
        assert usi.engine.params.terms == shipped.params.terms
        assert usi.engine.values.board == shipped.values.board
        after = usi.engine.search(Position.start(variant), Limits(depth=4))
        assert (after.move, after.score, after.nodes) == (before.move, before.score, before.nodes)
    # the last server is shogi's: a value set, then set back to its listed default, is the file's again
    usi.handle("setoption name Value_R value 1500")
    usi.handle(f"setoption name Value_R value {shipped.values.board['R']}")
    assert usi.engine.values.board["R"] == shipped.values.board["R"]


def test_usi_lists_the_values_and_weights_the_variant_plays() -> None:
    """The ``usi`` listing's piece values and term weights are the variant's parameter file's, so
    a GUI shows what the engine plays; the seed table's value is one the user asks for."""
    from komaken.usi.server import UsiServer

    for variant in ("shogi", "judkins"):
        lines: list[str] = []
        usi = UsiServer(variant, out=lines.append)
        listed = {line.split(" type ")[0].removeprefix("option name "): line.split(" default ")[1].split()[0]
                  for line in _usi_lines(usi, lines) if line.startswith("option name ")}
        params = Engine(variant, net=None).params
        assert listed["Value_R"] == str(params.values.board["R"])
        assert listed["ValueHand_P"] == str(params.values.hand["P"])
        assert listed["EvalKingSafety"] == str(round(params.terms["king_safety"] * 100))
        assert listed["UCI_Variant"] == variant and listed["EvalFile"] == "<empty>"
    assert listed["Value_R"] != "2000"  # judkins's file is not the seed table
    usi.handle("setoption name Value_R value 2000")  # the seed's value is now a choice: the linear evaluation plays it
    assert usi.engine.net is None and usi.engine.values.board["R"] == 2000
    usi.handle("setoption name UCI_Variant value minishogi")  # the listing stays judkins's until usi is sent again
    assert usi.listed["Value_R"] == listed["Value_R"]
    usi.handle("usi")
    assert usi.listed["Value_R"] == str(Engine("minishogi", net=None).values.board["R"])


def _usi_lines(usi: object, lines: list[str]) -> list[str]:
    usi.handle("usi")  # type: ignore[attr-defined]
    return lines


def test_player_spec_eval_linear_and_values_play_linear_on_minishogi() -> None:
    from komaken.games import find_game
    from komaken.players.registry import PlayerSpec, make_player

    v = load_variant("minishogi")
    game = find_game("shogi")

    def net(spec: str | dict[str, object]) -> object:
        return make_player(spec, game, v).engine.net  # type: ignore[attr-defined]

    assert net("engine:depth=2") is default_network(v) is not None
    assert net("engine:eval=linear,depth=2") is None
    assert net({"kind": "engine", "depth": 2, "values": {"R": 1500}}) is None
    assert net({"kind": "engine", "depth": 2, "eval": "linear"}) is None
    assert isinstance(PlayerSpec.parse("engine:eval=linear", game), PlayerSpec)
