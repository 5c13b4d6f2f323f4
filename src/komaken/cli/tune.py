"""``komaken tune``: fit an evaluation to data — ``tune linear``, Texel tuning of a variant's
linear evaluation parameters on self-play games or on game records; ``tune nnue``, training an
NNUE network (:mod:`komaken.cli.tune_nnue`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from komaken.cli._common import VARIANT_HELP, within
from komaken.cli.tune_nnue import nnue
from komaken.lab import limits
from komaken.lab.label import engine_command, label_study, load_labels
from komaken.lab.valuestudy.positions import read_games
from komaken.lab.valuestudy.selfplay import run_selfplay, study_config
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.tune import LAMBDAS, read_records
from komaken.shogi.engine.tune import tune as fit
from komaken.shogi.variant import load_variant

FILE = click.Path(dir_okay=False, path_type=Path)


@click.group("tune")
def tune() -> None:
    """Fit an evaluation to data: the linear evaluation's parameters (`tune linear`) or an NNUE
    network (`tune nnue`)."""


@tune.command("linear")
@click.option("--variant", "-v", required=True, metavar="NAME|FILE", help=VARIANT_HELP)
@click.option("--games", type=within((0, limits.GAMES[1])), default=None,
              help="Self-play games to tune on: played into --db until it holds this many (0: use --db as it is).")
@click.option("--db", type=FILE, default=None, help="Self-play database (a `komaken values selfplay` study).")
@click.option("--records", "record_paths", type=click.Path(path_type=Path), multiple=True,
              help="Tune on these game records instead of self-play (KIF, CSA, KI2, ...; a folder: its record "
                   "files; repeat), e.g. another engine's games exported by `komaken experiment export`.")
@click.option("--out", type=FILE, required=True, help="Write the tuned parameter TOML here.")
@click.option("--params", "start", type=FILE, default=None,
              help="Start from (and regularise towards) this parameter file (default: the variant's).")
@click.option("--play-params", "play", type=FILE, default=None,
              help="Play the self-play games with this parameter file (default: the built-in evaluation the "
                   "piece-values study plays), e.g. the variant's tuned file for a second round.")
@click.option("--nodes", type=within(limits.NODES), default=1000, show_default=True, help="Nodes per move.")
@click.option("--random-plies", type=within(limits.RANDOM_PLIES), default=2, show_default=True,
              help="Random opening plies of each self-play game; with --records, the plies of each record "
                   "left out at its start.")
@click.option("--workers", "-j", type=within(limits.WORKERS), default=1, show_default=True,
              help="Processes playing the self-play games, and engines labelling them (--label-engine).")
@click.option("--seed", type=within(limits.SEED), default=0, show_default=True)
@click.option("--noise", type=within(limits.NOISE), default=10.0, show_default=True,
              help="Evaluation noise of the self-play games.")
@click.option("--mobility/--no-mobility", default=True, show_default=True,
              help="Tune mobility too (it costs search speed).")
@click.option("--fit", "groups", type=click.Choice(["material", "king_safety", "psq", "mobility", "tempo"]),
              multiple=True, help="Fit only these parameter groups (repeat; default all but tempo); the rest keeps "
              "its start values.")
@click.option("--l2", "lambdas", type=within(limits.L2), multiple=True,
              help="Ridge strength(s) to try (default 1e-2 .. 1e-6; the held-out games choose).")
@click.option("--label-engine", default=None, metavar="COMMAND",
              help="Fit to this USI engine's search scores of the self-play positions instead of the games' "
                   "results, e.g. /usr/games/fairy-stockfish (scores kept in --labels).")
@click.option("--label-nodes", type=within(limits.NODES), default=5000, show_default=True,
              help="Nodes of the labelling engine's search per position.")
@click.option("--labels", type=FILE, default=None,
              help="Label file (SQLite) of the engine's scores: continued if it exists (default: the --db path "
                   "with .labels.sqlite); without --label-engine, tune on the scores it holds.")
@click.option("--label-scale", type=within(limits.LABEL_SCALE), default=600.0, show_default=True,
              help="A score s (centipawns, black's view) becomes the target sigma(s / scale).")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def linear(variant: str, games: int | None, db: Path | None, record_paths: tuple[Path, ...], out: Path,
         start: Path | None, play: Path | None, nodes: int, random_plies: int, workers: int, seed: int, noise: float,
         mobility: bool, groups: tuple[str, ...], lambdas: tuple[float, ...], label_engine: str | None,
         label_nodes: int, labels: Path | None, label_scale: float, quiet: bool) -> None:
    """Fit piece values, piece-square tables, king safety and mobility (with --fit tempo also the
    tempo) to game results (or to a stronger engine's search scores: --label-engine)."""
    def say(text: str) -> None:
        if not quiet:
            click.echo(text, err=True)

    if record_paths and (db is not None or games is not None or play is not None):
        raise click.UsageError("--records tunes on the records alone: leave out --db, --games and --play-params")
    if record_paths and (label_engine or labels):
        raise click.UsageError("--label-engine and --labels label self-play positions: give --db, not --records")
    if not record_paths and (db is None or games is None):
        raise click.UsageError("give --games and --db (self-play), or --records")
    v = load_variant(variant)
    params = EvalParams.load(start, v) if start is not None else EvalParams.default(v)  # checked before playing
    players = EvalParams.load(play, v) if play is not None else None
    if record_paths:
        data = read_records(record_paths, params, skip=random_plies)
        source = "games from records"
    else:
        assert db is not None and games is not None
        if games > 0:
            config = study_config(v, games=games, nodes=nodes, seed=seed, noise=noise, random_plies=random_plies,
                                  params=players)
            s = run_selfplay(config, db, workers=workers)
            say(f"{db}: played {s.played} games in {s.wall_seconds:.1f}s; {s.stored}/{s.target} stored")
        elif not db.exists():
            raise click.UsageError(f"--games 0 needs an existing --db; {db} does not exist")
        scores, source = None, "self-play games"
        if label_engine or labels:
            labels = labels or db.with_suffix(".labels.sqlite")
            scores = _engine_scores(db, labels, label_engine, label_nodes, workers, say)
            source = f"self-play games (targets: search scores in {labels.name}, scale {label_scale:g})"
        _, data = read_games(db, v, labels=scores, scale=label_scale)
    result = fit(params, data, lambdas=lambdas or LAMBDAS, mobility=mobility, log=say, groups=groups or None)
    comment = (f"tuned by komaken tune linear on {result.games} {source} of {v.name} ({result.positions} quiet "
               f"positions, {result.columns} parameters)\nK = {result.k:.6g}, lambda = {result.lam:g}; held-out "
               f"cross-entropy {result.holdout_before:.5f} -> {result.holdout_after:.5f}")
    result.params.write(out, comment)
    EvalParams.load(out, v)  # what was written loads back
    click.echo(f"wrote {out}: {result.positions} positions from {result.games} games, held-out cross-entropy "
               f"{result.holdout_before:.5f} -> {result.holdout_after:.5f} (lambda {result.lam:g}, K {result.k:.6g})")


def _engine_scores(db: Path, labels: Path, engine: str | None, nodes: int, workers: int,
                   say: Callable[[str], None]) -> dict[int, dict[int, int]]:
    """The scores of ``labels`` for the games of ``db``, first labelling what is missing with
    ``workers`` processes of ``engine`` (a command line) if given."""
    if engine:
        made = label_study(db, labels, engine_command(engine), nodes=nodes, workers=workers,
                           progress=lambda n, of: say(f"labelled {n}/{of} games") if n % 50 == 0 or n == of else None)
        say(f"{labels}: {made} positions labelled now")
    return load_labels(labels, db)


tune.add_command(nnue)
