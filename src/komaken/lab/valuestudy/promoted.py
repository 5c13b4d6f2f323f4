"""Promoted pieces in method A: where they stand and how long they last, as controls in the fit.

The paper's regression gives the promoted minors (+P, +S, and +L, +N on 9×9) a fraction of a gold,
against a gold or more in every engine's table.  A coefficient of a count is the value of a piece
only if the count is not standing in for something else.  A promoted minor exists only after a
piece reached the opponent's camp, and it often stands there, next to the opponent's king, where it
is soon lost.  :func:`promoted_controls` refits a study with each promoted minor's term split two
ways, reading the stored games again move by move (the study stores material counts only):

* **location** — the piece in its owner's promotion zone (the enemy camp) and the piece elsewhere,
  two terms;
* **lifetime** — the piece still on the board ``horizon`` plies later (or at the game's end) and
  the piece gone by then, two terms.  This conditions on the future, so it is an explanation of the
  pooled coefficient, not a value: a promoted piece that survives is worth what the survivors'
  term says, and the pooled term is the mixture of the two.

Everything else is the paper's specification (quiet positions, board and hand pooled, the
whole-game bootstrap), and the pooled fit is the first row, so the rows differ only in the split.
A split the games cannot identify (a promoted minor never outside the camp, say) raises
:class:`~komaken.lab.valuestudy.robust.UnidentifiedError` naming the piece, the stratum and the
games needed; nothing is written.

:func:`reference_tables` gives the outside tables the result is set beside, in gold units, with
where each number comes from.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field

import numpy as np

from komaken.lab.valuestudy.fit import FitError, Positions, fit_positions, variant_letters
from komaken.lab.valuestudy.games import open_study, study_games
from komaken.lab.valuestudy.laws import fsf_value
from komaken.lab.valuestudy.robust import MIN_TERM_GAMES, load_rows, need_games, terms
from komaken.lab.valuestudy.selfplay import game_start
from komaken.shogi import Position
from komaken.shogi.engine.selfplay import COL_SIDE
from komaken.shogi.kernel import COLOR_BIT, piece_kind
from komaken.shogi.move import Move
from komaken.shogi.variant import Variant, variant_from_dict

#: the promoted pieces that move as a gold: the ones whose coefficient is in question
MINORS = ("+P", "+L", "+N", "+S")
STRIDE = 16  # board index = file·16 + rank (the kernels' layout, :mod:`komaken.shogi.kernel`)
SPLITS = ("location", "lifetime")
SPLIT_NAMES = {"location": ("in the enemy camp", "elsewhere"),
               "lifetime": ("still on the board {h} plies later", "gone within {h} plies")}


class ReplayError(FitError):
    """A stored game whose moves do not replay from its start (a damaged or foreign database)."""


@dataclass
class Placement:
    """Per stored position (in :func:`~komaken.lab.valuestudy.robust.load_rows` order) and per
    promoted minor: black's count minus white's, in the enemy camp, elsewhere, surviving the
    horizon and not."""

    camp: dict[str, np.ndarray]
    out: dict[str, np.ndarray]
    stays: dict[str, np.ndarray]
    gone: dict[str, np.ndarray]


def _board_counts(boards: np.ndarray, variant: Variant, kinds: dict[str, int]) -> np.ndarray:
    """``int16[positions, 2 (colour), len(kinds), 2 (in camp, elsewhere)]`` of boards ``[positions, squares]``."""
    rank = np.arange(boards.shape[1]) % STRIDE
    camp = [np.array([variant.in_zone(c, int(r)) for r in rank]) for c in (0, 1)]
    black = (boards & COLOR_BIT) != 0
    out = np.zeros((len(boards), 2, len(kinds), 2), np.int16)
    for j, kind in enumerate(kinds.values()):
        is_kind = (boards & 0x0F) == kind
        for color, mine in ((0, is_kind & black), (1, is_kind & ~black)):
            out[:, color, j, 0] = (mine & camp[color]).sum(axis=1)
            out[:, color, j, 1] = (mine & ~camp[color]).sum(axis=1)
    return out


def placements(db_path: str, horizon: int = 8, indexes: np.ndarray | None = None) -> tuple[dict, Placement]:
    """Replay every stored game of a study (those of ``indexes``, when given: the games an earlier
    read saw, should the study be growing meanwhile) and place its promoted minors (read only)."""
    if horizon < 1:
        raise FitError(f"--horizon: must be at least 1 ply, got {horizon}")
    with open_study(db_path) as db:
        config = db.config()
        variant = variant_from_dict(tomllib.loads(config["variant_toml"]), source="<study>")
        kinds = {x: int(piece_kind(x[1:]) or 0) | 8 for x in MINORS if x in variant.piece_letters}
        kinds.update({x[1:]: int(piece_kind(x[1:]) or 0) for x in list(kinds)})
        per_game: list[np.ndarray] = []
        wanted = None if indexes is None else {int(i) for i in indexes}
        below = None if indexes is None or not len(indexes) else int(max(indexes)) + 1
        for g in study_games(db, below):
            if not g.positions:
                continue
            if wanted is not None and g.game_index not in wanted:
                continue
            per_game.append(_replay(config, variant, kinds, g.game_index, g.move_codes(), g.opening_plies,
                                    g.positions, db_path))
    counts = np.concatenate(per_game) if per_game else np.zeros((0, 2, len(kinds), 2), np.int16)
    later = np.concatenate([_later(c, horizon) for c in per_game]) if per_game else counts
    now = counts.sum(axis=3)
    stays = np.minimum(now, later)
    gone = now - stays
    p = Placement({}, {}, {}, {})
    for j, x in enumerate(kinds):
        p.camp[x] = counts[:, 0, j, 0] - counts[:, 1, j, 0]
        p.out[x] = counts[:, 0, j, 1] - counts[:, 1, j, 1]
        p.stays[x] = stays[:, 0, j] - stays[:, 1, j]
        p.gone[x] = gone[:, 0, j] - gone[:, 1, j]
    return config, p


def _later(counts: np.ndarray, horizon: int) -> np.ndarray:
    """Each position's counts ``horizon`` positions later (the last position's at the end)."""
    total = counts.sum(axis=3)
    idx = np.minimum(np.arange(len(total)) + horizon, len(total) - 1)
    return total[idx]


def _replay(config: dict, variant: Variant, kinds: dict[str, int], index: int, moves: np.ndarray, opening: int,
            rows: int, where: str) -> np.ndarray:
    start = game_start(config, variant, index)
    pos = Position.from_sfen(start, variant) if start else Position.from_sfen(variant.start_sfen, variant)
    if len(moves) < opening + rows - 1:
        raise ReplayError(f"{where}: game {index} stores {len(moves)} moves for {rows} positions after "
                          f"{opening} opening plies")
    boards = []
    try:
        for code in moves[:opening]:
            pos.push(Move(int(code)))
        for r in range(rows):
            if r:
                pos.push(Move(int(moves[opening + r - 1])))
            boards.append(pos.kernel_state().bd)
    except ValueError as exc:
        raise ReplayError(f"{where}: game {index} does not replay from its start: {exc}") from None
    return _board_counts(np.array(boards), variant, kinds)


@dataclass
class SplitFit:
    name: str
    games: int
    positions: int
    values: dict[str, tuple[float, float, float]]  # term -> (estimate, low, high) in golds
    #: the promotion at the same place: "+S in the enemy camp" − "S in the enemy camp", and so on
    contrasts: dict[str, tuple[float, float, float]] = field(default_factory=dict)


@dataclass
class PromotedControls:
    variant: str
    width: int
    design: str
    games: int
    horizon: int
    pieces: tuple[str, ...]  # the promoted minors reported
    fits: list[SplitFit]


def _label(piece: str, split: str | None, part: int, horizon: int) -> str:
    if split is None:
        return piece
    return f"{piece} {SPLIT_NAMES[split][part].format(h=horizon)}"


def promoted_controls(db_path: str, pieces: tuple[str, ...] | None = None, *, horizon: int = 8,
                      splits: tuple[str, ...] = SPLITS, bootstrap: int = 200, seed: int = 0,
                      min_games: int = 200, min_term_games: int = MIN_TERM_GAMES,
                      games: int | None = None) -> PromotedControls:
    """The paper's fit, then the same with the promoted minors split by location and by lifetime.

    ``pieces``: the promoted minors to split and report (default: those of the variant);
    ``games``: only the study's first that many game indexes."""
    unknown = [s for s in splits if s not in SPLITS]
    if unknown:
        raise FitError(f"--splits: unknown {', '.join(unknown)} (choose from {', '.join(SPLITS)})")
    config, rows = load_rows(str(db_path), games)
    letters = variant_letters(config)
    minors = tuple(x for x in MINORS if x in letters)
    if pieces is None:
        pieces = minors
    bad = [x for x in pieces if x not in minors]
    if bad:
        raise FitError(f"{db_path}: {', '.join(bad)}: not a promoted minor of {config['variant']} "
                       f"(its promoted minors: {', '.join(minors) or 'none'})")
    _, place = placements(str(db_path), horizon, rows.index)
    if len(place.camp[minors[0]] if minors else rows.game) != len(rows.game):
        raise ReplayError(f"{db_path}: the replayed games give another number of positions than the stored ones")
    keep = rows.quiet
    game_of = rows.game[keep]
    present = np.unique(game_of)
    if len(present) < min_games:
        raise need_games("positions (quiet)", f"{db_path} (paper)", len(present), rows.games, min_games)
    game = np.searchsorted(present, game_of)
    feat = rows.feat[keep].astype(np.int16)
    pooled = [(name, feat[:, c].sum(axis=1) - feat[:, [i + 20 for i in c]].sum(axis=1))
              for name, c in terms(letters, False)]
    side = (feat[:, COL_SIDE] == 0).astype(np.int16)  # black to move
    fits = []
    for split in (None, *splits):
        columns = []
        for name, col in pooled:
            # the unpromoted piece at the same places, where it can stand in the camp (a minishogi
            # pawn cannot: it must promote there)
            base = (split == "location" and "+" + name in pieces
                    and len(np.unique(game[place.camp[name][keep] != 0])) >= min_term_games)
            if split is None or (name not in pieces and not base):
                columns.append((name, col))
                continue
            if base:  # on the board in the camp; elsewhere on the board or in hand
                camp = place.camp[name][keep]
                columns += [(_label(name, split, 0, horizon), camp), (_label(name, split, 1, horizon), col - camp)]
                continue
            a, b = (place.camp, place.out) if split == "location" else (place.stays, place.gone)
            columns += [(_label(name, split, 0, horizon), a[name][keep]), (_label(name, split, 1, horizon),
                                                                            b[name][keep])]
        where = f"{db_path} ({'paper' if split is None else split + ' split'})"
        fits.append(_fit(columns, side, rows.score[keep], game, len(present), pieces, where, bootstrap, seed,
                         min_term_games, split or "paper: pooled"))
    mode, n = config.get("imbalance_mode", "remove"), int(config.get("imbalance", 0))
    design = f"{mode} {n}" if n else (f"odds ({config.get('odds_mode')})" if config.get("odds") else "level")
    return PromotedControls(config["variant"], int(config["width"]), design, rows.games, horizon, pieces, fits)


def _fit(columns: list[tuple[str, np.ndarray]], side: np.ndarray, y: np.ndarray, game: np.ndarray, games: int,
         pieces: tuple[str, ...], where: str, bootstrap: int, seed: int, min_term_games: int,
         name: str) -> SplitFit:
    nonzero = {n: len(np.unique(game[c != 0])) for n, c in columns}
    for n, _ in columns:
        if n.split(" ")[0] in ("G", *pieces) and nonzero[n] < min_term_games:
            raise need_games(f"a difference in {n}", where, nonzero[n], games, min_term_games)
    fitted = [(n, c) for n, c in columns if nonzero[n] >= min_term_games]
    x = np.column_stack([c for _, c in fitted] + [side]).astype(np.int16)
    names = tuple(n for n, _ in fitted)
    coef, boot, dropped = fit_positions(Positions(names, x, y, game, games, len(y)), bootstrap=bootstrap, seed=seed)
    kept = [n for n in names if n not in dropped]
    gold = kept.index("G")
    values = {}
    for i, n in enumerate(kept):
        lo, hi = np.nanquantile(boot[:, i] / boot[:, gold], [0.025, 0.975])
        values[n] = (float(coef[i] / coef[gold]), float(lo), float(hi))
    contrasts = {}
    for n in kept:
        base = n[1:]
        if n.startswith("+") and base in kept:  # the same place, promoted and not
            i, j = kept.index(n), kept.index(base)
            lo, hi = np.nanquantile((boot[:, i] - boot[:, j]) / boot[:, gold], [0.025, 0.975])
            contrasts[f"{n} − {base}"] = (float((coef[i] - coef[j]) / coef[gold]), float(lo), float(hi))
    return SplitFit(name, games, len(y), values, contrasts)


def format_controls(r: PromotedControls) -> str:
    """Each fit as Markdown: the promoted minors' terms, the silver beside them."""
    lines = [f"{r.variant}, {r.design} starts: {r.games} games; promoted minors split by location and by "
             f"lifetime (horizon {r.horizon} plies); gold units, 95 % whole-game bootstrap intervals", "",
             "| fit | games | positions | term | value |", "|---|---|---|---|---|"]
    for f in r.fits:
        shown = [n for n in f.values if n.split(" ")[0] in (*r.pieces, *(x[1:] for x in r.pieces))]
        for n in shown:
            v = f.values[n]
            lines.append(f"| {f.name} | {f.games} | {f.positions} | {n} | {v[0]:.3f} ({v[1]:.3f}–{v[2]:.3f}) |")
        for n, v in f.contrasts.items():
            lines.append(f"| {f.name} | {f.games} | {f.positions} | promoted − unpromoted: {n} | "
                         f"{v[0]:+.3f} ({v[1]:+.3f}…{v[2]:+.3f}) |")
    return "\n".join(lines)


def format_reference(r: PromotedControls, version: str = "master") -> str:
    """This study's values, pooled and at the same place, beside the outside tables (gold units)."""
    tables = reference_tables(r.width, version)
    paper, loc = r.fits[0].values, next((f.values for f in r.fits if f.name == "location"), {})
    cols = ["P", "S", "B", "R", *r.pieces, "+B", "+R"]
    head = ["table", *cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def cell(v: tuple[float, float, float] | None) -> str:
        return f"{v[0]:.2f} ({v[1]:.2f}–{v[2]:.2f})" if v else "—"

    lines.append("| " + " | ".join([f"{r.variant}, method A (paper's fit)"] + [cell(paper.get(c)) for c in cols])
                 + " |")
    if loc:
        lines.append("| " + " | ".join([f"{r.variant}, method A, outside the enemy camp"]
                                       + [cell(loc.get(f"{c} elsewhere", loc.get(c) if c not in r.pieces else None))
                                          for c in cols]) + " |")
    for name, t in tables.items():
        lines.append("| " + " | ".join([name] + [f"{t[c]:.2f}" if c in t else "—" for c in cols]) + " |")
    return "\n".join(lines)


#: Outside tables, each number as its source gives it (the source's own units), and where from.
#: Kaufman: L. Kaufman, "Re: The value of pieces to Shogi", SHOGI-L, 14 Nov 2002 (9×9; a
#: compromise between professionals' opinions; "+S 8 (+)" taken as 8).  Bonanza: the material
#: table of Bonanza 6.0's param.h (9×9, fitted to professional games).
OUTSIDE = {
    "Kaufman 2002 (9×9)": {"P": 1, "S": 7, "G": 8, "B": 11, "R": 13, "+P": 10, "+L": 9, "+N": 9, "+S": 8,
                           "+B": 14, "+R": 16},
    "Bonanza 6.0 (9×9)": {"P": 87, "S": 369, "G": 444, "B": 569, "R": 642, "+P": 534, "+L": 489, "+N": 510,
                          "+S": 495, "+B": 827, "+R": 945},
}


def reference_tables(n: int, version: str = "master") -> dict[str, dict[str, float]]:
    """The outside tables in gold units, with Fairy-Stockfish as it computes an n×n drop variant
    (:func:`~komaken.lab.valuestudy.laws.fsf_value`, middle game): its promoted pawn and silver
    *are* golds (``promotedPieceType[...] = GOLD``), so 1.0 by construction."""
    out = {name: {k: v / t["G"] for k, v in t.items()} for name, t in OUTSIDE.items()}
    gold = fsf_value("G", n, version)
    fsf = {x: fsf_value(x, n, version) / gold for x in ("P", "S", "B", "R")}
    fsf.update({"G": 1.0, "+P": 1.0, "+L": 1.0, "+N": 1.0, "+S": 1.0})
    out[f"Fairy-Stockfish {version} ({n}×{n}, as computed)"] = fsf
    return out


__all__ = ["MINORS", "OUTSIDE", "SPLITS", "Placement", "PromotedControls", "ReplayError", "SplitFit",
           "format_controls", "format_reference", "placements", "promoted_controls", "reference_tables"]
