"""Material-imbalance starts for the regression (``komaken values selfplay --imbalance N``).

From the variant's start the game loses ``N`` non-king pieces, drawn at random from the game's
seed: for each removal a colour (uniform), then a kind that colour still has on the board
(uniform over kinds, so a 9×9 army's nine pawns do not crowd out its one rook), then one piece of
that kind (uniform).  A draw that leaves an illegal position (the side not to move in check,
e.g. a pawn removed from in front of a king facing a rook) or a finished game is redrawn.  The
random opening plies and the engine's noise follow as in the original design.  With
``--imbalance-mode transfer`` each removed piece goes into the other side's hand instead, as if
it had been captured: the material pool stays the standard one and each draw moves the
difference of its kind by two, as a capture does.  ``--imbalance-mode exchange`` transfers
too, but takes the pieces from black and white in turn (black's first), so with an even ``N``
every start is an uneven trade — a bishop for a gold, a rook for a pawn — and both sides keep
the same number of pieces: the games stay close, and each one compares two kinds directly.

Why: in the original design every game starts level and the material differences the
regression reads come from trades, mostly short-lived and mostly of the same kinds; a game that
starts a bishop down against a gold down carries a persistent difference for the whole game,
so each game says much more about the values (H. G. Muller's material-odds idea, with every kind
and both colours drawn at random and the regression, not a deficit ratio, turning results
into values).  The start of game ``i`` depends only on the study seed, the variant and ``i``.
"""

from __future__ import annotations

import random

from komaken.errors import KomakenError
from komaken.lab.openings import derive_seed
from komaken.shogi import Position
from komaken.shogi.kernel import COLOR_BIT, KING_KIND
from komaken.shogi.sfen import format_sfen, parse_sfen
from komaken.shogi.variant import Variant

ATTEMPTS = 200
MODES = ("remove", "transfer", "exchange")


class ImbalanceError(KomakenError):
    """An imbalance setting the variant cannot satisfy."""


def removable(variant: Variant) -> int:
    """Non-king pieces on the variant's start board (the most ``--imbalance`` can remove)."""
    board, _hands, _side, _number = parse_sfen(variant.start_sfen, variant)
    return sum(1 for code in board.values() if code & 0x0F != KING_KIND)


def check_imbalance(variant: Variant, n: int, mode: str = "remove") -> int:
    """``n`` and ``mode`` checked against the variant (``ImbalanceError`` naming the key otherwise)."""
    if mode not in MODES:
        raise ImbalanceError(f"imbalance_mode: {mode!r} is not one of {', '.join(MODES)}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ImbalanceError(f"imbalance: must be a whole number >= 0, got {n!r}")
    most = removable(variant) - 2
    if n > most:
        raise ImbalanceError(f"imbalance: {n} is more than {variant.name} allows ({most}: its start has "
                             f"{most + 2} non-king pieces, and each side keeps at least one)")
    return n


def imbalanced_start(variant: Variant, n: int, seed: int, mode: str = "remove") -> str:
    """The start SFEN with ``n`` random non-king pieces removed (reproducible from ``seed``);
    ``mode="transfer"`` puts each removed piece in the other side's hand (as if captured);
    ``mode="exchange"`` does the same but takes the pieces from black and white in turn."""
    if mode not in MODES:
        raise ImbalanceError(f"imbalance_mode: {mode!r} is not one of {', '.join(MODES)}")
    rng = random.Random(seed)
    for _attempt in range(ATTEMPTS):
        board, hands, side, number = parse_sfen(variant.start_sfen, variant)
        for i in range(n):
            colors = [c for c in (0, 1) if _pieces(board, c)]
            color = i % 2 if mode == "exchange" else rng.choice(colors)
            if color not in colors:
                break
            by_kind: dict[int, list[int]] = {}
            for sq in _pieces(board, color):
                by_kind.setdefault(board[sq] & 0x0F, []).append(sq)
            kind = rng.choice(sorted(by_kind))
            del board[rng.choice(sorted(by_kind[kind]))]
            if mode != "remove":
                hands[1 - color][kind] = hands[1 - color].get(kind, 0) + 1
        if not _pieces(board, 0) or not _pieces(board, 1):
            continue
        sfen = format_sfen(board, hands, side, number, variant)
        try:
            pos = Position.from_sfen(sfen, variant)
        except KomakenError:
            continue
        if pos.outcome() is None and pos.legal_moves():
            return sfen
    raise ImbalanceError(f"imbalance: no legal start of {variant.name} with {n} pieces removed "
                         f"in {ATTEMPTS} draws (seed {seed})")


def imbalance_seed(study_seed: int, variant: str, game_index: int) -> int:
    return derive_seed(study_seed, "values-imbalance", variant, game_index)


def _pieces(board: dict[int, int], color: int) -> list[int]:
    bit = COLOR_BIT << color
    return [sq for sq, code in board.items() if (code & bit) and code & 0x0F != KING_KIND]
