"""Experiment files: the issue's example parses; bad input names file, key and problem."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from komaken.lab import ConfigError, load_experiment

ISSUE_EXAMPLE = """
[experiment]
name = "rook-bishop-300"
variant = "minishogi"
games = 200
seed = 1
repetition = "draw"
max_plies = 400

[players.standard]
engine = "thesis"
depth = 4
values = { P = 100, S = 1000, G = 1200, B = 1800, R = 2000, "+P" = 1200, "+S" = 1200, "+B" = 2000, "+R" = 2200 }

[players.weak]
engine = "thesis"
depth = 4
values = { P = 100, S = 1000, G = 1200, B = 300, R = 300, "+P" = 1200, "+S" = 1200, "+B" = 300, "+R" = 300 }

[[pairings]]
a = "weak"
b = "standard"
colors = "fixed"
"""


WEAK = 'engine = "thesis"\ndepth = 4\nvalues = { P = 100, S = 1000, G = 1200, B = 300'


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_issue_example_parses(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, ISSUE_EXAMPLE))
    assert exp.name == "rook-bishop-300" and exp.game == "shogi"
    (p,) = exp.pairings
    assert (p.name, p.a, p.b, p.colors, p.games) == ("weak-vs-standard", "weak", "standard", "fixed", 200)
    assert all(p.a_is_sente(i) for i in range(5))
    variant = exp.load_variant()
    assert variant.repetition == "draw" and variant.max_plies == 400
    assert exp.players["weak"].settings["values"]["B"] == 300


def test_games_override_and_identity(tmp_path: Path) -> None:
    path = write(tmp_path, ISSUE_EXAMPLE)
    a, b = load_experiment(path), load_experiment(path, games=10)
    assert b.pairings[0].games == 10 and b.total_games == 10
    assert a.identity() == b.identity()  # same experiment, only the count differs


@pytest.mark.parametrize(
    "old,new,key,problem",
    [
        ('b = "standard"', 'b = "strong"', "pairings[0].b", "unknown player 'strong'"),
        ("B = 300,", "Q = 300,", "players.weak.values.Q", "unknown piece letter 'Q'"),
        ("games = 200", "games = -5", "experiment.games", "out of range: -5 (allowed: 1..100000000)"),
        ("games = 200", "games = 1000000000000000000", "experiment.games", "allowed: 1..100000000"),
        ("seed = 1", "seed = -1", "experiment.seed", "allowed: 0..9223372036854775807"),
        ('colors = "fixed"', 'colors = "random"', "pairings[0].colors", "must be 'fixed' or 'alternate'"),
        (WEAK, WEAK.replace("depth", "dpth"), "players.weak.dpth", "(did you mean 'depth'?); the options of thesis"),
        (WEAK, WEAK.replace("thesis", "alphazero"), "players.weak.engine",
         "unknown player type 'alphazero': no alphazero player for shogi; the player types: boardgame, engine"),
        ('variant = "minishogi"', 'variant = "nosuchshogi"', "experiment.variant", ""),
        ('repetition = "draw"', 'repetition = "replay"', "experiment.repetition", "'draw' or 'sente_loses'"),
        ("max_plies = 400", "max_plies = 0", "experiment.max_plies", "allowed: 1..100000"),
        ('colors = "fixed"', 'games = 100000001', "pairings[0].games", "allowed: 1..100000000"),
        ('colors = "fixed"', 'sprt = { elo0 = 0, elo1 = 1e9 }', "pairings[0].sprt.elo1", "allowed: -2000..2000"),
        ('colors = "fixed"', 'published = { wins = 1, losses = 2, draws = -3 }', "pairings[0].published.draws",
         "allowed: 0..1000000000"),
        ('colors = "fixed"', 'sprt = { elo0 = 10, elo1 = 0 }', "pairings[0].sprt.elo1", "greater than elo0"),
        ('colors = "fixed"', 'sprt = { elo0 = 0, elo1 = 5, model = "quadrinomial" }', "pairings[0].sprt.model",
         "'trinomial', 'pentanomial'"),
        ('colors = "fixed"', 'sprt = { elo0 = 0, elo1 = 5, units = "bayes" }', "pairings[0].sprt.units",
         "'logistic', 'normalized'"),
        ('colors = "fixed"', 'colors = "fixed"\nsprt = { elo0 = 0, elo1 = 5, model = "pentanomial" }',
         "pairings[0].sprt.model", "needs colors = 'alternate'"),
    ],
)  # fmt: skip
def test_config_errors_name_file_key_problem(tmp_path: Path, old: str, new: str, key: str, problem: str) -> None:
    assert old in ISSUE_EXAMPLE
    path = write(tmp_path, ISSUE_EXAMPLE.replace(old, new, 1))
    with pytest.raises(ConfigError) as info:
        load_experiment(path)
    message = str(info.value)
    old_lines, new_lines = ISSUE_EXAMPLE.splitlines(), ISSUE_EXAMPLE.replace(old, new, 1).splitlines()
    line = next(i for i, (x, y) in enumerate(itertools.zip_longest(old_lines, new_lines), start=1) if x != y)
    assert message.startswith(f"{path}:{line}: {key}: "), message  # the line the key is written on
    assert problem in message


def test_missing_file_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such experiment file"):
        load_experiment(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_experiment(write(tmp_path, "[experiment\nname="))


def test_duplicate_pairing_names_rejected(tmp_path: Path) -> None:
    text = ISSUE_EXAMPLE + '\n[[pairings]]\na = "weak"\nb = "standard"\n'
    with pytest.raises(ConfigError, match=r"pairings\[1\]\.name: pairing 'weak-vs-standard' appears twice"):
        load_experiment(write(tmp_path, text))


def test_openings_file_is_read_into_the_config(tmp_path: Path) -> None:
    start = "rbsgk/4p/5/P4/KGSBR b - 1"
    write(tmp_path, f"# openings\n{start}\n\n", "openings.sfen")
    text = ISSUE_EXAMPLE + '\n[openings]\nfile = "openings.sfen"\n'
    exp = load_experiment(write(tmp_path, text))
    assert exp.openings.sfens == (start,)
    assert exp.raw["openings"] == {"sfens": [start]}  # stored in the DB: resume needs no file


def test_bad_sfen_opening(tmp_path: Path) -> None:
    text = ISSUE_EXAMPLE + '\n[openings]\nsfens = ["this is not sfen"]\n'
    with pytest.raises(ConfigError, match=r"openings\.sfens\[0\]: bad SFEN"):
        load_experiment(write(tmp_path, text))


def test_board_game_rejects_shogi_keys(tmp_path: Path) -> None:
    text = '[experiment]\nname = "t"\ngame = "tictactoe"\nrepetition = "draw"\n[players.r]\nengine = "random"\n'
    text += '[[pairings]]\na = "r"\nb = "r"\n'
    with pytest.raises(ConfigError, match="experiment.repetition: only shogi"):
        load_experiment(write(tmp_path, text))


REPO = Path(__file__).resolve().parents[1]
FILE_PLAYERS = """
[experiment]
name = "files"
variant = "minishogi"
games = 2

[players.a]
engine = "engine"
depth = 1
params = "eval/minishogi-legacy.toml"
values = "fitted.toml"

[players.b]
engine = "engine"
depth = 1

[[pairings]]
a = "a"
b = "b"
"""


def _experiment_with_files(folder: Path) -> Path:
    (folder / "eval").mkdir(parents=True)
    (folder / "eval" / "minishogi-legacy.toml").write_bytes((REPO / "examples/eval/minishogi-legacy.toml").read_bytes())
    (folder / "fitted.toml").write_text('variant = "minishogi"\n[values]\nB = 900\nR = 1100\n', encoding="utf-8")
    return write(folder, FILE_PLAYERS)


def test_player_files_are_relative_to_the_experiment_file_and_stored_absolute(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _experiment_with_files(tmp_path / "study")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    exp = load_experiment(path)
    stored = exp.raw["players"]["a"]
    assert stored["params"] == str(tmp_path / "study" / "eval" / "minishogi-legacy.toml")
    assert stored["values"] == str(tmp_path / "study" / "fitted.toml")
    assert exp.players["a"].options["values"]["B"] == 900
    # files written when such names were relative to the working directory still load from there
    monkeypatch.chdir(tmp_path)
    text = FILE_PLAYERS.replace('"fitted.toml"', '"study/fitted.toml"')
    old = load_experiment(write(tmp_path / "elsewhere", text.replace("eval/", "study/eval/")))
    assert old.raw["players"]["a"]["params"] == stored["params"]
    # a name found in neither place is reported relative to the experiment file
    with pytest.raises(ConfigError, match=r"players\.a\.params: .*not found: .*/elsewhere/nowhere\.toml"):
        load_experiment(write(tmp_path / "elsewhere", FILE_PLAYERS.replace("eval/minishogi-legacy.toml",
                                                                           "nowhere.toml")))


def test_status_of_a_stored_experiment_from_another_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands run in this process (tests/cli_support.py), each from its own working folder."""
    from cli_support import komaken_in_process

    path = _experiment_with_files(tmp_path / "study")
    db = tmp_path / "study" / "files.db"
    monkeypatch.chdir(tmp_path / "study")
    run = komaken_in_process("experiment", "run", str(path), "--db", str(db), "-q", "-j", "1")
    assert run.returncode == 0, run.stderr
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    status = komaken_in_process("experiment", "status", "--db", str(db))
    assert status.returncode == 0, status.stderr
    assert "2/2 games" in status.stdout
    report = komaken_in_process("experiment", "report", "--db", str(db), "--out", "report")
    assert report.returncode == 0, report.stderr
    text = (tmp_path / "elsewhere" / "report" / "report.md").read_text(encoding="utf-8")
    assert "角900" in text and "飛1100" in text and "fitted.toml" in text  # the value file, read


NET_PLAYERS = """
[experiment]
name = "nets"
variant = "minishogi"
games = 2

[players.net]
engine = "engine"
depth = 1
eval = "nets/tiny.nnue"

[players.linear]
engine = "engine"
depth = 1
eval = "linear"

[[pairings]]
a = "net"
b = "linear"
"""


def test_engine_eval_names_a_net_relative_to_the_experiment_file_or_the_word_linear(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from komaken.games import find_game
    from komaken.players.registry import make_player
    from komaken.shogi.engine.nnue import Network

    (tmp_path / "study" / "nets").mkdir(parents=True)
    Network.random("minishogi", width=8, seed=1).save(tmp_path / "study" / "nets" / "tiny.nnue")
    path = write(tmp_path / "study", NET_PLAYERS)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    exp = load_experiment(path)
    assert exp.raw["players"]["net"]["eval"] == str(tmp_path / "study" / "nets" / "tiny.nnue")
    assert exp.raw["players"]["linear"]["eval"] == "linear"  # a word, not a file in the experiment's folder
    game = find_game("shogi")
    assert make_player(exp.players["net"], game, "minishogi").engine.net.b.shape == (8,)  # type: ignore[attr-defined]
    assert make_player(exp.players["linear"], game, "minishogi").engine.net is None  # type: ignore[attr-defined]
