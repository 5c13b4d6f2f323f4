"""``komaken tune nnue``: train an NNUE network on self-play positions labelled by a deeper search."""

from __future__ import annotations

import datetime
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from komaken.cli._common import VARIANT_HELP, within
from komaken.lab import limits
from komaken.lab.label import engine_command, label_study, load_labels
from komaken.lab.nnue_data import NnueData, read_study
from komaken.lab.valuestudy.selfplay import run_selfplay, study_config
from komaken.shogi.engine.evalparams import EvalParams
from komaken.shogi.engine.nnue import Network
from komaken.shogi.engine.nnue_train import Samples, TrainConfig, TrainResult, cross_entropy, train
from komaken.shogi.engine.tune import fit_k
from komaken.shogi.variant import Variant, load_variant

FILE = click.Path(dir_okay=False, path_type=Path)
#: komaken's own search as the labelling engine, through the same USI pipeline as any other
OWN_ENGINE = "komaken usi"


@click.command("nnue")
@click.option("--variant", "-v", required=True, metavar="NAME|FILE", help=VARIANT_HELP)
@click.option("--games", type=within((0, limits.GAMES[1])), required=True,
              help="Self-play games to train on: played into --db until it holds this many, and of a --db "
                   "holding more its first this many (0: every game of --db as it is).")
@click.option("--db", type=FILE, required=True, help="Self-play database (a `komaken values selfplay` study).")
@click.option("--out", type=FILE, required=True, help="Write the net here (a .nnue file).")
@click.option("--nodes", type=within(limits.NODES), default=1000, show_default=True,
              help="Nodes per move of the self-play games.")
@click.option("--random-plies", type=within(limits.RANDOM_PLIES), default=6, show_default=True,
              help="Random opening plies of each self-play game.")
@click.option("--noise", type=within(limits.NOISE), default=10.0, show_default=True,
              help="Evaluation noise of the self-play games.")
@click.option("--label-engine", default=OWN_ENGINE, show_default=True, metavar="COMMAND",
              help="USI engine whose search scores label the positions (default: komaken's own search), e.g. "
                   "/usr/games/fairy-stockfish.")
@click.option("--label-nodes", type=within(limits.NODES), default=3000, show_default=True,
              help="Nodes of the labelling search per position (deeper than the self-play's --nodes).")
@click.option("--label-every", type=within((1, 10_000)), default=1, show_default=True,
              help="Label and train on every this-many-th quiet position of each game (the 1st, the next after "
                   "this many, ...): for the same labelling time, positions of more games.")
@click.option("--labels", type=FILE, default=None,
              help="Label file (SQLite): continued if it exists (default: the --db path with .labels.sqlite).")
@click.option("--blend", type=within((0.0, 1.0)), default=0.75, show_default=True,
              help="Target = blend x sigma(score / scale) + (1 - blend) x the game's result.")
@click.option("--scale", type=within(limits.LABEL_SCALE), default=None,
              help="Evaluation units per logit of the targets and the net (default: fitted to the games' results).")
@click.option("--width", type=within((8, 512)), default=32, show_default=True,
              help="Accumulator width per perspective (the dense layers are 16 and 16).")
@click.option("--psqt/--no-psqt", default=True, show_default=True,
              help="A material column beside the layers, started from the variant's piece values.")
@click.option("--threats/--no-threats", default=False, show_default=True,
              help="Inputs saying which pieces are attacked and which defended (feature set halfkp-drop+threats).")
@click.option("--epochs", type=within((1, 10_000)), default=30, show_default=True)
@click.option("--batch", type=within((1, 1 << 16)), default=256, show_default=True)
@click.option("--lr", type=within((1e-6, 0.5)), default=2e-3, show_default=True, help="Adam learning rate.")
@click.option("--decay", type=within((0.0, 0.5)), default=1e-2, show_default=True,
              help="Weight decay of the king-bucket feature rows (towards their king-independent factor).")
@click.option("--king-region", type=within((1, 1024)), default=1, show_default=True,
              help="Train the king buckets in blocks of this many files by ranks, each block one set of rows "
                   "(1: a bucket per king square; the board's size: one for every square).")
@click.option("--seed", type=within(limits.SEED), default=0, show_default=True,
              help="Seeds the self-play, the held-out split, the start weights and the order of each epoch.")
@click.option("--checkpoint", type=FILE, default=None,
              help="Training state after every epoch; an interrupted run resumes from it (default: --out with "
                   ".ckpt.npz; removed when the net is written).")
@click.option("--workers", "-j", type=within(limits.WORKERS), default=1, show_default=True,
              help="Processes playing the self-play games, and engines labelling them.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or lines.")
def nnue(variant: str, games: int, db: Path, out: Path, nodes: int, random_plies: int, noise: float,
         label_engine: str, label_nodes: int, label_every: int, labels: Path | None, blend: float,
         scale: float | None, width: int, psqt: bool, threats: bool, epochs: int, batch: int, lr: float, decay: float,
         king_region: int, seed: int, checkpoint: Path | None, workers: int, quiet: bool) -> None:
    """Train an NNUE network for a variant on self-play positions labelled by a deeper search and
    blended with the games' results; prints the held-out loss per epoch, and the linear
    evaluation's on the same positions."""
    console = Console(stderr=True)

    def say(text: str) -> None:
        if not quiet:
            console.print(text, highlight=False, markup=False)

    v = load_variant(variant)
    config = TrainConfig(width=width, epochs=epochs, batch=batch, lr=lr, decay=decay, seed=seed, psqt=psqt,
                         king_region=king_region)
    if games > 0:
        s = run_selfplay(study_config(v, games=games, nodes=nodes, seed=seed, noise=noise, random_plies=random_plies),
                         db, workers=workers)
        say(f"{db}: played {s.played} games in {s.wall_seconds:.1f}s; {s.stored}/{s.target} stored")
    elif not db.exists():
        raise click.UsageError(f"--games 0 needs an existing --db; {db} does not exist")
    labels = labels or db.with_suffix(".labels.sqlite")
    command = engine_command(label_engine)
    sample = games or None  # a study holding more games than asked trains on its first `games`
    made = label_study(db, labels, command, nodes=label_nodes, workers=workers, games=sample,
                       every=label_every,
                       progress=lambda n, of: say(f"labelled {n}/{of} games") if n % 100 == 0 or n == of else None)
    say(f"{labels}: {made} positions labelled now ({label_engine}, {label_nodes} nodes)")
    data = read_study(db, load_labels(labels, db), v, blend=blend, scale=scale, games=sample, every=label_every,
                      threats=threats)
    say(f"{len(data.samples)} positions from {data.games} games; target scale {data.samples.scale:.0f} units per logit")
    checkpoint = checkpoint or out.with_name(out.name + ".ckpt.npz")
    result = _train(data.samples, config, checkpoint, console, quiet, say, EvalParams.default(v).arrays())
    given = {"variant": variant, "games": games, "db": db.name, "labels": labels.name, "out": out.name, "nodes": nodes,
             "random-plies": random_plies, "noise": noise, "label-engine": label_engine, "label-nodes": label_nodes,
             "label-every": label_every, "blend": blend, "scale": scale, "width": width, "psqt": psqt,
             "threats": threats, "epochs": epochs, "batch": batch, "lr": lr, "decay": decay,
             "king-region": king_region, "seed": seed}
    losses = _baselines(data, result)
    provenance = _provenance(given, v, data, result, losses)
    net = Network(**{**result.network.__dict__, "provenance": provenance})
    net.save(out)
    Network.load(out, v)  # what was written loads back
    checkpoint.unlink(missing_ok=True)
    click.echo(f"wrote {out} ({out.stat().st_size} bytes): held-out cross-entropy {result.holdout_int:.5f} "
               f"(float net {result.holdout_float:.5f}; integer vs float: mean {result.quant_mean:.1f}, "
               f"max {result.quant_max:.0f} units); linear evaluation on the same positions {losses['linear']:.5f} "
               f"({losses['linear_fit']:.5f} with its own fitted scale); constant {losses['constant']:.5f}")


def _option(name: str, value: Any) -> str:
    """One setting as the command line takes it: a switch by its on or off form."""
    if isinstance(value, bool):
        return f"--{name}" if value else f"--no-{name}"
    return f"--{name} {shlex.quote(str(value))}"


def _provenance(given: dict[str, Any], v: Variant, data: NnueData, result: TrainResult,
                losses: dict[str, float]) -> dict[str, str]:
    """What a trained net carries: the command with every setting (``given``), the commit, the data
    and the losses."""
    every = given["label-every"]
    sample = "" if every == 1 else f" (one in {every} of each game's)"
    return {
        "command": "komaken tune nnue " + " ".join(_option(k, x) for k, x in given.items() if x is not None),
        "commit": _commit(),
        "date": datetime.date.today().isoformat(),
        "data": (f"{data.games} self-play games of {v.name} at {given['nodes']} nodes a move "
                 f"({given['random-plies']} random opening plies, noise {given['noise']:g}, seed {given['seed']}); "
                 f"{len(data.samples)} quiet positions{sample} labelled by {given['label-engine']} at "
                 f"{given['label-nodes']} nodes"),
        "target": f"{given['blend']:g} x sigma(score / {data.samples.scale:.1f}) + {1 - given['blend']:g} x result",
        "positions": f"{result.train_positions} training, {result.holdout_positions} held out (whole games)",
        "holdout_loss": f"{result.holdout_int:.5f}",
        "holdout_loss_float": f"{result.holdout_float:.5f}",
        "holdout_loss_linear": f"{losses['linear']:.5f}",
        "holdout_loss_constant": f"{losses['constant']:.5f}",
    }


def _train(samples: Samples, config: TrainConfig, checkpoint: Path, console: Console, quiet: bool,
           say: Callable[[str], None], material: tuple[np.ndarray, np.ndarray]) -> TrainResult:
    """:func:`train` with a progress bar on a terminal and a line per epoch."""
    bar = Progress(TextColumn("training"), BarColumn(), MofNCompleteColumn(), TextColumn("batches"),
                   TimeRemainingColumn(), console=console, transient=True, disable=quiet or not console.is_terminal)
    with bar:
        task = bar.add_task("train", total=None)
        return train(samples, config, checkpoint=checkpoint, material=material,
                     on_batch=lambda n, total: bar.update(task, advance=n, total=total),
                     on_epoch=lambda r: say(f"epoch {r.epoch}/{config.epochs}: train loss {r.train_loss:.5f}, "
                                            f"held-out loss {r.holdout_loss:.5f}"))


def _baselines(data: NnueData, result: TrainResult) -> dict[str, float]:
    """Cross-entropy on the held-out positions of the linear evaluation (through the net's scale,
    and through its own fitted one) and of a constant prediction."""
    ho = result.holdout_rows
    y, lin = data.samples.target[ho], data.linear[ho]
    prior = float(np.clip(y.mean(), 1e-6, 1 - 1e-6))
    return {"linear": cross_entropy(lin / data.samples.scale, y), "linear_fit": cross_entropy(fit_k(lin, y) * lin, y),
            "constant": cross_entropy(np.full(len(y), np.log(prior / (1 - prior))), y)}


def _commit() -> str:
    """The source's git commit (``+dirty`` with uncommitted changes), or ``unknown``."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                             timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev + ("+dirty" if dirty else "") if rev else "unknown"
