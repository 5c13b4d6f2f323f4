"""Fuzzing every text surface of the rules layer: only documented errors escape.

Each test mutates valid inputs (character flips, inserted digits, Unicode look-alikes and huge
numbers, deletions, truncation) and asserts that reading them either works or raises the
documented :class:`komaken.errors.KomakenError` subclass — never a bare ``ValueError``,
``TypeError``, ``OverflowError``, ``IndexError`` or ``UnicodeDecodeError``.  What reads back is
checked too: SFEN and variant TOML round-trip exactly.  ``benchmarks/fuzz_inputs.py`` runs the
same mutations by the hundred thousand.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from komaken.errors import IllegalMoveError, InvalidPositionError, KomakenError, VariantError
from komaken.reversi import Reversi, ReversiMove
from komaken.shogi import Move, Position, Variant, load_variant
from komaken.shogi._board import MAX_HAND
from komaken.shogi._kernels import MAX_MOVES
from komaken.shogi.engine._evaluate import WEIGHT_RANGES, check_weight, weights
from komaken.shogi.engine.values import MAX_PIECE_VALUE, PieceValues, check_piece_value
from komaken.shogi.variant import BUILTIN, variant_from_dict, variant_from_toml
from komaken.tictactoe import TicTacToe, TicTacToeMove

#: 150 examples a test: each mutation kind (flip, insert, delete, truncate) still comes up dozens of
#: times; benchmarks/fuzz_inputs.py runs them by the hundred thousand
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: fragments a mutation inserts: digits (ASCII and not), piece letters, look-alikes, huge numbers
NASTY = ["0", "1", "9", "10", "39", "82", "127", "128", "①", "²", "٣", "９", "Ｐ", "ſ", "K", "+", "/", " ", "-",
         "*", "P", "p", "L", "b", "w", "\x00", "\n", "\t", '"', "\\", "=", "[", "]", "é", "\u3000",
         "99999999999999999999", "1e400", "nan", "inf", "-1", "1" * 5000]

SFENS = [
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "rbsgk/4p/5/P4/KGSBR b - 1",
    "rbnsgk/5p/6/6/P5/KGSNBR b - 1",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "rb1gk/4p/5/P4/KG1BR w Ss 8",
    "k8/9/9/9/9/9/9/9/8K b 2R2B4G4S4N4L18P 1",
]
SFEN_VARIANT = {s: "minishogi" if s.count("/") == 4 else "judkins" if s.count("/") == 5 else "shogi" for s in SFENS}


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str]) -> tuple[str, str]:
    """(seed, mutated text): up to five flips, insertions, deletions or a truncation."""
    seed = draw(st.sampled_from(seeds))
    text = seed
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(["flip", "insert", "insert", "delete", "truncate"]))
        i = draw(st.integers(0, len(text)))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(NASTY) | st.text(max_size=3)) + text[i:]
        elif op == "flip" and text:
            i = min(i, len(text) - 1)
            text = text[:i] + draw(st.sampled_from(NASTY[:30]) | st.characters()) + text[i + 1:]
        elif op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "truncate":
            text = text[:i]
    return seed, text


# ---- SFEN ------------------------------------------------------------------------------------
@FUZZ
@given(mutated(SFENS))
def test_mutated_sfen_reads_or_raises_invalid_position(case: tuple[str, str]) -> None:
    seed, text = case
    variant = SFEN_VARIANT[seed]
    try:
        pos = Position.from_sfen(text, variant)
    except InvalidPositionError as exc:
        assert str(exc)
        return
    again = Position.from_sfen(pos.sfen(), variant)
    assert again == pos and again.sfen() == pos.sfen()
    assert all(0 <= n <= MAX_HAND for c in (0, 1) for n in pos.hand(c).values())  # type: ignore[arg-type]
    assert len(pos.legal_moves()) <= pos.variant.move_bound() <= MAX_MOVES


@pytest.mark.parametrize(("text", "where"), [
    ("rbsgk/4p/5/P4/KG①BR b - 1", "column 17"),
    ("rbsgk/4p/5/P4/KGSBR b ²P 1", "column 23"),
    ("rbsgk/4p/5/P4/KGSBR b - ²", "column 25"),
    ("rbsgk/4p/5/P4/KGSBR b 1000P 1", "more than any hand holds"),
    ("rbsgk/4p/5/P4/KGSBR b - 99999999999999999999", "move number"),
    ("rbsgk/4p/5/P4/KGſBR b - 1", "unknown piece letter 'ſ'"),
])
def test_sfen_errors_name_the_column(text: str, where: str) -> None:
    with pytest.raises(InvalidPositionError, match=where):
        Position.from_sfen(text, "minishogi")


@st.composite
def played(draw: st.DrawFn) -> Position:
    pos = Position.start(draw(st.sampled_from(["shogi", "minishogi", "judkins"])))
    for _ in range(draw(st.integers(0, 80))):
        moves = pos.legal_moves()
        if not moves:
            break
        pos.push(moves[draw(st.integers(0, len(moves) - 1))])
    return pos


@settings(max_examples=60, deadline=None)
@given(played())
def test_sfen_round_trip_of_played_positions(pos: Position) -> None:
    again = Position.from_sfen(pos.sfen(), pos.variant)
    assert again.sfen() == pos.sfen()
    assert again.zobrist == pos.zobrist
    assert again.legal_moves() == pos.legal_moves()


# ---- hands beyond the first 38 Zobrist keys of a kind and the int8 range ----------------------
PAWNS = Variant("pawns", 9, 9, 3, "k8/9/9/9/9/9/9/9/8K b 79P 1", nifu=False, dead_pieces=False)


def test_big_hands_hash_apart_and_stay_exact() -> None:
    a = Position.from_sfen("k8/9/9/9/9/9/9/9/8K b 39P 1", PAWNS)
    b = Position.from_sfen("k8/9/9/9/9/9/9/9/8K b 40P 1", PAWNS)
    c = Position.from_sfen("k8/9/9/9/9/9/9/9/8K b 79P 1", PAWNS)
    assert len({a.zobrist, b.zobrist, c.zobrist}) == 3
    c.push_usi("P*5e")
    assert c.hand(c.turn.other) == {"P": 78}  # type: ignore[arg-type]
    assert c.sfen().split()[2] == "78P"
    assert Position.from_sfen(c.sfen(), PAWNS).zobrist == c.zobrist


def test_39_pawns_and_40_pawns_with_a_lance_hash_apart() -> None:
    # with a 39-key table, ZH[P, 40] read ZH[L, 1] and ZH[P, 39] read ZH[L, 0]: 39P == 40PL
    variant = Variant("pawns_lance", 9, 9, 3, "k8/9/9/9/9/9/9/9/8K b 79PL 1", nifu=False, dead_pieces=False)
    a = Position.from_sfen("k8/9/9/9/9/9/9/9/8K b 39P 1", variant)
    b = Position.from_sfen("k8/9/9/9/9/9/9/9/8K b L40P 1", variant)
    assert a.zobrist != b.zobrist


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 10**6), max_size=60))
def test_incremental_hash_equals_the_full_hash_with_big_hands(choices: list[int]) -> None:
    from komaken.shogi._kernels import full_hash

    pos = Position.from_sfen("k8/9/9/9/4p4/9/9/9/8K b 60P 1", PAWNS)
    for c in choices:
        moves = pos.legal_moves()
        if not moves:
            break
        pos.push(moves[c % len(moves)])
        assert int(full_hash(pos._bd, pos._hd, int(pos.turn))) == pos.zobrist


def test_a_variant_too_big_for_the_kernels_is_refused() -> None:
    with pytest.raises(VariantError, match="at most 81 of one kind"):
        Variant("huge", 9, 9, 3, "k8/9/9/9/9/9/9/9/8K b 81P1p 1")
    with pytest.raises(VariantError, match="more than the move buffers hold"):
        Variant("rooks", 9, 9, 3, "RRRRRRRRR/RRRRRRRRR/RRRRRRRRR/RRRRRRRRR/4k4/9/9/9/4K4 b - 1")
    with pytest.raises(InvalidPositionError, match="more than any hand holds"):
        Position.from_sfen("k8/9/9/9/9/9/9/9/8K b 82P 1", PAWNS)
    with pytest.raises(InvalidPositionError, match="only 79"):
        Position.from_sfen("k8/9/9/9/9/9/9/9/8K b 80P 1", PAWNS)


# ---- USI move text ---------------------------------------------------------------------------
MOVES = ["7g7f", "2b3c+", "P*5e", "5d5c", "1a1b", "S*2c", "8h2b+", "5e5d"]


@FUZZ
@given(mutated(MOVES), st.sampled_from(SFENS[:5]))
def test_mutated_usi_move_raises_only_illegal_move(case: tuple[str, str], sfen: str) -> None:
    _, text = case
    pos = Position.from_sfen(sfen, SFEN_VARIANT[sfen])
    before = pos.sfen()
    try:
        move = Move.from_usi(text)
    except IllegalMoveError:
        return
    assert Move.from_usi(move.usi()) == move
    try:
        pos.push_usi(text)
    except IllegalMoveError:
        assert pos.sfen() == before
        return
    assert pos.pop() == move and pos.sfen() == before


@pytest.mark.parametrize("text", ["ſ*5e", "P*５e", "7g7f++", "7g7", "", "K*5e", "9j9i"])
def test_usi_move_text_is_ascii_only(text: str) -> None:
    with pytest.raises(IllegalMoveError, match="not a USI move"):
        Move.from_usi(text)


# ---- variant TOML ----------------------------------------------------------------------------
EXAMPLE_TOML = Path(__file__).parent.parent / "src" / "komaken" / "variants" / "shogi7x7.toml"
#: the standard games, a file that inherits, and one with pieces of its own (moves and names)
TOMLS = [v.to_toml() for v in BUILTIN.values()] + [EXAMPLE_TOML.read_text(encoding="utf-8"),
                                                    load_variant("dobutsu").to_toml()]
BYTES = [b"\xff", b"\xc3", b"\xe3\x81", b"\x00", b"\xef\xbb\xbf", "①".encode(), b"1" * 30, b"1e400",
         b"nan", b"-9223372036854775809", b"[rules]\n", b'"', b"\\u", b"\r"]


@st.composite
def mutated_bytes(draw: st.DrawFn, seeds: list[str]) -> bytes:
    _, text = draw(mutated(seeds))
    data = text.encode("utf-8", "surrogatepass")
    for _ in range(draw(st.integers(0, 2))):
        i = draw(st.integers(0, len(data)))
        data = data[:i] + draw(st.sampled_from(BYTES)) + data[i:]
    return data


@FUZZ
@given(mutated_bytes(TOMLS))
def test_mutated_variant_toml_raises_only_variant_error(data: bytes) -> None:
    try:
        variant = variant_from_toml(data, "fuzz.toml")
    except VariantError as exc:
        assert "fuzz.toml" in str(exc)
        return
    assert variant_from_toml(variant.to_toml()) == variant
    pos = Position.start(variant)
    assert len(pos.legal_moves()) <= variant.move_bound() <= MAX_MOVES


JUNK = st.one_of(st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=8), st.booleans(), st.none(),
                 st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@FUZZ
@given(st.sampled_from(list(BUILTIN.values())), st.sampled_from(
    ["width", "height", "promotion_zone", "start", "name", "description", "rules.nifu", "rules.uchifuzume",
     "rules.dead_pieces", "rules.repetition", "rules.perpetual_check_loses", "rules.impasse",
     "rules.impasse_points", "rules.max_plies", "rules", "extra"]), JUNK)
def test_wrong_types_and_huge_numbers_raise_variant_error(base: Variant, key: str, value: object) -> None:

    data = tomllib.loads(base.to_toml())
    table, _, name = key.rpartition(".")
    (data[table] if table else data)[name] = value
    try:
        variant = variant_from_dict(data, "v.toml")
    except VariantError as exc:
        assert "v.toml" in str(exc)
        return
    assert variant_from_toml(variant.to_toml()) == variant


@st.composite
def variants(draw: st.DrawFn) -> Variant:
    base = draw(st.sampled_from(list(BUILTIN.values())))
    text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
    return dataclasses.replace(
        base,
        name=draw(text.filter(lambda s: s.strip() != "")),
        description=draw(text),
        nifu=draw(st.booleans()), uchifuzume=draw(st.booleans()), dead_pieces=draw(st.booleans()),
        perpetual_check_loses=draw(st.booleans()),
        repetition=draw(st.sampled_from(["draw", "sente_loses"])),
        impasse=draw(st.sampled_from(["none", "24", "27"])),
        impasse_points=draw(st.integers(0, 10_000)),
        max_plies=draw(st.none() | st.integers(0, 10**9)),
        promotion_zone=draw(st.integers(1, base.height // 2)),
    )


@FUZZ
@given(variants())
def test_variant_toml_round_trip(variant: Variant) -> None:
    assert variant_from_toml(variant.to_toml()) == variant
    assert variant_from_toml(variant.to_toml().encode("utf-8")) == variant


def test_variant_files_round_trip_through_load_variant(tmp_path: Path) -> None:
    odd = dataclasses.replace(BUILTIN["minishogi"], name='5五 "odd" \\ name', description="line\nbreak\x7f")
    for variant in [*BUILTIN.values(), odd]:
        path = tmp_path / "v.toml"
        path.write_text(variant.to_toml(), encoding="utf-8")
        assert load_variant(path) == variant


def test_variant_files_that_cannot_be_read_raise_variant_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'name = "x\xff"\n')
    with pytest.raises(VariantError, match=r"bad\.toml: not UTF-8"):
        load_variant(bad)
    for spec in ("", ".", str(tmp_path), "x" * 5000, str(tmp_path / "dir.toml")):
        (tmp_path / "dir.toml").mkdir(exist_ok=True)
        with pytest.raises(VariantError):
            load_variant(spec)


# ---- reversi and tic-tac-toe -----------------------------------------------------------------
REVERSI = [Reversi.start().to_text(), "f5d6c3d3c4", "f5 d6 pass c3", "d3", "pass", "X" * 64 + " O"]


@FUZZ
@given(mutated(REVERSI))
def test_mutated_reversi_text_raises_only_documented_errors(case: tuple[str, str]) -> None:
    _, text = case
    for read in (Reversi.from_text, Reversi.from_transcript, ReversiMove.parse, Reversi.start().push_text):
        try:
            read(text)
        except (InvalidPositionError, IllegalMoveError):
            pass


TICTACTOE = ["X.O/.X./... O", "XOX/OXO/OX. X", "5", "7", "........."]


@FUZZ
@given(mutated(TICTACTOE))
def test_mutated_tictactoe_text_raises_only_documented_errors(case: tuple[str, str]) -> None:
    _, text = case
    for read in (TicTacToe.from_text, TicTacToeMove.parse, TicTacToe.start().push_text):
        try:
            read(text)
        except (InvalidPositionError, IllegalMoveError):
            pass


def test_pop_with_no_moves_is_a_komaken_error() -> None:
    for game in (Reversi.start(), TicTacToe.start(), Position.start("minishogi")):
        with pytest.raises(IllegalMoveError, match="no move to take back"):
            game.pop()


# ---- piece values and evaluation weights -----------------------------------------------------
LETTERS = ["P", "L", "N", "S", "G", "B", "R", "+P", "+R", "P*", "K", "x", "hand"]
NUMBERS = st.one_of(st.integers(-(2**70), 2**70), st.floats(), st.just(float("nan")), st.just(float("inf")),
                    st.text(max_size=6), st.booleans(), st.none())


@FUZZ
@given(st.dictionaries(st.sampled_from(LETTERS), NUMBERS | st.dictionaries(st.sampled_from(LETTERS), NUMBERS),
                       max_size=4))
def test_piece_values_are_checked_before_the_kernels(mapping: dict[str, object]) -> None:
    try:
        values = PieceValues.from_mapping(mapping)
    except KomakenError as exc:
        assert any(str(k).rstrip("*") in str(exc) or k == "hand" for k in mapping)
        return
    bval, hval = values.arrays()
    assert abs(bval).max() <= MAX_PIECE_VALUE and abs(hval).max() <= MAX_PIECE_VALUE


@FUZZ
@given(st.sampled_from([*WEIGHT_RANGES, "speed"]), NUMBERS)
def test_evaluation_weights_are_finite_and_bounded(name: str, value: object) -> None:
    try:
        w = weights({name: value})
    except KomakenError as exc:
        assert name in str(exc)
        return
    assert all(math.isfinite(x) for x in w)


def test_usi_option_text_is_checked_by_the_same_functions() -> None:
    assert check_piece_value("1500", "Value_B") == 1500
    with pytest.raises(KomakenError, match="Value_R"):
        check_piece_value("99999999999999999999", "Value_R")
    with pytest.raises(KomakenError, match="Value_R"):
        check_piece_value("nan", "Value_R")
    assert check_weight("mobility", "2.5") == 2.5
    with pytest.raises(KomakenError, match="noise"):
        check_weight("noise", "inf")
    with pytest.raises(KomakenError, match="psq"):
        check_weight("psq", 10**400)


def test_thesis_player_refuses_a_variant_its_hand_lists_cannot_hold() -> None:
    from komaken.players.thesis import ThesisPlayer

    with pytest.raises(VariantError, match="hand lists hold at most 40"):
        ThesisPlayer(PAWNS)
    ThesisPlayer("shogi")  # 38 pieces besides the kings: fits
