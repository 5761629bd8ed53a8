"""The SPARQL fast path (:mod:`kgsvc.api.fast_path`) answers exactly what the full FastAPI stack answers.

One real server serves kgsvc's app behind a small ASGI switch: a request with the header ``x-test-route: full`` is
handed to ``FastAPI.__call__`` (middleware, router, the Starlette routes of :mod:`kgsvc.api.protocol`), any other
request to the app itself (the fast path). Each case is sent both ways and must get the same status, media type,
error headers and body. The switch also records whether a request passed Starlette's router (it leaves
``scope["router"]``), so the tests see which way each request really went.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import rdflib
from fastapi import FastAPI
from rdflib.compare import isomorphic
from starlette.testclient import TestClient
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import kgsvc
from kgsvc.api import create_app
from kgsvc.api.fast_path import KgsvcApp, sparql_dataset
from tests.api.conftest import AUTH, TOKEN, Served, _serve

EX = "https://kgsvc.local/sample/"
SELECT = f"SELECT ?p ?o WHERE {{ <{EX}film_Paprika> ?p ?o }} ORDER BY ?p ?o"
CONSTRUCT = f"CONSTRUCT WHERE {{ <{EX}film_Paprika> ?p ?o }}"
ASK = "ASK { ?s ?p ?o }"
DATASET = "/datasets/sample/sparql"


#: How each request was served, in order: "fast" (the shortcut) or "stack" (through Starlette's router).
ROUTES: list[str] = []


def _switch(app: FastAPI) -> ASGIApp:
    async def switch(scope: Scope, receive: Receive, send: Send) -> None:
        async def record(message: Message) -> None:
            # Recorded before the response leaves, so the client cannot see it (and send its next request) first.
            if message["type"] == "http.response.start":
                ROUTES.append("stack" if "router" in scope else "fast")
            await send(message)

        if scope["type"] != "http":
            await app(scope, receive, send)
        elif (b"x-test-route", b"full") in scope["headers"]:
            await FastAPI.__call__(app, scope, receive, record)
        else:
            await app(scope, receive, record)

    return switch


@pytest.fixture(scope="module")
def switched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(
        tmp_path_factory.mktemp("fast") / "data",
        wrap=_switch,
        api_token=TOKEN,
        query_timeout_s=5.0,
        max_result_rows=20,
    )


def _both(
    served: Served, method: str, url: str, *, shortcut: bool = True, **kwargs: Any
) -> tuple[httpx.Response, httpx.Response]:
    """The answers without and with ``x-test-route: full``; ``shortcut``: the first must take the fast path."""
    headers = dict(kwargs.pop("headers", {}))
    with served.http() as client:
        fast = client.request(method, url, headers=headers, **kwargs)
        full = client.request(method, url, headers={**headers, "x-test-route": "full"}, **kwargs)
    assert ROUTES[-2:] == ["fast" if shortcut else "stack", "stack"]
    return fast, full


def _same(fast: httpx.Response, full: httpx.Response, *, rdf: str | None = None) -> None:
    """Same answer; ``rdf``: the body is RDF with blank nodes (rdflib format name), compared as graphs."""
    assert fast.status_code == full.status_code, (fast.text, full.text)
    for header in ("content-type", "retry-after", "www-authenticate"):
        assert fast.headers.get(header) == full.headers.get(header), header
    if rdf is None:
        assert fast.content == full.content
    else:
        assert isomorphic(
            rdflib.Graph().parse(data=fast.text, format=rdf), rdflib.Graph().parse(data=full.text, format=rdf)
        )


def test_the_app_is_the_fast_path_app(switched: Served) -> None:
    assert isinstance(switched.app, KgsvcApp)


@pytest.mark.parametrize(
    ("query", "accept"),
    [
        (SELECT, "application/sparql-results+json"),
        (SELECT, "application/sparql-results+xml"),
        (SELECT, "text/csv"),
        (SELECT, "text/tab-separated-values"),
        (ASK, "application/sparql-results+json"),
        (ASK, "application/sparql-results+xml"),
        (CONSTRUCT, "text/turtle"),
        (CONSTRUCT, "application/n-triples"),
        (CONSTRUCT, "application/rdf+xml"),
        (CONSTRUCT, "application/ld+json"),
    ],
)
def test_every_format_is_answered_the_same(switched: Served, query: str, accept: str) -> None:
    fast, full = _both(switched, "GET", DATASET, params={"query": query}, headers={"Accept": accept})
    assert fast.status_code == 200 and fast.headers["content-type"].startswith(accept)
    _same(fast, full)


def test_every_request_shape_is_answered_the_same(switched: Served) -> None:
    graph = {"default-graph-uri": "urn:kgsvc:dataset:sample"}
    cases: list[tuple[str, str, dict[str, Any], str | None]] = [
        ("GET", "/sparql", {"params": {"query": SELECT, **graph}}, None),
        ("GET", "/sparql", {"params": {"query": SELECT}}, None),  # union default graph
        ("GET", DATASET, {"params": {"query": SELECT, "format": "csv"}}, None),
        ("GET", DATASET, {"params": {"query": f'SELECT ?s {{ ?s <{EX}name> "Café + 100% = ☃" }}'}}, None),
        ("POST", DATASET, {"data": {"query": SELECT}}, None),
        (
            "POST",
            "/sparql",
            {"content": SELECT, "params": graph, "headers": {"Content-Type": "application/sparql-query"}},
            None,
        ),
        ("GET", DATASET, {}, "turtle"),  # service descriptions have blank nodes
        ("GET", "/sparql", {"headers": {"Accept": "application/n-triples"}}, "nt"),
    ]
    for method, url, kwargs, rdf in cases:
        fast, full = _both(switched, method, url, **kwargs)
        assert fast.status_code == 200, (method, url, fast.text)
        _same(fast, full, rdf=rdf)


def test_every_error_is_answered_the_same(switched: Served) -> None:
    update = {"update": f"INSERT DATA {{ <{EX}a> <{EX}b> 1 }}"}
    cases: list[tuple[str, str, dict[str, Any], int]] = [
        ("GET", DATASET, {"params": {"query": "SELECT * WHERE { ?s ?p }"}}, 400),  # the parser's message
        ("GET", DATASET, {"params": {"query": "SELECT * WHERE { ?s ?p ?o }"}}, 413),  # over 20 rows
        ("GET", DATASET, {"params": {"query": SELECT}, "headers": {"Accept": "image/png"}}, 406),
        ("GET", "/datasets/nope/sparql", {"params": {"query": SELECT}}, 404),
        ("GET", "/datasets/Bad%20Name/sparql", {"params": {"query": SELECT}}, 400),
        ("GET", DATASET, {"params": {"query": "SELECT * { SERVICE <http://example.org/> { ?s ?p ?o } }"}}, 403),
        ("GET", DATASET, {"params": {"query": SELECT, "default-graph-uri": "not an iri"}}, 400),
        ("GET", DATASET, {"params": {"query": [SELECT, ASK]}}, 400),
        ("GET", DATASET, {"params": update}, 400),
        ("POST", DATASET, {"content": SELECT, "headers": {"Content-Type": "text/plain"}}, 415),
        ("POST", DATASET, {"data": {"query": SELECT, **update}}, 400),
        ("POST", DATASET, {"content": b"\xff", "headers": {"Content-Type": "application/sparql-query"}}, 400),
        ("POST", DATASET, {"data": update}, 401),
        ("POST", DATASET, {"data": update, "headers": {"Authorization": "Bearer wrong"}}, 403),
        ("POST", DATASET, {"data": {"update": "LOAD <file:///etc/passwd>"}, "headers": AUTH}, 403),
    ]
    for method, url, kwargs, status in cases:
        fast, full = _both(switched, method, url, **kwargs)
        assert fast.status_code == status, (method, url, kwargs, fast.text)
        assert fast.json()["status"] == status
        _same(fast, full)
    assert switched.count("sample") == 615


def test_other_methods_and_paths_go_through_the_full_app(switched: Served) -> None:
    for method, url, status in (("PUT", DATASET, 405), ("GET", "/datasets/a/b/sparql", 404), ("GET", "/health", 200)):
        fast, full = _both(switched, method, url, shortcut=False)
        assert fast.status_code == status
        _same(fast, full)


def test_sparql_dataset_reads_the_route_as_the_router_does() -> None:
    assert sparql_dataset("/sparql") == (True, None)
    assert sparql_dataset("/datasets/films/sparql") == (True, "films")
    for path in ("/datasets//sparql", "/datasets/a/b/sparql", "/sparql/", "/datasets/films/store", "/x/sparql"):
        assert sparql_dataset(path) == (False, None)


class _Stamp:
    """A user middleware that stamps every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-stamp", b"1")]
            await send(message)

        await self.app(scope, receive, stamped)


def test_an_app_with_user_middleware_serves_sparql_through_it(tmp_path: Path) -> None:
    settings = kgsvc.Settings(data_dir=tmp_path, auto_index=False)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        app = create_app(kg, settings)
        app.add_middleware(_Stamp)
        with TestClient(app) as client:
            response = client.get(DATASET, params={"query": ASK})
    assert response.json()["boolean"] is True and response.headers["x-stamp"] == "1"
