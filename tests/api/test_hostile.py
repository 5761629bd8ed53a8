"""Hostile requests get a clear status and cost nothing else: the server and its query workers stay up and keep
answering ordinary queries sent at the same time (issue 20)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import httpx

from kgsvc.api.executor import ProcessExecutor
from tests.api.conftest import AUTH, Served

NESTED = "{" * 3000 + "}" * 3000
ORDINARY = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"  # not a lookup: answered by a query worker


def _workers(server: Served) -> set[int]:
    executor = server.app.state.kgsvc.executor
    assert isinstance(executor, ProcessExecutor)
    return {w.process.pid for w in executor._workers}


class _Background:
    """Ordinary queries sent in a loop from another thread while a hostile request runs; every one must answer."""

    def __init__(self, server: Served) -> None:
        self.server = server
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with self.server.http() as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                response = client.get("/datasets/sample/sparql", params={"query": ORDINARY})
                self.latencies.append(time.perf_counter() - started)
                if response.status_code != 200:
                    self.failures.append(f"{response.status_code} {response.text[:200]}")

    def __enter__(self) -> _Background:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


def under_load(server: Served, hostile: Callable[[], httpx.Response]) -> httpx.Response:
    """Send ``hostile`` while ordinary queries run; check those were all answered, return the hostile answer."""
    with _Background(server) as background:
        time.sleep(0.2)
        response = hostile()
        time.sleep(0.2)
    assert background.latencies, "no ordinary query was answered"
    assert not background.failures, background.failures[:3]
    assert max(background.latencies) < 20, "an ordinary query waited more than 20 s"  # a sanity bound only
    return response


def test_a_nested_brace_query_is_a_400_and_kills_no_worker(http: httpx.Client, server: Served) -> None:
    before = _workers(server)
    response = under_load(
        server, lambda: http.get("/datasets/sample/sparql", params={"query": f"SELECT * WHERE {NESTED}"})
    )
    assert response.status_code == 400, response.text
    assert response.json()["kind"] == "too_complex"
    assert "the limit is 32 (KGSVC_SPARQL_MAX_DEPTH)" in response.json()["message"]
    assert _workers(server) == before


def test_a_nested_brace_update_is_a_400_and_the_server_stays_up(http: httpx.Client, server: Served) -> None:
    update = f"INSERT {{ <urn:a> <urn:b> <urn:c> }} WHERE {NESTED}"
    for request in (
        lambda: http.post("/sparql", data={"update": update}, headers=AUTH),
        lambda: http.post("/sparql", content=update, headers={**AUTH, "Content-Type": "application/sparql-update"}),
    ):
        response = under_load(server, request)
        assert response.status_code == 400, response.text
        assert "KGSVC_SPARQL_MAX_DEPTH" in response.json()["message"]
    assert http.get("/health").status_code == 200


def test_an_operator_chain_is_a_400(http: httpx.Client) -> None:
    query = "SELECT * WHERE { ?s ?p ?o " + "OPTIONAL { ?s ?p ?o } " * 500 + "}"
    response = http.post("/sparql", content=query, headers={"Content-Type": "application/sparql-query"})
    assert response.status_code == 400
    assert "KGSVC_SPARQL_MAX_OPERATORS" in response.json()["message"]


def test_an_unknown_custom_function_is_a_400_without_losing_a_worker(http: httpx.Client, server: Served) -> None:
    before = _workers(server)
    for query in (
        "ASK { BIND(<http://x/f>(1) AS ?x) }",
        "SELECT ?x WHERE { ?s ?p ?o BIND(<http://x/f>(?o) AS ?x) }",
    ):
        response = http.get("/datasets/sample/sparql", params={"query": query})
        assert response.status_code == 400, response.text
        assert "custom function <http://x/f>" in response.json()["message"]
    assert _workers(server) == before


def _chunks(total: int, size: int = 1 << 20) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield b" " * min(size, total - sent)
        sent += size
