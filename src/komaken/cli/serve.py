"""``komaken serve``: the web page (play, experiments, games, reports) on a local ASGI server."""

from __future__ import annotations

import ipaddress
import webbrowser
from pathlib import Path

import click
import uvicorn

from komaken.cli._common import VARIANT_HELP
from komaken.lab.config import load_experiment
from komaken.shogi import load_variant
from komaken.web import create_app

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@click.command()
@click.option("--db", "dbs", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="An experiment database to show (repeat for several); opened read-only.")
@click.option("--variant", "-v", "variants", multiple=True, metavar="NAME|FILE",
              help=VARIANT_HELP + " Offered on the Play page (repeat for several).")
@click.option("--experiment", "experiments", multiple=True, nargs=2, metavar="FILE DB",
              type=(click.Path(dir_okay=False, exists=True, path_type=Path),
                    click.Path(dir_okay=False, path_type=Path)),
              help="An experiment file the Experiments page may start, pause and stop, playing into DB "
                   "(repeat for several; loopback only).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a web browser.")
def serve(dbs: tuple[Path, ...], variants: tuple[str, ...], experiments: tuple[tuple[Path, Path], ...], host: str,
          port: int, open_browser: bool) -> None:
    """Serve the web page: play, watch experiments live, browse games, read reports."""
    for v in variants:
        load_variant(v)  # a bad file is reported before the server starts
    runs: dict[Path, Path] = {}
    for file, db in experiments:
        load_experiment(file)  # a bad file is reported before the server starts
        if db.resolve() in runs:
            raise click.BadParameter(f"{db} is named by two --experiment options", param_hint="--experiment")
        runs[db.resolve()] = file
    for d in dbs:
        if not d.exists():
            click.echo(f"komaken: warning: {d} does not exist yet; it is shown once a run creates it", err=True)
    loopback = is_loopback(host)
    if runs and not loopback:
        raise click.BadParameter(f"runs are started from the page on a loopback address only, not {host}",
                                 param_hint="--experiment")
    if not loopback:
        click.echo(f"komaken: warning: listening on {host}, not loopback: anyone who can reach this machine "
                   "can read the databases and use the engine", err=True)
    allowed = [*LOOPBACK_NAMES, host] if loopback else None  # refuse other Host names (DNS rebinding)
    app = create_app(list(dbs), list(variants), allowed_hosts=allowed, experiments=runs)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    click.echo(f"komaken serve: {url}  (Ctrl-C stops)", err=True)
    if open_browser:
        webbrowser.open(url)
    # open event streams never end by themselves: after 2 s they are cut and the shut-down (game
    # sessions, experiment runs) goes on
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)

