"""``komaken experiment``: run AI-vs-AI tournaments and read their statistics (see docs/lab.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from komaken.cli._common import within
from komaken.lab import limits
from komaken.lab.config import load_experiment
from komaken.lab.export import export as do_export
from komaken.lab.progress import LineProgress, RichProgress
from komaken.lab.report import build, status_json
from komaken.lab.runner import resume_experiment, run_experiment
from komaken.lab.storage import ExperimentDB
from komaken.records import save_streamed, target_of

if TYPE_CHECKING:
    from komaken.lab.progress import LineProgress, RichProgress
    from komaken.lab.runner import RunSummary


def _progress(quiet: bool, every: float = 10.0) -> RichProgress | LineProgress | None:
    """A rich progress display when stderr is a terminal, else a progress line on stderr every
    ``every`` seconds (under nohup, in CI logs); nothing with ``--quiet``."""
    if quiet:
        return None

    console = Console(stderr=True)
    if not console.is_terminal:
        return LineProgress(interval=every)

    return RichProgress(console)


def _echo_summary(summary: RunSummary, db: Path) -> None:
    rate = f", {summary.games_per_second:.2f} games/s" if summary.played else ""
    click.echo(
        f"{db}: played {summary.played} games in {summary.wall_seconds:.1f}s{rate}; "
        f"{summary.stored}/{summary.total} stored"
    )


@click.group()
def experiment() -> None:
    """Run AI-vs-AI experiments into an SQLite database and report their statistics."""


workers_opt = click.option(
    "--workers", "-j", type=within(limits.WORKERS), default=None, help="Worker processes (default: all cores)."
)
dask_opt = click.option("--dask", metavar="ADDR", default=None, help="Dask scheduler, e.g. tcp://host:8786.")
db_opt = click.option(
    "--db", "db", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Results database."
)
quiet_opt = click.option("--quiet", "-q", is_flag=True, help="No progress display.")
every_opt = click.option(
    "--progress-every", "every", type=within(limits.PROGRESS_SECONDS), default=10.0, show_default=True,
    metavar="SECONDS",
    help="Off a terminal: print a progress line on stderr at most this often (0: after every game).",
)


@experiment.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@db_opt
@workers_opt
@dask_opt
@click.option("--games", type=within(limits.GAMES), default=None, help="Games per pairing (overrides the file).")
@quiet_opt
@every_opt
def run(file: Path, db: Path, workers: int | None, dask: str | None, games: int | None, quiet: bool,
        every: float) -> None:
    """Play the experiment FILE into --db (continues it if the database already holds it)."""
    exp = load_experiment(file, games=games)
    summary = run_experiment(exp, db, workers=workers, dask=dask, progress=_progress(quiet, every))
    _echo_summary(summary, db)


@experiment.command("resume")
@db_opt
@workers_opt
@dask_opt
@quiet_opt
@every_opt
def resume(db: Path, workers: int | None, dask: str | None, quiet: bool, every: float) -> None:
    """Play the games missing from --db (after a crash, a kill or Ctrl-C)."""
    summary = resume_experiment(db, workers=workers, dask=dask, progress=_progress(quiet, every))
    _echo_summary(summary, db)


@experiment.command("status")
@db_opt
@click.option("--json", "as_json", is_flag=True, help="Machine-readable statistics.")
@click.option("--corrected", is_flag=True,
              help="Add each stopped SPRT's bias-corrected Elo (simulated: seconds a pairing).")
def status(db: Path, as_json: bool, corrected: bool) -> None:
    """Games played and statistics per pairing."""
    with ExperimentDB.open(db) as store:
        doc = status_json(store, corrected)
    if as_json:
        click.echo(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    click.echo(f"{doc['title']} ({doc['experiment']}): {doc['games']}/{doc['target']} games")
    for p in doc["pairings"]:
        text = p["text"]  # komaken.lab.stats.display: the report's digits
        score = f"score {text['score']} ({text['score_ci95']})" if p["games"] else "score –"
        few = "  (too few games to tell)" if p["games"] and text["verdict"] == "too few" else ""
        line = (
            f"  {p['setting']} [{p['name']}]: {p['games']}/{p['target']}  W {p['a_wins']}  L {p['b_wins']}  "
            f"D {p['draws']}  {score}  Elo {text['elo']}  p {text['p']}{few}"
        )
        if p.get("sprt"):
            t = p["sprt"]
            model = t.get("model", "trinomial")
            pairs = f", pairs {t['pentanomial']}" if model == "pentanomial" else ""
            at = f" after {t['games']} games" if t.get("games") is not None and t["games"] < p["games"] else ""
            state = "no decision" if t.get("undecided") else t["state"]
            line += f"  SPRT {model} {state} (LLR {t['llr']:.2f}{pairs}{at})"
            if "elo_corrected" in t:
                c = t["elo_corrected"]
                line += f"  Elo corrected {c['elo']:+.1f} [{c['lo']:+.1f}, {c['hi']:+.1f}]"
        click.echo(line)


@experiment.command("report")
@db_opt
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Output folder.")
def report(db: Path, out: Path) -> None:
    """Write report.md, report.html and plots (PNG + SVG) into --out."""
    with ExperimentDB.open(db) as store:
        files = build(store).write(out)
    for f in files:
        click.echo(str(f))


@experiment.command("export")
@db_opt
@click.option("--format", "fmt", type=click.Choice(["csv", "kif", "csa"]), required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None)
def export(db: Path, fmt: str, output: Path | None) -> None:
    """Write every stored game as CSV rows or KIF/CSA records (stdout unless -o)."""
    with ExperimentDB.open(db) as store:
        if output is None and sys.stdout.isatty():  # a terminal shows text in its own encoding
            n = do_export(store, fmt, sys.stdout)
        else:  # game by game through a file: a million games never sit in memory
            target = output if output is not None and target_of(output) else fmt
            n, warning = save_streamed(lambda out: do_export(store, fmt, out), target, output, sys.stdout.buffer)
            if warning:
                click.echo(f"komaken: warning: {warning}", err=True)
    if output is not None:
        click.echo(f"{output}: {n} games", err=True)

