"""Game clocks: the model (:mod:`komaken.clock`) on a fake time source, the game loop under a clock,
the engine told the real clock, and ``komaken play --time``: in a subprocess whose human never answers
(and one refused clock through the real console script), the other command lines in this process."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cli_support import komaken_in_process, komaken_process
from komaken import records
from komaken.clock import MAX_SECONDS, Clock, ClockError, TimeControl, TimeLeft
from komaken.game import Color, Termination
from komaken.games import find_game
from komaken.match import Control, play_game
from komaken.players.engine import EnginePlayer
from komaken.players.human import HumanPlayer
from komaken.players.random import RandomPlayer

B, W = Color.BLACK, Color.WHITE


class Fake:
    """A time source the test moves by hand."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def clock(black: TimeControl | None, white: TimeControl | None) -> tuple[Clock, Fake]:
    now = Fake()
    return Clock((black, white), now=now), now


def move(c: Clock, now: Fake, color: Color, seconds: float) -> bool:
    c.start(color)
    now.t += seconds
    return c.stop()


# ---- the model -----------------------------------------------------------------------------------
def test_byoyomi_starts_when_main_time_is_spent_and_resets_every_move() -> None:
    c, now = clock(TimeControl(10, byoyomi=5), None)
    assert move(c, now, B, 8) and c.main[B] == 2
    assert c.allowed(B) == 7  # 2 s of main time and the byoyomi
    assert move(c, now, B, 6.5) and c.main[B] == 0  # 2 s main + 4.5 s of byoyomi
    for _ in range(3):  # each move in byoyomi gets all 5 s again; what is left of them is lost
        assert c.allowed(B) == 5
        assert move(c, now, B, 4.9) and c.main[B] == 0
    assert not move(c, now, B, 5.01)
    assert c.flagged is B


def test_fischer_adds_the_increment_after_each_move() -> None:
    c, now = clock(TimeControl(10, increment=3), TimeControl(10, increment=3))
    assert move(c, now, B, 4) and c.main[B] == 9  # 10 - 4 + 3
    assert move(c, now, W, 0.5) and c.main[W] == 12.5
    assert c.allowed(B) == 9  # the increment comes after the move, never during it
    assert not move(c, now, B, 9.001)
    assert c.flagged is B and c.main[B] == 0


def test_sudden_death_and_an_untimed_side() -> None:
    c, now = clock(TimeControl(3), None)
    assert move(c, now, W, 1e6) and c.allowed(W) == math.inf and c.left(W) is None
    assert move(c, now, B, 2.5) and math.isclose(c.main[B], 0.5)
    c.start(B)
    now.t += 0.4
    assert not c.expired() and c.deadline() == pytest.approx(now.t + 0.1)
    now.t += 0.2
    assert c.expired()
    assert not c.stop()


def test_time_left_is_what_a_usi_go_says() -> None:
    c, now = clock(TimeControl(60, byoyomi=10), TimeControl(30, byoyomi=5))
    move(c, now, B, 2)
    assert c.left(W) == TimeLeft(btime=58, wtime=30, byoyomi=5)
    assert c.left(W).usi() == "btime 58000 wtime 30000 byoyomi 5000"
    f, _ = clock(TimeControl(300, increment=5), TimeControl(200, increment=2))
    assert f.left(B).usi() == "btime 300000 wtime 200000 binc 5000 winc 2000"


def test_cancel_charges_the_time_used_without_a_verdict() -> None:
    c, now = clock(TimeControl(10, byoyomi=5), None)
    c.start(B)
    now.t += 12  # over the main time, inside the byoyomi: a take-back gives nothing back
    c.cancel()
    assert c.main[B] == 0 and c.flagged is None and c.running is None


def test_the_reading_a_page_shows() -> None:
    c, now = clock(TimeControl(10, byoyomi=5), None)
    c.start(B)
    now.t += 12
    black, white = c.to_json()
    assert white is None
    assert black is not None and black["running"] and black["main"] == 0 and black["byoyomi"] == 3


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"main": -1}, "not within 0..1000000"), ({"main": math.nan}, "not within"), ({"byoyomi": math.inf}, "not within"),
    ({"main": MAX_SECONDS + 1}, "not within"), ({"main": 60, "byoyomi": 5, "increment": 2}, "not both"),
    ({}, "no time at all"), ({"main": "600"}, "not a number"), ({"main": True}, "not a number"),
])
def test_bad_time_controls_say_what_is_wrong(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ClockError, match=words):
        TimeControl(**kwargs)
    assert issubclass(ClockError, ValueError)


# ---- the game loop -------------------------------------------------------------------------------
class Slow:
    """Answers a random legal move after ``delay`` seconds; records what the clock told it."""

    def __init__(self, delay: float) -> None:
        self.name, self.delay, self.seen = "slow", delay, []
        self.random = RandomPlayer(seed=1)
        self.time_left: TimeLeft | None = None

    def new_game(self, seed: int | None = None) -> None:
        pass

    def choose(self, position: Any) -> Any:
        self.seen.append(self.time_left)
        time.sleep(self.delay)
        return self.random.choose(position)

    def close(self) -> None:
        pass


def test_a_player_that_answers_late_loses_on_time_and_the_record_says_so() -> None:
    shogi = find_game("shogi")
    pos = shogi.start(shogi.variant("minishogi"))
    slow, fast = Slow(0.3), Slow(0.0)
    result = play_game(pos, (fast, slow), game=shogi,
                       clock=Clock((TimeControl(60, byoyomi=1), TimeControl(0.5, byoyomi=0.1))))
    assert result.termination is Termination.TIME_FORFEIT and result.winner is B
    assert result.detail == "time up (0.5 s + 0.1 s byoyomi)"
    assert len(result.moves) in (3, 5)  # white's first move fits in 0.6 s; by its second or third it does not
    assert slow.seen[0] == TimeLeft(btime=pytest.approx(60, abs=0.2), wtime=0.5, byoyomi=0.1)
    rec = records.GameRecord.from_position(pos, result=result.outcome)  # type: ignore[arg-type]
    assert "%TIME_UP" in records.dumps(rec, "csa")
    assert "切れ負け" in records.dumps(rec, "kif")


def test_a_resignation_served_before_the_flag_is_a_resignation() -> None:
    shogi = find_game("shogi")
    control = Control()
    control.resign(B)
    result = play_game(shogi.start(shogi.variant("minishogi")), (Slow(0), Slow(0)), game=shogi, control=control,
                       clock=Clock((TimeControl(0.01), TimeControl(0.01))))
    assert result.termination is Termination.RESIGNATION


def test_a_terminal_human_who_does_not_answer_loses_on_time() -> None:
    shogi = find_game("shogi")
    answers = iter(["5d5c"])

    def read(prompt: str) -> str:
        assert "[0:0" in prompt  # the prompt shows the time left
        try:
            return next(answers)
        except StopIteration:
            time.sleep(1.2)
            return "p"  # a command after the flag fell: too late, whatever it is

    human = HumanPlayer(read=read, write=lambda s: None)
    result = play_game(shogi.start(shogi.variant("minishogi")), (human, Slow(0)), game=shogi,
                       clock=Clock((TimeControl(1), None)))
    assert result.termination is Termination.TIME_FORFEIT and result.winner is W and len(result.moves) == 2


def test_the_engine_plans_from_the_real_clock() -> None:
    """In byoyomi with 0.3 s a move, the engine (1 s a move without a clock) moves within it."""
    shogi = find_game("shogi")
    v = shogi.variant("minishogi")
    engine = EnginePlayer(v, seed=1)
    engine.choose(shogi.start(v))  # compile (or load) the kernels before the clock runs
    result = play_game(shogi.start(v), (engine, Slow(0)), game=shogi, max_plies=8,
                       clock=Clock((TimeControl(0, byoyomi=0.3), None)))
    assert result.termination in (Termination.MAX_PLIES, Termination.CHECKMATE), result.detail
    engine_times = result.times[0::2]
    assert engine_times and max(engine_times) < 0.3
    assert engine.move_limits().byoyomi == 0.3 and engine.move_limits().movetime is None


@pytest.mark.parametrize(("game", "spec", "byoyomi"), [("reversi", "engine", 0.3), ("chess", "engine", 0.6)])
def test_the_reversi_and_chess_engines_plan_from_the_real_clock(game: str, spec: str, byoyomi: float) -> None:
    """Under byoyomi they deepen while the next ply fits (chess: until the alarm, abandoning the
    ply it cuts) and answer inside it (1 s a move, or a fixed depth, without a clock)."""
    from komaken.players.registry import make_player

    g = find_game(game)
    engine = make_player(spec, g, None)
    engine.choose(g.start(None))  # compile (or load) the kernels before the clock runs
    result = play_game(g.start(None), (engine, Slow(0)) if g.first is Color.BLACK else (Slow(0), engine), game=g,
                       max_plies=8, clock=Clock((TimeControl(0, byoyomi=byoyomi),) * 2))
    assert result.termination is Termination.MAX_PLIES, result.detail
    engine_times = result.times[0::2]  # the engine moves first
    assert engine_times and max(engine_times) < byoyomi
    assert engine.time_left is not None and engine.time_left.byoyomi == byoyomi  # type: ignore[attr-defined]
    assert engine.last.depth >= 2  # type: ignore[attr-defined]


TimeLeft_budget_cases = [(TimeLeft(600, 600), Color.BLACK), (TimeLeft(0, 0, byoyomi=5), Color.WHITE),
                         (TimeLeft(10, 300, binc=2, winc=2), Color.BLACK)]


@pytest.mark.parametrize(("left", "color"), TimeLeft_budget_cases)
def test_a_budget_never_passes_what_the_clock_holds(left: TimeLeft, color: Color) -> None:
    soft, hard = left.budget(color)
    main = left.btime if color is Color.BLACK else left.wtime
    assert 0 < soft <= hard <= main + left.byoyomi


# ---- komaken play in a subprocess ----------------------------------------------------------------
def test_komaken_play_human_who_never_answers_loses_on_time(tmp_path: Path) -> None:
    # stdin stays open and silent (a person gone away): the clock, not end-of-input, ends the game
    proc = subprocess.Popen([sys.executable, "-m", "komaken", "play", "-v", "minishogi", "--gote", "random:seed=1",
                             "--time", "1", "--byoyomi", "1", "-c", "-q", "-o", "g.csa"],
                            cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdin is not None
        proc.stdin.write("5d5c\n")
        proc.stdin.flush()
        proc.wait(timeout=120)  # stdin still open: communicate() would close it
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        proc.stdin.close()  # type: ignore[union-attr]
    assert proc.returncode == 0, err
    assert "clock: 1 s + 1 s byoyomi each" in out
    assert "clock sente (▲) " in out and "gote (△)" in out  # both clocks after each move
    assert "time up (1 s + 1 s byoyomi)" in out
    assert "切れ負け (time forfeit): gote (△) wins after 2 moves" in out
    text = (tmp_path / "g.csa").read_text(encoding="utf-8")
    assert text.rstrip().endswith("%TIME_UP") and "$TIME_LIMIT" not in text  # 1 s is no whole minute
    rec = records.parse(text, "csa")
    assert rec.result is not None and rec.result.termination is Termination.TIME_FORFEIT and rec.result.winner is W


def test_komaken_play_records_the_time_control_in_kif(tmp_path: Path) -> None:
    # random seeds 1 and 2 play a 16-move game (2 and 3 played 164 moves for the same checks)
    out = komaken_in_process("play", "-v", "minishogi", "--sente", "random:seed=1", "--gote", "random:seed=2",
                             "--time", "60", "--increment", "2", "-q", "-o", "g.kifu", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    text = (tmp_path / "g.kifu").read_text(encoding="utf-8")
    assert "持ち時間：各1分、1手ごとに2秒加算" in text


def test_komaken_play_sets_each_sides_clock_apart(tmp_path: Path) -> None:
    out = komaken_in_process("play", "-v", "minishogi", "--sente", "random:seed=1", "--gote", "random:seed=2",
                             "--time", "60", "--byoyomi", "5", "--white-time", "20", "-q", "-o", "g.kifu",
                             cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "clock: sente (▲) 60 s + 5 s byoyomi · gote (△) 20 s + 5 s byoyomi" in out.stdout
    text = (tmp_path / "g.kifu").read_text(encoding="utf-8")
    assert "持ち時間：先手：1分、秒読み5秒　後手：20秒、秒読み5秒" in text
    rec = records.parse(text, "kif")
    assert len(rec.times) == len(rec.moves) and all(t is not None for t in rec.times)
    out = komaken_in_process("play", "-v", "minishogi", "--sente", "random:seed=1", "--gote", "random:seed=2",
                             "--sente-byoyomi", "3", "-q", cwd=tmp_path)
    assert out.returncode == 0 and "clock: sente (▲) 0 s + 3 s byoyomi · gote (△) no clock" in out.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["--gote-time", "-3"], "'--gote-time' / '--white-time'"),
    (["--black-byoyomi", "5", "--black-increment", "1"], "--sente-byoyomi/--sente-increment: give byoyomi"),
    (["--time", "-5"], "'--time'"), (["--time", "nan"], "not a finite number"),
    (["--byoyomi", "2e6"], "'--byoyomi'"), (["--time", "60", "--byoyomi", "5", "--increment", "1"], "not both"),
    (["--time", "0"], "no time at all"),
])
def test_komaken_play_bad_clocks_are_one_line_and_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    """The first case through a real ``komaken`` process (its exit status), the rest in this process."""
    if args == ["--gote-time", "-3"]:
        out = komaken_process("play", "-v", "minishogi", *args, cwd=tmp_path, input="", timeout=60)
    else:
        out = komaken_in_process("play", "-v", "minishogi", *args, cwd=tmp_path, input="")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("komaken: error: ") and words in out.stderr
    assert "Traceback" not in out.stderr
