"""Load harness for `lumente memory serve` (standard library + httpx2 only).

    python bench/serve_load.py                      # 50 clients, 30 s, + baselines
    python bench/serve_load.py --clients 10 --seconds 5 --no-baselines
    python bench/serve_load.py --url http://127.0.0.1:9090 --api-key-file key

Without --url it starts `python -m lumente_cli memory serve --port 0` on a
fresh database in a temp dir, and stops it (SIGTERM) at the end.

Each client is one learner: its own minted key, granted only
`learner/load_<i>/*`, and one keep-alive HTTP connection. It loops for the
given time: write a fact (a new value each time, so every write adds a row,
with a unique Idempotency-Key), read the entity, read that key's history.
Afterwards every chain is read back and checked: exactly the rows the
clients were told were written, one open row, every link in place. Any
error, missing or extra row is reported and fails the run (exit 1).

Baselines, measured in the same run: the same workload with the same number
of threads handed straight to the engine in this process (`InProcess`: no
HTTP, same engine, same bearer-key checks), and a single client over HTTP.

Results go to stdout as a table and to bench/results/serve_load.json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/machine.py, beside this script
from figures import Figure
from machine import describe
from typing import Any

import httpx2

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "serve_load.json"
CONTEXT = "load"
KEYS = ("k0", "k1", "k2", "k3")
OPS = ("write", "entity", "history")


# --------------------------------------------------------------- the server


def start_server(workdir: Path, *, extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str, str]:
    """`lumente memory serve --port 0` on a fresh database; returns (process, url, admin key)."""
    key = "bench-admin-" + os.urandom(16).hex()
    key_file = workdir / "admin.key"
    key_file.write_text(key)
    key_file.chmod(0o600)
    env = {**os.environ, "LUMENTE_HOME": str(workdir / "home")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lumente_cli", "memory", "serve", "--port", "0", "--db", str(workdir / "memory.db"),
         "--api-key-file", str(key_file), "-q", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"http://\S+", line)
    if not found:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    return proc, found.group(0), key


def stop_server(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return -9


# ------------------------------------------------------------ the workload


def prepare(http: httpx2.Client, admin_key: str, clients: int, run: str) -> list[dict[str, str]]:
    """One minted key and one registered scope per client."""
    auth = {"Authorization": f"Bearer {admin_key}"}
    out = []
    for i in range(clients):
        scope = f"learner/load_{run}_{i}"
        grants = {v: [scope + "/*"] for v in ("memory:read", "memory:write", "scope:create")}
        r = http.post(f"/api/v1/{CONTEXT}/keys", json={"name": f"load-{run}-{i}", "grants": grants}, headers=auth)
        r.raise_for_status()
        key = r.json()["key"]
        r = http.post(f"/api/v1/{CONTEXT}/scopes", json={"path": scope}, headers={"Authorization": f"Bearer {key}"})
        r.raise_for_status()
        out.append({"key": key, "scope": scope, "entity": f"load_{run}_{i}", "tag": f"{run}-{i}"})
    return out


def client_loop(http: httpx2.Client, learner: dict[str, str], stop_at: float, start_at: float) -> dict[str, Any]:
    """One client's loop. Returns latencies (ms) per op, errors, and the values it was told were written."""
    headers = {"Authorization": f"Bearer {learner['key']}"}
    base = f"/api/v1/{CONTEXT}/entities/topic/{learner['entity']}"
    lat: dict[str, list[float]] = {op: [] for op in OPS}
    errors: list[str] = []
    written: dict[str, list[str]] = {k: [] for k in KEYS}
    n = 0
    while time.time() < start_at:
        time.sleep(0.001)
    while time.time() < stop_at:
        key, value = KEYS[n % len(KEYS)], f"{learner['tag']}-{n}"
        body = {"infer": "triples", "scopes": [[learner["scope"]]], "memory_category": "knowledge",
                "triples": [{"entity": {"type": "topic", "name": learner["entity"]}, "key": key, "value": value}]}
        calls: list[tuple[str, Callable[[], httpx2.Response]]] = [
            ("write", lambda: http.post(f"/api/v1/{CONTEXT}/facts", json=body,
                                        headers={**headers, "Idempotency-Key": f"load-{learner['tag']}-{n}"})),
            ("entity", lambda: http.get(base, headers=headers)),
            ("history", lambda: http.get(f"{base}/history/{key}", headers=headers)),
        ]
        for op, call in calls:
            t0 = time.perf_counter()
            try:
                r = call()
                ok = r.status_code == 200
                if ok:
                    r.json()
                else:
                    errors.append(f"{op} {r.status_code}: {r.text[:200]}")
            except (httpx2.HTTPError, ValueError) as exc:
                ok = False
                errors.append(f"{op}: {type(exc).__name__}: {exc}")
            lat[op].append((time.perf_counter() - t0) * 1000)
            if op == "write" and ok:
                written[key].append(value)
        n += 1
    return {"lat": lat, "errors": errors, "written": written, "entity": learner["entity"], "key": learner["key"]}


def _threads(make_http: Callable[[], httpx2.Client], learners: list[dict[str, str]], stop_at: float,
             start_at: float) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    lock = threading.Lock()

    def one(learner: dict[str, str]) -> None:
        with make_http() as http:
            res = client_loop(http, learner, stop_at, start_at)
        with lock:
            results.append(res)

    threads = [threading.Thread(target=one, args=(learner,)) for learner in learners]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _process_worker(url: str, learners: list[dict[str, str]], stop_at: float, start_at: float, conn: Any) -> None:
    results = _threads(lambda: http_client(url), learners, stop_at, start_at)
    conn.send(json.dumps(results))
    conn.close()


def http_client(url: str) -> httpx2.Client:
    return httpx2.Client(base_url=url, timeout=httpx2.Timeout(30.0),
                         limits=httpx2.Limits(max_connections=1, max_keepalive_connections=1))


def verify(http: httpx2.Client, results: list[dict[str, Any]]) -> list[str]:
    """Every value a client was told was written is in its chain, exactly once, and nothing else is."""
    problems = []
    for res in results:
        headers = {"Authorization": f"Bearer {res['key']}"}
        for key, values in res["written"].items():
            r = http.get(f"/api/v1/{CONTEXT}/entities/topic/{res['entity']}/history/{key}", headers=headers)
            rows = r.json()["history"] if r.status_code == 200 else []
            got = [row["value"] for row in rows]
            if sorted(got) != sorted(values):
                problems.append(f"{res['entity']}/{key}: {len(values)} written, {len(got)} stored")
            open_rows = [row for row in rows if row["validUntil"] is None]
            if values and len(open_rows) != 1:
                problems.append(f"{res['entity']}/{key}: {len(open_rows)} open rows")
            ids = {row["id"]: row for row in rows}
            for row in rows:
                nxt = row["supersededBy"]
                if nxt is not None and (nxt not in ids or ids[nxt]["supersedes"] != row["id"]):
                    problems.append(f"{res['entity']}/{key}: broken link at {row['id']}")
    return problems


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def summarise(name: str, results: list[dict[str, Any]], seconds: float, problems: list[str]) -> dict[str, Any]:
    ops: dict[str, Any] = {}
    everything: list[float] = []
    for op in OPS:
        lat = [x for r in results for x in r["lat"][op]]
        everything += lat
        ops[op] = {"requests": len(lat), "per_s": round(len(lat) / seconds, 1), "p50_ms": round(pct(lat, 0.50), 2),
                   "p99_ms": round(pct(lat, 0.99), 2)}
    errors = [e for r in results for e in r["errors"]]
    return {
        "name": name, "clients": len(results), "seconds": seconds, "requests": len(everything),
        "per_s": round(len(everything) / seconds, 1), "p50_ms": round(pct(everything, 0.50), 2),
        "p99_ms": round(pct(everything, 0.99), 2),
        "mean_ms": round(statistics.fmean(everything), 2) if everything else 0.0,
        "ops": ops, "errors": len(errors), "error_samples": errors[:5],
        "rows_written": sum(len(v) for r in results for v in r["written"].values()),
        "lost_or_extra": len(problems), "problem_samples": problems[:5],
    }


def run_served(url: str, admin_key: str, *, clients: int, seconds: float, processes: int,
               name: str = "served") -> dict[str, Any]:
    run = os.urandom(3).hex()
    with http_client(url) as http:
        learners = prepare(http, admin_key, clients, run)
    start_at = time.time() + (0.2 if processes <= 1 else 0.5 + 0.5 * processes)  # spawned workers start slowly
    stop_at = start_at + seconds
    if processes <= 1:
        results = _threads(lambda: http_client(url), learners, stop_at, start_at)
    else:
        ctx = multiprocessing.get_context("spawn")
        pipes, procs = [], []
        for p in range(processes):
            mine = learners[p::processes]
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_process_worker, args=(url, mine, stop_at, start_at, send))
            proc.start()
            pipes.append(recv)
            procs.append(proc)
        results = [r for pipe in pipes for r in json.loads(pipe.recv())]
        for proc in procs:
            proc.join()
    with http_client(url) as http:
        problems = verify(http, results)
    return summarise(name, results, seconds, problems)


class InProcess(httpx2.BaseTransport):
    """The workload's httpx2 requests handed to an engine in this process: no HTTP."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.raw_path.decode("ascii").split("?", 1)[0]
        query = dict(request.url.params.multi_items())
        reply = self.engine.handle(request.method, path, query, dict(request.headers.items()), request.read())
        return httpx2.Response(reply.status, headers=reply.headers, content=reply.body, request=request)


def run_embedded(workdir: Path, *, clients: int, seconds: float) -> dict[str, Any]:
    """The same workload and threads handed to the engine in-process: no HTTP."""
    from lumente_cli.memory_engine import KeyRing, MemoryEngine

    admin_key = "bench-admin-" + os.urandom(16).hex()
    engine = MemoryEngine(workdir / "embedded.db", auth=KeyRing(admin_keys=[admin_key]))
    transport = InProcess(engine)

    def make() -> httpx2.Client:
        return httpx2.Client(base_url="http://embedded.memory", transport=transport, timeout=30.0)

    try:
        run = os.urandom(3).hex()
        with make() as http:
            learners = prepare(http, admin_key, clients, run)
        start_at = time.time() + 0.3
        results = _threads(make, learners, start_at + seconds, start_at)
        with make() as http:
            problems = verify(http, results)
    finally:
        engine.close()
    return summarise("embedded (in-process, no HTTP)", results, seconds, problems)


# ------------------------------------------------------------------ report



def table(runs: list[dict[str, Any]]) -> str:
    head = f"{'run':<34} {'clients':>7} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} {'lost':>5}"
    lines = [head, "-" * len(head)]
    for r in runs:
        lines.append(f"{r['name']:<34} {r['clients']:>7} {r['per_s']:>8.1f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} "
                     f"{r['errors']:>6} {r['lost_or_extra']:>5}")
        for op, o in r["ops"].items():
            lines.append(f"  {op:<32} {'':>7} {o['per_s']:>8.1f} {o['p50_ms']:>8.2f} {o['p99_ms']:>8.2f}")
    return "\n".join(lines)


# ------------------------------------------------------- as a harness section


def _served_figures(label: str, runs: list[dict[str, Any]], *, rate_note: str = "") -> list[Figure]:
    return [
        Figure("serve", f"{label}: throughput", "req/s", [r["per_s"] for r in runs], higher_is_better=True,
               note=rate_note),
        Figure("serve", f"{label}: p50 per request", "ms", [r["p50_ms"] for r in runs]),
        Figure("serve", f"{label}: p99 per request", "ms", [r["p99_ms"] for r in runs]),
    ]


def measure(quick: bool = False) -> list[Figure]:
    """Served over loopback with 1 and 50 clients, and 50 threads in-process as the baseline.

    Each configuration: one short warm-up run, then several timed runs; every
    run must end with no error and no lost or extra row, or the section fails.
    """
    runs, seconds, clients = (1, 1.5, 10) if quick else (3, 8.0, 50)
    results: dict[str, list[dict[str, Any]]] = {"many": [], "one": [], "embedded": []}
    with tempfile.TemporaryDirectory(prefix="serve-load-") as tmp:
        work = Path(tmp)
        proc, url, key = start_server(work)
        try:
            for name, n, procs in (("many", clients, 2), ("one", 1, 1)):
                run_served(url, key, clients=n, seconds=1.0, processes=procs)  # warm-up
                results[name] = [run_served(url, key, clients=n, seconds=seconds, processes=procs)
                                 for _ in range(runs)]
        finally:
            code = stop_server(proc)
        run_embedded(work, clients=clients, seconds=1.0)
        results["embedded"] = [run_embedded(work, clients=clients, seconds=seconds) for _ in range(runs)]
    bad = [r for rs in results.values() for r in rs if r["errors"] or r["lost_or_extra"]]
    if bad or code != 0:
        raise SystemExit(f"serve: errors or lost rows, or the server exited {code}: {bad[:1]}")
    many = _served_figures(f"served, {clients} clients", results["many"])
    one = _served_figures("served, 1 client", results["one"])
    embedded = _served_figures(f"in-process, {clients} threads, no HTTP (baseline)", results["embedded"])
    many[0].against(one[0])
    many[0].note = "ratio: against 1 client"
    many[1].against(one[1])
    one[0].against(embedded[0])
    one[0].note = "ratio: against in-process"
    rows = sum(r["rows_written"] for rs in results.values() for r in rs)
    many[0].extra = {"rows_checked": rows, "seconds_per_run": seconds, "runs": runs}
    return [*many, *one, *embedded]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--processes", type=int, default=2, help="client processes sharing the clients (default 2)")
    ap.add_argument("--url", help="an already running server (else one is started)")
    ap.add_argument("--api-key-file", type=Path, help="its admin key, with --url")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--json", type=Path, default=RESULTS, help=f"where to write results (default {RESULTS})")
    args = ap.parse_args(argv)

    runs = []
    with tempfile.TemporaryDirectory(prefix="serve-load-") as tmp:
        work = Path(tmp)
        proc = None
        if args.url:
            url, key = args.url, args.api_key_file.read_text().strip() if args.api_key_file else ""
        else:
            proc, url, key = start_server(work)
        try:
            runs.append(run_served(url, key, clients=args.clients, seconds=args.seconds, processes=args.processes,
                                   name=f"served, {args.clients} clients"))
            if not args.no_baselines:
                runs.append(run_served(url, key, clients=1, seconds=min(args.seconds, 10.0), processes=1,
                                       name="served, 1 client"))
        finally:
            code = stop_server(proc) if proc is not None else 0
        if not args.no_baselines:
            runs.append(run_embedded(work, clients=args.clients, seconds=args.seconds))
    report: dict[str, Any] = {"machine": describe(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                              "args": {"clients": args.clients, "seconds": args.seconds,
                                       "processes": args.processes}, "runs": runs, "server_exit": code}
    if len(runs) == 3:
        served, single, embedded = runs
        report["ratios"] = {
            "served_vs_embedded_throughput": round(served["per_s"] / embedded["per_s"], 3),
            "served_vs_single_client_throughput": round(served["per_s"] / single["per_s"], 3),
            "served_vs_embedded_p50": round(served["p50_ms"] / embedded["p50_ms"], 2) if embedded["p50_ms"] else None,
        }
    print(table(runs))
    m = report["machine"]
    print(f"\nmachine: {m['nproc']} cores, {m['cpu']}, Python {m['python']}, SQLite {m['sqlite']}")
    if "ratios" in report:
        print("ratios:", json.dumps(report["ratios"]))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"results written to {args.json}")
    bad = any(r["errors"] or r["lost_or_extra"] for r in runs) or code != 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
