"""How fast could a Python SPARQL front be? A bare query app under granian beside ``oxigraph serve``, in one run.

Issue 5 asks for ≥ 0.5× ``oxigraph serve`` on the 1-hop mix at 8 clients; ``bench/endpoint.py`` measured kgsvc at
~0.17× before lookups were answered inline and ``kgsvc serve`` moved to granian (0.36–0.40× since). This script
measures the ceiling of a Python front: the same MetaQA store and queries (``bench/endpoint.py``'s ``build`` /
``make_queries`` / load generator), answered by a minimal app that runs each query inline with pyoxigraph and
serialises it natively — no routing, negotiation, limits or timeouts — served by granian (a Rust HTTP server for
Python apps) over ASGI or RSGI with 1 or 2 worker processes; optionally kgsvc's own app under granian too
(``--kgsvc``). Ratios are to ``oxigraph serve`` in the same run, cells alternating.

Run: ``python bench/endpoint_ceiling.py [--interface asgi] [--workers 1] [--kgsvc] [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path
from typing import Any

_STORE: Any = None


def _answer(query_string: str) -> bytes:
    """The SPARQL JSON results of the ``query`` parameter over the dataset graph (``EXP_STORE``, read-only)."""
    import pyoxigraph as ox

    global _STORE
    if _STORE is None:
        _STORE = ox.Store.read_only(os.environ["EXP_STORE"])
    query = urllib.parse.parse_qs(query_string).get("query")
    if not query:
        return b"ok"
    graph = ox.NamedNode("urn:kgsvc:dataset:metaqa")
    return bytes(_STORE.query(query[0], default_graph=graph).serialize(format=ox.QueryResultsFormat.JSON))


async def asgi_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The bare app over ASGI."""
    if scope["type"] != "http":
        return
    body = _answer(scope["query_string"].decode())
    headers = [(b"content-type", b"application/sparql-results+json")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def rsgi_app(scope: Any, protocol: Any) -> None:
    """The bare app over RSGI (granian's own interface)."""
    if scope.proto == "http":
        protocol.response_bytes(200, [("content-type", "application/sparql-results+json")], _answer(scope.query_string))


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import endpoint as bench  # bench/endpoint.py
    import pyoxigraph as ox

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interface", choices=("asgi", "rsgi"), default="asgi")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kgsvc", action="store_true", help="also kgsvc's app (create_app) under granian")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kgsvc-bench-ceiling-") as folder:
        workdir = Path(folder)
        data, dump, base = bench.build(workdir)
        queries = bench.make_queries(base, per_mix=2000, seed=5)["1-hop"]
        store = ox.Store(str(workdir / "bare"))
        store.bulk_load(path=str(dump), format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode(bench.GRAPH))
        store.flush()
        del store
        servers = [bench.start_oxigraph(dump, workdir / "oxigraph", workdir / "oxigraph.log")]
        apps = [("bare", f"endpoint_ceiling:{args.interface}_app", args.interface)]
        if args.kgsvc:
            apps.append(("kgsvc", "kgsvc.api.app:create_app", "asgi"))
        for name, target, interface in apps:
            port = bench._free_port()
            env = dict(os.environ, EXP_STORE=str(workdir / "bare"), KGSVC_DATA_DIR=str(data))
            command = [sys.executable, "-m", "granian", "--interface", interface, "--workers", str(args.workers)]
            command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", target]
            if name == "kgsvc":
                command.insert(-1, "--factory")
            process = subprocess.Popen(
                command, env=env, cwd=Path(__file__).parent, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
            )
            path = "/datasets/metaqa/sparql"
            server = bench.Server(f"granian-{name}", port, path, {}, process)
            servers.append(server)
            bench._wait_ready(server, "/health")
        try:
            for round_ in range(args.rounds):
                rows = {}
                for server in servers if round_ % 2 == 0 else servers[::-1]:
                    rows[server.name] = asyncio.run(bench.run_cell(server, queries, args.clients, args.seconds, 1.0))
                reference = rows["oxigraph"].rps
                for name, cell in rows.items():
                    print(
                        f"round {round_}  {name:14} {cell.rps:8,.0f} req/s  {cell.rps / reference:5.2f}×  "
                        f"server CPU {cell.cpu_us:4.0f} µs/req  errors {cell.errors}  load {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
        finally:
            for server in servers:
                server.stop()


if __name__ == "__main__":
    main()
