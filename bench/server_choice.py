"""Which HTTP server should `lumente memory serve` run on? Measured, not guessed.

Runs the serve_load.py workload (same clients, same engine, same database
settings, same bearer keys) against the engine behind:

* stdlib   - `lumente memory serve` itself (http.server.ThreadingHTTPServer)
* waitress - WSGI, pure Python, thread pool         (pip install waitress)
* cheroot  - WSGI, pure Python, thread pool         (pip install cheroot)
* uvicorn  - ASGI + uvloop + httptools, the engine in a thread pool
                                                    (pip install uvicorn uvloop httptools)

The three candidates are not Lumente dependencies: install them in a scratch
venv next to Lumente to rerun this. Each adapter does only what the
comparison needs (read the body, call `MemoryEngine.handle`, write the
reply); the limits, logging and clean stop of the real server are not
reproduced, which favours the candidates slightly.

    python bench/server_choice.py --clients 50 --seconds 15
Results: bench/results/server_choice.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import serve_load  # noqa: E402

CANDIDATES = ("stdlib", "waitress", "cheroot", "uvicorn")
THREADS = 50  # worker threads for the pooled servers: one per client, like the stdlib server


def _engine(db: str, key: str):  # noqa: ANN202
    from lumente_cli.memory_engine import KeyRing, MemoryEngine

    return MemoryEngine(Path(db), auth=KeyRing(admin_keys=[key]))


def wsgi_app(engine):  # noqa: ANN001, ANN201
    from urllib.parse import parse_qsl

    def app(environ, start_response):  # noqa: ANN001, ANN202
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        raw_path = (environ.get("REQUEST_URI") or environ["PATH_INFO"]).split("?", 1)[0]
        query = dict(parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True))
        headers = {k[5:].replace("_", "-").title(): v for k, v in environ.items() if k.startswith("HTTP_")}
        if "CONTENT_TYPE" in environ:
            headers["Content-Type"] = environ["CONTENT_TYPE"]
        reply = engine.handle(environ["REQUEST_METHOD"], raw_path, query, headers, body)
        out = [(k, v) for k, v in reply.headers.items()] + [("Content-Length", str(len(reply.body)))]
        start_response(f"{reply.status} X", out)
        return [reply.body]

    return app


def asgi_app(engine):  # noqa: ANN001, ANN201
    from urllib.parse import parse_qsl

    import anyio.to_thread
    from anyio import CapacityLimiter

    limiter = CapacityLimiter(THREADS)

    async def app(scope, receive, send):  # noqa: ANN001, ANN202
        if scope["type"] != "http":
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw_path = scope["raw_path"].decode("ascii")
        query = dict(parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True))
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        reply = await anyio.to_thread.run_sync(engine.handle, scope["method"], raw_path, query, headers,
                                               b"".join(chunks), limiter=limiter)
        out = [(k.encode(), v.encode()) for k, v in reply.headers.items()]
        out.append((b"content-length", str(len(reply.body)).encode()))
        await send({"type": "http.response.start", "status": reply.status, "headers": out})
        await send({"type": "http.response.body", "body": reply.body})

    return app


def serve_candidate(name: str, db: str, key: str) -> None:
    """Run one candidate on a free loopback port; print its URL; stop on SIGTERM."""
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    engine = _engine(db, key)
    print(f"listening on http://127.0.0.1:{port}", flush=True)
    if name == "waitress":
        import waitress

        waitress.serve(wsgi_app(engine), host="127.0.0.1", port=port, threads=THREADS, _quiet=True,
                       connection_limit=200)
    elif name == "cheroot":
        from cheroot import wsgi

        server = wsgi.Server(("127.0.0.1", port), wsgi_app(engine), numthreads=THREADS)
        signal.signal(signal.SIGTERM, lambda *_: server.stop())
        server.start()
    elif name == "uvicorn":
        import uvicorn

        uvicorn.run(asgi_app(engine), host="127.0.0.1", port=port, log_level="warning", loop="uvloop",
                    http="httptools", access_log=False)
    engine.close()


def start(name: str, work: Path) -> tuple[subprocess.Popen, str, str]:
    if name == "stdlib":
        return serve_load.start_server(work)
    key = "bench-admin-" + os.urandom(16).hex()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", name, str(work / "memory.db"), key],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    found = re.search(r"http://\S+", line)
    if not found:
        proc.kill()
        raise RuntimeError(f"{name} did not start: {proc.stderr.read() if proc.stderr else ''}")
    url = found.group(0)
    import httpx2

    for _ in range(100):  # the candidate prints before it listens
        try:
            httpx2.get(url + "/api/v1/health", timeout=1.0)
            break
        except httpx2.HTTPError:
            time.sleep(0.05)
    return proc, url, key


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve_candidate(sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=list(CANDIDATES))
    args = ap.parse_args()
    runs: list[dict[str, Any]] = []
    for name in args.only:
        try:
            __import__(name if name != "stdlib" else "http.server")
        except ImportError:
            print(f"skipping {name}: not installed")
            continue
        with tempfile.TemporaryDirectory(prefix=f"choice-{name}-") as tmp:
            proc, url, key = start(name, Path(tmp))
            try:
                run = serve_load.run_served(url, key, clients=args.clients, seconds=args.seconds,
                                            processes=args.processes, name=name)
                run["rss_kib_after"] = _rss(proc.pid)
                runs.append(run)
            finally:
                serve_load.stop_server(proc)
        print(serve_load.table(runs[-1:]), flush=True)
    report = {"machine": serve_load.machine(), "args": vars(args), "runs": runs}
    out = HERE / "results" / "server_choice.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print("\n" + serve_load.table(runs))
    return 0


def _rss(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


if __name__ == "__main__":
    sys.exit(main())
