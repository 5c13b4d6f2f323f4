"""``komaken play``: a game at the terminal between any two players.

Player specs: ``human``, ``engine`` (``engine:movetime=1`` seconds, ``engine:depth=6``,
``engine:nodes=1000,values=fitted.toml`` with a piece-value TOML,
``engine:nodes=100000,seed=3,king_safety=0``), ``thesis`` (``thesis:depth=4,seed=1,hand_quirk=1``),
``usi:/path/to/engine [args]``, ``random``; for ``--game reversi|tictactoe`` the specs of
:func:`komaken.players.boardgames.make_player`.
"""

from __future__ import annotations

from typing import Any

import click

from komaken.cli._common import load, variant_option
from komaken.errors import KomakenError


def _kv(text: str) -> dict[str, str]:
    out = {}
    for part in filter(None, text.split(",")):
        if "=" not in part:
            raise KomakenError(f"player setting {part!r} must be key=value")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _num(v: str) -> float:
    try:
        return float(v)
    except ValueError:
        raise KomakenError(f"{v!r} is not a number") from None


def make_shogi_player(spec: str, variant: Any) -> Any:
    """A player from a spec such as ``engine:movetime=1`` (see the module docs)."""
    kind, _, rest = spec.partition(":")
    if kind == "human":
        from komaken.players.human import HumanPlayer

        return HumanPlayer()
    if kind == "usi":
        from komaken.players.usi import UsiPlayer

        if not rest:
            raise KomakenError("usi needs a command: usi:/path/to/engine")
        return UsiPlayer(rest, {"UCI_Variant": variant.name} if variant.name != "shogi" else {})
    if kind == "random":
        from komaken.players.boardgames import RandomPlayer

        return RandomPlayer(int(_kv(rest).get("seed", 0)))
    opts = _kv(rest)
    if kind == "engine":
        from komaken.engine.values import PieceValues
        from komaken.players.engine import EnginePlayer

        mt = opts.pop("movetime", None)
        movetime = None
        if mt is not None:  # seconds here; "ms" suffix for milliseconds
            movetime = _num(mt[:-2]) if mt.endswith("ms") else _num(mt.rstrip("s")) * 1000
        depth = int(_num(opts.pop("depth"))) if "depth" in opts else None
        nodes = int(_num(opts.pop("nodes"))) if "nodes" in opts else None
        seed = int(_num(opts.pop("seed", "0")))
        values_file = opts.pop("values", None)  # a PieceValues TOML, e.g. from `komaken values fit`
        values = PieceValues.from_toml(values_file, variant).as_dict() if values_file else None
        terms = {k: _num(v) for k, v in opts.items()}
        return EnginePlayer(variant, depth=depth, nodes=nodes, movetime=movetime, seed=seed, values=values, **terms)
    if kind == "thesis":
        from komaken.players.thesis import ThesisPlayer

        return ThesisPlayer(variant, None, depth=int(_num(opts.get("depth", "4"))),
                            seed=int(_num(opts.get("seed", "0"))),
                            hand_quirk=opts.get("hand_quirk", "0").lower() in ("1", "true", "yes"))
    raise KomakenError(f"unknown player {spec!r} (human, engine[:...], thesis[:...], usi:COMMAND, random)")


def play_game(pos: Any, players: list[Any], echo: Any = click.echo, show: bool = True) -> Any:
    """Play to the end; returns the outcome (or ``None`` if aborted)."""
    from komaken.game import Color, Outcome, Termination
    from komaken.players.base import DECLARE, RESIGN
    from komaken.players.human import UndoRequest, describe

    for p in players:
        p.new_game()
    if show:
        echo(str(pos))
    while True:
        outcome = pos.outcome()
        if outcome is not None:
            break
        mover = pos.turn
        player = players[int(mover)]
        try:
            mv = player.choose(pos)
        except UndoRequest:
            back = 2 if pos.ply >= 2 else pos.ply
            for _ in range(back):
                pos.pop()
            echo(f"took back {back} move(s)")
            if show:
                echo(str(pos))
            continue
        if mv is RESIGN:
            outcome = Outcome(Termination.RESIGNATION, Color(1 - int(mover)))
            break
        if mv is DECLARE:
            ok = getattr(pos, "can_declare", lambda: False)()
            outcome = Outcome(Termination.DECLARATION if ok else Termination.ILLEGAL_MOVE,
                              mover if ok else Color(1 - int(mover)))
            break
        if mv not in list(pos.legal_moves()):
            echo(f"{player.name} played an illegal move: {mv}")
            outcome = Outcome(Termination.ILLEGAL_MOVE, Color(1 - int(mover)))
            break
        echo(f"{pos.ply + 1}. {describe(pos, mv)}  [{player.name}]")
        pos.push(mv)
        if show:
            echo(str(pos))
    winner = "draw" if outcome.winner is None else ("sente (▲) wins" if outcome.winner == 0 else "gote (△) wins")
    if not hasattr(pos, "sfen"):
        winner = "draw" if outcome.winner is None else f"{outcome.winner.name.lower()} wins"
    echo(f"{outcome.termination.japanese} ({outcome.termination.value}): {winner} after {pos.ply} moves")
    return outcome


@click.command()
@click.option("--game", "-g", type=click.Choice(["shogi", "reversi", "tictactoe"]), default="shogi",
              show_default=True)
@variant_option()
@click.option("--sente", "--black", "sente", default="human", show_default=True, help="First player's spec.")
@click.option("--gote", "--white", "gote", default="engine:movetime=1", show_default=True,
              help="Second player's spec.")
@click.option("--sfen", "-s", default=None, help="Start from this position.")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the board after each move.")
def play(game: str, variant: str, sente: str, gote: str, sfen: str | None, quiet: bool) -> None:
    """Play a game: human, engine, thesis replica, USI engine (type p for moves, undo, resign)."""
    if game == "shogi":
        from komaken.shogi import Position

        v = load(variant)
        pos = Position.from_sfen(sfen, v) if sfen else Position.start(v)
        players = [make_shogi_player(sente, v), make_shogi_player(gote, v)]
    else:
        from komaken.players import boardgames
        from komaken.players.human import HumanPlayer

        pos = boardgames.new_game(game)
        players = [HumanPlayer() if s == "human" else boardgames.make_player(game, s) for s in (sente, gote)]
    try:
        play_game(pos, players, show=not quiet)
    finally:
        for p in players:
            p.close()


def register(main: click.Group) -> None:
    main.add_command(play)
