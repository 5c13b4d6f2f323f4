"""Hostile-request fuzz of a real ``komaken serve``: ten thousand malformed requests over every endpoint.

    .venv/bin/python benchmarks/web_fuzz.py                        # 12 000 requests, 4 clients
    .venv/bin/python benchmarks/web_fuzz.py --count 2000 --seed 7 --clients 2 --max-seconds 300

The server runs as a subprocess on 127.0.0.1 (a free port) with a small experiment database.
The requests come from ``tests/web_fuzzing.py``: JSON of random shapes, deep nesting, huge,
infinite and NaN numbers, wrong and unknown keys, invalid UTF-8, wrong content types,
cross-origin senders, bodies over 1 MiB (declared, or streamed without a length) and clients
that disconnect mid-body.  Bodies over the limit go over raw sockets that keep sending until the
answer arrives, as a real uploader does.  Printed: requests, answers by status and by kind,
answers >= 500 (must be 0), refusals that are not JSON, the server's RSS before, at its peak and
after (growth must stay under 50 MB), the request rate, and the server log's one-line
disconnects and tracebacks (must be 0).  There is no peer program: the figures are ours alone.
Exit status 1 when a requirement fails.
"""

from __future__ import annotations

import argparse
import collections
import select
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from web_fuzzing import Req, is_json_error, requests, small_db  # noqa: E402
from web_support import Server  # noqa: E402

GROWTH_LIMIT_MB = 50
RAW = ("stream", "declare", "leave")


def _head(req: Req, host: str, length: str | None) -> bytes:
    lines = [f"{req.method} {req.path} HTTP/1.1", f"Host: {host}", "Connection: close",
             *(f"{k}: {v}" for k, v in req.headers.items())]
    lines.append("Transfer-Encoding: chunked" if length is None else f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def raw_request(req: Req, port: int, deadline: float = 20.0) -> int | None:
    """Send ``req`` over a raw socket: ``leave`` sends part of its body and goes; ``send`` sends
    its body with its length; ``stream`` (chunked, no length) and ``declare`` (a length of 200 MB)
    keep sending until the server answers.  Returns the status, or ``None`` for a leaver or a
    connection closed unanswered."""
    body = req.body or b" "
    length = {"stream": None, "declare": "200000000", "leave": str(len(body) + 100), "send": str(len(body))}[req.mode]
    with socket.create_connection(("127.0.0.1", port), timeout=deadline) as s:
        s.sendall(_head(req, f"127.0.0.1:{port}", length))
        if req.mode == "leave":
            s.sendall(body)
            return None
        end, limit = time.monotonic() + deadline, len(body) if req.mode == "send" else 8 << 20
        sent, answer = 0, b""
        while time.monotonic() < end and not answer:
            readable, _, _ = select.select([s], [], [], 0 if sent < limit else 1)
            if readable:
                answer = s.recv(4096) or b"-"
            elif sent < limit:
                start = sent if req.mode == "send" else sent % len(body)
                chunk = body[start: start + 65536] or body[:65536]
                try:
                    s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if length is None else chunk)
                except OSError:  # the server answered and closed while we sent: read its answer
                    readable, _, _ = select.select([s], [], [], 2)
                    answer = (s.recv(4096) if readable else b"") or b"-"
                sent += len(chunk)
    return int(answer[9:12]) if answer.startswith(b"HTTP/1.1 ") else None


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.status: collections.Counter[int | None] = collections.Counter()
        self.kinds: collections.Counter[str] = collections.Counter()
        self.unexpected: list[str] = []
        self.not_json = 0
        self.errors: collections.Counter[str] = collections.Counter()
        self.done = 0

    def add(self, req: Req, status: int | None, body: bytes | None) -> None:
        with self.lock:
            self.done += 1
            self.status[status] += 1
            self.kinds[req.kind] += 1
            if status is not None and status >= 400 and body is not None and not is_json_error(body):
                self.not_json += 1
            if status is not None and req.expect and status not in req.expect and len(self.unexpected) < 10:
                self.unexpected.append(f"{req.kind} {req.method} {req.path[:60]} -> {status}")


def client(seed: int, srv: Server, sids: list[str], count: int, stop: float, tally: Tally) -> None:
    with httpx.Client(base_url=srv.url, timeout=30) as http:
        for req in requests(seed, srv.url, sids, 1, count):
            if time.monotonic() > stop:
                return
            try:
                if req.mode in RAW or len(req.body or b"") > (1 << 20):
                    tally.add(req, raw_request(req, srv.port), None)
                else:
                    r = http.request(req.method, req.path, headers=req.headers, content=req.body)
                    tally.add(req, r.status_code, r.content)
            except (httpx.HTTPError, OSError) as exc:
                with tally.lock:
                    tally.errors[type(exc).__name__] += 1


def warm_up(srv: Server) -> list[str]:
    """Live sessions for the fuzz to aim at, and every endpoint touched once (imports, caches)."""
    sids = []
    for game in ("shogi", "minishogi", "tictactoe", "reversi", "chess"):
        r = httpx.post(f"{srv.url}/api/play", json={"game": game, "black": {"kind": "human"},
                                                    "white": {"kind": "human"}}, headers=srv.origin, timeout=30)
        sids.append(r.json()["id"])
    for path in ("/api/games", "/api/dbs", "/api/dbs/0", "/api/dbs/0/games", "/api/dbs/0/facets", "/api/dbs/0/games/1",
                 "/api/dbs/0/report", "/api/dbs/0/plots/score_ci.svg", f"/api/play/{sids[0]}/record"):
        httpx.get(srv.url + path, timeout=120)
    return sids


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=12_000, help="requests in all")
    ap.add_argument("--clients", type=int, default=4, help="concurrent clients")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=900, help="stop sending after this long")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="komaken-web-fuzz-") as tmp:
        db = small_db(Path(tmp) / "small.db")
        with Server(["--db", str(db)], Path(tmp) / "server.log") as srv:
            assert srv.proc is not None
            proc = psutil.Process(srv.proc.pid)
            sids = warm_up(srv)
            before = proc.memory_info().rss
            peak = [before]
            tally = Tally()
            stop = time.monotonic() + args.max_seconds
            sampling = threading.Event()

            def sample() -> None:
                while not sampling.wait(0.2):
                    peak[0] = max(peak[0], proc.memory_info().rss)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            per = -(-args.count // args.clients)
            workers = [threading.Thread(target=client, args=(args.seed * 1000 + i, srv, sids, per, stop, tally))
                       for i in range(args.clients)]
            t0 = time.perf_counter()
            for w in workers:
                w.start()
            for w in workers:
                w.join(args.max_seconds + 120)
            elapsed = time.perf_counter() - t0
            time.sleep(1.0)  # the last leavers' log lines
            sampling.set()
            sampler.join(5)
            after = proc.memory_info().rss
            alive = srv.proc.poll() is None
        log = (Path(tmp) / "server.log").read_text(errors="replace")
    return report(args, tally, elapsed, before, peak[0], after, alive, log)


def report(args: argparse.Namespace, tally: Tally, elapsed: float, before: int, peak: int, after: int,
           alive: bool, log: str) -> int:
    mb = 1 << 20
    fives = sum(n for s, n in tally.status.items() if s is not None and s >= 500)
    growth = (after - before) / mb
    print(f"web fuzz: {tally.done} requests ({args.clients} clients, seed {args.seed}) in {elapsed:.1f} s: "
          f"{tally.done / elapsed:.0f} requests/s")
    print("  by kind:  " + ", ".join(f"{k} {n}" for k, n in sorted(tally.kinds.items())))
    print("  answers:  " + ", ".join(f"{'none' if s is None else s}: {n}"
                                     for s, n in sorted(tally.status.items(), key=lambda kv: kv[0] or 0)))
    print(f"  answers >= 500: {fives}    refusals that are not JSON: {tally.not_json}    "
          f"client errors: {dict(tally.errors) or 0}")
    print(f"  server RSS: before {before / mb:.1f} MB, peak {peak / mb:.1f} MB, after {after / mb:.1f} MB "
          f"(growth {growth:+.1f} MB; limit {GROWTH_LIMIT_MB})")
    leaves = tally.kinds["leave"]
    print(f"  server log: {log.count('disconnected after')} one-line disconnects for {leaves} leavers, "
          f"{log.count('Traceback')} tracebacks; server alive: {alive}")
    for line in tally.unexpected:
        print("  unexpected status: " + line)
    ok = fives == 0 and growth < GROWTH_LIMIT_MB and "Traceback" not in log and alive and tally.not_json == 0
    print("  requirements: " + ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
