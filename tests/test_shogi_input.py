"""Bad input: invalid SFEN and variant files give clear errors naming what and where."""

from __future__ import annotations

from pathlib import Path

import pytest

from komaken import InvalidPositionError, VariantError
from komaken.shogi import Position, Variant, load_variant

BAD_SFEN = [
    ("rbsgk/4p/5/P4 b - 1", "has 4 ranks"),
    ("rbsgk/4p/5/P4/KGSBRR b - 1", "wider than 5 files"),
    ("rbsgk/4p/5/P3/KGSBR b - 1", "rank 4 .* has 4 files"),
    ("rbsgk/4p/5/P4/KGSBX b - 1", "unknown piece letter 'X'"),
    ("rbsgk/4p/5/P4/KGSBR x - 1", "side to move must be 'b' or 'w'"),
    ("rbsgk/4p/5/P4/KGSBR b 2K 1", "cannot be in hand"),
    ("rbsgk/4p/5/P4/KGSBR b 3P 1", "only 2"),
    ("rbsgk/4p/5/P4/KGSBR b - x", "move number"),
    ("P3k/4p/5/5/KGSBR b - 1", "last rank"),
    ("rbsgk/4p/4p/P4/KGSBR b - 1", "二歩"),
    ("rbsgk/4p/5/P4/KGS+GR b - 1", "cannot be promoted"),
    ("rbsgk/5/5/4R/KGSB1 b P 1", "side not to move .* is in check"),
    ("rbsgk/4p/5", "3 or 4 fields"),
]


@pytest.mark.parametrize(("sfen", "message"), BAD_SFEN)
def test_invalid_sfen_is_rejected_with_a_reason(sfen: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_sfen(sfen, "minishogi")


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        Position.from_sfen("nonsense", "shogi")


def test_knight_on_the_last_two_ranks_is_invalid() -> None:
    with pytest.raises(InvalidPositionError, match="N on 5b"):
        Position.from_sfen("4k4/4N4/9/9/9/9/9/9/4K4 b - 1")


def test_unknown_variant() -> None:
    with pytest.raises(VariantError, match="unknown variant 'chess'"):
        load_variant("chess")


def test_variant_file_errors_name_the_file_and_key(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('width = 5\nheight = 5\npromotion_zone = 1\nstart = "rbsgk/4p/5/P4/KGSBR b - 1"\ncolour = 1\n')
    with pytest.raises(VariantError, match=r"bad\.toml: unknown key 'colour'"):
        load_variant(f)
    f.write_text('width = 5\nheight = 5\npromotion_zone = 1\nstart = "rbsgk/4p/5/P4/KGSBR b - 1"\n'
                 '[rules]\nrepetition = "sometimes"\n')
    with pytest.raises(VariantError, match="repetition must be"):
        load_variant(f)
    f.write_text("width = 5\n")
    with pytest.raises(VariantError, match="missing key 'height'"):
        load_variant(f)
    f.write_text("width = [\n")
    with pytest.raises(VariantError, match="invalid TOML"):
        load_variant(f)
    with pytest.raises(VariantError, match="not found"):
        load_variant(tmp_path / "missing.toml")


def test_variant_geometry_is_checked() -> None:
    with pytest.raises(VariantError, match="not within"):
        Variant("big", 10, 9, 3, "9/9/9/9/9/9/9/9/9 b - 1")
    with pytest.raises(VariantError, match="bad start position"):
        Variant("odd", 5, 5, 1, "rbsgk/4p/5/P4 b - 1")


def test_variant_toml_round_trip(tmp_path: Path) -> None:
    v = load_variant("shogi7x7")
    f = tmp_path / "again.toml"
    f.write_text(v.to_toml())
    assert load_variant(f) == v
    assert v.piece_letters == ("P", "S", "G", "B", "R", "K", "+P", "+S", "+B", "+R")
    assert load_variant("minishogi").repetition == "sente_loses"
