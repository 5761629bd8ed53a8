"""Result-size limit (413) and query timeout (503): the slow query's worker process is really killed."""

from __future__ import annotations

import os
import time

import httpx

from kgsvc.api.executor import ProcessExecutor
from tests.api.conftest import Served

#: 615³ ≈ 232 million solutions counted before the first output: about 50 s of work, no row to check a deadline at.
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def _executor(server: Served) -> ProcessExecutor:
    executor = server.app.state.kgsvc.executor
    assert isinstance(executor, ProcessExecutor)
    return executor


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_oversized_results_are_a_413(http: httpx.Client) -> None:
    select = http.get("/datasets/sample/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"})
    assert select.status_code == 413
    assert select.json() == {
        "error": "QueryError",
        "message": "the result has more than 200 rows",
        "status": 413,
        "kind": "too_large",
    }
    for accept in ("text/turtle", "application/n-triples"):
        graph = http.get(
            "/datasets/sample/sparql", params={"query": "CONSTRUCT WHERE { ?s ?p ?o }"}, headers={"Accept": accept}
        )
        assert graph.status_code == 413 and graph.json()["message"] == "the result has more than 200 triples"
    exactly = http.get(
        "/datasets/sample/sparql",
        params={"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 200"},
        headers={"Accept": "text/csv"},
    )
    assert exactly.status_code == 200 and exactly.text.count("\n") == 201


def test_a_slow_query_is_stopped_and_its_worker_killed(http: httpx.Client, server: Served) -> None:
    executor = _executor(server)
    before = {w.process.pid for w in executor._workers}
    started = time.monotonic()
    response = http.get("/datasets/sample/sparql", params={"query": SLOW})
    elapsed = time.monotonic() - started
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "1"
    body = response.json()
    assert body["kind"] == "timeout" and "time limit of 1 s" in body["message"] and "killed" in body["message"]
    assert 1.0 <= elapsed < 3.0
    killed = before - {w.process.pid for w in executor._workers}
    assert len(killed) == 1
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in killed):  # reaped by the executor's replacement task
        assert time.monotonic() < deadline, "the worker running the slow query is still alive"
        time.sleep(0.05)
    # the service keeps answering, and the pool is refilled
    assert http.get("/datasets/sample/sparql", params={"query": "ASK { ?s ?p ?o }"}).json()["boolean"] is True
    while executor._idle is None or executor._idle.qsize() < executor.size:  # the replacement has started
        assert time.monotonic() < deadline + 30, "no replacement worker"
        time.sleep(0.05)
