"""The SPARQL routes without the framework's per-request machinery.

:class:`KgsvcApp` is the FastAPI application with one shortcut: a ``GET`` or ``POST`` to ``/sparql`` or
``/datasets/{name}/sparql`` goes straight to :mod:`kgsvc.api.protocol`, skipping FastAPI/Starlette's middleware
stack and router (server-error, telemetry, body-limit, exception and exit-stack middleware, route matching).
Everything else — other methods on those paths, the Graph Store Protocol, the JSON API, the docs, the web page and
the lifespan — goes through the full application as before.

Before either path, a request that may change data (any method but ``GET``, ``HEAD``, ``OPTIONS``) is checked:
a cross-site request is a 403 (:mod:`kgsvc.api.guard`), a body over its limit a 413 (:mod:`kgsvc.api.limits`),
declared or while it streams.

A ``GET`` whose only parameter is ``query`` goes one step further: it is answered without Starlette's
``Request`` and ``Response`` objects (:meth:`KgsvcApp._query`), through the same
:func:`kgsvc.api.protocol.answer_query` the route uses.

The shortcut keeps the routes' contracts because it runs the same code: the same endpoint functions, and errors
become responses through the same handlers (:func:`kgsvc.api.errors.handler_for`). An exception no handler takes
propagates to the server, which answers 500 as Starlette's server-error middleware would. It is only taken while
the skipped layers do nothing for these routes: no user middleware (``add_middleware``), no ``max_body_size`` and
no ``root_path``; an app configured with any of them serves every request through the full stack.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from kgsvc.api.errors import error_response, handler_for
from kgsvc.api.guard import SAFE_METHODS, cross_site
from kgsvc.api.limits import body_limit, declared_length, limit_receive, too_large
from kgsvc.api.protocol import answer_query, base_iri, endpoint
from kgsvc.api.query_string import unquote_plus
from kgsvc.settings import Settings

__all__ = ["KgsvcApp", "sparql_dataset"]

_DATASETS = "/datasets/"
_SPARQL = "/sparql"


def sparql_dataset(path: str) -> tuple[bool, str | None]:
    """Whether ``path`` is a SPARQL endpoint, and its dataset name (``None`` for ``/sparql``).

    The name is one non-empty path segment, as the route ``/datasets/{name}/sparql`` matches it.

    >>> sparql_dataset("/sparql"), sparql_dataset("/datasets/films/sparql"), sparql_dataset("/datasets/a/b/sparql")
    ((True, None), (True, 'films'), (False, None))
    """
    if path == _SPARQL:
        return True, None
    if path.startswith(_DATASETS) and path.endswith(_SPARQL):
        name = path[len(_DATASETS) : -len(_SPARQL)]
        if name and "/" not in name:
            return True, name
    return False, None


def _guard(scope: Scope, settings: Settings) -> Response | None:
    """The answer refusing a request that changes data before any route runs, or ``None``.

    403 for a cross-site request (:mod:`kgsvc.api.guard`), 413 for a declared body over its limit
    (:mod:`kgsvc.api.limits`): both before the token is checked or a byte of the body is read.
    """
    reason = cross_site(scope["method"], scope["headers"], scope.get("scheme", "http"), settings.cors_origins)
    if reason is not None:
        return error_response(
            403,
            "Forbidden",
            f"cross-site request refused: {reason}. Writes are accepted from this server's own pages and from "
            "clients that are not browsers; KGSVC_CORS_ORIGINS lists other origins allowed.",
        )
    limit, setting = body_limit(scope, settings)
    size = declared_length(scope)
    if size is not None and size > limit:
        error = too_large(limit, setting, size)
        return error_response(413, error.error, str(error), headers={"Connection": "close"})
    return None


class KgsvcApp(FastAPI):
    """FastAPI with the SPARQL query/update routes answered directly (see the module docstring)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            state = getattr(self.state, "kgsvc", None)
            if state is not None:
                refusal = _guard(scope, state.settings)
                if refusal is not None:
                    await refusal(scope, receive, send)
                    return
                limit, setting = body_limit(scope, state.settings)
                receive = limit_receive(receive, limit, setting)
        if (
            scope["type"] == "http"
            and scope["method"] in ("GET", "POST")
            and not (self.user_middleware or self.max_body_size is not None)
            and not (self.root_path or scope.get("root_path"))
        ):
            is_sparql, dataset = sparql_dataset(scope["path"])
            if is_sparql:
                scope["app"] = self  # what Starlette sets: the endpoint reads its state from request.app
                if dataset is not None:
                    scope["path_params"] = {"name": dataset}
                try:
                    if scope["method"] == "GET" and await self._query(scope, send, dataset):
                        return
                    response = await endpoint(Request(scope, receive), dataset)
                except Exception as exc:
                    handler = handler_for(exc)
                    if handler is None:
                        raise
                    response = await handler(Request(scope, receive), exc)
                await response(scope, receive, send)
                return
        await super().__call__(scope, receive, send)

    async def _query(self, scope: Scope, send: Send, dataset: str | None) -> bool:
        """Answer ``GET ?query=…`` without Starlette's request and response objects; ``False``: not handled.

        Taken when ``query`` is the only parameter, written as such (``query=…``, no ``&``): anything else goes
        through :func:`kgsvc.api.protocol.endpoint`. The value is decoded as Starlette decodes it (see
        :func:`kgsvc.api.query_string.unquote_plus`).
        """
        raw = scope["query_string"]
        if not raw.startswith(b"query=") or b"&" in raw:
            return False
        query = unquote_plus(raw[6:])
        state = self.state.kgsvc
        graph = state.graphs(dataset) if dataset is not None else None
        accept = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"accept"), None)
        base = base_iri(scope, state.settings.public_url)
        content_type, body = await answer_query(state, query, [("query", query)], accept, graph, base)
        headers = [(b"content-length", str(len(body)).encode()), (b"content-type", content_type.encode("latin-1"))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return True
