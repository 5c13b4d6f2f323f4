"""``komaken values``: the piece-values study (docs/piece-values-by-board-size.md)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from komaken.cli._common import VARIANT_HELP, within
from komaken.lab import limits
from komaken.lab.label import describe_labels, engine_command, label_study
from komaken.lab.valuestudy.designed import ab_experiment, format_ab
from komaken.lab.valuestudy.fit import fit_study, format_fit, write_values_toml
from komaken.lab.valuestudy.odds import analyse_odds, format_odds, run_odds
from komaken.lab.valuestudy.promoted import SPLITS, format_controls, format_reference, promoted_controls
from komaken.lab.valuestudy.report import build, load
from komaken.lab.valuestudy.robust import SPEC_KEYS, choose_specs, format_designs, format_robustness, robustness
from komaken.lab.valuestudy.selfplay import run_selfplay, study_config
from komaken.lab.valuestudy.strength import format_strength, strength_trend

DB = click.Path(dir_okay=False, path_type=Path)
PIECES = click.option("--pieces", default="B,R,S", show_default=True, help="Comma-separated piece letters to report.")
F = TypeVar("F", bound=Callable[..., Any])


def refit_options(f: F) -> F:
    """The options of every command that refits stored studies: bootstrap size, floor, seed."""
    f = click.option("--seed", type=within(limits.SEED), default=0, show_default=True)(f)
    f = click.option("--min-games", type=within(limits.GAMES), default=200, show_default=True,
                     help="Fewest games a fit (or a stratum of one) needs.")(f)
    return click.option("--bootstrap", type=within(limits.BOOTSTRAP), default=200, show_default=True)(f)


#: ``--games N``: read only a study's first N game indexes (a large study's prefix).
PREFIX = click.option("--games", type=within(limits.GAMES), default=None,
                      help="Read only the study's first N games (by index; default all).")


@click.group()
def values() -> None:
    """Measure piece values by self-play (regression) and material odds, on any board size."""

@values.command("selfplay")
@click.option("--variant", "-v", required=True, metavar="NAME|FILE",
              help=VARIANT_HELP)
@click.option("--games", type=within((0, limits.GAMES[1])), required=True, help="Target number of games.")
@click.option("--db", type=DB, required=True, help="Study database (created, or continued).")
@click.option("--nodes", type=within(limits.NODES), default=None, help="Nodes per move (default 1000).")
@click.option("--depth", type=within(limits.DEPTH), default=None, help="Fixed depth per move instead.")
@click.option("--workers", "-j", type=within(limits.WORKERS), default=1, show_default=True)
@click.option("--dask", metavar="ADDR", default=None, help="Dask scheduler, e.g. tcp://host:8786.")
@click.option("--seed", type=within(limits.SEED), default=0, show_default=True)
@click.option("--random-plies", type=within(limits.RANDOM_PLIES), default=2, show_default=True)
@click.option("--noise", type=within(limits.NOISE), default=10.0, show_default=True,
              help="Evaluation noise amplitude (gold = 1200).")
@click.option("--max-plies", type=within(limits.PLIES), default=None,
              help="Draw after this many plies (default 300 up to 7x7, else 400).")
@click.option("--imbalance", type=within(limits.IMBALANCE), default=0, show_default=True,
              help="Start every game with this many random non-king pieces removed (0: the level start).")
@click.option("--imbalance-mode", type=click.Choice(["remove", "transfer", "exchange"]), default="remove",
              show_default=True,
              help="remove: the pieces leave the game; transfer: they go to the other side's hand; "
                   "exchange: transfer, taking from black and white in turn.")
@click.option("--odds", metavar="PIECES", default=None,
              help="Material-odds starts instead, e.g. B,R,S,P (gold added): game i lacks piece (i // 2) mod "
                   "their number, of colour i mod 2 (`komaken values ab` reads both methods off them).")
@click.option("--odds-mode", type=click.Choice(["remove", "transfer"]), default="remove", show_default=True,
              help="remove: the odds piece leaves the game; transfer: it goes to the other side's hand.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def selfplay(variant: str, games: int, db: Path, nodes: int | None, depth: int | None, workers: int,
             dask: str | None, seed: int, random_plies: int, noise: float, max_plies: int | None,
             imbalance: int, imbalance_mode: str, odds: str | None, odds_mode: str, quiet: bool) -> None:
    """Play engine-vs-engine games whole in numba and store their material features in --db."""
    if nodes is None and depth is None:
        nodes = 1000
    config = study_config(variant, games=games, nodes=nodes, depth=depth, seed=seed, random_plies=random_plies,
                          noise=noise, max_plies=max_plies, imbalance=imbalance,
                          imbalance_mode=imbalance_mode, odds=odds, odds_mode=odds_mode)
    state = {"n": 0}

    def tick(_game: object) -> None:
        state["n"] += 1
        if not quiet and state["n"] % 500 == 0:
            click.echo(f"{db}: +{state['n']} games", err=True)

    s = run_selfplay(config, db, workers=workers, dask=dask, on_game=tick)
    click.echo(f"{db}: played {s.played} games ({s.positions} positions) in {s.wall_seconds:.1f}s, "
               f"{s.games_per_second:.2f} games/s; {s.stored}/{s.target} stored")

@values.command("fit")
@click.option("--db", type=DB, required=True, help="Study database.")
@click.option("--out", type=DB, default=None, help="Write the fitted PieceValues TOML here.")
@click.option("--bootstrap", type=within(limits.BOOTSTRAP), default=500, show_default=True)
@click.option("--min-games", type=within(limits.GAMES), default=200, show_default=True)
@click.option("--seed", type=within(limits.SEED), default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the fit as JSON.")
@click.option("--labels", type=DB, default=None,
              help="Fit to the scores of this label file (`komaken values label`) instead of the games' results.")
@click.option("--label-scale", type=within(limits.LABEL_SCALE), default=600.0, show_default=True,
              help="A score s (centipawns, black's view) becomes the target sigma(s / scale).")
def fit(db: Path, out: Path | None, bootstrap: int, min_games: int, seed: int,
        as_json: bool, labels: Path | None, label_scale: float) -> None:
    """Method A: logistic regression of the result (or of a stronger engine's score: --labels) on
    material (quiet positions), bootstrap CIs."""
    result = fit_study(db, bootstrap=bootstrap, min_games=min_games, seed=seed, labels=labels, scale=label_scale)
    click.echo(json.dumps(result.as_dict(), indent=1) if as_json else format_fit(result))
    if out is not None:
        write_values_toml(result, out)
        click.echo(f"wrote {out}", err=True)

@values.command("label")
@click.option("--db", type=DB, required=True, help="Study database (read only).")
@click.option("--engine", "command", required=True, metavar="COMMAND",
              help="USI engine whose search scores label the quiet positions, e.g. /usr/games/fairy-stockfish, "
                   "or 'komaken usi' (this interpreter's komaken).")
@click.option("--labels", type=DB, default=None,
              help="Label file (SQLite): continued if it exists (default: the --db path with .labels.sqlite).")
@click.option("--nodes", type=within(limits.NODES), default=5000, show_default=True,
              help="Nodes of the engine's search per position.")
@click.option("--games", type=within(limits.GAMES), default=None,
              help="Label only the study's first N games (by index; default all).")
@click.option("--option", "options", metavar="NAME=VALUE", multiple=True, help="A USI option to set (repeat).")
@click.option("--workers", "-j", type=within(limits.WORKERS), default=1, show_default=True,
              help="Engine processes labelling games side by side.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def label(db: Path, command: str, labels: Path | None, nodes: int, games: int | None, options: tuple[str, ...],
          workers: int, quiet: bool) -> None:
    """Label a study's quiet positions with a stronger engine's search scores (for fit --labels)."""
    settings = {}
    for item in options:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r}: give NAME=VALUE", param_hint="--option")
        settings[name.strip()] = value.strip()
    labels = labels or db.with_suffix(".labels.sqlite")
    argv = engine_command(command)
    say = (lambda _msg: None) if quiet else (lambda msg: click.echo(msg, err=True))
    made = label_study(db, labels, argv, nodes=nodes, options=settings, workers=workers, games=games,
                       progress=lambda n, of: say(f"labelled {n}/{of} games") if n % 50 == 0 or n == of else None)
    click.echo(f"{labels}: {made} positions labelled now ({describe_labels(labels)})")


@values.command("robust")
@click.option("--db", "dbs", type=DB, required=True, multiple=True,
              help="Study database (read only); several of one variant compare their start designs.")
@PIECES
@refit_options
@click.option("--specs", default=",".join(SPEC_KEYS), show_default=True,
              help="Which specifications (the paper's is always fitted).")
@PREFIX
def robust(dbs: tuple[Path, ...], pieces: str, bootstrap: int, min_games: int, seed: int, specs: str,
           games: int | None) -> None:
    """Method A under other modelling choices (phase, weighting, quiet, hand split): the spread."""
    letters = tuple(x.strip() for x in pieces.split(",") if x.strip())
    chosen = choose_specs(specs)
    results = [robustness(str(db), letters, specs=chosen, bootstrap=bootstrap, seed=seed, min_games=min_games,
                          games=games) for db in dbs]
    click.echo("\n\n".join(format_robustness(r) for r in results))
    if len(results) > 1:
        click.echo("\n" + format_designs(results))


@values.command("ab")
@click.option("--db", "dbs", type=DB, required=True, multiple=True,
              help="Odds study (`values selfplay --odds ...`, read only); one per start design.")
@refit_options
def ab(dbs: tuple[Path, ...], bootstrap: int, min_games: int, seed: int) -> None:
    """Method B and method A (start only, whole game) read off the same odds games."""
    results = [ab_experiment(str(db), bootstrap=bootstrap, seed=seed, min_games=min_games) for db in dbs]
    click.echo(format_ab(results))


@values.command("strength")
@click.option("--db", "dbs", type=DB, required=True, multiple=True,
              help="Study databases (read only): one per variant and search strength (--depth or --nodes).")
@PIECES
@refit_options
def strength(dbs: tuple[Path, ...], pieces: str, bootstrap: int, min_games: int, seed: int) -> None:
    """Values at several search strengths per board, and the change from the weakest to the strongest."""
    letters = tuple(x.strip() for x in pieces.split(",") if x.strip())
    click.echo(format_strength(strength_trend(list(dbs), letters, bootstrap=bootstrap, seed=seed,
                                              min_games=min_games)))


@values.command("promoted")
@click.option("--db", type=DB, required=True, help="Study database (read only).")
@click.option("--pieces", default=None, help="Promoted minors to split, e.g. +P,+S (default: the variant's).")
@click.option("--horizon", type=within((1, 200)), default=8, show_default=True,
              help="Plies ahead for the lifetime split (still on the board then, or gone).")
@click.option("--splits", default=",".join(SPLITS), show_default=True, help="Which splits (the pooled fit is "
              "always first).")
@refit_options
@PREFIX
def promoted(db: Path, pieces: str | None, horizon: int, splits: str, bootstrap: int, min_games: int,
             seed: int, games: int | None) -> None:
    """Promoted minors with location and lifetime controls, beside Kaufman, Bonanza and Fairy-Stockfish."""
    letters = None if pieces is None else tuple(x.strip() for x in pieces.split(",") if x.strip())
    chosen = tuple(x.strip() for x in splits.split(",") if x.strip())
    r = promoted_controls(str(db), letters, horizon=horizon, splits=chosen, bootstrap=bootstrap, seed=seed,
                          min_games=min_games, games=games)
    click.echo(format_controls(r) + "\n\n" + format_reference(r))


@values.command("odds")
@click.option("--variant", "-v", required=True, metavar="NAME|FILE")
@click.option("--pieces", required=True, help="Comma-separated piece letters, e.g. B,R,G,S (G is the reference).")
@click.option("--games", type=within((1, limits.ODDS_GAMES[1])), required=True,
              help="Games per piece, a multiple of 4 (each start with the handicap on either colour, both sides).")
@click.option("--db", type=DB, required=True, help="Results database (a lab experiment database).")
@click.option("--nodes", type=within(limits.NODES), default=1000, show_default=True)
@click.option("--workers", "-j", type=within(limits.WORKERS), default=1, show_default=True)
@click.option("--dask", metavar="ADDR", default=None)
@click.option("--seed", type=within(limits.SEED), default=0, show_default=True)
def odds(variant: str, pieces: str, games: int, db: Path, nodes: int, workers: int, dask: str | None,
         seed: int) -> None:
    """Method B: material-odds games (one side without a piece) through the lab; values vs the gold."""
    run_odds(variant, pieces, games=games, db=db, nodes=nodes, workers=workers, dask=dask, seed=seed)
    click.echo(format_odds(analyse_odds(db)))

@values.command("report")
@click.option("--db", "dbs", type=DB, required=True, multiple=True, help="Self-play and/or odds databases.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--bootstrap", type=within(limits.BOOTSTRAP), default=500, show_default=True)
def report(dbs: tuple[Path, ...], out: Path, bootstrap: int) -> None:
    """Tables and plots of value against board size (Markdown, HTML, PNG, SVG)."""
    paths = build(load(list(dbs), bootstrap)).write(out)
    click.echo("\n".join(str(p) for p in paths))
    sys.stdout.flush()

