"""Evaluation parameters as data: the kernel against slow references, files, overrides, bad files."""

from __future__ import annotations

import random
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from cli_support import komaken_in_process, komaken_process
from komaken.errors import KomakenError
from komaken.shogi import Position
from komaken.shogi import _kernels as KR
from komaken.shogi._board import BLACK_BIT, DIRS, WALL, WHITE_BIT
from komaken.shogi.engine import Engine, Limits
from komaken.shogi.engine._evalfile import default_network
from komaken.shogi.engine._evaluate import (
    N_FILES,
    N_HAND,
    N_RANKS,
    O_ATTACKED,
    O_ATTACKER,
    O_FILE,
    O_MOB,
    O_RANK,
    O_SHIELD,
    O_TEMPO,
    O_UNDEFENDED,
    W_SIZE,
    evaluate,
)
from komaken.shogi.engine._features import N_FEATURES, O_BOARD, O_HAND, eval_features
from komaken.shogi.engine.evalparams import EvalParams, ParamsError, pad_tables, search_defaults
from komaken.shogi.variant import SHOGI, load_variant

VARIANTS = ("minishogi", "judkins", "shogi")


def random_positions(variant: str, n: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position.start(variant)
        for _ in range(rng.randrange(0, 90)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos.push(rng.choice(moves))
        out.append(pos)
    return out


# --- slow Python references -------------------------------------------------------------------
def _targets(bd: np.ndarray, s: int) -> list[int]:
    """Squares the piece on ``s`` attacks or may move to (own pieces included, walls not)."""
    p = int(bd[s])
    r = SHOGI.rules  # every built-in variant moves its pieces as standard shogi does
    steps = [int(r[KR.R_STEPS + p * KR.MAX_STEPS + k]) for k in range(int(r[KR.R_STEP_N + p]))]
    out = [s + d for d in steps if bd[s + d] != WALL]
    for k in range(int(r[KR.R_SLIDE_N + p])):
        d = int(r[KR.R_SLIDES + p * KR.MAX_SLIDES + k])
        t = s + d
        while bd[t] != WALL:
            out.append(t)
            if bd[t] != 0:
                break
            t += d
    return out


def _attacked(bd: np.ndarray, sq: int, by: int, squares: list[int]) -> bool:
    bit = BLACK_BIT << by
    return any(int(bd[s]) & bit and sq in _targets(bd, s) for s in squares)


def reference_features(pos: Position) -> np.ndarray:
    """The feature vector, from first principles (loops over squares in Python)."""
    s = pos.kernel_state(1)
    bd, v = s.bd, pos.variant
    squares = [f * 16 + r for f in range(1, v.width + 1) for r in range(1, v.height + 1)]
    x = np.zeros(N_FEATURES)
    for sq in squares:
        p = int(bd[sq])
        if p == 0:
            continue
        k, f, r = p & 15, sq >> 4, sq & 15
        black = bool(p & BLACK_BIT)
        sign = 1 if black else -1
        rel = v.height - r if black else r - 1
        x[O_RANK + k * N_RANKS + rel] += sign
        x[O_FILE + k * N_FILES + abs(2 * f - (v.width + 1)) // 2] += sign
        own = BLACK_BIT if black else WHITE_BIT
        x[O_MOB + k] += sign * sum(1 for t in _targets(bd, sq) if not int(bd[t]) & own)
        x[O_BOARD + k] += sign
    for c in (0, 1):
        for letter, n in pos.hand(c).items():  # type: ignore[arg-type]
            x[O_HAND + "PLNSGBR".index(letter) + 1] += n * (1 - 2 * c)
        king = int(s.st[2 + c])
        sign = 1 - 2 * c
        near = [king + int(DIRS[j]) for j in range(8) if bd[king + int(DIRS[j])] != WALL]
        for t in near:
            if int(bd[t]) & (BLACK_BIT << c):
                x[O_SHIELD + (int(bd[t]) & 15)] += sign
        hit = [t for t in near if _attacked(bd, t, 1 - c, squares)]
        x[O_ATTACKED + len(hit)] += sign
        lifted = bd.copy()
        lifted[king] = 0  # a square the king alone defends is undefended
        undefended = sum(not _attacked(lifted, t, c, squares) for t in hit)
        in_hand = min(sum(pos.hand(1 - c).values()), N_HAND - 1)  # type: ignore[arg-type]
        x[O_UNDEFENDED + undefended * N_HAND + in_hand] += sign
        for t in squares:
            if max(abs((t >> 4) - (king >> 4)), abs((t & 15) - (king & 15))) <= 2 and int(bd[t]) & (WHITE_BIT >> c):
                x[O_ATTACKER + (int(bd[t]) & 15)] += sign
    x[O_TEMPO] = 1 if int(pos.turn) == 0 else -1
    return x


def previous_evaluation(pos: Position) -> int:
    """The built-in evaluation (fixed constants, king_safety = psq = 1), written out."""
    s = pos.kernel_state(1)
    bd, v = s.bd, pos.variant
    values = EvalParams.legacy(v).values
    adv = {1: 6, 2: 3, 3: 4, 4: 4, 5: 1}
    total = 0
    squares = [f * 16 + r for f in range(1, v.width + 1) for r in range(1, v.height + 1)]
    letters = {1: "P", 2: "L", 3: "N", 4: "S", 5: "G", 6: "B", 7: "R", 9: "+P", 10: "+L", 11: "+N", 12: "+S",
               14: "+B", 15: "+R"}
    for sq in squares:
        p = int(bd[sq])
        if p == 0 or p & 15 == 8:
            continue
        sign = 1 if p & BLACK_BIT else -1
        total += sign * values.board[letters[p & 15]]
        rel = v.height - (sq & 15) if sign > 0 else (sq & 15) - 1
        total += sign * adv.get(p & 15, 0) * rel
    for c in (0, 1):
        for letter, n in pos.hand(c).items():  # type: ignore[arg-type]
            total += (1 - 2 * c) * n * values.hand[letter]
        king = int(s.st[2 + c])
        for j in range(8):
            t = king + int(DIRS[j])
            if bd[t] == WALL:
                continue
            if int(bd[t]) & (BLACK_BIT << c) and int(bd[t]) & 15 in (4, 5, 9, 10, 11, 12):
                total += 30 * (1 - 2 * c)
            if _attacked(bd, t, 1 - c, squares):
                total -= 20 * (1 - 2 * c)
    return total if int(pos.turn) == 0 else -total


def kernel_eval(pos: Position, params: EvalParams, terms: dict[str, float] | None = None) -> int:
    s = pos.kernel_state(1)
    bval, hval = params.arrays()
    return int(evaluate(s.bd, s.hd, s.st, s.rules, bval, hval, params.weights(terms), np.uint64(0), 0))


# --- the kernels --------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_feature_kernel_equals_the_python_reference(variant: str) -> None:
    x = np.zeros(N_FEATURES)
    for pos in random_positions(variant, 25, seed=3):
        s = pos.kernel_state(1)
        eval_features(s.bd, s.hd, s.st, s.rules, x)
        np.testing.assert_array_equal(x, reference_features(pos), err_msg=pos.sfen())


@pytest.mark.parametrize("variant", VARIANTS)
def test_evaluation_is_the_features_times_the_parameters(variant: str) -> None:
    """With random integer tables and all term weights 1: eval = material + int(x · tables)."""
    rng = np.random.default_rng(5)
    base = EvalParams.legacy(variant)
    params = base.with_tables(rng.integers(-300, 300, W_SIZE - O_RANK).astype(float),
                              terms={"mobility": 1.0, "king_safety": 1.0, "psq": 1.0})
    bval, hval = params.arrays()
    x = np.zeros(N_FEATURES)
    for pos in random_positions(variant, 40, seed=4):
        s = pos.kernel_state(1)
        eval_features(s.bd, s.hd, s.st, s.rules, x)
        black = x[O_BOARD:O_BOARD + 16] @ bval[0x10:0x20] + x[O_HAND:O_HAND + 8] @ hval[0]
        black += x[O_RANK:W_SIZE] @ params.tables
        assert kernel_eval(pos, params) == (black if int(pos.turn) == 0 else -black)


@pytest.mark.parametrize("variant", VARIANTS)
def test_legacy_parameters_reproduce_the_previous_evaluation_exactly(variant: str) -> None:
    legacy = EvalParams.legacy(variant)
    for pos in random_positions(variant, 40, seed=6):
        assert kernel_eval(pos, legacy) == previous_evaluation(pos), pos.sfen()


def test_shipped_files_load_and_legacy_files_match_the_legacy_tables() -> None:
    for variant in VARIANTS:
        p = EvalParams.default(variant)
        assert p.source == f"params/{variant}.toml" and (p.width, p.height) == (
            Position.start(variant).variant.width, Position.start(variant).variant.height)
    # shogi's first tuned file (kept for its SPRT) changed only the piece values
    values_only = EvalParams.load(Path(__file__).parent.parent / "examples/eval/shogi-values-only.toml", "shogi")
    legacy = EvalParams.legacy("shogi")
    assert values_only.terms == legacy.terms and np.array_equal(values_only.tables, legacy.tables)
    assert values_only.values.board != legacy.values.board
    assert not np.array_equal(EvalParams.default("shogi").tables, legacy.tables)


def _shipped_text(variant: str) -> str:
    """The text of the parameter file a variant ships, found as :meth:`EvalParams.default` finds it."""
    return resources.files("komaken.shogi.engine").joinpath("params", f"{variant}.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(("variant", "mobility", "king_safety", "evidence"), [
    ("minishogi", 1.0, 1.0, ("H1 accepted",)),
    ("judkins", 0.0, 1.0, ("H1 accepted",)),
    ("shogi", 0.0, 1.0, ("Fairy-Stockfish Skill 10", "king_safety 1, the fit's", "Skill 20"))])
def test_tuned_parameters_ship_and_the_legacy_copies_are_the_earlier_evaluation(
        variant: str, mobility: float, king_safety: float, evidence: tuple[str, ...]) -> None:
    """Each shipped file names the matches that earned it its place, and the legacy copies in
    examples/eval are the built-in evaluation exactly."""
    tuned = EvalParams.default(variant)
    assert tuned.terms == {"mobility": mobility, "king_safety": king_safety, "psq": 1.0}
    assert all(e in _shipped_text(variant) for e in evidence)
    copy = EvalParams.load(Path(__file__).parent.parent / f"examples/eval/{variant}-legacy.toml", variant)
    legacy = EvalParams.legacy(variant)
    for pos in random_positions(variant, 10, seed=9):
        assert kernel_eval(pos, copy) == kernel_eval(pos, legacy)


def test_the_shipped_9x9_tempo_lets_the_horizon_see_a_fork(tmp_path: Path) -> None:
    """docs/engine.md 'Tempo': with the fitted tempo (291) a capture at the horizon had to win more
    than 582 to beat standing pat, and komaken walked into a bishop exchange and a fork of rook and
    silver (2b8h+ 7i8h B*4d) against Fairy-Stockfish; with the shipped tempo the same search, from
    the same game, finds that line.  The search settings of that day (margins 150/150/100, the full
    window, no hash rules in quiescence and pruning) are put back in both files, so only the tempo
    differs; the shipped settings (margins 450/450/300, aspiration windows of 100, `qs_tt`, `tt_eval`)
    find it either way."""
    moves = "2h1h 8b6b 3i4h 1c1d 2g2f 3c3d 1h2h 5c5d 7g7f 6c6d 2f2e 6a5b 6i6h 5a6a 2h2f"
    pos = Position.start("shogi")
    for m in moves.split():
        pos.push_usi(m)
    text = _shipped_text("shogi")
    assert "\ntempo = 0 " in text
    narrow = text
    for wide, then in (("futility_margin = 450", "futility_margin = 150"), ("rfp_margin = 450", "rfp_margin = 150"),
                       ("see_margin = 300", "see_margin = 100"), ("aspiration = 100", "aspiration = 0"),
                       ("\nqs_tt = 1", "\nqs_tt = 0"), ("\ntt_eval = 1", "\ntt_eval = 0")):
        assert wide in text
        narrow = narrow.replace(wide, then)
    fork = ["2b8h+", "7i8h", "B*4d"]
    then_shipped = _file(tmp_path, narrow, "tempo0.toml")
    fitted = _file(tmp_path, narrow.replace("\ntempo = 0 ", "\ntempo = 291 "), "fitted.toml")
    assert [m.usi() for m in Engine("shogi", params=then_shipped).search(pos, Limits(depth=8)).pv[:3]] == fork
    assert Engine("shogi", params=fitted).search(pos, Limits(depth=8)).move.usi() != "2b8h+"
    assert [m.usi() for m in Engine("shogi").search(pos, Limits(depth=8)).pv[:3]] == fork


def test_a_written_file_loads_back_equal(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    p = EvalParams.legacy("judkins").with_tables(rng.integers(-99, 99, W_SIZE - O_RANK).astype(float))
    path = tmp_path / "p.toml"
    p.write(path, "a comment\nover two lines")
    q = EvalParams.load(path, "judkins")
    assert q.values.board == p.values.board and q.values.hand == p.values.hand and q.terms == p.terms
    for pos in random_positions("judkins", 10, seed=8):
        assert kernel_eval(pos, q) == kernel_eval(pos, p)


def test_search_settings_load_write_back_and_default_to_the_earlier_search(tmp_path: Path) -> None:
    from komaken.shogi.engine._searchparams import SEARCH_PARAMS, search_array

    legacy = EvalParams.legacy("minishogi")
    assert legacy.search == {name: default for name, default, *_ in SEARCH_PARAMS}
    assert list(legacy.search_array()) == list(search_array(None))
    path = _file(tmp_path, "[search]\nlmr = 1\nlmp_depth = 5\n")
    p = EvalParams.load(path, "minishogi", base=legacy)
    assert p.search["lmr"] == 1 and p.search["lmp_depth"] == 5 and p.search["rfp_depth"] == 0
    out = tmp_path / "out.toml"
    p.write(out)
    assert EvalParams.load(out, "minishogi", base=legacy).search == p.search
    assert p.with_tables(p.tables).search == p.search


@pytest.mark.parametrize("variant", ["minishogi", "shogi"])
def test_search_settings_change_the_tree_and_keep_the_answers(variant: str, tmp_path: Path) -> None:
    """The earlier search's settings reproduce its tree exactly; selective settings search fewer
    nodes to the same depth and still find a forced mate."""
    from komaken.shogi.engine._searchparams import SEARCH_PARAMS

    legacy_search = "\n".join(f"{n} = {d}" for n, d, *_ in SEARCH_PARAMS)
    plain = _file(tmp_path, f"[search]\n{legacy_search}\n", "plain.toml")
    sharp = _file(tmp_path, "[search]\nlmr = 1\nlmp_depth = 6\nfutility_depth = 6\nrfp_depth = 6\n"
                            "iir_depth = 4\nsee_depth = 6\nnull_div = 4\ncheck_extension = 2\n", "sharp.toml")
    pos = Position.start(variant)
    depth = 7 if variant == "minishogi" else 6  # at depth 5 from the 9x9 start the two trees are level
    a = Engine(variant, params=plain).search(pos, Limits(depth=depth))
    b = Engine(variant, params=plain).search(pos, Limits(depth=depth))
    c = Engine(variant, params=sharp).search(pos, Limits(depth=depth))
    assert (a.nodes, a.move, a.score) == (b.nodes, b.move, b.score)
    assert 0 < c.nodes < a.nodes and c.depth == depth
    if variant == "minishogi":  # 頭金: gold drop mates in one
        mate = Position.from_sfen("4k/5/4P/5/K4 b G 1")
        r = Engine(variant, params=sharp).search(mate, Limits(depth=4))
        assert r.mate == 1 and str(r.move) == "G*1b"


def test_delta_pruning_in_quiescence_cuts_nodes_and_keeps_a_won_capture(tmp_path: Path) -> None:
    """``qs_delta``: captures that cannot lift the score to alpha are not searched at the horizon
    (fewer nodes to the same depth), while a capture that wins a rook is still found.  Both files
    search with the full window: an aspiration window's re-searches change the node count either way."""
    text = _shipped_text("shogi")
    assert "\naspiration = 100\n" in text
    text = text.replace("\naspiration = 100\n", "\naspiration = 0\n")
    full = _file(tmp_path, text, "full.toml")
    delta = _file(tmp_path, text.replace("[search]", "[search]\nqs_delta = 200", 1), "delta.toml")
    sfens = ["ln1gkgsnl/1r1s3b1/p1pppp1pp/6p2/1p7/2P6/PPBPPPPPP/7R1/LNSGKGSNL b - 9",
             "lnsgk2nl/6g2/p1ppppsp1/6p1p/1p7/2P3P1P/PPSPPP1P1/1B5R1/LN1GKGSNL b Rb 21"]
    for sfen in sfens:
        pos = Position.from_sfen(sfen, "shogi")
        a = Engine("shogi", params=full).search(pos, Limits(depth=6))
        b = Engine("shogi", params=delta).search(pos, Limits(depth=6))
        assert b.nodes < a.nodes
    # the white rook on 4d hangs to the bishop on 7g
    won = Position.from_sfen("4k4/9/9/5r3/9/9/2B6/9/4K4 b - 1", "shogi")
    r = Engine("shogi", params=delta).search(won, Limits(depth=2))
    assert r.move is not None and won.piece_at(r.move.to_square) is not None


def test_quiescence_reading_the_hash_table_cuts_nodes_and_keeps_the_answers(tmp_path: Path) -> None:
    """``qs_tt``: quiescence stores its results and reuses them (and the static evaluations kept
    with them), so the same depth costs fewer nodes; mates and a hanging piece are still found."""
    text = _shipped_text("minishogi")
    assert "\nqs_tt = 1\n" in text
    on = _file(tmp_path, text, "on.toml")
    off = _file(tmp_path, text.replace("\nqs_tt = 1\n", "\nqs_tt = 0\n"), "off.toml")
    fewer = 0
    for sfen in ["rbsgk/4p/5/P4/KGSBR b - 1", "rb1gk/1s2p/5/P4/KGSBR b - 1", "rbsgk/4p/5/P1S2/KG1BR w - 2"]:
        pos = Position.from_sfen(sfen, "minishogi")
        a = Engine("minishogi", params=off).search(pos, Limits(depth=10))
        b = Engine("minishogi", params=on).search(pos, Limits(depth=10))
        assert b.depth == 10 and b.move in pos.legal_moves()
        fewer += b.nodes < a.nodes
    assert fewer >= 2  # one run: 18 022, 16 048, 13 276 nodes against 18 170, 16 820, 14 873
    mate = Position.from_sfen("4k/5/4P/5/K4 b G 1", "minishogi")
    r = Engine("minishogi", params=on).search(mate, Limits(depth=5))
    assert r.mate == 1 and str(r.move) == "G*1b"
    won = Position.from_sfen("4k4/9/9/5r3/9/9/2B6/9/4K4 b - 1", "shogi")  # the rook on 4d hangs to the bishop
    r = Engine("shogi", params=_file(tmp_path, "[search]\nqs_tt = 1\n", "won.toml")).search(won, Limits(depth=3))
    assert r.move is not None and won.piece_at(r.move.to_square) is not None


_SETTING_POSITIONS = ["rbsgk/4p/5/P4/KGSBR b - 1", "rb1gk/1s2p/5/P4/KGSBR b - 1", "rbsgk/4p/5/P1S2/KG1BR w - 2"]


def _tree_changes_and_answers_stay(tmp_path: Path, off: Path, on: Path, shogi_on: str, depths: tuple[int, int],
                                   after: Callable[[Engine], None] = lambda engine: None) -> None:
    """A search setting switched on (``on`` against ``off``, minishogi's net) changes the tree of at
    least two of three positions at depth 10 and keeps a legal move; ``after`` checks each engine
    that searched with it; a mate in one (net and linear) and a hanging rook on 9×9 (``shogi_on``,
    a ``[search]`` table) are still found at ``depths``."""
    net = default_network(load_variant("minishogi"))
    differ = 0
    for sfen in _SETTING_POSITIONS:
        pos = Position.from_sfen(sfen, "minishogi")
        a = Engine("minishogi", params=off, net=net).search(pos, Limits(depth=10))
        engine = Engine("minishogi", params=on, net=net)
        b = engine.search(pos, Limits(depth=10))
        assert b.depth == 10 and b.move in pos.legal_moves()
        after(engine)
        differ += b.nodes != a.nodes
    assert differ >= 2
    mate = Position.from_sfen("4k/5/4P/5/K4 b G 1", "minishogi")
    for engine in (Engine("minishogi", params=on), Engine("minishogi", params=on, net=net)):
        r = engine.search(mate, Limits(depth=depths[0]))
        assert r.mate == 1 and str(r.move) == "G*1b"
    won = Position.from_sfen("4k4/9/9/5r3/9/9/2B6/9/4K4 b - 1", "shogi")  # the rook on 4d hangs to the bishop
    r = Engine("shogi", params=_file(tmp_path, shogi_on, "won.toml")).search(won, Limits(depth=depths[1]))
    assert r.move is not None and won.piece_at(r.move.to_square) is not None


def test_tt_eval_prunes_on_the_hash_tables_bound_and_keeps_the_answers(tmp_path: Path) -> None:
    """``tt_eval``: the pruning rules read a stored score where its bound says the position is
    worth more or less than its static evaluation, so the tree changes; the move is legal, a mate
    in one and a hanging rook are still found, with the net as with the linear evaluation."""
    text = "".join(line for line in _shipped_text("minishogi").splitlines(keepends=True)
                   if not line.startswith("tt_eval"))
    off = _file(tmp_path, text.replace("[search]", "[search]\ntt_eval = 0", 1), "off.toml")
    on = _file(tmp_path, text.replace("[search]", "[search]\ntt_eval = 1", 1), "on.toml")
    _tree_changes_and_answers_stay(tmp_path, off, on, "[search]\ntt_eval = 1\n", (6, 7))


def test_correction_history_learns_within_its_bounds_and_keeps_the_answers(tmp_path: Path) -> None:
    """``corr_history``: searches fill the table (within ±CORR_LIMIT, so a correction moves an
    evaluation by at most 64 units) and the pruning reads the corrected score, so the tree changes;
    the answers stay; off, nothing is written; ``clear()`` forgets it."""
    from komaken.shogi.engine._correction import CORR_LIMIT

    text = _shipped_text("minishogi")
    assert "corr_history" not in text
    off = _file(tmp_path, text, "off.toml")
    on = _file(tmp_path, text.replace("[search]", "[search]\ncorr_history = 1", 1), "on.toml")

    def learnt_within_bounds(engine: Engine) -> None:
        assert engine._ctx.corr.any() and np.abs(engine._ctx.corr).max() <= CORR_LIMIT

    _tree_changes_and_answers_stay(tmp_path, off, on, "[search]\ncorr_history = 1\n", (6, 7), learnt_within_bounds)
    plain = Engine("minishogi", params=off)
    plain.search(Position.start("minishogi"), Limits(depth=8))
    assert not plain._ctx.corr.any()
    engine = Engine("minishogi", params=on)
    engine.search(Position.start("minishogi"), Limits(depth=8))
    engine.clear()
    assert not engine._ctx.corr.any()


def test_a_correction_families_are_the_kings_and_hands_and_an_entry_settles_on_the_error() -> None:
    """The family key ignores every piece but the kings and reads both hands; a steady error of
    ``e`` units drives the correction to ``e`` (while within the bound) and no further."""
    from komaken.shogi.engine._correction import CORR_SHAPE, corr_key, corr_update, corrected

    def key(sfen: str) -> int:
        pos = Position.from_sfen(sfen, "minishogi")
        state = pos.kernel_state(8)
        return corr_key(state.hd, state.st)

    base = key("rbsgk/4p/5/P4/KGSBR b - 1")
    assert key("rbsgk/4p/P4/5/KGSBR b - 1") == base  # a pawn moved: the same family
    assert key("rbsgk/4p/5/P4/GKSBR b - 1") != base  # the king moved
    assert key("rbsgk/4p/5/5/KGSBR b P 1") != base  # a pawn in hand
    corr = np.zeros(CORR_SHAPE, dtype=np.int64)
    for err in (40, -25):
        corr[:] = 0
        for _ in range(400):
            corr_update(corr, 0, 7, err - (corrected(corr, 0, 7, 0)), 8)
        assert abs(corrected(corr, 0, 7, 0) - err) <= 2, (err, corrected(corr, 0, 7, 0))
    corr[:] = 0
    for _ in range(400):
        corr_update(corr, 1, 3, 10_000, 20)
    assert corrected(corr, 1, 3, 0) == 64 and not corr[0].any()


def test_singular_extension_extends_the_hash_move_and_keeps_the_answers(tmp_path: Path) -> None:
    """``singular_depth``: a search of the other moves without the hash move (at the same ply,
    before the node's own moves are generated) decides whether the hash move is extended, so the
    tree changes; the move stays legal, mates and a hanging rook are still found, and no search
    leaves a move marked as skipped, even one stopped by its node limit in the middle of it."""
    text = _shipped_text("minishogi")
    off = _file(tmp_path, text, "off.toml")
    on = _file(tmp_path, text.replace("[search]", "[search]\nsingular_depth = 6\nsingular_margin = 16", 1), "on.toml")

    def nothing_skipped(engine: Engine) -> None:
        assert not engine._ctx.skip.any()

    _tree_changes_and_answers_stay(tmp_path, off, on, "[search]\nsingular_depth = 4\n", (8, 8), nothing_skipped)
    engine = Engine("minishogi", params=on, net=default_network(load_variant("minishogi")))
    for limit in range(3_000, 60_000, 3_917):  # stops at many points of the tree, some inside a singular search
        engine.search(Position.start("minishogi"), Limits(nodes=limit))
        assert not engine._ctx.skip.any(), limit


def test_the_linear_boards_search_selectively(tmp_path: Path) -> None:
    """The ``[search]`` table of judkins's and 9×9's files (judkins's since it beat the plain search
    by +142 Elo), read by their linear evaluation, reaches the same depth with a fraction of the
    plain search's nodes, and still finds a mate, with the net judkins plays by default too."""
    for variant in ("judkins", "shogi"):
        text = _shipped_text(variant)
        assert "\n[search]" in text and "H1" in text.split("\n[search]")[1]
        # every setting spelt out: what a file leaves out comes from the shipped file
        plain_table = "".join(f"{k} = {v}\n" for k, v in search_defaults().items())
        plain = _file(tmp_path, text.split("\n[search]")[0] + "\n[search]\n" + plain_table, f"{variant}-plain.toml")
        pos = Position.start(variant)
        a = Engine(variant, params=plain).search(pos, Limits(depth=6))
        b = Engine(variant, net=None).search(pos, Limits(depth=6))
        assert b.depth == 6 and b.move in pos.legal_moves()
        assert b.nodes * 2 < a.nodes, (variant, b.nodes, a.nodes)
    mate = Position.from_sfen("5k/6/5P/6/6/K5 b G 1", "judkins")
    for net in ("default", None):
        r = Engine("judkins", net=net).search(mate, Limits(depth=5))
        assert r.mate == 1 and str(r.move) == "G*1b"


def test_history_setting_bounds_the_statistics_and_changes_the_order(tmp_path: Path) -> None:
    """``history = 0`` only ever adds (no entry below zero); ``history = 1`` also takes from the
    quiet moves that failed, and gravity keeps every entry within ±HISTORY_MAX."""
    from komaken.shogi.engine._searchparams import HISTORY_MAX

    pos = Position.start("minishogi")
    plain = Engine("minishogi")
    a = plain.search(pos, Limits(depth=9))
    assert plain._ctx.history.min() == 0 and plain._ctx.history.max() > 0
    malus = Engine("minishogi", params=_file(tmp_path, "[search]\nhistory = 1\nlmr_history = 8192\n"))
    b = malus.search(pos, Limits(depth=9))
    assert malus._ctx.history.min() < 0 < malus._ctx.history.max()
    assert np.abs(malus._ctx.history).max() <= HISTORY_MAX
    assert b.nodes != a.nodes and b.move in pos.legal_moves()


def test_aspiration_windows_keep_the_answers(tmp_path: Path) -> None:
    """A one-unit aspiration window misses at almost every depth and must widen to the true
    score: mates are still found and scored exactly, and a quiet position's score stays within a
    pawn in hand (the selective search prunes by the window, so the trees and scores differ)."""
    plain = _file(tmp_path, "[search]\nlmp_depth = 6\nfutility_depth = 6\n", "plain.toml")
    narrow = _file(tmp_path, "[search]\nlmp_depth = 6\nfutility_depth = 6\naspiration = 1\n", "narrow.toml")
    for sfen, variant, plies in [("7lk/7s1/9/9/9/9/9/9/K8 b RG 1", "shogi", 3), ("4k/5/4P/5/K4 b G 1", "minishogi", 1)]:
        pos = Position.from_sfen(sfen, variant)
        r = Engine(variant, params=narrow).search(pos, Limits(depth=6))
        assert r.mate == plies, r
    pos = Position.start("minishogi")
    a = Engine("minishogi", params=plain).search(pos, Limits(depth=9))
    b = Engine("minishogi", params=narrow).search(pos, Limits(depth=9))
    pawn = EvalParams.default("minishogi").values.hand["P"]
    assert b.nodes != a.nodes and b.depth == 9 and abs(b.score - a.score) < pawn


# --- overrides ----------------------------------------------------------------------------------
def _file(tmp_path: Path, text: str, name: str = "p.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_engine_params_path_changes_the_evaluation_and_keeps_the_rest(tmp_path: Path) -> None:
    path = _file(tmp_path, 'variant = "minishogi"\n[values]\nP = 555\n[psq]\ntempo = 40\n')
    pos = Position.from_sfen("rbsgk/4p/5/P4/KGSBR b - 1")
    default = Engine("minishogi")
    tuned = Engine("minishogi", params=path)
    assert tuned.values.board["P"] == 555 and tuned.values.board["R"] == default.values.board["R"]
    # one pawn each: the pawn's value cancels; the file's tempo replaces the default's
    tempo = default.params.tables[O_TEMPO - O_RANK]
    assert kernel_eval(pos, tuned.params) == kernel_eval(pos, default.params) + 40 - tempo
    # values= and terms= still win over the file
    assert Engine("minishogi", {"P": 7}, params=path).values.board["P"] == 7
    assert Engine("minishogi", terms={"psq": 0}, params=path).terms["psq"] == 0.0
    assert tuned.search(pos, Limits(depth=2)).move is not None


def test_player_spec_and_experiment_key_take_a_params_file(tmp_path: Path) -> None:
    from komaken.players.registry import PlayerSpec
    from komaken.shogi.game import GAME
    from komaken.shogi.variant import load_variant

    v = load_variant("minishogi")
    path = _file(tmp_path, '[values]\nP = 321\n')
    spec = PlayerSpec.parse(f"engine:nodes=100,params={path}", GAME, v)
    assert spec.build(GAME, v).engine.values.board["P"] == 321  # type: ignore[attr-defined]
    table = PlayerSpec.from_table("tuned", {"engine": "engine", "nodes": 100, "params": str(path)}, GAME, v)
    assert table.build(GAME, v).engine.values.board["P"] == 321  # type: ignore[attr-defined]
    from komaken.lab import experiment_from_dict

    exp = experiment_from_dict({"experiment": {"name": "x", "variant": "minishogi"},
                                "players": {"t": {"engine": "engine", "nodes": 100, "params": str(path)}},
                                "pairings": [{"a": "t", "b": "t"}]})
    assert exp.players["t"].build(GAME, v).engine.values.board["P"] == 321  # type: ignore[attr-defined]
    bad = _file(tmp_path, '[values]\nP = "x"\n', "bad.toml")
    with pytest.raises(KomakenError, match=r"bad\.toml: values\.P: must be a number"):
        PlayerSpec.parse(f"engine:params={bad}", GAME, v)
    with pytest.raises(KomakenError, match=r"players\.tuned\.params: .*bad\.toml: values\.P"):
        PlayerSpec.from_table("tuned", {"engine": "engine", "params": str(bad)}, GAME, v)


# --- bad files ------------------------------------------------------------------------------------
BAD = [
    ('variant = "shogi"\n', "variant", "for 'shogi'"),
    ("board = [9, 9]\n", "board", "9x9 board"),
    ("colour = 1\n", "colour", "unknown key"),
    ("[terms]\nspeed = 1\n", "terms.speed", "unknown term"),
    ("[terms]\nnoise = 1\n", "terms.noise", "unknown term"),
    ("[terms]\npsq = 1e9\n", "terms.psq", "within"),
    ('[terms]\npsq = "1"\n', "terms.psq", "must be a number"),
    ("[values]\nQ = 5\n", "values.Q", "unknown piece"),
    ("[values]\nP = 1.5\n", "values.P", "integer"),
    ("[values]\nP = 1000000\n", "values.P", "within"),
    ("[values]\nK = 5\n", "values.K", "no value"),
    ('[hand]\n"+P" = 5\n', "hand.+P", "unknown piece"),
    ("[mobility]\nP = true\n", "mobility.P", "must be a number"),
    ("[mobility]\nP = nan\n", "mobility.P", "within"),
    ("mobility = 3\n", "mobility", "table of piece letters"),
    ("[king_safety]\nattacked = [1, 2]\n", "king_safety.attacked", "9 numbers"),
    ("[king_safety]\nnear = 1\n", "king_safety.near", "unknown key"),
    ("[king_safety]\nundefended = [[1, 2, 3, 4]]\n", "king_safety.undefended", "9 rows"),
    ("[king_safety]\nundefended = " + str([[0, 0, 0, 0]] * 8 + [[0, 0, 0]]) + "\n",
     r"king_safety.undefended\[8\]", "4 numbers"),
    ("[king_safety]\nundefended = " + str([[0, 0, 0, 0]] * 8 + [[0, 0, 0, "x"]]) + "\n",
     r"king_safety.undefended\[8\]\[3\]", "must be a number"),
    ("[king_safety.shield]\nX = 1\n", "king_safety.shield.X", "unknown piece"),
    ("[king_safety.attacker]\nS = 20000\n", "king_safety.attacker.S", "within"),
    ("[psq]\nzone = 1\n", "psq.zone", "unknown key"),
    ("[psq.rank]\nP = [0, 1, 2, 3, 4, 5, 6, 7, 8]\n", "psq.rank.P", "5 numbers"),
    ("[psq.file]\nP = [0, 1]\n", "psq.file.P", "3 numbers"),
    ('[psq.file]\nP = [0, 1, "a"]\n', r"psq.file.P\[2\]", "must be a number"),
    ("[psq]\ntempo = inf\n", "psq.tempo", "within"),
    ("[values\n", "", "invalid TOML"),
    ("[search]\nsingular = 1\n", "search.singular", "unknown setting"),
    ("[search]\nlmr = 1.0\n", "search.lmr", "must be an integer"),
    ("[search]\nlmr = true\n", "search.lmr", "must be an integer"),
    ("[search]\ncheck_extension = 3\n", "search.check_extension", "within 0..2"),
    ("[search]\nfutility_margin = -5\n", "search.futility_margin", "within"),
    ("search = 1\n", "search", "must be a table"),
]


@pytest.mark.parametrize(("text", "key", "problem"), BAD)
def test_a_bad_file_names_the_file_and_the_key(tmp_path: Path, text: str, key: str, problem: str) -> None:
    path = _file(tmp_path, text, "bad.toml")
    with pytest.raises(ParamsError, match=rf"bad\.toml: {key}.*{problem}") as info:
        EvalParams.load(path, "minishogi")
    assert isinstance(info.value, ValueError)
    with pytest.raises(ParamsError, match=r"bad\.toml"):
        Engine("minishogi", params=path)


def test_missing_file_and_parameters_of_another_variant() -> None:
    with pytest.raises(ParamsError, match="not found: nowhere.toml"):
        EvalParams.load("nowhere.toml", "minishogi")
    with pytest.raises(ParamsError, match="for shogi .9x9., the engine plays minishogi"):
        Engine("minishogi", params=EvalParams.default("shogi"))


def test_a_file_for_judkins_is_refused_by_a_minishogi_engine(tmp_path: Path) -> None:
    path = tmp_path / "j.toml"
    EvalParams.default("judkins").write(path)
    with pytest.raises(ParamsError, match=r"j\.toml: variant: the file is for 'judkins'"):
        Engine("minishogi", params=path)


# --- USI EvalFile ---------------------------------------------------------------------------------
def _score(eng: object, sfen: str) -> int:
    eng.send(f"position sfen {sfen}")  # type: ignore[attr-defined]
    eng.send("go depth 1")  # type: ignore[attr-defined]
    lines = eng.until("bestmove", 30.0)  # type: ignore[attr-defined]
    info = [line for line in lines if " score cp " in line][-1].split()
    return int(info[info.index("cp") + 1])


def test_usi_evalfile_loads_refuses_bad_files_whole_and_resets_with_the_variant(tmp_path: Path) -> None:
    from usi_support import start_engine

    good = _file(tmp_path, 'variant = "minishogi"\n[psq]\ntempo = 3000\n', "good.toml")
    bad = _file(tmp_path, '[psq]\ntempo = 5\n[psq.rank]\nP = [1, 2]\n', "bad.toml")
    sfen = "rbsgk/4p/5/P4/KGSBR b - 1"
    eng = start_engine("minishogi")
    try:
        before = _score(eng, sfen)
        eng.send(f"setoption name EvalFile value {good}")
        tuned = _score(eng, sfen)
        # the file is in use: the score is what a Python engine with that file finds, not the default
        pos = Position.from_sfen(sfen, "minishogi")
        assert tuned == Engine("minishogi", params=good).search(pos, Limits(depth=1)).score_cp
        assert tuned != before
        eng.send(f"setoption name EvalFile value {bad}")
        error = eng.until("info string error", 30.0)[-1]
        assert "bad.toml: psq.rank.P" in error
        assert _score(eng, sfen) == tuned  # nothing of the bad file was taken, not even its tempo
        # the same variant again, as the lab's USI player and GUIs send it at a game's start: the file stays
        eng.send("setoption name UCI_Variant value minishogi")
        assert _score(eng, sfen) == tuned
        eng.send("setoption name UCI_Variant value shogi")  # another variant: its own defaults, and it says so
        assert f"EvalFile {good} is not used for shogi" in eng.until("info string EvalFile", 30.0)[-1]
        eng.send("setoption name UCI_Variant value minishogi")
        assert _score(eng, sfen) == before
        eng.send("setoption name UCI_Variant value shogi")
        eng.send(f"setoption name EvalFile value {good}")
        assert "variant: the file is for 'minishogi'" in eng.until("info string error", 30.0)[-1]
        eng.send("quit")
    finally:
        eng.close(timeout=30.0)


# --- the tuner ------------------------------------------------------------------------------------
def test_tune_end_to_end_writes_parameters_the_engine_plays_with(tmp_path: Path) -> None:
    db, out = tmp_path / "games.db", tmp_path / "tuned.toml"
    r = komaken_in_process("tune", "linear",
                           "-v", "minishogi", "--games", "8", "--db", str(db), "--out", str(out), "--nodes", "60",
                           "--l2", "1e-2", "--l2", "1e-4")
    assert r.returncode == 0, r.stderr
    assert f"wrote {out}" in r.stdout and "lambda 0.0001: held-out cross-entropy" in r.stderr
    tuned = EvalParams.load(out, "minishogi")
    assert tuned.terms == {"mobility": 1.0, "king_safety": 1.0, "psq": 1.0}
    assert tuned.values.board != EvalParams.default("minishogi").values.board  # the fit moved something
    assert "tuned by komaken tune linear on 8 self-play games" in out.read_text(encoding="utf-8")
    pos = Position.start("minishogi")
    assert Engine("minishogi", params=out).search(pos, Limits(depth=2)).move in pos.legal_moves()
    # the same games again (--games 0): the same file
    again = tmp_path / "again.toml"
    r = komaken_in_process("tune", "linear",
                           "-v", "minishogi", "--games", "0", "--db", str(db), "--out", str(again), "--l2", "1e-2",
                           "--l2", "1e-4", "-q")
    assert r.returncode == 0 and again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def _study_as_csa(db: Path, path: Path) -> int:
    """The games of a self-play study as one CSA file (games separated by '/'); returns how many."""
    from komaken import records
    from komaken.game import Color, Outcome, Termination
    from komaken.lab.valuestudy.games import open_study, study_games
    from komaken.shogi.move import Move

    texts = []
    with open_study(db) as study:
        for game in study_games(study):
            pos = Position.start("minishogi")
            for code in game.move_codes():
                pos.push(Move(int(code)))
            winner = None if game.score == 0.5 else Color.BLACK if game.score == 1.0 else Color.WHITE
            rec = records.GameRecord.from_position(pos, result=Outcome(Termination.CHECKMATE, winner))
            texts.append(records.dumps(rec, "csa"))
    path.write_text("/\n".join(texts), encoding="utf-8")
    return len(texts)


def test_tune_on_records_reads_the_same_positions_as_the_study_they_came_from(tmp_path: Path) -> None:
    """The study's games written as CSA records give the same quiet positions, features and results;
    the command tunes on them and refuses bad input with one line and exit status 2."""
    from komaken.lab.valuestudy.positions import read_games
    from komaken.shogi.engine.tune import read_records

    db = tmp_path / "games.db"
    r = komaken_in_process("tune", "linear",
                           "-v", "minishogi", "--games", "6", "--db", str(db), "--out", str(tmp_path / "a.toml"),
                           "--nodes", "60", "--l2", "1e-2", "-q")
    assert r.returncode == 0, r.stderr
    folder = tmp_path / "records"
    folder.mkdir()
    assert _study_as_csa(db, folder / "games.csa") == 6
    (folder / "notes.txt").write_text("not a record", encoding="utf-8")  # a folder means its record files
    _, study = read_games(db)
    recs = read_records([folder], EvalParams.legacy("minishogi"), skip=2)  # the study's values and opening
    assert recs.games == 6 and len(recs.y) == len(study.y) > 0
    np.testing.assert_array_equal(recs.X, study.X)
    np.testing.assert_array_equal(recs.y, study.y)
    out = tmp_path / "records.toml"
    r = komaken_in_process("tune", "linear", "-v", "minishogi", "--records", str(folder), "--out", str(out),
                           "--l2", "1e-2", "-q")
    assert r.returncode == 0, r.stderr
    assert "tuned by komaken tune linear on 6 games from records" in out.read_text(encoding="utf-8")
    assert EvalParams.load(out, "minishogi").values.board != EvalParams.default("minishogi").values.board
    from komaken import records

    start = records.dumps(records.GameRecord.from_position(Position.start("minishogi")), "csa").rstrip("\n")
    broken = tmp_path / "broken.csa"
    broken.write_text(start + "\n+5452FU\n", encoding="utf-8")  # a pawn does not move two squares
    for args, message in [(["--records", str(tmp_path / "none.csa")], "no such record file or folder"),
                          (["--records", str(folder), "--db", str(db)], "--records tunes on the records alone"),
                          (["--records", str(broken)], f"broken.csa line {start.count(chr(10)) + 2}"),
                          ([], "give --games and --db")]:
        r = komaken_in_process("tune", "linear", "-v", "minishogi", *args, "--out", str(tmp_path / "x.toml"))
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = komaken_in_process("tune", "linear", "-v", "judkins", "--records", str(folder), "--out",
                           str(tmp_path / "x.toml"))
    assert r.returncode == 2 and "games.csa: game 1 is minishogi, not judkins" in r.stderr
    assert not (tmp_path / "x.toml").exists()


def test_a_study_keeps_its_tables_so_studies_begun_before_the_undefended_table_stay_the_same() -> None:
    """A study's configuration is its identity: tables with an all-zero undefended-square block are
    kept without it (the layout before the block existed), and read back padded with zeros."""
    from komaken.lab.valuestudy.selfplay import stored_tables

    tables = EvalParams.legacy("minishogi").tables.copy()
    tables[O_TEMPO - O_RANK] = 7.0
    kept = stored_tables(tables)
    assert len(kept) == O_UNDEFENDED - O_RANK and kept[-1] == 7.0
    np.testing.assert_array_equal(pad_tables(np.array(kept)), tables)
    tables[W_SIZE - 1 - O_RANK] = -5.0  # the block in use: kept whole
    assert stored_tables(tables) == [float(x) for x in tables]
    np.testing.assert_array_equal(pad_tables(np.array(stored_tables(tables))), tables)


def test_tune_plays_its_games_with_the_play_params_file(tmp_path: Path) -> None:
    """A second round: the games are the tuned engine's own, stored with its tables; a bad
    --play-params file is refused before any game."""
    from komaken.lab.valuestudy.games import open_study, study_games

    play = tmp_path / "play.toml"
    EvalParams.default("minishogi").write(play)
    db, out = tmp_path / "r2.db", tmp_path / "r2.toml"
    r = komaken_in_process("tune", "linear",
                           "-v", "minishogi", "--games", "4", "--db", str(db), "--out", str(out), "--nodes", "60",
                           "--play-params", str(play), "--random-plies", "3", "--l2", "1e-2", "-q")
    assert r.returncode == 0, r.stderr
    with open_study(db) as study:
        config = study.config()
        assert list(pad_tables(config["tables"])) == [float(x) for x in EvalParams.default("minishogi").tables]
        assert config["terms"]["mobility"] == 1.0 and config["random_plies"] == 3
        assert all(g.opening_plies == 3 for g in study_games(study))
    bad = _file(tmp_path, "[values]\nP = 1.5\n", "bad.toml")
    r = komaken_in_process("tune", "linear", "-v", "minishogi", "--games", "2", "--db", str(tmp_path / "b.db"), "--out",
                           str(tmp_path / "o.toml"), "--play-params", str(bad))
    assert r.returncode == 2 and "bad.toml: values.P" in r.stderr and not (tmp_path / "b.db").exists()


def test_tune_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = _file(tmp_path, "[psq.file]\nK = [1]\n", "start.toml")
    r = komaken_process("tune", "linear", "-v", "minishogi", "--games", "2", "--db", str(tmp_path / "g.db"),
                        "--out", str(tmp_path / "o.toml"), "--params", str(bad))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "start.toml: psq.file.K: must be a list of 3 numbers" in r.stderr
    assert not (tmp_path / "g.db").exists()  # refused before any game was played
    r = komaken_in_process("tune", "linear", "-v", "judkins", "--games", "0", "--db", str(tmp_path / "none.db"),
                           "--out", str(tmp_path / "o.toml"))
    assert r.returncode == 2 and "none.db does not exist" in r.stderr


def test_a_board_value_given_alone_sets_its_hand_value_too() -> None:
    default = EvalParams.default("minishogi").values
    e = Engine("minishogi", {"P": 300, "hand": {"S": 900}, "G*": 1000})
    assert (e.values.board["P"], e.values.hand["P"]) == (300, 300)
    assert (e.values.hand["S"], e.values.hand["G"], e.values.hand["R"]) == (900, 1000, default.hand["R"])
    assert e.values.board["S"] == default.board["S"]


@pytest.mark.parametrize("k", [1e-3, 1.7e-4])
def test_the_fit_recovers_known_parameters_whatever_the_scale_k(k: float) -> None:
    """Results drawn from a known logistic model: the ridge fit (tiny lambda) finds its parameters,
    also when K is small (an unscaled optimiser stopped at the start there)."""
    from komaken.shogi.engine.tune import fit_k, fit_theta

    rng = np.random.default_rng(2)
    X = rng.integers(-3, 4, size=(40_000, 4)).astype(float)
    truth = np.array([400.0, -250.0, 800.0, 150.0]) * (1e-3 / k)
    y = (rng.random(len(X)) < 1 / (1 + np.exp(-k * (X @ truth)))).astype(float)
    fitted = fit_theta(X, y, np.zeros(4), k, 1e-9)
    np.testing.assert_allclose(fitted, truth, rtol=0.08)
    assert fit_k(X @ truth, y) == pytest.approx(k, rel=0.08)


def test_fit_material_moves_the_piece_values_and_keeps_every_table() -> None:
    """--fit material: results that follow a pawn count move the pawn's value; no table moves."""
    from komaken.shogi.engine._features import N_FEATURES, O_BOARD
    from komaken.shogi.engine.evalparams import kind_code
    from komaken.shogi.engine.tune import Dataset, tune

    start = EvalParams.default("minishogi")
    rng = np.random.default_rng(3)
    X = rng.integers(-1, 2, size=(20_000, N_FEATURES)).astype(float)
    pawn, gold = O_BOARD + kind_code("P"), O_BOARD + kind_code("G")
    X[:, O_BOARD:] = 0.0
    X[:, pawn] = rng.integers(-2, 3, size=len(X))
    X[:, gold] = rng.integers(-1, 2, size=len(X))
    truth = 1e-3 * (600.0 * X[:, pawn] + start.values.board["G"] * X[:, gold])  # a pawn worth 600
    y = (rng.random(len(X)) < 1 / (1 + np.exp(-truth))).astype(float)
    games = np.arange(len(X)) // 10
    result = tune(start, Dataset(X, y, games, int(games[-1]) + 1), lambdas=[1e-6], groups=["material"])
    assert result.columns == 2  # the pawn and the gold (the only material that varies)
    assert np.array_equal(result.params.tables, start.tables) and result.params.terms == start.terms
    assert result.params.values.board["P"] > start.values.board["P"] + 100


def test_the_tempo_is_held_unless_asked_for() -> None:
    """Results that follow the side to move: the default fit leaves the tempo at its start value
    (quiescence search needs it small, docs/engine.md 'Tempo'); ``groups=[..., "tempo"]`` fits it."""
    from komaken.shogi.engine.evalparams import kind_code
    from komaken.shogi.engine.tune import Dataset, tune

    start = EvalParams.default("minishogi")
    rng = np.random.default_rng(4)
    X = np.zeros((20_000, N_FEATURES))
    pawn = O_BOARD + kind_code("P")
    X[:, pawn] = rng.integers(-2, 3, size=len(X))
    X[:, O_TEMPO] = rng.choice([-1.0, 1.0], size=len(X))
    truth = 1e-3 * (start.values.board["P"] * X[:, pawn] + 400.0 * X[:, O_TEMPO])  # a tempo worth 400
    y = (rng.random(len(X)) < 1 / (1 + np.exp(-truth))).astype(float)
    data = Dataset(X, y, np.arange(len(X)) // 10, len(X) // 10)
    held = tune(start, data, lambdas=[1e-6])
    assert held.columns == 1  # the pawn alone
    assert held.params.tables[O_TEMPO - O_RANK] == start.tables[O_TEMPO - O_RANK]
    fitted = tune(start, data, lambdas=[1e-6], groups=["material", "tempo"])
    assert fitted.columns == 2 and fitted.params.tables[O_TEMPO - O_RANK] > 300


@pytest.mark.parametrize("path", sorted((Path(__file__).parent.parent / "examples/eval").glob("sprt-*.toml")),
                         ids=lambda p: p.name)
def test_every_shipped_sprt_file_loads_and_builds_its_players(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example matches in examples/eval run as their comments say (from the repository root)."""
    from komaken.lab import load_experiment
    from komaken.lab.players import check_players

    monkeypatch.chdir(path.parent.parent.parent)
    exp = load_experiment(str(path.relative_to(path.parent.parent.parent)), games=2)
    check_players(exp, exp.variant_or_none())
    if "search" in path.name:
        assert len(exp.openings.sfens) == 240


@pytest.mark.parametrize(("name", "variant", "openings"), [("fsf-selfplay-minishogi", "minishogi", 0),
                                                              ("judkins-vs-fsf20", "judkins", 100)])
def test_the_fairy_stockfish_examples_load(name: str, variant: str, openings: int) -> None:
    """examples/eval's matches with Fairy-Stockfish (games to tune on, docs/engine.md; judkins against
    full strength, docs/strength.md) are valid experiments, their openings read."""
    from komaken.lab import load_experiment

    exp = load_experiment(str(Path(__file__).parent.parent / f"examples/eval/{name}.toml"), games=2)
    assert exp.variant_or_none() is not None and exp.variant_or_none().name == variant  # type: ignore[union-attr]
    assert {p.kind for p in exp.players.values()} == {"usi"}
    assert len(exp.openings.sfens) == openings
