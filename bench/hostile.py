"""Ordinary query latency while hostile requests arrive (issue 20): a nested-brace bomb, a 400 MB body, a gzip
bomb and an out-of-range ``/ask``, each sent to a real ``kgsvc serve`` (granian, subprocess, loopback).

The sample KG is loaded as dataset ``sample``; writes need a token. One thread sends ordinary queries in a loop
(``SELECT (COUNT(*) …)``, answered by a query worker, and a single-pattern lookup, answered inline) for
``--seconds`` with nothing else running (the baseline), then again while another process repeats one hostile
request (``--pause`` seconds apart; 0: back to back). Reported per attack: the status the attack got, how many
ordinary queries were answered and failed, the median and 95th percentile of their latency and the ratio of the
median to the baseline median.

Run: ``python bench/hostile.py [--seconds 5] [--pause 0.1]``.
"""

from __future__ import annotations

import argparse
import gzip
import io
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import httpx

import kgsvc

TOKEN = "bench-token"
QUERIES = [
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    "SELECT ?o WHERE { <https://kgsvc.local/sample/entity/Kill%20Bill> ?p ?o }",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _chunks(total: int, size: int = 1 << 20) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield b" " * min(size, total - sent)
        sent += size


def _raw_post(url: str, path: str, headers: dict[str, str], chunks: Iterator[bytes]) -> int:
    """POST chunked ``chunks`` over a raw socket until the server answers; its status."""
    import select
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        head = f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nTransfer-Encoding: chunked\r\n"
        sock.sendall((head + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n").encode())
        for chunk in chunks:
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                break
        answer = sock.recv(4096)
    return int(answer.split(b" ", 2)[1])


ATTACKS = ["nested-brace query", "nested-brace update", "400 MB body", "gzip bomb", "out-of-range /ask"]


def _attack(url: str, name: str) -> Callable[[], int]:
    """The hostile request ``name``, ready to send (the gzip bomb is compressed here, once)."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    nested = "{" * 3000 + "}" * 3000
    client = httpx.Client(base_url=url, timeout=120)
    if name == "nested-brace query":
        return lambda: client.get("/sparql", params={"query": f"SELECT * WHERE {nested}"}).status_code
    if name == "nested-brace update":
        update = f"INSERT {{ <urn:a> <urn:b> <urn:c> }} WHERE {nested}"
        return lambda: client.post("/sparql", data={"update": update}, headers=auth).status_code
    if name == "400 MB body":
        return lambda: _raw_post(url, "/sparql", {"Content-Type": "application/sparql-query"}, _chunks(400 << 20))
    if name == "gzip bomb":
        line = b"<http://x/a> <http://x/b> <http://x/c> .\n"
        bomb = io.BytesIO()
        with gzip.GzipFile(fileobj=bomb, mode="wb", compresslevel=1) as sink:
            block = line * ((1 << 20) // len(line))
            for _ in range(1100):  # 1.1 GiB inflated, past the 1 GiB default
                sink.write(block)
        payload = bomb.getvalue()
        files = {"file": ("bomb.nt.gz", payload)}
        return lambda: client.post("/datasets", files=files, data={"name": "bomb"}, headers=auth).status_code
    options = {"max_hops": 12, "relation_k": 1000}
    return lambda: client.post("/ask", json={"question": "who directed Kill Bill", "options": options}).status_code


def _hostile_loop(url: str, name: str, pause: float, stop: Any, ready: Any, statuses: Any) -> None:
    """Repeat the attack ``name`` until ``stop`` is set (in its own process: no GIL shared with the measurement)."""
    attack = _attack(url, name)
    ready.set()
    while not stop.is_set():
        statuses.put(attack())
        time.sleep(pause)


def _measure(url: str, seconds: float, attack: str | None, pause: float) -> tuple[list[float], int, set[int]]:
    latencies: list[float] = []
    failures = 0
    context = multiprocessing.get_context("fork")
    stop, ready, queue = context.Event(), context.Event(), context.Queue()
    process = context.Process(target=_hostile_loop, args=(url, attack, pause, stop, ready, queue)) if attack else None
    if process:
        process.start()
        ready.wait(300)  # the gzip bomb is compressed first
    with httpx.Client(base_url=url, timeout=60) as client:
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end:
            started = time.perf_counter()
            response = client.get("/datasets/sample/sparql", params={"query": QUERIES[i % len(QUERIES)]})
            latencies.append(time.perf_counter() - started)
            failures += response.status_code != 200
            i += 1
    stop.set()
    statuses: set[int] = set()
    if process:
        while True:
            try:
                statuses.add(queue.get(timeout=5))
            except Empty:
                break
        process.join(timeout=300)
    return latencies, failures, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--pause", type=float, default=0.0, help="Seconds between two hostile requests.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgsvc-hostile-") as folder:
        data = Path(folder) / "data"
        with kgsvc.KG.open(data) as kg:
            kg.load(kgsvc.sample_path(), dataset="sample")
        port = _free_port()
        env = {**os.environ, "KGSVC_API_TOKEN": TOKEN, "KGSVC_AUTO_INDEX": "false"}
        process = subprocess.Popen(
            [sys.executable, "-m", "kgsvc", "serve", "--data-dir", str(data), "--port", str(port), "--no-access-log"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(url + "/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline and process.poll() is None, "kgsvc serve did not start"
                time.sleep(0.2)
            base, _, _ = _measure(url, args.seconds, None, args.pause)
            base_median = statistics.median(base)
            print(f"baseline: {len(base)} queries, median {base_median * 1e3:.2f} ms")
            print(
                "| attack | its status | ordinary queries answered (failed) | median ms | p95 ms | median / baseline |"
            )
            print("|---|---|---|---|---|---|")
            for name in ATTACKS:
                latencies, failures, statuses = _measure(url, args.seconds, name, args.pause)
                median = statistics.median(latencies)
                p95 = statistics.quantiles(latencies, n=20)[-1]
                print(
                    f"| {name} | {', '.join(map(str, sorted(statuses)))} | {len(latencies)} ({failures}) "
                    f"| {median * 1e3:.2f} | {p95 * 1e3:.2f} | {median / base_median:.2f} |"
                )
            assert process.poll() is None, "kgsvc serve died"
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
