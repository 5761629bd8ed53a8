"""SPARQL endpoint throughput: kgsvc (``kgsvc serve``) beside ``oxigraph serve`` on the same data, in one run.

The MetaQA KB (``kgsvc.eval.data.metaqa_kb()``, 129k triples) is written as a TSV triple file and loaded with
``KG.load`` into dataset ``metaqa``; kgsvc's own N-Triples dump of it is bulk-loaded into the same named graph
of an Oxigraph store (``oxigraph load --graph``). Both servers run as subprocesses on 127.0.0.1 and get the
same query texts:

* kgsvc: ``GET /datasets/metaqa/sparql?query=…`` (the dataset graph is the default graph);
* oxigraph: ``GET /query?query=…&default-graph-uri=urn:kgsvc:dataset:metaqa``.

Mixes (each a list of distinct queries drawn with a fixed seed from the KB):

* ``1-hop``: ``SELECT ?o WHERE { <e> <r> ?o }`` for random (entity, relation) pairs;
* ``2-hop``: ``SELECT DISTINCT ?x WHERE { <movie> <r> ?y . ?x <r> ?y }`` (movies sharing a director, writer
  or actor);
* ``aggregate``: ``SELECT ?g (COUNT(?m) AS ?n) WHERE { ?m <has_genre> ?g } GROUP BY ?g ORDER BY DESC(?n)``
  and the same over ``release_year`` and ``in_language`` (whole-relation scans).

The load generator is a small asyncio HTTP/1.1 client (keep-alive, one connection per client, Content-Length
and chunked bodies) in this process, so that it costs the servers little CPU; each (mix, clients, server) cell
runs ``--seconds`` after a short warm-up, the two servers alternating. Every answer is checked for status 200,
and the two servers' answers to a sample of each mix are compared. Loopback only.

Run: ``python bench/endpoint.py [--seconds 5] [--clients 1,8,32] [--kgsvc-servers granian,uvicorn]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

GRAPH = "urn:kgsvc:dataset:metaqa"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- data and queries ---------------------------------------------------------------------------------------------


def build(workdir: Path) -> tuple[Path, Path, str]:
    """Load MetaQA into a kgsvc data dir and dump it; returns (data dir, N-Triples dump, entity base)."""
    import kgsvc
    from kgsvc.eval.data import metaqa_kb

    tsv = workdir / "metaqa.tsv"
    with tsv.open("w", encoding="utf-8") as out:
        for h, r, t in metaqa_kb():
            out.write(f"{h}\t{r}\t{t}\n")
    data = workdir / "kgsvc-data"
    # no index build: the endpoint does not use the indexes, and building them takes minutes
    with kgsvc.KG.open(settings=kgsvc.Settings(data_dir=data, auto_index=False)) as kg:
        started = time.perf_counter()
        result = kg.load(tsv, dataset="metaqa")
        print(f"kgsvc: loaded {result.triples_total:,} triples in {time.perf_counter() - started:.1f} s", flush=True)
        dump = workdir / "metaqa.nt"
        dump.write_bytes(kg.dump("metaqa", format="nt"))
        base = kg.catalog.get("metaqa").base_iri or "https://kgsvc.local/metaqa/"
    return data, dump, base


def make_queries(base: str, *, per_mix: int, seed: int) -> dict[str, list[str]]:
    from kgsvc.eval.data import metaqa_kb
    from kgsvc.ingest.triples import entity_iri, relation_iri

    rng = random.Random(seed)
    triples = metaqa_kb()

    def e(text: str) -> str:
        return f"<{entity_iri(base, text)}>"

    def r(name: str) -> str:
        return f"<{relation_iri(base, name)}>"

    one_hop = [f"SELECT ?o WHERE {{ {e(h)} {r(rel)} ?o }}" for h, rel, _ in rng.sample(triples, per_mix)]
    shared = [t for t in triples if t[1] in ("directed_by", "written_by", "starred_actors")]
    two_hop = [
        f"SELECT DISTINCT ?x WHERE {{ {e(h)} {r(rel)} ?y . ?x {r(rel)} ?y }}"
        for h, rel, _ in rng.sample(shared, per_mix)
    ]
    aggregate = [
        f"SELECT ?g (COUNT(?m) AS ?n) WHERE {{ ?m {r(rel)} ?g }} GROUP BY ?g ORDER BY DESC(?n) ?g"
        for rel in ("has_genre", "release_year", "in_language")
    ]
    return {"1-hop": one_hop, "2-hop": two_hop, "aggregate": aggregate}


# -- servers ------------------------------------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    port: int
    path: str
    extra: dict[str, str]
    process: subprocess.Popen[bytes]

    def target(self, query: str) -> str:
        return self.path + "?" + urllib.parse.urlencode({"query": query, **self.extra})

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _wait_ready(server: Server, probe: str) -> None:
    import httpx

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"{server.name} exited with {server.process.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{server.port}{probe}", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{server.name} did not start")


def start_kgsvc(data: Path, log: Path, http_server: str = "granian") -> Server:
    """``kgsvc serve`` on ``data`` under ``http_server`` (granian or uvicorn), as a user runs it."""
    port = _free_port()
    command = [sys.executable, "-m", "kgsvc", "serve", "--data-dir", str(data), "--port", str(port)]
    command += ["--server", http_server, "--no-access-log", "--log-level", "warning"]
    env = dict(os.environ, KGSVC_MAX_RESULT_ROWS="1000000")
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env)
    server = Server(f"kgsvc-{http_server}", port, "/datasets/metaqa/sparql", {}, process)
    _wait_ready(server, "/health")
    return server


def start_oxigraph(dump: Path, location: Path, log: Path) -> Server:
    # the venv's bin/ first: CI runs .venv/bin/python without activating the venv
    binary = shutil.which(
        "oxigraph", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    if binary is None:
        raise RuntimeError("the `oxigraph` server binary (PyPI package oxigraph) is not installed")
    started = time.perf_counter()
    subprocess.run(
        [binary, "load", "--location", str(location), "--file", str(dump), "--graph", GRAPH],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    print(f"oxigraph: loaded the dump in {time.perf_counter() - started:.1f} s", flush=True)
    port = _free_port()
    process = subprocess.Popen(
        [binary, "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    server = Server("oxigraph", port, "/query", {"default-graph-uri": GRAPH}, process)
    _wait_ready(server, "/query?query=ASK%7B%7D")
    return server


# -- load generator -----------------------------------------------------------------------------------------------


async def _get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> tuple[int, bytes]:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if b":" in line:
            key, _, value = line.partition(b":")
            headers[key.strip().lower()] = value.strip()
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        body = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            body += (await reader.readexactly(size + 2))[:-2]
        return status, bytes(body)
    return status, await reader.readexactly(int(headers.get(b"content-length", b"0")))


def _request(port: int, target: str) -> bytes:
    return (
        f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/sparql-results+json\r\n\r\n"
    ).encode()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its live descendants so far (Linux ``/proc``)."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(child) for child in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


@dataclass
class Cell:
    requests: int = 0
    errors: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # the server's (all its processes') CPU time during the measured seconds
    latencies: list[float] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def cpu_us(self) -> float:
        """Server CPU time per request, µs: less sensitive than req/s to other load on the machine."""
        return self.cpu_seconds / self.requests * 1e6 if self.requests else float("nan")

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def _client(
    port: int, requests: list[bytes], offset: int, stop_at: float, measure_from: float, cell: Cell
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    i = offset
    try:
        while True:
            started = time.perf_counter()
            if started >= stop_at:
                return
            status, _ = await _get(reader, writer, requests[i % len(requests)])
            ended = time.perf_counter()
            i += 1
            if started >= measure_from:
                cell.requests += 1
                cell.latencies.append(ended - started)
                if status != 200:
                    cell.errors += 1
    finally:
        writer.close()


async def run_cell(server: Server, queries: list[str], clients: int, seconds: float, warmup: float) -> Cell:
    requests = [_request(server.port, server.target(q)) for q in queries]
    cell = Cell()
    now = time.perf_counter()
    measure_from, stop_at = now + warmup, now + warmup + seconds

    async def cpu_meter() -> None:
        await asyncio.sleep(measure_from - time.perf_counter())
        started = _cpu_seconds(server.process.pid)
        await asyncio.sleep(stop_at - time.perf_counter())
        cell.cpu_seconds = _cpu_seconds(server.process.pid) - started

    await asyncio.gather(
        cpu_meter(),
        *(
            _client(server.port, requests, k * max(1, len(requests) // clients), stop_at, measure_from, cell)
            for k in range(clients)
        ),
    )
    cell.seconds = seconds
    return cell


async def compare_answers(servers: list[Server], queries: list[str]) -> None:
    """The servers must give the same solutions (as multisets) to the same queries."""
    for query in queries:
        answers = []
        for server in servers:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            status, body = await _get(reader, writer, _request(server.port, server.target(query)))
            writer.close()
            if status != 200:
                raise RuntimeError(f"{server.name} answered {status} to {query}: {body[:300]!r}")
            rows = json.loads(body)["results"]["bindings"]
            answers.append(sorted(json.dumps(row, sort_keys=True) for row in rows))
        if answers[0] != answers[1]:
            raise RuntimeError(f"the servers disagree on {query}")


# -- main ---------------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per cell")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each cell")
    parser.add_argument("--clients", default="1,8,32", help="comma-separated concurrency levels")
    parser.add_argument("--mixes", default="1-hop,2-hop,aggregate")
    parser.add_argument("--queries", type=int, default=2000, help="distinct queries per mix")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--kgsvc-servers", default="granian", help="comma-separated HTTP servers for kgsvc serve: granian, uvicorn"
    )
    args = parser.parse_args()
    levels = [int(c) for c in args.clients.split(",")]
    mixes = args.mixes.split(",")

    with tempfile.TemporaryDirectory(prefix="kgsvc-bench-endpoint-") as folder:
        workdir = Path(folder)
        data, dump, base = build(workdir)
        queries = make_queries(base, per_mix=args.queries, seed=args.seed)
        servers = [start_oxigraph(dump, workdir / "oxigraph", workdir / "oxigraph.log")]
        for http_server in args.kgsvc_servers.split(","):  # one data dir each: RocksDB allows one process
            copy = workdir / f"data-{http_server}"
            shutil.copytree(data, copy)
            servers.append(start_kgsvc(copy, workdir / f"kgsvc-{http_server}.log", http_server))
        results: dict[tuple[str, int, str], Cell] = {}
        loads: list[float] = []
        try:
            for mix in mixes:
                asyncio.run(compare_answers(servers, queries[mix][:20]))
            for mix in mixes:
                for clients in levels:
                    order = servers if (len(results) // len(servers)) % 2 == 0 else servers[::-1]
                    for server in order:
                        cell = asyncio.run(run_cell(server, queries[mix], clients, args.seconds, args.warmup))
                        results[(mix, clients, server.name)] = cell
                        loads.append(os.getloadavg()[0])
                        print(
                            f"{mix:9} {clients:3} clients  {server.name:14} {cell.rps:8.0f} req/s  "
                            f"p50 {cell.pct(0.5):7.2f} ms  p99 {cell.pct(0.99):7.2f} ms  "
                            f"server CPU {cell.cpu_us:5.0f} µs/req  errors {cell.errors}  load {loads[-1]:.1f}",
                            flush=True,
                        )
        finally:
            for server in servers:
                server.stop()
            for server in servers[1:]:
                log = (workdir / f"{server.name}.log").read_text(errors="replace").strip()
                if log:
                    print(f"{server.name} log (last lines):\n" + "\n".join(log.splitlines()[-10:]))

    print()
    print(
        f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, {args.seconds:g} s per cell after "
        f"{args.warmup:g} s warm-up, {args.queries} distinct queries per mix (aggregate: 3), "
        f"1-min load average {min(loads):.1f}–{max(loads):.1f} after the cells"
    )
    print()
    print("| mix | clients | server | req/s | ratio to oxigraph | p50 / p99 ms | server CPU µs/req | errors |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for mix in mixes:
        for clients in levels:
            reference = results[(mix, clients, "oxigraph")].rps
            for server in servers:
                cell = results[(mix, clients, server.name)]
                print(
                    f"| {mix} | {clients} | {server.name} | {cell.rps:,.0f} | {cell.rps / reference:.2f}× | "
                    f"{cell.pct(0.5):.2f} / {cell.pct(0.99):.2f} | {cell.cpu_us:,.0f} | {cell.errors} |"
                )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    f"{m}|{c}|{s}": {
                        "rps": cell.rps,
                        "p50_ms": cell.pct(0.5),
                        "p99_ms": cell.pct(0.99),
                        "errors": cell.errors,
                        "requests": cell.requests,
                        "server_cpu_us_per_request": cell.cpu_us,
                    }
                    for (m, c, s), cell in results.items()
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
