"""The USI options of ``komaken usi``: their types, defaults and ranges, and the checks on ``setoption``.

>>> opts = default_options("minishogi")
>>> OPTIONS["USI_Hash"].parse("64"), opts["UCI_Variant"]
('64', 'minishogi')
>>> OPTIONS["USI_Hash"].parse("1000000000000")
Traceback (most recent call last):
...
komaken.errors.KomakenError: option USI_Hash: 1000000000000 is out of range 1..1024

Every value is checked here before anything is stored, so a rejected ``setoption`` leaves the
engine exactly as it was.  Names are matched without regard to case (as Fairy-Stockfish does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from komaken.errors import KomakenError
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.search import MAX_MULTIPV
from komaken.shogi.engine.skill import ELO_MAX, ELO_MIN, MAX_LEVEL, Skill
from komaken.shogi.engine.values import HAND_LETTERS, SEED_TABLE
from komaken.shogi.variant import Variant, shipped_id, shipped_variants

#: evaluation-term options (percent) and the term each sets
TERM_OPTIONS = {"EvalMobility": "mobility", "EvalKingSafety": "king_safety", "EvalPsq": "psq"}
#: options GUIs send that change nothing here
IGNORED = ("USI_OwnBook", "USI_ShowCurrLine", "USI_AnalyseMode", "UCI_AnalyseMode")
#: options read when a ``go`` starts, not by the engine: setting them rebuilds nothing
AT_GO = ("USI_Ponder", "MultiPV")
#: options read by ``position`` (the rules the next positions are set up with): they rebuild nothing
AT_POSITION = ("MaxMovesToDraw",)
#: the longest draw length MaxMovesToDraw takes (YaneuraOu's bound)
MAX_MOVES_TO_DRAW = 100_000
#: what ``usi`` says is not supported (one ``info string``)
UNSUPPORTED = ("go searchmoves; go movestogo is read and not used; Threads 1 only; no opening book "
               "(USI_OwnBook), USI_ShowCurrLine and USI_AnalyseMode are accepted and change nothing")

_INT = re.compile(r"[+-]?[0-9]{1,40}")
VALUE_RANGE = 100_000


@dataclass(frozen=True)
class Option:
    """One option as ``usi`` announces it; :meth:`parse` checks a value and returns it canonical."""

    name: str
    kind: str  # spin | check | combo | string
    default: str
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()

    def usi(self, default: str | None = None) -> str:
        """The ``option name ...`` line."""
        line = f"option name {self.name} type {self.kind} default {default or self.default}"
        if self.kind == "spin":
            line += f" min {self.low} max {self.high}"
        return line + "".join(f" var {c}" for c in self.choices)

    def parse(self, text: str) -> str:
        text = text.strip()
        if self.kind == "spin":
            if not _INT.fullmatch(text):
                raise KomakenError(f"option {self.name}: {text!r} is not an integer")
            v = int(text)
            if not self.low <= v <= self.high:
                raise KomakenError(f"option {self.name}: {v} is out of range {self.low}..{self.high}")
            return str(v)
        if self.kind == "string":  # a file name; empty (or <empty>) for the default
            return "" if text in ("", "<empty>") else text
        if self.kind == "check":
            if text.lower() not in ("true", "false"):
                raise KomakenError(f"option {self.name}: expected true or false, got {text!r}")
            return text.lower()
        return _variant_value(text)


def _variant_value(text: str) -> str:
    """A shipped variant's id (an alias such as ``5x5`` names it too), or a ``.toml`` file."""
    known = ", ".join(shipped_variants())
    if not text:
        raise KomakenError(f"option UCI_Variant needs a value ({known} or a .toml variant file)")
    vid = shipped_id(text)
    if vid is not None:
        return vid
    if text.lower().endswith(".toml"):
        return text
    raise KomakenError(f"option UCI_Variant: unknown variant {text[:200]!r} (known: {known}, or a .toml variant file)")


def _build() -> dict[str, Option]:
    opts = [
        Option("UCI_Variant", "combo", "shogi", choices=tuple(shipped_variants())),
        Option("USI_Hash", "spin", "16", 1, 1024),
        Option("Threads", "spin", "1", 1, 1),
        Option("USI_Ponder", "check", "false"),
        Option("Thesis", "check", "false"),
        Option("HandQuirk", "check", "false"),
        Option("Depth", "spin", "0", 0, 100),
        Option("Noise", "spin", "0", 0, 10000),
        Option("Seed", "spin", "0", 0, 2147483647),
        Option("MoveOverhead", "spin", "30", 0, 5000),
        Option("EvalMobility", "spin", "0", 0, 1000),
        Option("EvalKingSafety", "spin", "100", 0, 1000),
        Option("EvalPsq", "spin", "100", 0, 1000),
        Option("EvalFile", "string", "<empty>"),
        Option("UseNNUE", "check", "true"),
        Option("MultiPV", "spin", "1", 1, MAX_MULTIPV),
        Option("MaxMovesToDraw", "spin", "0", 0, MAX_MOVES_TO_DRAW),
        Option("Skill Level", "spin", str(MAX_LEVEL), 0, MAX_LEVEL),
        Option("UCI_LimitStrength", "check", "false"),
        Option("UCI_Elo", "spin", str(ELO_MAX), ELO_MIN, ELO_MAX),
    ]
    opts += [Option(f"Value_{k}", "spin", str(v), -VALUE_RANGE, VALUE_RANGE) for k, v in SEED_TABLE.items()]
    opts += [Option(f"ValueHand_{k}", "spin", str(SEED_TABLE[k]), -VALUE_RANGE, VALUE_RANGE) for k in HAND_LETTERS]
    return {o.name: o for o in opts}


#: every option, by name
OPTIONS: dict[str, Option] = _build()
_BY_LOWER = {name.lower(): opt for name, opt in OPTIONS.items()} | {"variant": OPTIONS["UCI_Variant"]}


def lookup(name: str) -> Option | None:
    """The option called ``name`` (any case; ``Variant`` means ``UCI_Variant``), or ``None``."""
    return _BY_LOWER.get(name.strip().lower())


def default_options(variant: Variant | str) -> dict[str, str]:
    """Every option at the default ``usi`` lists for ``variant``, ``UCI_Variant`` set to it.

    The piece values and term weights are the variant's parameter file's (the ones its linear
    evaluation plays while they are not set), so a GUI shows the user the numbers the engine
    plays; a letter the variant has no piece for keeps the seed table's value."""
    out = {name: "" if o.kind == "string" else o.default for name, o in OPTIONS.items()}
    params = EvalParams.default(variant)
    out |= {f"Value_{k}": str(params.values.board[k]) for k in SEED_TABLE}
    out |= {f"ValueHand_{k}": str(params.values.hand[k]) for k in HAND_LETTERS}
    out |= {name: str(round(params.terms[term] * 100)) for name, term in TERM_OPTIONS.items()}
    out["UCI_Variant"] = variant if isinstance(variant, str) else variant.name
    return out


def skill(options: dict[str, str]) -> Skill:
    """The strength the options ask for: ``UCI_Elo`` when ``UCI_LimitStrength`` is on, else
    ``Skill Level`` (20, full strength, by default)."""
    if options["UCI_LimitStrength"] == "true":
        return Skill.from_elo(int(options["UCI_Elo"]))
    return Skill(int(options["Skill Level"]))


def piece_values(options: dict[str, str], explicit: set[str]) -> dict[str, Any]:
    """The ``Value_*`` / ``ValueHand_*`` options that were set (``explicit``), as a
    :class:`~komaken.shogi.engine.values.PieceValues` mapping; a hand value not set follows its board value."""
    board = {k: int(options[f"Value_{k}"]) for k in SEED_TABLE if f"Value_{k}" in explicit}
    hand = {k: int(options[f"ValueHand_{k}"]) for k in HAND_LETTERS if f"ValueHand_{k}" in explicit}
    return {**board, **({"hand": hand} if hand else {})}


__all__ = ["AT_GO", "AT_POSITION", "IGNORED", "MAX_MOVES_TO_DRAW", "OPTIONS", "Option", "TERM_OPTIONS",
           "UNSUPPORTED", "default_options", "lookup", "piece_values", "skill"]
