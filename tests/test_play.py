"""Terminal play: scripted humans against the engine, specs, end reasons."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from komaken.cli import main
from komaken.cli.play import PrintObserver
from komaken.errors import KomakenError
from komaken.game import Color, Outcome, Termination
from komaken.games import find_game
from komaken.match import play_game as loop
from komaken.players.base import Player
from komaken.players.human import HumanPlayer
from komaken.players.registry import make_player
from komaken.shogi import Position, load_variant

SHOGI = find_game("shogi")


def play_game(pos: Position, players: list[Player], echo: Any, show: bool) -> Outcome:
    """The one game loop with the terminal's observer, as ``komaken play`` runs it."""
    humans = [Color(c) for c, p in enumerate(players) if isinstance(p, HumanPlayer)]
    return loop(pos, players, PrintObserver(SHOGI, echo, show, humans), game=SHOGI).outcome


def scripted(*lines: str) -> tuple[HumanPlayer, list[str]]:
    it = iter(lines)
    said: list[str] = []
    return HumanPlayer(read=lambda _prompt: next(it), write=said.append), said


def test_human_input_moves_list_illegal_and_resign() -> None:
    human, said = scripted("", "zz", "p", "7g7f", "5e4d", "resign")
    engine = make_player("engine:depth=2", SHOGI, load_variant("minishogi"))
    out: list[str] = []
    outcome = play_game(Position.start("minishogi"), [human, engine], echo=out.append, show=False)
    assert outcome.termination is Termination.RESIGNATION and outcome.winner == 1
    assert any("off the 5x5 board" in s for s in said)  # 7g7f: a clear message, then the prompt again
    assert any("5e4d" in s.split() for s in said)  # p listed the legal moves
    assert out[-1].startswith("投了")


def test_undo_takes_back_the_pair() -> None:
    human, _ = scripted("5e4d", "undo", "resign")
    engine = make_player("engine:depth=1", SHOGI, load_variant("minishogi"))
    out: list[str] = []
    pos = Position.start("minishogi")
    play_game(pos, [human, engine], echo=out.append, show=False)
    assert pos.ply == 0 and any("took back 2" in s for s in out)


def test_engines_play_to_an_end_reason() -> None:
    v = load_variant("minishogi")
    out: list[str] = []
    outcome = play_game(Position.start(v), [make_player("engine:movetime=20ms", SHOGI, v),
                                            make_player("thesis:seed=1", SHOGI, v)], echo=out.append, show=False)
    assert outcome.termination.japanese in out[-1]
    assert outcome.termination.japanese in ("詰み", "千日手", "連続王手の千日手", "持将棋", "投了", "反則")


def test_bad_spec() -> None:
    with pytest.raises(KomakenError):
        make_player("wizard", SHOGI, load_variant("shogi"))
    with pytest.raises(KomakenError):
        make_player("engine:depth", SHOGI, load_variant("shogi"))


def test_cli_play_and_mate() -> None:
    r = CliRunner().invoke(main, ["play", "-v", "minishogi", "--gote", "engine:depth=1", "-q"], input="5e4d\nresign\n")
    assert r.exit_code == 0 and "投了" in r.output
    r = CliRunner().invoke(main, ["mate", "-v", "minishogi", "--sfen", "4k/5/4P/5/K4 b G 1"])
    assert r.exit_code == 0 and "mate in 1: G*1b" in r.output


def test_play_command_runs_the_board_games(tmp_path) -> None:
    for args, moves in (
        (["--game", "tictactoe", "--black", "human", "--white", "perfect"], "5\n1\n3\n7\n9\n2\n"),
        (["--game", "reversi", "--black", "engine:depth=2", "--white", "random:seed=1"], ""),
    ):
        code, out = _play([*args, "-q"], moves, str(tmp_path))  # in this process: the kernels load once
        assert code == 0, out
        assert "\ngame over: " in out and "終局" not in out  # shogi's words are shogi's


def _play(args: list[str], text: str, cwd: str) -> tuple[int, str]:
    import os

    old = os.getcwd()
    os.chdir(cwd)
    try:
        r = CliRunner().invoke(main, ["play", *args], input=text)
    finally:
        os.chdir(old)
    return r.exit_code, r.output


def test_board_once_per_move_pair_and_compact(tmp_path) -> None:
    code, out = _play(["-v", "minishogi", "--gote", "engine:depth=2", "-o", "g.kifu"], "5d5c\nresign\n", str(tmp_path))
    assert code == 0 and out.count("手番") == 2  # the start, then once after the reply
    assert "gote (△): engine(depth=2) thinking…" in out
    assert "cp for you (win " in out and " · depth 2 · PV △" in out
    code, out = _play(["-v", "minishogi", "--gote", "engine:depth=2", "--compact"], "5d5c\nb\nresign\n", str(tmp_path))
    assert code == 0 and out.count("手番") == 3  # the start, b, the end


def test_record_extension_is_checked_before_the_game(tmp_path) -> None:
    code, out = _play(["--game", "reversi", "-o", "game.kif"], "", str(tmp_path))
    assert code == 2 and "game.kif: reversi games are saved as a move list: use a .txt file name" in out
    code, out = _play(["-v", "minishogi", "-o", "game.pgn"], "", str(tmp_path))
    assert code == 2 and "cannot save a shogi game as .pgn (use .kif .kifu .ki2 .ki2u .csa .usi" in out
    assert not list(tmp_path.iterdir())


def test_save_and_end_of_input_keep_the_game(tmp_path) -> None:
    from komaken import records

    typed = "5d5c\nsave mid.csa\nsave /nonexistent/x.kif\n"
    code, out = _play(["-v", "minishogi", "--gote", "engine:depth=1", "-q"], typed, str(tmp_path))
    assert code == 0 and "saved 2 moves to mid.csa" in out and "save: " in out
    assert "中断 (aborted): no result after 2 moves" in out and "resign" not in out.split("中断")[1]
    [auto] = [p for p in tmp_path.iterdir() if p.name.startswith("shogi-")]
    for path in (tmp_path / "mid.csa", auto):
        rec = records.read(path)
        assert [m.usi() for m in rec.moves][0] == "5d5c" and len(rec.moves) == 2
    assert records.read(auto).result.termination is Termination.ABORTED


def test_score_text_views() -> None:
    from komaken.cli.play import score_text, win_rate
    from komaken.game import Color
    from komaken.search.result import SearchResult

    text = score_text(SearchResult("x", 300), Color.WHITE, Color.WHITE, "you", True)
    assert text == "score +300 cp for you (win 62%)"
    assert score_text(SearchResult("x", 4, exact=True), Color.WHITE, Color.BLACK, "black", False) == \
        "score -4 (exact: the final margin) for black (win 0%)"
    assert score_text(SearchResult("x", 9, mate=3), Color.BLACK, Color.BLACK, "you", True).startswith(
        "score mate +3 for you: you mate in 3")
    assert win_rate(10**9) == 1.0 and win_rate(-(10**9)) < 1e-20


@pytest.mark.parametrize("game, text, line", [
    ("shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "詰み (checkmate): sente (▲) wins"),
    ("chess", None, "checkmate: white wins"),
    ("tictactoe", None, "checkmate: X wins"),
])
def test_the_end_line_speaks_each_games_own_words(game: str, text: str | None, line: str) -> None:
    from komaken.cli.play import end_line
    from komaken.game import Outcome
    from komaken.games import find_game
    from komaken.match import GameResult

    spec = find_game(game)
    position = spec.position(text)
    result = GameResult(Outcome(Termination.CHECKMATE, spec.first))
    assert end_line(spec, position, result) == f"{line} after {position.ply} moves"


def test_chess_is_saved_as_pgn_as_the_page_downloads_it(tmp_path) -> None:
    """``play --game chess -o c.pgn``: the PGN python-chess reads back, every move and the result,
    and the end line in chess's own words."""
    import re

    import chess.pgn

    # in this process; random seeds 47 and 48 play a 39-move game that white mates (3 and 4 played a
    # 327-move draw, ~10 s of CPU, for the same checks)
    code, out = _play(["--game", "chess", "--white", "random:seed=47", "--black", "random:seed=48", "-q", "-o",
                       "c.pgn"], "", str(tmp_path))
    assert code == 0, out
    end = re.search(r"\n([a-z ]+): (white wins|black wins|draw) after (\d+) moves\nsaved \3 moves to c.pgn\n", out)
    assert end is not None and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", out), out[-300:]
    with (tmp_path / "c.pgn").open(encoding="utf-8") as fh:
        game = chess.pgn.read_game(fh)
    assert game is not None and not game.errors
    board = game.end().board()
    assert board.ply() == int(end.group(3)) and board.is_game_over(claim_draw=True)
    assert game.headers["Result"] == board.result(claim_draw=True)
    code, out = _play(["--game", "chess", "-o", "c.kif"], "", str(tmp_path))
    assert code == 2 and "c.kif: cannot save a chess game as .kif (use .pgn .uci, or .txt for a move list)" in out
