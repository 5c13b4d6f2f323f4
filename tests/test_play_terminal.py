"""``komaken play`` in a real pseudo-terminal (pexpect): a whole game of each game type, typed
move by move at the prompt, saved with ``-o`` and read back.

The test keeps its own copy of the position: it reads the opponent's moves from the printed
move lines, chooses its own moves with komaken's searchers, and at the end compares the saved
record with that copy.  Every wait has a deadline (``timeout=``); the child is killed in any case.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conftest import needs_module

pexpect = needs_module("pexpect")

from komaken.cli.play_record import read_move_list  # noqa: E402
from komaken.game import Color, Termination  # noqa: E402
from komaken.games import GameSpec, find_game  # noqa: E402

MOVE_LINE = re.compile(r"^\s*(\d+)\. (.+?)  \[", re.M)
END = re.compile(r"([a-z ]+)\)?: (.+?) after (\d+) moves")  # "詰み (checkmate): ..." or "game over: ..."
WAIT = 180  # seconds for any one answer (the first engine call may compile numba kernels)


@contextmanager
def terminal(args: list[str], cwd: Path) -> Iterator[Any]:
    child = pexpect.spawn(sys.executable, ["-m", "komaken", "play", *args], cwd=str(cwd), encoding="utf-8",
                          timeout=WAIT, dimensions=(60, 200))
    try:
        yield child
    finally:
        child.close(force=True)


def play_through(child: Any, spec: GameSpec, position: Any, choose: Callable[[Any], str],
                 max_plies: int = 300) -> re.Match[str]:
    """Answer every prompt with ``choose(position)`` until the end line; returns it."""
    for _ in range(max_plies):
        idx = child.expect([r"human > ", END], timeout=WAIT)
        for number, text in MOVE_LINE.findall(child.before):
            if int(number) == position.ply + 1:  # the opponent's move (ours are pushed when sent)
                word = re.search(r"\((\S+)\)$", text)
                position.push(spec.parse_move(position, word[1] if word else text))
        if idx == 1:
            return child.match
        text = choose(position)
        position.push(spec.parse_move(position, text))
        child.sendline(text)
    raise AssertionError("the game did not end")


def expect_saved(child: Any, name: str) -> None:
    child.expect(rf"saved \d+ moves to {re.escape(name)}", timeout=WAIT)
    child.expect(pexpect.EOF, timeout=WAIT)


def test_minishogi_against_random_saved_as_kif(tmp_path: Path) -> None:
    from komaken import records
    from komaken.players.engine import EnginePlayer

    spec = find_game("shogi")
    variant = spec.variant("minishogi")
    position = spec.start(variant)
    engine = EnginePlayer(variant, depth=3)
    turn = [0]

    def choose(pos: Any) -> str:
        move = engine.choose(pos.copy())
        turn[0] += 1
        return move.japanese(pos) if turn[0] % 2 else move.usi()  # Japanese and USI in turn

    with terminal(["-v", "minishogi", "--gote", "random:seed=7", "-o", "game.kif"], tmp_path) as child:
        child.expect("human > ", timeout=WAIT)
        child.sendline("e2e3")
        child.expect(r"looks like a chess move: .*files 1-5 .*ranks a-e .*5x5 board", timeout=WAIT)
        child.sendline("asdf")
        child.expect(r"'asdf' is not a move: write it in USI or in Japanese, e\.g\. 1e1d or １四飛", timeout=WAIT)
        child.sendline("p")
        child.expect(r"５三歩 5d5c", timeout=WAIT)
        child.sendline("5d5b")
        child.expect(r"illegal move 5d5b: P on 5d cannot move there", timeout=WAIT)
        end = play_through(child, spec, position, choose)
        expect_saved(child, "game.kif")
    assert end[1] == "checkmate" and end[2] == "sente (▲) wins"
    rec = records.read(tmp_path / "game.kif")
    assert rec.moves == position.move_stack and rec.variant.name == "minishogi"
    assert rec.result is not None and rec.result.termination is Termination.CHECKMATE
    assert rec.result.winner == Color.BLACK and rec.white == "random(seed=7)"


def test_reversi_against_the_engine_saved_as_move_list(tmp_path: Path) -> None:
    from komaken.reversi import search

    spec = find_game("reversi")
    position = spec.start(None)

    def choose(pos: Any) -> str:
        moves = list(pos.legal_moves())
        if len(moves) == 1:
            return str(moves[0])
        return str(search(pos, depth=2, endgame_empties=8).move).upper()  # F5 as well as f5

    with terminal(["--game", "reversi", "--white", "engine:depth=2", "-o", "game.txt"], tmp_path) as child:
        child.expect("human > ", timeout=WAIT)
        child.sendline("Z9")
        child.expect(r"'Z9' is not a reversi square \(a1\.\.h8\) or 'pass'", timeout=WAIT)
        child.sendline("A1")
        child.expect(r"a1 flips nothing for black \(legal here: d3 c4 f5 e6\)", timeout=WAIT)
        end = play_through(child, spec, position, choose)
        expect_saved(child, "game.txt")
    assert end[1] == "game over" and int(end[3]) == position.ply
    game, start, moves = read_move_list(tmp_path / "game.txt")
    assert game.name == "reversi" and start == spec.start(None) and moves == position.move_stack
    assert position.outcome() is not None
    assert end[2] == spec.winner_text(position.outcome().winner)


def test_tictactoe_against_perfect_play_is_a_draw(tmp_path: Path) -> None:
    from komaken.tictactoe import best_move

    spec = find_game("tictactoe")
    position = spec.start(None)
    with terminal(["--game", "tictactoe", "-o", "ttt.txt"], tmp_path) as child:
        child.expect("human > ", timeout=WAIT)
        child.sendline("5")
        child.expect(r"2\. (\d)  \[perfect", timeout=WAIT)
        position.push(spec.parse_move(position, "5"))
        position.push(spec.parse_move(position, child.match[1]))
        child.expect("human > ", timeout=WAIT)
        child.sendline(str(position.move_stack[1]))  # the square O just took
        child.expect(r"square \d is occupied by O \(legal here: ", timeout=WAIT)
        end = play_through(child, spec, position, lambda pos: str(best_move(pos).move))
        expect_saved(child, "ttt.txt")
    assert end[1] == "game over" and end[2] == "draw" and position.ply == 9
    game, _, moves = read_move_list(tmp_path / "ttt.txt")
    assert [str(m) for m in moves] == [str(m) for m in position.move_stack]
    assert "# result: game over: draw after 9 moves" in (tmp_path / "ttt.txt").read_text()


def test_ctrl_d_stops_the_game_and_saves_it(tmp_path: Path) -> None:
    with terminal(["--game", "tictactoe"], tmp_path) as child:
        child.expect("human > ", timeout=WAIT)
        child.sendline("5")
        child.expect("human > ", timeout=WAIT)
        child.sendeof()
        child.expect(r"\naborted: no result after 2 moves", timeout=WAIT)  # tic-tac-toe has no 中断
        child.expect(r"saved 2 moves to (tictactoe-\S+\.txt)", timeout=WAIT)
        name = child.match[1]
        child.expect(pexpect.EOF, timeout=WAIT)
    _, _, moves = read_move_list(tmp_path / name)
    assert [str(m) for m in moves][0] == "5" and len(moves) == 2


def test_dobutsu_against_random_with_its_own_piece_names(tmp_path: Path) -> None:
    import random

    from komaken import records

    spec = find_game("shogi")
    variant = spec.variant("dobutsu")
    position = spec.start(variant)
    rng = random.Random(5)

    def choose(pos: Any) -> str:
        moves = list(pos.legal_moves())
        for m in moves:  # a move that wins at once (the lion taken, or a try), else any
            after = pos.copy()
            after.push(m)
            if after.outcome() is not None and after.outcome().winner == Color.BLACK:
                return str(m.usi())
        return str(rng.choice(moves).usi())

    with terminal(["-v", "dobutsu", "--gote", "random:seed=3", "-o", "game.kif"], tmp_path) as child:
        child.expect("human > ", timeout=WAIT)
        assert "|vキvラvゾ|一" in child.before and "| ゾ ラ キ|四" in child.before  # lion, giraffe, elephant
        child.sendline("２二ヒ")  # the chick takes the chick, written with dobutsu's names
        position.push(spec.parse_move(position, "2c2b"))
        end = play_through(child, spec, position, choose)
        expect_saved(child, "game.kif")
    outcome = position.outcome()
    assert outcome is not None and end[2] == spec.winner_text(outcome.winner) and int(end[3]) == position.ply
    text = (tmp_path / "game.kif").read_bytes().decode("cp932")  # .kif is Shift_JIS: katakana fits
    assert "   1 ２二ヒ(23)" in text
    rec = records.read(tmp_path / "game.kif", variant=variant)
    assert rec.moves == position.move_stack and rec.result is not None and rec.result.winner == outcome.winner
