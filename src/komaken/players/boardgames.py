"""Players for the board games (reversi, tic-tac-toe) and a random player for any game.

Every player here implements :class:`komaken.players.base.Player`.  :func:`make_player`
builds one from a short text spec, the form the command line and the lab use::

    make_player("reversi", "engine:depth=6,empties=14,seed=3")
    make_player("tictactoe", "perfect")
    make_player("reversi", "random:seed=3")
"""

from __future__ import annotations

import random
from typing import Any

from komaken.errors import KomakenError
from komaken.game import Game
from komaken.reversi import Reversi
from komaken.reversi import engine as reversi_engine
from komaken.search.generic import best_move
from komaken.tictactoe import TicTacToe

#: The games these players know, by the name the CLI uses.
GAMES: dict[str, type[Any]] = {"reversi": Reversi, "tictactoe": TicTacToe}


def new_game(game: str) -> Reversi | TicTacToe:
    """The start position of ``game`` (``"reversi"`` or ``"tictactoe"``)."""
    try:
        return GAMES[game].start()  # type: ignore[no-any-return]
    except KeyError:
        raise KomakenError(f"unknown game {game!r} (known: {', '.join(GAMES)})") from None


class _Seeded:
    """A reproducible random stream: the same ``seed`` replays the same games."""

    def __init__(self, seed: int | None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def new_game(self) -> None:
        self._rng = random.Random(self.seed)

    def _next_seed(self) -> int | None:
        return None if self.seed is None else self._rng.randrange(1 << 32)

    def close(self) -> None:
        pass


class RandomPlayer(_Seeded):
    """Plays a uniformly random legal move; works for any :class:`komaken.game.Game`."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.name = "random" if seed is None else f"random(seed={seed})"

    def choose(self, position: Game[Any]) -> Any:
        moves = list(position.legal_moves())
        if not moves:
            raise KomakenError("no legal move: the game is over")
        return self._rng.choice(moves)


class ReversiEnginePlayer(_Seeded):
    """The numba α-β engine: ``depth`` plies with the evaluation, exact below ``endgame_empties``.

    With a ``seed`` equally good moves are chosen at random (reproducibly).
    """

    def __init__(
        self,
        depth: int = reversi_engine.DEFAULT_DEPTH,
        endgame_empties: int = reversi_engine.DEFAULT_ENDGAME_EMPTIES,
        seed: int | None = None,
    ) -> None:
        if depth < 1:
            raise KomakenError(f"engine depth must be >= 1, got {depth}")
        if not 0 <= endgame_empties <= 64:
            raise KomakenError(f"endgame empties must be in 0..64, got {endgame_empties}")
        super().__init__(seed)
        self.depth = depth
        self.endgame_empties = endgame_empties
        self.name = f"reversi-engine(depth={depth},empties={endgame_empties})"
        self.last: reversi_engine.SearchResult | None = None

    def choose(self, position: Game[Any]) -> Any:
        if not isinstance(position, Reversi):
            raise KomakenError("the reversi engine only plays reversi")
        self.last = reversi_engine.search(position, self.depth, self.endgame_empties, self._next_seed())
        return self.last.move


class PerfectPlayer(_Seeded):
    """Exact negamax (generic search with a transposition table): never loses a solvable game.

    Meant for tic-tac-toe and other tiny games; ``seed`` varies the choice among equal moves.
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.name = "perfect" if seed is None else f"perfect(seed={seed})"

    def choose(self, position: Game[Any]) -> Any:
        result = best_move(position.copy(), seed=self._next_seed())
        if result.move is None:
            raise KomakenError("no legal move: the game is over")
        return result.move


_OPTION_NAMES = {"depth": "depth", "empties": "endgame_empties", "endgame_empties": "endgame_empties"}


def parse_spec(spec: str) -> tuple[str, dict[str, int]]:
    """``"engine:depth=6,seed=3"`` → ``("engine", {"depth": 6, "seed": 3})``."""
    kind, _, rest = spec.strip().partition(":")
    options: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in rest.replace(";", ",").split(","))):
        name, eq, value = item.partition("=")
        if not eq:
            raise KomakenError(f"player option {item!r} should be name=value")
        try:
            options[name.strip()] = int(value)
        except ValueError:
            raise KomakenError(f"player option {name.strip()!r} needs an integer, got {value!r}") from None
    return kind.strip().lower(), options


def make_player(game: str, spec: str) -> RandomPlayer | ReversiEnginePlayer | PerfectPlayer:
    """Build a player for ``game`` from ``spec``.

    * ``random[:seed=N]`` — any game;
    * ``engine[:depth=D,empties=E,seed=N]`` — reversi's numba engine; for tic-tac-toe the
      same as ``perfect``;
    * ``perfect[:seed=N]`` — exact play (tic-tac-toe).
    """
    if game not in GAMES:
        raise KomakenError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    kind, options = parse_spec(spec)

    def take(*allowed: str) -> dict[str, int]:
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise KomakenError(f"{kind} player for {game}: unknown option(s) {', '.join(unknown)}")
        return options

    if kind == "random":
        return RandomPlayer(**take("seed"))
    if kind == "perfect" or (kind == "engine" and game == "tictactoe"):
        if game == "reversi":
            raise KomakenError("no perfect player for reversi: use engine:depth=...,empties=...")
        return PerfectPlayer(**take("seed"))
    if kind == "engine":
        opts = take("depth", "empties", "endgame_empties", "seed")
        kwargs = {_OPTION_NAMES.get(k, k): v for k, v in opts.items()}
        return ReversiEnginePlayer(**kwargs)
    raise KomakenError(f"unknown player {kind!r} for {game} (random, engine, perfect)")
