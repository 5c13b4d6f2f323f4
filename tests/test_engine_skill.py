"""Skill levels: the mapping, determinism, range checks, and that a weak level loses to full strength."""

from __future__ import annotations

import pytest

from komaken.errors import KomakenError
from komaken.game import Color
from komaken.games import find_game
from komaken.match import play_game
from komaken.players.engine import EnginePlayer
from komaken.players.registry import PlayerSpec, PlayerSpecError
from komaken.shogi import Position
from komaken.shogi.engine import Engine, Limits, Skill


def test_mapping_of_levels() -> None:
    assert [Skill(v).max_depth for v in (0, 1, 2, 10, 19)] == [1, 1, 2, 6, 10]
    assert [Skill(v).max_nodes for v in (0, 10)] == [150, 8649]
    assert [Skill(v).multipv for v in (0, 5, 15, 19)] == [8, 7, 5, 4]
    assert Skill(0).temperature == 600 and Skill(19).temperature == 30 and not Skill(20).active
    assert Skill(3).limits(Limits(depth=1, nodes=50)) == Limits(depth=1, nodes=50)  # the tighter limit wins
    assert [Skill.from_elo(e).level for e in (500, 549, 551, 1200, 2500)] == [0, 0, 1, 7, 20]


def test_probabilities_follow_the_temperature() -> None:
    p = Skill(0).probabilities([100, 100 - 600, -100_000_000])
    assert p[0] / p[1] == pytest.approx(2.718281828, rel=1e-6) and p[2] == 0.0  # never walks into mate
    assert Skill(19).probabilities([0, -300])[1] == pytest.approx(1 / (1 + 2.718281828**10), rel=1e-6)


@pytest.mark.parametrize("bad", [-1, 21, 2.5, True])
def test_skill_range_checked(bad: object) -> None:
    with pytest.raises(KomakenError, match="skill level"):
        Skill(bad)  # type: ignore[arg-type]
    with pytest.raises(KomakenError, match="UCI_Elo"):
        Skill.from_elo(499)


def test_weak_choice_is_deterministic_for_a_seed_and_varies_across_seeds() -> None:
    pos = Position.start("minishogi")
    moves = {}
    for seed in range(12):
        a = Engine("minishogi", seed=seed, skill=Skill(0)).search(pos, Limits(depth=4))
        b = Engine("minishogi", seed=seed, skill=Skill(0)).search(pos, Limits(depth=4))
        assert a.move == b.move and a.depth == 1  # level 0: depth 1 whatever was asked
        moves[seed] = a.move
    assert len(set(moves.values())) > 1  # the weak choice is really a choice
    full = {Engine("minishogi", seed=s).search(pos, Limits(depth=2)).move for s in range(3)}
    assert len(full) == 1


def test_play_specs_take_skill_and_elo() -> None:
    game = find_game("shogi")
    spec = PlayerSpec.parse("engine:skill=3,nodes=500", game)
    player = spec.build(game, game.variant("minishogi"))
    assert isinstance(player, EnginePlayer) and player.engine.skill == Skill(3) and "skill=3" in player.name
    player = PlayerSpec.parse("engine:elo=900", game).build(game, game.variant("minishogi"))
    assert player.engine.skill == Skill(4)
    bad = (("engine:skill=21", "0..20"), ("engine:elo=3000", "500..2500"), ("engine:skill=x", "skill needs an integer"))
    for text, says in bad:
        with pytest.raises(PlayerSpecError, match=says):
            PlayerSpec.parse(text, game)
    with pytest.raises(KomakenError, match="not both"):
        EnginePlayer("minishogi", depth=2, skill=3, elo=900)


def test_skill_0_loses_to_skill_20_at_tiny_node_limits() -> None:
    """Four games on 5×5, colours alternating: full strength at 3 000 nodes a move against level 0."""
    strong_points = 0.0
    for game in range(4):
        strong = EnginePlayer("minishogi", nodes=3000)
        weak = EnginePlayer("minishogi", nodes=3000, skill=0)
        players = (strong, weak) if game % 2 == 0 else (weak, strong)
        r = play_game(Position.start("minishogi"), players, max_plies=200, seeds=(game, game + 100))
        strong_color = Color.BLACK if game % 2 == 0 else Color.WHITE
        winner = r.outcome.winner
        strong_points += 0.5 if winner is None else 1.0 if winner == strong_color else 0.0
    assert strong_points >= 3.5
