"""The ASGI application: SPARQL 1.1 Protocol, Graph Store Protocol and the JSON API in one FastAPI app.

Routes:

| route | what |
|-------|------|
| ``GET/POST /sparql`` | SPARQL query and update over all datasets (:mod:`kgsvc.api.protocol`) |
| ``GET/POST /datasets/{name}/sparql`` | the same with the dataset graph as the default graph |
| ``GET/PUT/POST/DELETE /datasets/{name}/store`` | Graph Store Protocol (:mod:`kgsvc.api.graph_store`) |
| ``/health``, ``/datasets``, ``/datasets/{name}``, ``/jobs``, ``/jobs/{id}``, ``/ask`` | JSON API |
| ``/docs``, ``/openapi.json`` | OpenAPI documentation |
| ``GET /``, ``/static/*`` | the web page (:mod:`kgsvc.web`) |

``GET``/``POST`` on the two SPARQL routes bypass FastAPI's middleware and router (:mod:`kgsvc.api.fast_path`);
the routes stay registered for the other methods (405) and the OpenAPI document. Single-pattern lookups are
answered inline, everything else by a query worker (:mod:`kgsvc.api.lookup`, :mod:`kgsvc.api.executor`).

Status codes: :mod:`kgsvc.api.errors`. Query execution and timeouts: :mod:`kgsvc.api.executor`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool

import kgsvc
from kgsvc.api.errors import install_error_handlers
from kgsvc.api.executor import make_executor
from kgsvc.api.fast_path import KgsvcApp
from kgsvc.api.graph_store import graph_store
from kgsvc.api.json_api import router
from kgsvc.api.protocol import dataset_sparql, sparql
from kgsvc.api.state import ApiState
from kgsvc.sdk import KG
from kgsvc.settings import Settings
from kgsvc.web import mount_page

__all__ = ["create_app"]

_QUERY_PARAMS: list[dict[str, object]] = [
    {"name": "query", "in": "query", "schema": {"type": "string"}, "description": "SPARQL query (GET)"},
    {"name": "default-graph-uri", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
    {"name": "named-graph-uri", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
]
_SPARQL_BODY = {
    "content": {
        "application/sparql-query": {"schema": {"type": "string"}},
        "application/sparql-update": {"schema": {"type": "string"}},
        "application/x-www-form-urlencoded": {
            "schema": {"type": "object", "properties": {"query": {"type": "string"}, "update": {"type": "string"}}}
        },
    }
}


def create_app(kg: KG | None = None, settings: Settings | None = None) -> KgsvcApp:
    """The kgsvc web application.

    Parameters
    ----------
    kg
        An open KG to serve (the caller closes it). ``None``: the app opens ``KG.open(settings=settings)`` when
        it starts (lifespan) and closes it when it stops.
    settings
        Settings for the API (token, read-only, limits); default: ``kg.settings``, or ``KGSVC_*`` variables.

    Nothing is opened here: the store, the query workers and the metadata database are opened in the
    lifespan step, so constructing the app does no I/O.
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        handle = kg if kg is not None else await run_in_threadpool(lambda: KG.open(settings=settings))
        try:
            config = settings or handle.settings
            executor = make_executor(handle.store, config.data_dir)
            await executor.start()
            state = ApiState(kg=handle, settings=config, executor=executor)
            handle.on_change(lambda _event: executor.invalidate())
            app.state.kgsvc = state
            try:
                yield
            finally:
                await executor.close()
        finally:
            if kg is None:
                await run_in_threadpool(handle.stop)  # an index build in progress stops at its next step (SIGTERM)
                handle.close()

    app = KgsvcApp(
        title="kgsvc",
        version=kgsvc.__version__,
        description="SPARQL 1.1 endpoint, Graph Store Protocol and JSON API over kgsvc datasets.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    for path, endpoint, name in (
        ("/sparql", sparql, "SPARQL endpoint (all datasets)"),
        ("/datasets/{name}/sparql", dataset_sparql, "SPARQL endpoint of one dataset"),
    ):
        app.add_route(path, endpoint, methods=["GET", "POST"], name=name, include_in_schema=False)
    for path, endpoint in (("/datasets/{name}/store", graph_store),):
        app.add_route(path, endpoint, methods=["GET", "HEAD", "PUT", "POST", "DELETE"], include_in_schema=False)
    app.include_router(router)
    mount_page(app)
    _document_raw_routes(app)
    return app


def _document_raw_routes(app: FastAPI) -> None:
    """The SPARQL and Graph Store routes are plain Starlette routes (no validation on the hot path): add them to
    the OpenAPI document by hand."""
    original = app.openapi

    def openapi() -> dict[str, object]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = original()
        paths = schema.setdefault("paths", {})
        assert isinstance(paths, dict)
        for path, summary in (
            ("/sparql", "SPARQL 1.1 query/update over all datasets (default graph: union of all graphs)"),
            ("/datasets/{name}/sparql", "SPARQL 1.1 query/update; the dataset graph is the default graph"),
        ):
            params: list[dict[str, object]] = list(_QUERY_PARAMS)
            if "{name}" in path:
                params.append({"name": "name", "in": "path", "required": True, "schema": {"type": "string"}})
            paths[path] = {
                "get": {
                    "summary": summary + " (no query: service description)",
                    "tags": ["sparql"],
                    "parameters": params,
                    "responses": {"200": {"description": "results"}},
                },
                "post": {
                    "summary": summary,
                    "tags": ["sparql"],
                    "parameters": params,
                    "requestBody": _SPARQL_BODY,
                    "responses": {"200": {"description": 'results, or {"changed": [...]} for an update'}},
                },
            }
        name = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
        graph: list[dict[str, object]] = [
            name,
            {"name": "graph", "in": "query", "schema": {"type": "string"}},
            {"name": "default", "in": "query", "schema": {"type": "string"}, "allowEmptyValue": True},
        ]
        rdf_body = {
            "content": {
                m: {"schema": {"type": "string"}}
                for m in ("text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json")
            }
        }
        paths["/datasets/{name}/store"] = {
            "get": {
                "summary": "Graph Store Protocol: the dataset graph",
                "tags": ["graph store"],
                "parameters": graph,
                "responses": {"200": {"description": "RDF"}},
            },
            "put": {
                "summary": "Replace the dataset graph (atomic)",
                "tags": ["graph store"],
                "parameters": graph,
                "requestBody": rdf_body,
                "responses": {"201": {"description": "created"}, "204": {}},
            },
            "post": {
                "summary": "Add to the dataset graph",
                "tags": ["graph store"],
                "parameters": graph,
                "requestBody": rdf_body,
                "responses": {"201": {"description": "created"}, "204": {}},
            },
            "delete": {
                "summary": "Remove the dataset graph's triples",
                "tags": ["graph store"],
                "parameters": graph,
                "responses": {"204": {"description": "cleared"}},
            },
        }
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
