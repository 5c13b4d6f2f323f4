"""Game analysis (:mod:`komaken.analysis`): the engine's scores per position from black's view, the
moves marked by the mover's win-% loss, ShogiHome's engine comments in KIF and CSA read back by
cshogi and by komaken; ``komaken analyse`` (in this process through click's runner, and a real
``komaken`` process for the exit status and the printed table); the web API; ``hint`` at the prompt."""

from __future__ import annotations

import json
import re
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli_support import komaken_in_process, komaken_process
from conftest import needs_module
from komaken import records
from komaken.analysis import (
    THRESHOLDS,
    AnalysisError,
    GameAnalysis,
    annotated,
    engine_comment,
    hint,
    judge,
)
from komaken.cli import main as cli_main
from komaken.game import Color
from komaken.games import find_game
from komaken.players.human import HumanPlayer
from komaken.search.result import SearchResult
from komaken.shogi import Position

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from komaken.web import create_app
from web_support import SAME_ORIGIN

SHOGI = find_game("shogi")
#: black to move; １四飛 (1e1d) leaves the rook to be taken: the engine's search at depth 5 puts
#: it ~2500 cp below the best move
BLUNDER_AT = "rb1gk/2s1p/P4/5/KGSBR b - 3"
CORPUS = Path("/work/shared/corpus/records/sunfish4/kifu09136.csa")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_a_move_that_gives_a_rook_away_is_a_blunder_and_the_scores_turn_with_it() -> None:
    start = Position.from_sfen(BLUNDER_AT)
    before, after = GameAnalysis(SHOGI, start, ["1e1d"], seconds=0.3, multipv=1).run()
    assert before.turn == Color.BLACK and after.turn == Color.WHITE
    assert before.best != "1e1d"
    assert after.move == "1e1d" and after.move_words == "▲１四飛"
    assert after.mark == "blunder" and after.loss is not None and after.loss >= 15
    # white to move and winning: from black's view the score is negative and black's win % low
    # (minishogi's net scores in Fairy-Stockfish's units, about 476 a logit: a rook is some 550)
    assert after.cp is not None and after.cp < -400 and after.win < 35
    assert after.lines[0].words[0].startswith("△")  # the line starts with white's move, in Japanese
    assert before.win - after.win == pytest.approx(after.loss)


def test_multipv_gives_that_many_distinct_lines_best_first() -> None:
    shogi_start = SHOGI.start(SHOGI.variant("minishogi"))
    (item,) = GameAnalysis(SHOGI, shogi_start, [], seconds=0.2, multipv=4).run()
    firsts = [line.moves[0] for line in item.lines]
    assert len(firsts) == 4 and len(set(firsts)) == 4
    wins = [line.win for line in item.lines]  # black to move: black's win % falls line by line
    assert wins == sorted(wins, reverse=True)
    assert item.best == firsts[0] and item.cp == item.lines[0].cp


class Scripted:
    """An analyser that answers scores given in advance (side to move's view), best move first."""

    def __init__(self, scores: list[float], best: list[str]) -> None:
        self.scores, self.best, self.k = scores, best, 0

    def analyse(self, position: Any, seconds: float, multipv: int) -> SearchResult[Any]:
        move = SHOGI.parse_move(position, self.best[self.k])
        r = SearchResult(move, self.scores[self.k], pv=[move], depth=3)
        self.k += 1
        return r

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_marks_follow_the_thresholds_and_never_the_engines_own_move() -> None:
    start = SHOGI.start(SHOGI.variant("minishogi"))
    # side to move's view: 0 (black), then white to move at +250 → black's view −250, a loss of
    # about 10 win % for black; then black at −700 after white's own best move
    moves = ["5d5c", "1b1c", "4e4d"]
    script = Scripted([0, 250, -700, 0], ["2e3d", "1b1c", "5c5b", "1c1d"])
    items = GameAnalysis(SHOGI, start, moves, seconds=0.1, analyser=script).run()
    assert [i.ply for i in items] == [0, 1, 2, 3]
    assert items[1].cp == -250 and items[1].turn == Color.WHITE
    assert items[1].mark == judge(items[1].loss) == "mistake"
    assert items[2].move == "1b1c" and items[2].mark is None  # white played the engine's move
    assert items[2].cp == -700
    assert judge(THRESHOLDS[-1][1] - 0.01) is None


def test_a_mate_is_scored_from_blacks_view_with_100_or_0_percent() -> None:
    mate = Position.from_sfen("4k/5/4P/5/K4 b G 1")
    items = GameAnalysis(SHOGI, mate, ["G*1b"], seconds=0.2).run()
    assert items[0].mate == 1 and items[0].win == 100 and items[0].cp is None
    assert items[1].over is not None and items[1].win == 100 and not items[1].lines
    comment = engine_comment(items[0])
    assert comment is not None and "#詰み=先手勝ち:1手" in comment and "#評価値=30000" in comment


def test_cancel_ends_the_analysis_early() -> None:
    rec = records.read(CORPUS) if CORPUS.exists() else None
    moves = rec.moves if rec else ["7g7f", "3c3d"] * 1
    analysis = GameAnalysis(SHOGI, Position.start("shogi"), moves, seconds=0.02)
    for item in analysis:
        if item.ply == 2:
            analysis.cancel()
    assert len(analysis.results) == 3 and analysis.cancelled


def test_bad_settings_and_games_without_an_engine_are_refused() -> None:
    start = Position.start("minishogi")
    for seconds, multipv in ((0, 1), (float("nan"), 1), (1e9, 1), (1, 0), (1, 6), (1, True)):
        with pytest.raises(AnalysisError):
            GameAnalysis(SHOGI, start, [], seconds=seconds, multipv=multipv)
    with pytest.raises(AnalysisError, match="move 2"):
        GameAnalysis(SHOGI, start, ["5d5c", "5d5c"], seconds=1)
    ttt = find_game("tictactoe")
    with pytest.raises(AnalysisError, match="no engine"):
        GameAnalysis(ttt, ttt.start(None), [], seconds=1)


@pytest.fixture(scope="module")
def analysed() -> GameAnalysis:
    moves = ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "8c8d"]  # 角換わり: captures, drops, 同
    analysis = GameAnalysis(SHOGI, Position.start("shogi"), moves, seconds=0.05, multipv=2)
    analysis.run()
    return analysis


def test_the_annotated_kif_is_read_back_by_cshogi_and_komaken(analysed: GameAnalysis, tmp_path: Path) -> None:
    kif_parser = needs_module("cshogi.KIF")
    text = annotated(SHOGI, analysed, "kif", ("sente", "gote"), engine="komaken")
    path = tmp_path / "a.kif"
    records.write(records.parse(text), path)
    parsed = kif_parser.Parser.parse_file(str(path))
    assert parsed.names == ["sente", "gote"] and len(parsed.moves) == 6
    assert all("#評価値=" in c and "#読み筋=" in c and "#候補2=" in c for c in parsed.comments), parsed.comments
    ours = records.read(path)
    assert [m.usi() for m in ours.moves] == ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "8c8d"]
    for item, comment in zip(analysed.results[1:], ours.comments, strict=True):
        assert f"#評価値={round(item.cp)}" in comment if item.cp is not None else "#詰み=" in comment
        assert "#読み筋=" + "".join(item.lines[0].words) in comment
    assert ours.comment is not None and "#評価値=" in ours.comment  # the start's analysis


def test_the_annotated_csa_keeps_the_comment_and_adds_floodgates_line(analysed: GameAnalysis) -> None:
    cshogi_csa = needs_module("cshogi.CSA")
    text = annotated(SHOGI, analysed, "csa")
    (game,) = cshogi_csa.Parser.parse_str(text)
    assert len(game.moves) == 6
    floodgate = [ln for ln in text.splitlines() if ln.startswith("'** ")]
    assert len(floodgate) == 6  # one per move, from #評価値= and #読み筋=
    score, first = floodgate[0].split()[1:3]
    assert int(score) == round(analysed.results[1].cp or 0) and first.startswith("-")  # white replies
    assert [m.usi() for m in records.parse(text).moves][:2] == ["7g7f", "3c3d"]


def test_hint_is_scored_for_the_side_to_move() -> None:
    pos = Position.from_sfen(BLUNDER_AT)
    pos.push_usi("1e1d")  # white to move and winning
    h = hint(SHOGI, pos, seconds=0.2)
    assert h.words.startswith("△") and h.cp is not None and h.cp > 400 and h.win > 65  # the net: about 476 a logit
    assert h.text().startswith(f"hint: {h.words} ({h.move}) · score +")


# ---- the command line ---------------------------------------------------------------------------------
def test_analyse_prints_the_table_and_writes_an_annotated_kif(tmp_path: Path) -> None:
    (tmp_path / "g.usi").write_text("startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e\n", encoding="utf-8")
    r = komaken_process("analyse", "g.usi", "--time", "0.05", "--multipv", "2", "-o", "out.kif", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["ply", "move", "score", "win%", "best", "mark"]
    assert lines[1].split()[:2] == ["0", "(start)"] and lines[2].split()[:2] == ["1", "▲７六歩"]
    assert any(ln.startswith("sente (▲): ") for ln in lines) and lines[-1] == "wrote out.kif"
    rec = records.read(tmp_path / "out.kif")
    assert len(rec.moves) == 5 and all(c and "#評価値=" in c for c in rec.comments)
    here = komaken_in_process("analyse", "g.usi", "-t", "0.05", "-o", "out.csa", cwd=tmp_path)
    assert here.returncode == 0 and "'** " in (tmp_path / "out.csa").read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "says"), [
    (["missing.kif"], "No such file"),
    (["junk.kif"], "junk.kif"),
    (["g.usi", "--time", "0"], "--time"),
    (["g.usi", "--time", "nan"], "--time"),
    (["g.usi", "--multipv", "6"], "--multipv"),
    (["g.usi", "--game", "tictactoe"], "no engine"),
    (["g.usi", "-o", "out.usi"], ".kif"),
    (["g.usi", "--game", "reversi", "-o", "out.kif"], "reversi writes an annotated record in no format"),
])
def test_analyse_refuses_bad_input_in_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    """The first case through a real ``komaken`` process (its exit status), the rest in this process."""
    (tmp_path / "g.usi").write_text("startpos moves 7g7f\n", encoding="utf-8")
    (tmp_path / "junk.kif").write_text("not a record at all\n", encoding="utf-8")
    if args == ["missing.kif"]:
        r = komaken_process("analyse", *args, cwd=tmp_path)
    else:
        r = komaken_in_process("analyse", *args, cwd=tmp_path)
    code, stderr = r.returncode, r.stderr
    assert code == 2, (code, stderr)
    assert stderr.count("\n") == 1 and stderr.startswith("komaken: error: ") and says in stderr, stderr


# ---- the web API -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    with TestClient(create_app(), headers=SAME_ORIGIN) as c:
        yield c


def events(client, aid: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    out = []
    with client.stream("GET", f"/api/analysis/{aid}/events") as s:
        for line in s.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
                if out[-1]["type"] == "done":
                    break
    return out


def test_web_analysis_streams_every_position_and_downloads_the_annotated_record(client) -> None:  # type: ignore[no-untyped-def]
    limits = client.get("/api/analysis/limits").json()
    assert limits["seconds"]["min"] == 0.01 and limits["multipv"] == {"min": 1, "max": 5, "step": 1}
    usi = "startpos moves 7g7f 3c3d 2g2f 8c8d"
    r = client.post("/api/analysis", json={"record": usi, "seconds": 0.05, "multipv": 2})
    assert r.status_code == 201, r.text
    doc = r.json()
    assert doc["total"] == 5 and len(doc["frames"]) == 5 and doc["labels"][0] == "▲７六歩"
    evs = events(client, doc["id"])
    plies = [e for e in evs if e["type"] == "ply"]
    assert evs[0]["type"] == "state" and evs[-1] == {"type": "done", "done": 5, "total": 5, "cancelled": False,
                                                    "error": None}
    assert [e["ply"] for e in evs[0]["results"] + plies] == [0, 1, 2, 3, 4]
    assert all(len(e["lines"]) == 2 and e["lines"][0]["words"] for e in plies)
    kif = client.get(f"/api/analysis/{doc['id']}/record?format=kif")
    assert kif.status_code == 200 and "Shift_JIS" in kif.headers["content-type"]
    rec = records.parse(kif.content.decode("cp932"))
    assert len(rec.moves) == 4 and all("#評価値=" in c for c in rec.comments if c)
    assert client.get(f"/api/analysis/{doc['id']}/record?format=usi").status_code == 400


def test_web_hint_and_analysis_of_a_play_session(client) -> None:  # type: ignore[no-untyped-def]
    sid = client.post("/api/play", json={"game": "minishogi", "white": {"kind": "engine", "depth": 1}}).json()["id"]
    h = client.post(f"/api/play/{sid}/hint", json={"seconds": 0.1})
    assert h.status_code == 200 and h.json()["words"].startswith("▲") and 0 <= h.json()["win"] <= 100
    assert client.post(f"/api/play/{sid}/hint", json={"seconds": 100}).status_code == 400
    r = client.post("/api/analysis", json={"session": sid, "seconds": 0.05})
    assert r.status_code == 201 and r.json()["total"] == 1


@pytest.mark.parametrize(("body", "status", "says"), [
    ({"record": "this is no record", "seconds": 0.1}, 400, "record"),
    ({"record": "startpos moves 7g7f", "seconds": 1e9}, 400, "seconds"),
    ({"record": "startpos moves 7g7f", "seconds": -1}, 400, "seconds"),
    ({"record": "startpos moves 7g7f", "multipv": 9}, 400, "multipv"),
    ({"game": "tictactoe", "record": "5 1"}, 400, "no engine"),
    ({"game": "go", "record": "x"}, 404, "unknown game"),
    ({"session": "nope"}, 404, "session"),
    ({"record": ""}, 400, "record"),
    ({"record": "x" * 200_001}, 400, "record"),
])
def test_web_analysis_refuses_bad_input_with_a_clear_4xx(client, body, status: int, says: str) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/api/analysis", json=body)
    assert r.status_code == status and says in r.json()["error"], r.text


def test_web_analysis_runs_at_most_two_at_once_and_can_be_stopped(client) -> None:  # type: ignore[no-untyped-def]
    long = "startpos moves " + " ".join(m.usi() for m in records.read(CORPUS).moves) if CORPUS.exists() \
        else "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d"
    ids = [client.post("/api/analysis", json={"record": long, "seconds": 1}).json()["id"] for _ in range(2)]
    r = client.post("/api/analysis", json={"record": long, "seconds": 1})
    assert r.status_code == 429 and "running" in r.json()["error"]
    for aid in ids:
        assert client.post(f"/api/analysis/{aid}/stop", json={}).status_code == 200
    for aid in ids:
        done = events(client, aid)[-1]
        assert done["type"] == "done" and done["cancelled"] and done["done"] < done["total"]
    assert client.post("/api/analysis", json={"record": "startpos", "seconds": 0.05}).status_code == 201


def test_hint_at_the_play_prompt_names_a_legal_move_and_the_board_is_untouched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli_main, ["play", "--variant", "minishogi", "--compact"],
                           input="hint 0.1\nhint soon\nquit\n")
    assert r.exit_code == 0, (r.stderr, r.exception)
    hints = [ln.split("> ", 1)[1] for ln in r.stdout.splitlines() if "> hint" in ln]
    assert len(hints) == 2, r.stdout
    usi = hints[0].split("(")[1].split(")")[0]
    assert usi in [m.usi() for m in Position.start("minishogi").legal_moves]
    assert "for you (win " in hints[0] and "line ▲" in hints[0]
    assert hints[1].startswith("hint: 'soon' is not a number of seconds")
    assert "no result after 0 moves" in r.stdout  # the hint played nothing


def test_chess_is_analysed_from_whites_view_the_side_that_moves_first() -> None:
    chess = find_game("chess")
    moves = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]  # 3...Nf6?? allows Qxf7#
    items = GameAnalysis(chess, chess.start(None), moves, seconds=0.3).run()
    assert items[6].move_words == "Nf6" and items[6].mark == "blunder"
    assert items[6].mate == 1 and items[6].win == 100 and items[6].best_words == "Qxf7#"  # white mates
    assert items[7].over == "checkmate" and items[7].win == 100
    with pytest.raises(AnalysisError, match="cannot write an annotated record"):
        annotated(chess, GameAnalysis(chess, chess.start(None), [], seconds=0.1), "uci")


def test_chess_multipv_lines_carry_the_exact_scores_the_plain_negamax_gives() -> None:
    from komaken.chess import Board, evaluate
    from komaken.search.generic import negamax

    chess = find_game("chess")
    board = Board.from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3")
    result = chess.analyser(board).analyse(board, 0.05, 3)  # type: ignore[misc]
    assert len(result.lines) == 3 and result.lines[0].move == result.move and result.move.uci() == "f3f7"
    assert result.lines[0].mate == 1  # Qxf7#
    for line in result.lines[1:]:  # each root move's score, searched alone with the full window
        walker = board.copy()
        walker.push(line.move)
        assert line.score == -negamax(walker, result.depth - 1, evaluate=evaluate)
        assert line.pv[0] == line.move and len({m.uci() for m in line.pv}) == len(line.pv)
    scores = [line.score for line in result.lines]
    assert scores == sorted(scores, reverse=True)


def test_the_annotated_pgn_is_read_back_by_python_chess_with_lichess_evals(tmp_path: Path) -> None:
    import chess.pgn  # python-chess, the peer

    (tmp_path / "g.pgn").write_text('[Event "club"]\n[White "Ann"]\n[Black "Bo"]\n\n'
                                    "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n", encoding="utf-8")
    r = komaken_in_process("analyse", "g.pgn", "--game", "chess", "-t", "0.2", "-m", "2", "-o", "out.pgn",
                           cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Nf6" in r.stdout and "?? blunder" in r.stdout
    with open(tmp_path / "out.pgn", encoding="utf-8") as f:
        game = chess.pgn.read_game(f)
    assert game is not None and not game.errors
    assert game.headers["Event"] == "club" and game.headers["White"] == "Ann" and game.headers["Result"] == "1-0"
    nodes = list(game.mainline())
    assert [n.san() for n in nodes] == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    assert game.comment.startswith("[%eval ")  # the start position's analysis
    for node in nodes[:-1]:
        ev = node.eval()
        assert ev is not None and node.eval_depth() is not None and "Line: " in node.comment
    blunder = nodes[5]
    assert blunder.eval().white() == chess.engine.Mate(1)  # after 3...Nf6?? white mates in one
    assert "Blunder. " in blunder.comment and "Line: Qxf7#" in blunder.comment
    assert nodes[-1].comment == ""  # the game is over there


def test_a_chess_analysis_sees_mate_in_one_however_short_its_time() -> None:
    """Depth 2 whatever the time: with none at all, the move that mates is still found and scored
    as mate, so a blunder into mate in one is never missed on a busy machine."""
    from komaken.chess.game import ChessAnalyser

    chess = find_game("chess")
    board = chess.start(None)
    for san in ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"]:
        board.push(board.parse_move(san))
    result = ChessAnalyser().analyse(board, 0.0, 1)
    assert result.depth >= 2 and result.mate == 1 and board.move_text(result.move) == "Qxf7#"


def test_reversi_is_analysed_with_multipv_and_solved_near_the_end() -> None:
    from komaken.reversi import Reversi
    from komaken.reversi.engine import solve

    reversi = find_game("reversi")
    items = GameAnalysis(reversi, reversi.start(None), ["f5", "d6", "c3"], seconds=0.05, multipv=3).run()
    assert [i.ply for i in items] == [0, 1, 2, 3] and all(len(i.lines) == 3 for i in items)
    assert items[1].move_words == "f5" and items[1].turn == Color.WHITE
    for item in items:  # best first for the side to move, scores from black's view
        cps = [ln.cp for ln in item.lines]
        assert cps == sorted(cps, reverse=item.turn == Color.BLACK), cps
        assert len({ln.moves[0] for ln in item.lines}) == 3
    # 12 empties: exact; each line's score is the solved disc difference of its move, ×100
    board = Reversi.from_transcript("c4c5f6c3b5g7e3e6c2f3g3a5h8b3f4f2b4f5f7h3a3d2e2e1a6e7d7c1c6g8f1g4d1b6b1"
                                    "d3g6b7f8a7c7h6a8b2g5g2a1d6")
    result = reversi.analyser(board).analyse(board, 0.05, 4)  # type: ignore[misc]
    assert result.exact and len(result.lines) == min(4, len(board.legal_moves()))
    for line in result.lines:
        child = board.copy()
        child.push(line.move)
        assert line.score == -100 * solve(child), line


def test_an_analysis_nobody_watches_is_stopped_when_another_is_asked_for() -> None:
    app = create_app()
    with TestClient(app, headers=SAME_ORIGIN) as c:
        jobs = app.state.api.analyses
        jobs.orphan = 0.2
        record = "startpos moves " + " ".join(m.usi() for m in records.read(CORPUS).moves) if CORPUS.exists() \
            else "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d"
        first = [c.post("/api/analysis", json={"record": record, "seconds": 1}).json()["id"] for _ in range(2)]
        time.sleep(0.5)  # nobody listens to them
        r = c.post("/api/analysis", json={"record": "startpos moves 7g7f", "seconds": 0.05})
        assert r.status_code == 201, r.text
        for aid in first:
            assert events(c, aid)[-1]["cancelled"]


def test_hint_in_a_game_without_an_engine_says_so_and_play_goes_on() -> None:
    said: list[str] = []
    answers = iter(["hint", "5"])
    ttt = find_game("tictactoe")
    player = HumanPlayer(read=lambda prompt: next(answers), write=said.append, game=ttt)
    move = player.choose(ttt.start(None))
    assert said == ["hint: tictactoe has no engine to suggest a move"] and ttt.move_text(move) == "5"


def test_the_annotated_record_keeps_what_the_original_holds(tmp_path: Path) -> None:
    floodgate = Path("/work/shared/corpus/records/sugyan/floodgate.csa")  # engine comments, times, 投了
    if not floodgate.exists():
        pytest.skip(f"no corpus game at {floodgate}")
    r = komaken_in_process("analyse", str(floodgate), "-t", "0.01", "-o", "fg.kifu", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    before, after = records.read(floodgate), records.read(tmp_path / "fg.kifu")
    assert after.moves == before.moves and after.times == before.times and after.result == before.result
    assert "棋戦：wdoor+floodgate-300-10F" in (tmp_path / "fg.kifu").read_text(encoding="utf-8")
    kept = [(old, new) for old, new in zip(before.comments, after.comments, strict=True) if old]
    assert kept and all(new.startswith(old) and "#評価値=" in new for old, new in kept)


def test_web_analysis_of_chess_downloads_pgn_and_of_reversi_offers_no_download(client) -> None:  # type: ignore[no-untyped-def]
    import io

    import chess.pgn

    r = client.post("/api/analysis", json={"game": "chess", "record": "1. e4 e5 2. Nf3 *", "seconds": 0.05,
                                           "multipv": 2})
    assert r.status_code == 201, r.text
    got = events(client, r.json()["id"])
    assert got[0]["formats"] == ["pgn"] and got[-1]["type"] == "done"
    plies = got[0]["results"] + [e for e in got if e["type"] == "ply"]  # those done before the stream opened first
    assert len(plies) == 4 and all(len(p["lines"]) == 2 for p in plies if p["lines"])
    pgn = client.get(f"/api/analysis/{r.json()['id']}/record", params={"format": "pgn"})
    game = chess.pgn.read_game(io.StringIO(pgn.text))
    assert game is not None and all(n.eval() is not None for n in game.mainline())
    r = client.post("/api/analysis", json={"game": "reversi", "record": "f5 d6 c3", "seconds": 0.05, "multipv": 3})
    got = events(client, r.json()["id"])
    assert got[0]["formats"] == [] and got[-1]["type"] == "done"
    plies = got[0]["results"] + [e for e in got if e["type"] == "ply"]
    assert [p["ply"] for p in plies] == [0, 1, 2, 3] and all(len(p["lines"]) == 3 for p in plies)
    bad = client.get(f"/api/analysis/{r.json()['id']}/record", params={"format": "kif"})
    assert bad.status_code == 400 and "cannot write an annotated record" in bad.json()["error"]


def test_shogi_lines_come_in_western_notation_too_for_the_international_set() -> None:
    item = GameAnalysis(SHOGI, Position.start("shogi"), ["7g7f"], seconds=0.05, multipv=2).run()[1]
    for line in item.lines:
        assert len(line.western) == len(line.words) and line.western
        assert all(re.fullmatch(r"[▲△]\+?[KRBGSNLP](\d[a-i])?[-x*]\d[a-i][+=]?", w) for w in line.western), line.western
        assert line.western[0][0] == "△"  # gote is to move
        assert line.to_json()["western"] == line.western
    chess = find_game("chess")
    c = GameAnalysis(chess, chess.start(None), [], seconds=0.05).run()[0]
    assert c.lines[0].to_json()["western"] == c.lines[0].words  # SAN serves every set


def test_a_hint_names_a_move_once_where_its_words_are_the_move() -> None:
    from komaken.analysis import Hint

    assert Hint("d3", "d3", 12.0, None, 55.0).text() == "hint: d3 · score +12 cp for you (win 55%)"
    assert Hint("7g7f", "▲７六歩", 35.0, None, 51.0).text().startswith("hint: ▲７六歩 (7g7f) · score +35 cp")
