"""Writing :class:`~komaken.shogi.engine.evalparams.EvalParams` as TOML (the reader is there)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from komaken.shogi.engine._evaluate import (
    N_ATTACKED,
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
)
from komaken.shogi.engine.values import HAND_LETTERS, kind_code
from komaken.shogi.variant import _toml_str

if TYPE_CHECKING:
    from komaken.shogi.engine.evalparams import EvalParams


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _key(letter: str) -> str:
    return f'"{letter}"' if letter.startswith("+") else letter


def to_toml(p: EvalParams, comment: str = "") -> str:
    """The whole parameter set as a TOML document (only the variant's pieces are written)."""
    t = p.tables
    letters = p.letters()
    pieces = [k for k in letters if k != "K"]

    def at(offset: int) -> float:
        return float(t[offset - O_RANK])

    lines = [f"# {line}".rstrip() for line in comment.splitlines()] if comment else []
    lines += ["# komaken evaluation parameters (docs/engine.md, 'Evaluation parameters')",
              f"variant = {_toml_str(p.variant)}", f"board = [{p.width}, {p.height}]  # width, height", "",
              "[terms]  # weight of each positional term; 0 switches it off"]
    lines += [f"{name} = {_num(p.terms[name])}" for name in ("mobility", "king_safety", "psq")]
    lines += ["", "[values]  # on the board"]
    lines += [f"{_key(k)} = {p.values.board[k]}" for k in pieces]
    lines += ["", "[hand]"]
    lines += [f"{k} = {p.values.hand[k]}" for k in reversed(HAND_LETTERS) if k in pieces]
    lines += ["", "[mobility]  # per pseudo-legal board move"]
    lines += [f"{_key(k)} = {_num(at(O_MOB + kind_code(k)))}" for k in letters]
    lines += ["", "[king_safety]",
              f"attacked = [{', '.join(_num(at(O_ATTACKED + n)) for n in range(N_ATTACKED))}]"
              "  # 0..8 squares next to the king attacked by the enemy",
              "# [u][h]: u of those squares defended by no other own piece, h enemy pieces in hand (3: 3 or more)",
              "undefended = ["]
    lines += [f"    [{', '.join(_num(at(O_UNDEFENDED + u * N_HAND + h)) for h in range(N_HAND))}],"
              for u in range(N_ATTACKED)]
    lines += ["]", "",
              "[king_safety.shield]  # per own piece next to the king"]
    lines += [f"{_key(k)} = {_num(at(O_SHIELD + kind_code(k)))}" for k in pieces]
    lines += ["", "[king_safety.attacker]  # per enemy piece within two squares of the king"]
    lines += [f"{_key(k)} = {_num(at(O_ATTACKER + kind_code(k)))}" for k in letters]
    lines += ["", "[psq]", f"tempo = {_num(at(O_TEMPO))}  # for the side to move", "",
              "[psq.rank]  # by rank counted from the owner's back rank"]
    for k in letters:
        row = [_num(at(O_RANK + kind_code(k) * N_RANKS + r)) for r in range(p.height)]
        lines.append(f"{_key(k)} = [{', '.join(row)}]")
    lines += ["", "[psq.file]  # by distance from the centre file"]
    for k in letters:
        row = [_num(at(O_FILE + kind_code(k) * N_FILES + d)) for d in range((p.width + 1) // 2)]
        lines.append(f"{_key(k)} = [{', '.join(row)}]")
    lines += ["", "[search]  # the search's selectivity on this board (docs/engine.md, 'Search settings')"]
    lines += [f"{name} = {value}" for name, value in p.search.items()]
    return "\n".join(lines) + "\n"
