"""One player spec for the command line and experiment files; seconds everywhere; old names."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.game import Termination
from komaken.games import find_game
from komaken.lab import ExperimentDB, GameRow, experiment_from_dict
from komaken.lab.errors import ConfigError
from komaken.players.registry import PlayerSpec, PlayerSpecError
from komaken.reversi import Reversi
from komaken.reversi.player import ReversiEnginePlayer
from komaken.shogi.engine import Limits

SHOGI = find_game("shogi")


def experiment(player: dict[str, object], game: str = "shogi") -> dict[str, object]:
    return {
        "experiment": {"name": "t", "game": game, "games": 2},
        "players": {"p": player, "r": {"engine": "random"}},
        "pairings": [{"a": "p", "b": "r"}],
    }


def test_cli_spec_and_table_give_the_same_options() -> None:
    variant = SHOGI.variant("minishogi")
    cli = PlayerSpec.parse("engine:depth=6,movetime=0.5,seed=3,king_safety=0", SHOGI, variant)
    table = PlayerSpec.from_table("p", {"engine": "engine", "depth": 6, "movetime": 0.5, "seed": 3,
                                        "eval": {"king_safety": 0}}, SHOGI, variant)
    assert cli.kind == table.kind == "engine"
    assert dict(cli.options) == dict(table.options) == {"depth": 6, "movetime": 0.5, "seed": 3,
                                                        "eval": {"king_safety": 0.0}}


@pytest.mark.parametrize(("spec", "options"), [
    ("usi:/usr/games/fairy-stockfish", {"command": "/usr/games/fairy-stockfish"}),
    ("usi:/usr/games/fairy-stockfish,move_timeout=2", {"command": "/usr/games/fairy-stockfish", "move_timeout": 2.0}),
    ("usi:/x --a,b,grace=0.5,move_timeout=250ms", {"command": "/x --a,b", "grace": 0.5, "move_timeout": 0.25}),
    ("usi:/x --a,b=1", {"command": "/x --a,b=1"}),  # b is no option of usi: part of the command line
])
def test_a_usi_command_line_takes_trailing_options(spec: str, options: dict[str, object]) -> None:
    assert dict(PlayerSpec.parse(spec, SHOGI).options) == options
    table = PlayerSpec.from_table("p", {"engine": "usi", **options}, SHOGI)
    assert dict(table.options) == options


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("random:seed=x", "random: option seed needs an integer, not 'x'"),
        ("engine:depth=inf", "engine: option depth needs an integer, not 'inf'"),
        ("engine:nodes=1e30", "engine: option nodes needs an integer, not '1e30'"),
        ("engine:depth=500", "engine: option depth must be in 1..112, not 500"),
        ("engine:movetime=-1", "engine: option movetime must be in 0.001..86400 seconds, not -1"),
        ("engine:wobble=1", "engine: unknown option 'wobble'; the options of engine: depth, nodes, movetime, seed"),
        ("engine:movetime", "engine: player option 'movetime' should be name=value; the options of engine: depth"),
        ("wizard", "unknown player type 'wizard'"),
        ("usi", "usi needs command"),
        ("usi:,move_timeout=2", "usi needs command"),
        ("usi:/usr/games/fairy-stockfish,move_timeout=-2", "usi: option move_timeout must be in 0.001..86400"),
    ],
)
def test_bad_specs_name_the_option(spec: str, message: str) -> None:
    with pytest.raises(PlayerSpecError) as info:
        PlayerSpec.parse(spec, SHOGI)
    assert message in str(info.value)


@pytest.mark.parametrize("spec", ["random:seed=x", "engine:depth=inf", "engine:nodes=1e30"])
def test_cli_bad_spec_is_one_line_exit_2(spec: str) -> None:
    r = CliRunner().invoke(main, ["play", "--sente", spec, "-q"])
    assert r.exit_code == 2
    assert r.output.strip().count("\n") == 0 and r.output.startswith("komaken: error: ")


@pytest.mark.parametrize(("typo", "close"), [("movetim", "movetime"), ("king_safty", "king_safety"),
                                            ("sed", "seed")])
def test_a_misspelt_option_gets_the_same_message_from_the_command_line_and_a_file(typo: str, close: str) -> None:
    # Issue 35: `engine:movetim=1` was reported as an unknown evaluation term, listing only the terms.
    r = CliRunner().invoke(main, ["play", "--gote", f"engine:{typo}=1", "-q"])
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    cli = r.output.strip().removeprefix("komaken: error: engine: ")
    assert cli.startswith(f"unknown option {typo!r} (did you mean {close!r}?); the options of engine: depth, nodes, "
                          "movetime, seed, values, eval, hash, params, skill, elo; evaluation term weights: "
                          "mobility, king_safety, psq, noise"), cli
    with pytest.raises(ConfigError) as info:
        experiment_from_dict(experiment({"engine": "engine", typo: 1}))
    assert str(info.value).partition(f"players.p.{typo}: ")[2] == cli


def test_a_misspelt_player_type_gets_the_same_words_from_both() -> None:
    r = CliRunner().invoke(main, ["play", "--gote", "enigne:depth=1", "-q"])
    words = "unknown player type 'enigne': no enigne player for shogi (did you mean 'engine'?); the player types: "
    assert r.exit_code == 2 and r.output == f"komaken: error: {words}engine, human, python, random, thesis, usi\n"
    with pytest.raises(ConfigError) as info:
        experiment_from_dict(experiment({"engine": "enigne"}))
    assert str(info.value).endswith(f"players.p.engine: {words}boardgame, engine, human, python, random, thesis, usi")


def test_movetime_is_seconds_and_units_are_checked() -> None:
    assert PlayerSpec.parse("engine:movetime=250ms", SHOGI).options["movetime"] == 0.25
    assert PlayerSpec.parse("engine:movetime=2s", SHOGI).options["movetime"] == 2.0
    exp = experiment_from_dict(experiment({"engine": "engine", "movetime": 0.5}))
    assert exp.players["p"].options["movetime"] == 0.5
    with pytest.raises(ConfigError, match=r"players\.p\.movetime: must be a number of seconds \(write 1 for "):
        experiment_from_dict(experiment({"engine": "engine", "movetime": "1000ms"}))
    assert Limits(movetime=1.0).budget(0) == pytest.approx((0.679, 0.97))


def test_old_engine_name_keeps_milliseconds_with_a_warning() -> None:
    with pytest.warns(FutureWarning) as caught:  # both warnings: the old name, and its unit
        exp = experiment_from_dict(experiment({"engine": "komaken", "movetime": 250}))
    said = [str(w.message) for w in caught]
    assert any("player type 'komaken' is deprecated: write 'engine'" in m for m in said), said
    assert any('write engine = "engine" and movetime = 0.25' in m for m in said), said
    assert exp.players["p"].kind == "engine" and exp.players["p"].options["movetime"] == 0.25


def test_table_errors_name_file_and_key() -> None:
    with pytest.raises(ConfigError, match=r"players\.p\.engine: unknown player type 'perfect': no perfect player "
                                          r"for shogi; the player types: "):
        experiment_from_dict(experiment({"engine": "perfect"}))
    with pytest.raises(ConfigError, match=r"players\.p\.values\.B: must be within"):
        experiment_from_dict(experiment({"engine": "engine", "values": {"B": 10**20}}))
    with pytest.raises(ConfigError, match=r"players\.p\.depth: needs an integer"):
        experiment_from_dict(experiment({"engine": "perfect", "depth": 1.5}, game="tictactoe"))


def test_every_game_can_use_engine_and_random() -> None:
    for name in ("shogi", "reversi", "tictactoe"):
        game = find_game(name)
        for spec in ("engine:depth=1", "random:seed=1"):
            player = PlayerSpec.parse(spec, game, game.variant()).build(game, game.variant())
            player.new_game(seed=5)
            assert player.choose(game.start(game.variant())) in game.start(game.variant()).legal_moves()


def test_reversi_engine_has_a_time_limit() -> None:
    player = ReversiEnginePlayer(movetime=0.05)
    assert player.choose(Reversi.start()) in Reversi.start().legal_moves()
    assert player.last is not None and 1 <= player.last.depth <= 60


def test_old_database_gets_the_termination_column(tmp_path: Path) -> None:
    raw = {
        "experiment": {"name": "toy", "game": "lab_toygame:Toy.start", "games": 4, "seed": 1},
        "players": {"r": {"engine": "random"}},
        "pairings": [{"a": "r", "b": "r"}],
    }
    path = tmp_path / "old.db"
    with ExperimentDB.create(path, experiment_from_dict(raw)):
        pass
    conn = sqlite3.connect(path)  # make it look like a database from before the column
    conn.execute("ALTER TABLE games DROP COLUMN termination")
    conn.execute("INSERT INTO games (pairing, game_index, a, b, result, reason, sente, moves, plies, seconds, seed, "
                 "finished_at) VALUES ('r-vs-r', 0, 'r', 'r', 'b', 'crash: ValueError: x', 'a', '', 0, 0, 0, 0)")
    conn.commit()
    conn.close()
    with ExperimentDB.open(path) as db:
        (old,) = list(db.games())
        assert old.termination == "" and old.outcome.termination is Termination.ABORTED
        new = GameRow("r-vs-r", 1, "r", "r", "a", "illegal move: 42", "a", "", 0, 0, "", 0.0, 0, 0.0,
                      Termination.ILLEGAL_MOVE.value)
        assert db.insert(new)
        rows = {r.game_index: r for r in db.games()}
        assert rows[1].outcome.termination is Termination.ILLEGAL_MOVE
        assert db.meta("schema_version") == "1"
