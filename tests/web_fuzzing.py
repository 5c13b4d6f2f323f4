"""Seeded hostile requests for the web server: every endpoint, every way a body or header can be wrong.

:func:`requests` yields :class:`Req` s: JSON of random shapes, deep nesting, huge, infinite and
NaN numbers, wrong and unknown keys, invalid UTF-8, wrong content types, cross-origin senders,
bodies over the limit (declared, or streamed without a length) and clients that disconnect
mid-body.  Each carries the statuses it may get (``expect``); none may get a 5xx.  Used by
``tests/test_web_guard.py`` (in-process, a few hundred) and ``benchmarks/web_fuzz.py`` (a real
``komaken serve``, ten thousand and more).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from komaken.lab import ExperimentDB, GameRow, load_experiment
from web_support import write_experiment

MAX_BODY = 1 << 20
CHANGES = ("POST", "PUT", "PATCH", "DELETE")
GAMES = ("shogi", "minishogi", "judkins", "reversi", "tictactoe", "chess", "../../etc/passwd", "", "SHOGI")
KINDS = ("human", "engine", "thesis", "random", "wizard", "", "Engine")
SETTINGS = ("depth", "movetime", "nodes", "seed", "dpeth", "kind", "time")
#: numbers as JSON text: edges of every range, and what ``json`` turns into inf, NaN or a huge int
NUMBERS = ("0", "1", "-1", "8", "9", "10", "60", "61", "112", "113", "0.001", "0.0009", "86400", "86400.5", "1e12",
           "1000000000001", "9223372036854775807", "9223372036854775808", "1e400", "-1e400", "NaN", "Infinity",
           "-Infinity", "1e-400", "3.5",
           "9" * 400, "-" + "9" * 5000, "1E2", "-0", "true", "false", "null", '"3"', '""', "[]", "{}")
TEXTS = ("", "7g7f", "3c3d", "e2e4", "5", "pass", "f5", "P*5e", "7g7f+", "x" * 17, "\\u0000", "\\ud800", "\\udfff",
         "\\ud83d\\ude00", "７六歩", "startpos moves 7g7f",
         "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "4k/5/5/5/K3P b G 1",
         "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "%TORYO", "\\\\", "'",
         "<script>", "../../../etc/passwd")
JUNK_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "",
              "application/jsonx", "application/json-patch+json", "text/json", "application/xml", "*/*")
ORIGINS = ("http://evil.example", "null", "http://127.0.0.1.evil.example", "https://testserver",
           "http://testserver:8080", "file://", "http://[::1", "javascript:alert(1)")


@dataclass
class Req:
    """One request. ``mode``: ``send`` (whole body), ``stream`` (no length, chunks until refused),
    ``declare`` (a length over the limit, little sent), ``leave`` (disconnect mid-body)."""

    kind: str
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    mode: str = "send"
    expect: tuple[int, ...] = ()


def small_db(path: Path, games: int = 24) -> Path:
    """An experiment database of ``games`` minishogi rows (no engine run needed)."""
    exp = load_experiment(write_experiment(path.parent, games))
    with ExperimentDB.create(path, exp) as db:
        for i in range(games):
            db.insert(GameRow("d1-vs-rnd" if i % 2 else "rnd-vs-d1", i, "d1", "rnd", ("a", "b", "draw")[i % 3],
                              "checkmate" if i % 5 else "max plies", "a" if i % 2 else "b", "2e2d 4a4b 1e1d", 3, 0,
                              "", 0.5, i, 1000.0 + i))
    return path


class Fuzzer:
    """Seeded requests against a server whose page has ``origin`` (``http://host:port``);
    ``sids`` are live game sessions, ``dbs`` the number of databases it was given."""

    def __init__(self, seed: int, origin: str, sids: list[str], dbs: int, heavy: bool = True) -> None:
        self.rng = random.Random(seed)
        self.origin = origin
        self.sids = sids
        self.dbs = dbs
        self.heavy = heavy  # reports and figures (matplotlib) among the GETs

    # ---- values --------------------------------------------------------------------------------
    def json_text(self, depth: int = 0) -> str:
        """A random JSON value, as text (so NaN, 1e400 and 5000-digit numbers survive)."""
        r = self.rng
        pick = r.random()
        if depth > 3 or pick < 0.35:
            return r.choice(NUMBERS)
        if pick < 0.6:
            return '"' + r.choice(TEXTS) + '"'
        if pick < 0.8:
            return "[" + ", ".join(self.json_text(depth + 1) for _ in range(r.randint(0, 4))) + "]"
        keys = [r.choice((*SETTINGS, "game", "move", "black", "white", "start", "record", "")) for _ in range(3)]
        return "{" + ", ".join(f'"{k}": {self.json_text(depth + 1)}' for k in keys[: r.randint(0, 3)]) + "}"

    def side_text(self) -> str:
        """A player; a computer player always gets a setting it refuses, so no fuzzed game makes
        the server think (the point is the input, not the engine)."""
        r = self.rng
        kind = r.choice(KINDS)
        parts = [f'"kind": "{kind}"'] if r.random() < 0.9 else []
        parts += [f'"{key}": {r.choice(NUMBERS)}' for key in r.sample(SETTINGS, r.randint(0, 3))]
        if kind in ("engine", "thesis", "random"):
            parts.append(f'"depth": {r.choice(("0", "-1", "1e400", "NaN", "[]", "113", "true", "{}"))}')
        return "{" + ", ".join(parts) + "}"

    def new_game_body(self) -> bytes:
        r = self.rng
        fields = {"game": f'"{r.choice(GAMES)}"', "start": '"' + r.choice(TEXTS) + '"',
                  "record": '"' + r.choice(TEXTS) + '"', r.choice(("colour", "Game", "")): self.json_text()}
        # both sides always given: an omitted one defaults to a computer player that would think
        chosen = ["black", "white", *r.sample(list(fields), r.randint(0, len(fields)))]
        fields.update(black=self.side_text(), white=self.side_text())
        return ("{" + ", ".join(f'"{k}": {fields[k]}' for k in chosen) + "}").encode()

    def deep(self) -> bytes:
        n = self.rng.choice((33, 100, 999, 1000, 5000, 100_000))
        opener, closer = self.rng.choice((("[", "]"), ('{"a":', "}"), ('[{"b":', "}]")))
        return (opener * n + "1" + closer * self.rng.choice((0, n))).encode()

    def raw_bytes(self) -> bytes:
        r = self.rng
        return r.choice((b"\xff\xfe", b'{"move": "\xff"}', b'{"move": "7g7f"', b"{" * 3, b"not json", b"\x00" * 9,
                         bytes(r.randrange(256) for _ in range(r.randint(1, 64))), b'"just text"', b"[1, 2]",
                         b'{"move": "7g7f", "move": "3c3d"}', b"\xef\xbb\xbf{}", b"   "))

    # ---- paths ---------------------------------------------------------------------------------
    def sid(self) -> str:
        r = self.rng
        return r.choice(self.sids) if self.sids and r.random() < 0.8 else r.choice(("nope", "%00", "..", "x" * 300))

    def db(self) -> str:
        r = self.rng
        return str(r.randrange(self.dbs)) if self.dbs and r.random() < 0.8 else r.choice(("-1", "99", "0x0", "a"))

    def change_path(self) -> str:
        r = self.rng
        return r.choice(("/api/play", f"/api/play/{self.sid()}/move", f"/api/play/{self.sid()}/undo",
                         f"/api/play/{self.sid()}/resign", "/api/games", f"/api/dbs/{self.db()}", "/",
                         f"/api/play/{self.sid()}"))

    def get_path(self) -> str:
        r = self.rng
        q = "&".join(f"{r.choice(('page', 'per_page', 'order', 'result', 'min_plies', 'max_plies', 'reason', 'x'))}="
                     f"{r.choice(('1', '0', '-5', '201', '1e9', 'asc', 'draw', 'nan', '%ff', '9' * 30, ''))}"
                     for _ in range(r.randint(0, 3)))
        fmt = r.choice(("kif", "ki2", "csa", "usi", "pgn", "txt", "pdf", "../kif", "", "%00"))
        paths = [f"/api/games?{q}", f"/api/play/{self.sid()}", f"/api/play/{self.sid()}/record?format={fmt}",
                 "/api/dbs", f"/api/dbs/{self.db()}", f"/api/dbs/{self.db()}/games?{q}", f"/api/dbs/{self.db()}/facets",
                 f"/api/dbs/{self.db()}/games/{r.choice(('1', '2', '0', '-1', '1.5', 'x', '9' * 20))}",
                 f"/api/dbs/{self.db()}/games/1/record?format={fmt}", "/static/app.js", "/static/../app.py", "/"]
        if self.heavy:
            paths += [f"/api/dbs/{self.db()}/report", f"/api/dbs/{self.db()}/plots/{r.choice(('score_ci', 'x'))}.svg"]
        return r.choice(paths)

    # ---- requests ------------------------------------------------------------------------------
    def good_headers(self) -> dict[str, str]:
        if self.rng.random() < 0.5:
            return {"Origin": self.origin, "Content-Type": "application/json"}
        return {"Sec-Fetch-Site": self.rng.choice(("same-origin", "none")),
                "Content-Type": "application/json; charset=utf-8"}

    def one(self) -> Req:
        r = self.rng
        kind = r.choices(("shape", "new-game", "deep", "bytes", "type", "origin", "over", "stream", "leave", "get",
                          "method"), (18, 18, 8, 8, 8, 10, 4, 3, 3, 14, 6))[0]
        path, good = self.change_path(), self.good_headers()
        bad = (200, 201, 400, 404, 405)  # a random shape may be a valid request: {} starts a game
        if kind == "shape":
            return Req(kind, "POST", path, good, self.json_text().encode(), expect=bad)
        if kind == "new-game":
            return Req(kind, "POST", "/api/play", good, self.new_game_body(), expect=(201, 400, 404))
        if kind == "deep":
            return Req(kind, "POST", r.choice(("/api/play", f"/api/play/{self.sid()}/move")), good, self.deep(),
                       expect=(400, 404))
        if kind == "bytes":
            return Req(kind, "POST", path, good, self.raw_bytes(), expect=bad)
        if kind == "type":
            headers = {"Origin": self.origin} | ({"Content-Type": ct} if (ct := r.choice(JUNK_TYPES)) else {})
            return Req(kind, r.choice(CHANGES), path, headers, b'{"game": "minishogi"}', expect=(415,))
        if kind == "origin":
            headers = r.choice(({"Origin": r.choice(ORIGINS)}, {},
                                {"Sec-Fetch-Site": r.choice(("cross-site", "same-site"))},
                                {"Sec-Fetch-Site": "cross-site", "Origin": self.origin}))
            ctype = r.choice(("text/plain", "application/json"))
            return Req(kind, r.choice(CHANGES), path, headers | {"Content-Type": ctype}, b'{"game": "minishogi"}',
                       expect=(403,))
        if kind == "over":
            body = b'{"record": "' + b"x" * (MAX_BODY + r.randint(0, 4096)) + b'"}'
            return Req(kind, "POST", path, good, body, mode=r.choice(("send", "declare")), expect=(413,))
        if kind == "stream":
            return Req(kind, "POST", path, good, b"[" + b"1, " * (MAX_BODY // 2), mode="stream", expect=(413,))
        if kind == "leave":
            return Req(kind, "POST", path, good, self.new_game_body(), mode="leave")
        if kind == "get":
            return Req(kind, "GET", self.get_path(), expect=(200, 400, 404))
        return Req(kind, r.choice(("PUT", "PATCH", "DELETE")), path, good, self.json_text().encode(),
                   expect=(404, 405))


def requests(seed: int, origin: str, sids: list[str], dbs: int, count: int, heavy: bool = True) -> Iterator[Req]:
    fuzzer = Fuzzer(seed, origin, sids, dbs, heavy)
    for _ in range(count):
        yield fuzzer.one()


def is_json_error(body: bytes) -> bool:
    try:
        doc = json.loads(body)
    except ValueError:
        return False
    return isinstance(doc, dict) and isinstance(doc.get("error"), str) and bool(doc["error"])
