"""Self-play for the piece-values study: schedule games of the kernel into the study's
results database (:mod:`komaken.lab.valuestudy.games`).

Every game is identified by its index; its seed is derived from the study seed, the variant and
the index only (:func:`komaken.lab.openings.derive_seed`), so a study gives the same games with
any number of workers, on a Dask cluster, or after any number of interruptions.  Workers play
whole games in the numba kernel (:func:`komaken.shogi.engine._selfplay.play_game`) and send back the
game's row; only the calling process writes, one transaction per game.

The games are a kind of the lab's work (:data:`SELFPLAY_WORK`, :class:`komaken.lab.runner.WorkKind`):
the lab's runner plays them on its local process pool or Dask client, :func:`play_batch` being
the task — one game per task locally, and on Dask as many as take about half a second
(:func:`batch_size`), so that the cluster's per-task cost stays small.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from komaken.errors import KomakenError
from komaken.lab import limits
from komaken.lab.migrate import SELFPLAY
from komaken.lab.openings import derive_seed
from komaken.lab.runner import WorkKind, check_workers, run_work
from komaken.lab.valuestudy.games import SelfPlayGame, create_study, insert
from komaken.lab.valuestudy.imbalance import (
    ODDS_MODES,
    OddsError,
    check_imbalance,
    imbalance_seed,
    imbalanced_start,
    odds_start,
    parse_pieces,
)
from komaken.shogi import Position
from komaken.shogi.engine.evalparams import O_RANK, O_UNDEFENDED, EvalParams, pad_tables, search_defaults
from komaken.shogi.engine.selfplay import NF, SelfPlay
from komaken.shogi.engine.values import PieceValues
from komaken.shogi.variant import Variant, load_variant, variant_from_dict

TERMINATIONS = ("none", "checkmate", "no legal moves", "repetition", "perpetual check", "impasse", "max plies",
                "declaration")
DEFAULT_TERMS = {"mobility": 0.0, "king_safety": 1.0, "psq": 1.0, "noise": 10.0}


def default_max_plies(variant: Variant) -> int:
    """The study's adjudication limit: 300 plies up to 7×7, 400 above (pre-registered)."""
    return 300 if max(variant.width, variant.height) <= 7 else 400


def study_config(variant: str | Path | Variant, *, games: int, nodes: int | None = 1000, depth: int | None = None,
                 seed: int = 0, random_plies: int = 2, noise: float = 10.0, max_plies: int | None = None,
                 values: dict[str, Any] | None = None, tt_bits: int = 16, imbalance: int = 0,
                 imbalance_mode: str = "remove", params: EvalParams | None = None, odds: str | None = None,
                 odds_mode: str = "remove") -> dict[str, Any]:
    """The normalized configuration of a self-play study (what the database stores).

    ``imbalance`` > 0 starts every game with that many random pieces removed (``imbalance_mode``
    ``"remove"``) or moved to the other side's hand (``"transfer"``), see
    :mod:`komaken.lab.valuestudy.imbalance`; 0 is the pre-registered design and leaves both keys
    out, so studies made before the option existed keep their identity.

    ``odds`` (e.g. ``"B,R,S,P"``; the gold is added as the reference) plays material-odds games in
    the study's own kernel, player and evaluation — method B's design with method A's player, so
    both estimators can be read off the same games (:mod:`komaken.lab.valuestudy.designed`): game
    ``i`` starts without one piece ``letters[(i // 2) % len(letters)]`` of colour ``i % 2``
    (:func:`~komaken.lab.valuestudy.imbalance.odds_start`), removed (``odds_mode="remove"``) or
    moved to the other side's hand (``"transfer"``).  Keys ``odds``, ``odds_mode``; not with
    ``imbalance``.

    ``params`` plays the games with that evaluation (its piece values, term weights and tables,
    e.g. a tuned file, so that tuning can iterate on the tuned engine's own games) instead of the
    built-in evaluation (:meth:`EvalParams.legacy`); the tables are stored in the configuration (key ``tables``, left
    out without ``params``, so the study's own configurations do not change)."""
    v = load_variant(variant)
    check_imbalance(v, imbalance, imbalance_mode)
    letters = _odds_letters(v, odds, odds_mode, imbalance)
    if (nodes is None) == (depth is None):
        raise KomakenError("give exactly one of nodes and depth")
    for key, val, bounds in (("games", games, (0, limits.GAMES[1])), ("nodes", nodes, limits.NODES),
                             ("depth", depth, limits.DEPTH), ("seed", seed, limits.SEED),
                             ("random_plies", random_plies, limits.RANDOM_PLIES), ("noise", noise, limits.NOISE),
                             ("max_plies", max_plies, limits.PLIES)):
        problem = None if val is None else limits.out_of_range(val, bounds)
        if problem is not None:
            raise KomakenError(f"{key}: {problem}")
    terms = {**DEFAULT_TERMS, "noise": float(noise)}
    if params is not None:
        if values:
            raise KomakenError("give piece values or evaluation parameters, not both")
        if (params.variant, params.width, params.height) != (v.name, v.width, v.height):
            raise KomakenError(f"{params.source}: parameters of {params.variant}, not {v.name}")
        values = params.values.as_dict()
        terms = {**params.terms, "noise": float(noise)}
    table = PieceValues.from_mapping(values or {}, v)
    config: dict[str, Any] = {
        "study": "selfplay",
        "variant": v.name,
        "variant_toml": v.to_toml(),
        "width": v.width,
        "games": int(games),
        "nodes": nodes,
        "depth": depth,
        "seed": int(seed),
        "random_plies": int(random_plies),
        "terms": terms,
        "max_plies": int(max_plies or default_max_plies(v)),
        "values": table.as_dict(),
        "tt_bits": int(tt_bits),
        "features": NF,
    }
    if params is not None:
        config["tables"] = stored_tables(params.tables)
        if params.search != search_defaults():  # only then: a study with the default search keeps its identity
            config["search"] = dict(params.search)
    if imbalance:
        config["imbalance"] = int(imbalance)
        config["imbalance_mode"] = imbalance_mode
    if letters:
        config["odds"] = list(letters)
        config["odds_mode"] = odds_mode
    return config


def _odds_letters(v: Variant, odds: str | None, odds_mode: str, imbalance: int) -> tuple[str, ...]:
    """An odds study's pieces (none without ``odds``), every start checked legal before a game."""
    if odds is None:
        return ()
    if imbalance:
        raise OddsError("give --odds or --imbalance, not both (an odds start is its own design)")
    if odds_mode not in ODDS_MODES:
        raise OddsError(f"odds_mode: {odds_mode!r} is not one of {', '.join(ODDS_MODES)}")
    letters = parse_pieces(odds, v, "--odds")
    for letter in letters:
        for color in (0, 1):
            odds_start(v, letter, color, odds_mode)
    return letters


def odds_game(config: dict[str, Any], game_index: int) -> tuple[str, int]:
    """The piece and the colour that lack it in game ``game_index`` of an odds study."""
    letters = config["odds"]
    return letters[(game_index // 2) % len(letters)], game_index % 2


def stored_tables(tables: np.ndarray) -> list[float]:
    """The tables as a study's configuration keeps them: without the undefended-square block when it
    is all zero, so a study begun before that block existed is still the same study (the
    configuration is its identity); :func:`~komaken.shogi.engine.evalparams.pad_tables` reads both."""
    earlier = O_UNDEFENDED - O_RANK
    kept = tables[:earlier] if not np.any(tables[earlier:]) else tables
    return [float(x) for x in kept]


def game_seed(config: dict[str, Any], game_index: int) -> int:
    return derive_seed(config["seed"], "values-selfplay", config["variant"], game_index)


def game_start(config: dict[str, Any], variant: Variant, game_index: int) -> str | None:
    """The SFEN game ``game_index`` of a study starts from, before its random plies (``None``: the
    variant's start), from the configuration alone — what the workers play from, and what a
    replay of the stored moves starts from."""
    if config.get("imbalance"):
        return imbalanced_start(variant, config["imbalance"], imbalance_seed(config["seed"], config["variant"],
                                                                             game_index),
                                config.get("imbalance_mode", "remove"))
    if config.get("odds"):
        letter, color = odds_game(config, game_index)
        return odds_start(variant, letter, color, config["odds_mode"])
    return None


def start_position(config: dict[str, Any], variant: Variant, game_index: int) -> Position:
    """The position game ``game_index`` starts from (:func:`game_start`; the variant's start when
    its army is unchanged): what a replay of its stored moves starts from."""
    sfen = game_start(config, variant, game_index)
    return Position.start(variant) if sfen is None else Position.from_sfen(sfen, variant)


class _Context:
    """What a worker keeps between games of one study: the variant's arrays and buffers."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.variant = variant_from_dict(tomllib.loads(config["variant_toml"]), source="<study>")
        tables = pad_tables(np.array(config["tables"], dtype=np.float64)) if "tables" in config else None
        self.games = SelfPlay(self.variant, config["values"], config["terms"], max_plies=config["max_plies"],
                              tables=tables, search=config.get("search"))

    def play(self, game_index: int) -> SelfPlayGame:
        c = self.config
        seed = game_seed(c, game_index)
        t0 = time.perf_counter()
        sfen = game_start(c, self.variant, game_index)
        start = None if sfen is None else Position.from_sfen(sfen, self.variant)  # None: the kernel's level start
        end, plies, opening, rows = self.games.play(seed, c["nodes"] or 0, c["depth"] or 0, c["random_plies"],
                                                    c["tt_bits"], start)
        winner = end & 3
        return SelfPlayGame(
            game_index=game_index,
            seed=seed,
            score=0.5 if winner == 2 else 1.0 - winner,
            termination=TERMINATIONS[end >> 2],
            plies=plies,
            opening_plies=opening,
            positions=rows,
            moves=self.games.moves[:plies].astype(np.int32).tobytes(),
            features=self.games.features[:rows].tobytes(),
            seconds=round(time.perf_counter() - t0, 6),
            finished_at=time.time(),
        )


_CONTEXTS: dict[tuple[str, int], _Context] = {}
_LOCK = threading.Lock()


def play_task(config_json: str, game_index: int) -> dict[str, Any]:
    """Play one game in a worker (process, thread or Dask worker); returns the row as a dict."""
    key = (hashlib.sha256(config_json.encode()).hexdigest(), threading.get_ident())
    with _LOCK:
        ctx = _CONTEXTS.get(key)
    if ctx is None:
        ctx = _Context(json.loads(config_json))
        with _LOCK:
            _CONTEXTS[key] = ctx
    return asdict(ctx.play(game_index))


def play_batch(config_json: str, game_indexes: list[int]) -> list[dict[str, Any]]:
    """Play several games in one task, in order: :func:`play_task` for each."""
    return [play_task(config_json, i) for i in game_indexes]


TASK_SECONDS = 0.5  # on Dask, games are sent in tasks of about this much play
MAX_BATCH = 64


def batch_size(remote: bool, game_seconds: float) -> int:
    """Games per task: one for local workers; on Dask (``remote``) as many as take about
    :data:`TASK_SECONDS` (a Dask task costs milliseconds of scheduling and a round trip, a 5×5 game
    at 1000 nodes ~30 ms), at most :data:`MAX_BATCH`; ``game_seconds`` is the mean game so far
    (0: none yet)."""
    if not remote or game_seconds <= 0:
        return 1
    return max(1, min(MAX_BATCH, int(TASK_SECONDS / game_seconds)))


@dataclass
class SelfPlaySummary:
    played: int
    stored: int
    target: int
    positions: int
    wall_seconds: float

    @property
    def games_per_second(self) -> float:
        return self.played / self.wall_seconds if self.wall_seconds > 0 else 0.0


def run_selfplay(config: dict[str, Any], db_path: str | Path, *, workers: int = 1, dask: str | None = None,
                 on_game: Callable[[SelfPlayGame], None] | None = None) -> SelfPlaySummary:
    """Play every missing game ``0 .. config["games"] - 1`` of the study into ``db_path``."""
    t0 = time.perf_counter()
    check_workers(workers)
    with create_study(db_path, config) as db:
        done = db.done_indexes(SELFPLAY)
        left = config["games"] - sum(1 for i in done if 0 <= i < config["games"])
        summary = SelfPlaySummary(0, len(done), config["games"], 0, 0.0)
        if left:  # the indexes are made as they are taken: a huge target costs nothing up front
            queue = (i for i in range(config["games"]) if i not in done)

            def store(_index: int, row: dict[str, Any]) -> None:
                game = SelfPlayGame(**row)
                if insert(db, game):
                    summary.played += 1
                    summary.positions += game.positions
                    if on_game is not None:
                        on_game(game)

            run_work(SELFPLAY_WORK, json.dumps(config, sort_keys=True), queue, left, store, workers=workers,
                     dask=dask)
        summary.stored = db.count()
    summary.wall_seconds = time.perf_counter() - t0
    return summary


def _describe(game_indexes: list[int]) -> str:
    which = f"game {game_indexes[0]}" if len(game_indexes) == 1 else f"games {game_indexes[0]}…{game_indexes[-1]}"
    return f"self-play {which} failed"


#: the piece-values study's self-play as a kind of the lab's work (``meta.kind = selfplay``)
SELFPLAY_WORK = WorkKind(SELFPLAY, play_batch, _describe, batch_size)
