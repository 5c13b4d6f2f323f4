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
from komaken.shogi.kernel import COLOR_BIT, KING_KIND, piece_kind
from komaken.shogi.sfen import format_sfen, parse_sfen
from komaken.shogi.variant import Variant

ATTEMPTS = 200
MODES = ("remove", "transfer", "exchange")
ODDS_MODES = ("remove", "transfer")


class ImbalanceError(KomakenError):
    """An imbalance setting the variant cannot satisfy."""


class OddsError(ImbalanceError):
    """Bad odds input: an unknown piece letter, a piece the variant lacks, the king, an illegal start."""


def parse_pieces(text: str, variant: Variant, option: str = "--pieces") -> tuple[str, ...]:
    """``"B,R,G,S"`` → letters, checked against the variant; the gold is added as the reference."""
    letters: list[str] = []
    for raw in text.split(","):
        x = raw.strip().upper()
        if not x:
            continue
        if piece_kind(x.lstrip("+")) is None:
            raise OddsError(f"{option}: unknown piece letter {raw.strip()!r} (letters: P L N S G B R)")
        if x == "K":
            raise OddsError(f"{option}: K: the king cannot be removed (a side without a king has lost)")
        if x.startswith("+"):
            raise OddsError(f"{option}: {x}: the start position holds no promoted pieces to remove")
        if piece_kind(x) not in variant.max_counts:
            have = " ".join(y for y in variant.piece_letters if not y.startswith("+"))
            raise OddsError(f"{option}: {variant.name} has no {x} (its pieces: {have})")
        if x not in letters:
            letters.append(x)
    if not letters:
        raise OddsError(f"{option}: no piece given (e.g. --pieces B,R,G,S)")
    if "G" not in letters:
        if piece_kind("G") not in variant.max_counts:
            raise OddsError(f"{option}: {variant.name} has no gold, the reference piece of the odds method")
        letters.append("G")
    return tuple(letters)


def odds_start(variant: Variant, letter: str, color: int, mode: str = "remove") -> str:
    """The variant's start SFEN with one ``letter`` of ``color`` removed (for black the one on the
    lowest file, for white the mirror), checked to be a legal, unfinished position; with
    ``mode="transfer"`` the piece goes into the other side's hand, as if captured (a difference of
    two of its kind, the material pool unchanged)."""
    if mode not in ODDS_MODES:
        raise OddsError(f"odds_mode: {mode!r} is not one of {', '.join(ODDS_MODES)}")
    board, hands, side, number = parse_sfen(variant.start_sfen, variant)
    kind = piece_kind(letter)
    if kind is None:
        raise OddsError(f"{letter}: unknown piece letter (letters: P L N S G B R)")
    bit = COLOR_BIT << color
    squares = sorted((sq for sq, code in board.items() if code & bit and code & 0x0F == kind),
                     reverse=color == 1)
    if kind == KING_KIND:
        raise OddsError(f"{letter}: the king cannot be removed")
    if squares:
        del board[squares[0]]
    elif hands[color].get(kind, 0):
        hands[color][kind] -= 1
    else:
        raise OddsError(f"{variant.name}: {'black' if color == 0 else 'white'} has no {letter} to remove")
    if mode == "transfer":
        hands[1 - color][kind] = hands[1 - color].get(kind, 0) + 1
    sfen = format_sfen(board, hands, side, number, variant)
    try:
        pos = Position.from_sfen(sfen, variant)
    except KomakenError as exc:
        raise OddsError(f"{variant.name}: removing {letter} leaves an illegal start {sfen!r}: {exc}") from None
    if pos.outcome() is not None or not pos.legal_moves():
        raise OddsError(f"{variant.name}: removing {letter} leaves a finished position {sfen!r}")
    return sfen


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
