"""The SPARQL 1.1 Graph Store HTTP Protocol at ``/datasets/{name}/store``, over the dataset's graphs.

``?default``, no parameter, and ``?graph=urn:kgsvc:dataset:NAME`` address the dataset's (default) graph;
``?graph=IRI`` a named graph of the dataset (:mod:`kgsvc.api.scope`): one it owns, or, for ``PUT`` and ``POST``,
one nobody owns yet, which it then owns (a graph of another dataset: 409). ``?default`` with ``?graph`` is a 400.

* ``GET`` — the graph, in the negotiated RDF format (Turtle by default); 404 for an unknown dataset or graph.
* ``PUT`` — replace the graph with the body, atomically (:meth:`KG.load` with ``replace=True``);
  201 when it created the dataset or the named graph, else 204. An empty body is the empty graph.
* ``POST`` — add the body to the graph (:meth:`KG.load`); 201 when it created the dataset or graph, else 204.
* ``DELETE`` — the default graph: remove its triples (the dataset stays; ``DELETE /datasets/NAME`` removes it);
  a named graph: drop it (it is no longer the dataset's); 204, or 404 for a graph the dataset does not own.

Bodies are parsed by the same all-or-nothing loader as files, in the format of their ``Content-Type`` (415 if
not RDF); a malformed body is a 400 naming the line and column, and changes nothing. Writes need the token.
A body sent with ``Content-Encoding: gzip`` (or ``x-gzip``) is decompressed as it streams in. A body, decompressed,
may hold at most ``Settings.max_upload_bytes`` (``KGSVC_MAX_UPLOAD_BYTES``, 1 GiB; 413 beyond it, so a small
"zip bomb" cannot fill the disk); any other coding than ``gzip`` or ``identity`` is a 415.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import IO

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from kgsvc.api.errors import ApiError
from kgsvc.api.limits import Inflater
from kgsvc.api.negotiation import negotiate, rdf_format_for_media_type
from kgsvc.api.state import ApiState, get_state, require_write
from kgsvc.errors import IngestError
from kgsvc.store import NamedNode, RdfFormat, check_dataset_name, dataset_graph

__all__ = ["graph_store"]

_FORMAT_NAMES = {
    RdfFormat.TURTLE: "ttl",
    RdfFormat.N_TRIPLES: "nt",
    RdfFormat.RDF_XML: "rdf",
    RdfFormat.JSON_LD: "jsonld",
    RdfFormat.N3: "n3",
    RdfFormat.N_QUADS: "nq",
    RdfFormat.TRIG: "trig",
}


def _target(request: Request, name: str) -> str | None:
    """The named graph ``?graph=`` addresses, ``None`` for the dataset's default graph."""
    params = request.query_params
    graph = params.get("graph")
    if graph is not None and "default" in params:
        raise ApiError(400, "give either ?default or ?graph=IRI, not both")
    if graph is None or graph == dataset_graph(name).value:
        return None
    try:
        NamedNode(graph)
    except ValueError as exc:
        raise ApiError(400, f"?graph={graph!r} is not an absolute IRI: {exc}") from None
    return graph


def _owned(state: ApiState, name: str, graph: str) -> None:
    if graph not in state.graphs(name).named:
        raise ApiError(404, f"graph <{graph}> is not a named graph of dataset {name!r}", error="NotFound")


async def graph_store(request: Request) -> Response:
    """One handler for GET, HEAD, PUT, POST and DELETE."""
    state = get_state(request)
    name = check_dataset_name(request.path_params["name"])
    graph = _target(request, name)
    method = request.method
    if method in ("GET", "HEAD"):
        state.dataset_graph(name)
        if graph is not None:
            _owned(state, name, graph)
        fmt = negotiate(request.headers.get("accept"), "graph", request.query_params.get("format"))
        assert isinstance(fmt.native, RdfFormat)
        body = await run_in_threadpool(state.kg.dump, name, format=_FORMAT_NAMES[fmt.native], graph=graph)
        return Response(body if method == "GET" else b"", media_type=fmt.content_type)
    require_write(request, state)
    if method == "DELETE":
        if graph is not None:
            _owned(state, name, graph)
        update = f"DROP SILENT GRAPH <{graph}>" if graph else f"CLEAR SILENT GRAPH <{state.dataset_graph(name)}>"
        try:
            await run_in_threadpool(state.kg.update, update)
        finally:
            state.changed()
        return Response(status_code=204)
    return await _write(request, state, name, graph, replace=method == "PUT")


async def _write(request: Request, state: ApiState, name: str, graph: str | None, *, replace: bool) -> Response:
    content_type = request.headers.get("content-type")
    fmt = rdf_format_for_media_type(content_type)
    if fmt is None:
        raise ApiError(
            415,
            f"unsupported Content-Type {content_type or '(none)'!r}: expected an RDF media type "
            "(text/turtle, application/n-triples, application/rdf+xml, application/ld+json, application/trig, …)",
            error="UnsupportedMediaType",
        )
    gzipped = _gzipped(request.headers.get("content-encoding"))
    created = not await run_in_threadpool(state.kg.catalog.exists, name)
    if graph is not None and not created:
        created = graph not in await run_in_threadpool(state.kg.catalog.named_graphs, name)
    with tempfile.TemporaryDirectory(prefix="kgsvc-gsp-") as folder:
        path = Path(folder) / f"body.{_FORMAT_NAMES.get(fmt, 'ttl')}"
        with path.open("wb") as sink:
            await _write_body(
                request,
                sink,
                gzipped=gzipped,
                limit=state.settings.max_upload_bytes,
                max_ratio=state.settings.max_gzip_ratio,
            )
        if path.stat().st_size == 0:  # the empty graph: PUT empties the dataset, POST adds nothing (GSP §5.3, §5.5)
            await run_in_threadpool(_write_nothing, state, name, graph, replace=replace)
            return Response(status_code=201 if created else 204)
        try:
            await run_in_threadpool(
                lambda: state.kg.load(path, dataset=name, format=_FORMAT_NAMES.get(fmt), replace=replace, graph=graph)
            )
        except IngestError as exc:
            if created and await run_in_threadpool(state.kg.catalog.exists, name):  # KG.load removes it already
                await run_in_threadpool(state.kg.drop, name)
            raise IngestError(exc.reason, file="request body", line=exc.line, column=exc.column, dataset=name) from exc
        finally:
            state.changed()
    return Response(status_code=201 if created else 204)


def _write_nothing(state: ApiState, name: str, graph: str | None, *, replace: bool) -> None:
    try:
        state.kg.catalog.create(name, exist_ok=True)
        if replace:
            state.kg.update(f"CLEAR SILENT GRAPH <{graph or dataset_graph(name).value}>")
    finally:
        state.changed()


def _gzipped(header: str | None) -> bool:
    """Whether a ``Content-Encoding`` header asks for gzip; ``None`` / ``identity``: no. Raises a 415 otherwise."""
    codings = [c.strip().lower() for c in (header or "").split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return False
    if codings in (["gzip"], ["x-gzip"]):
        return True
    raise ApiError(
        415,
        f"unsupported Content-Encoding {header!r}: expected gzip or identity",
        error="UnsupportedMediaType",
    )


async def _write_body(request: Request, sink: IO[bytes], *, gzipped: bool, limit: int, max_ratio: int) -> None:
    """Write the body into ``sink`` as it arrives, decompressing it when ``gzipped``; at most ``limit`` bytes.

    Raises
    ------
    ApiError
        400 for a body that is not gzip or is truncated, 413 when it holds (decompressed) more than ``limit`` bytes
        or inflates more than ``max_ratio``:1 (:class:`kgsvc.api.limits.Inflater`).
    """
    inflater = Inflater(limit, max_ratio) if gzipped else None
    written = 0
    try:
        async for chunk in request.stream():
            if inflater is None:
                written += len(chunk)
                if written > limit:
                    message = f"the body holds more than {limit:,} bytes (KGSVC_MAX_UPLOAD_BYTES)"
                    raise ApiError(413, message, error="PayloadTooLarge")
                sink.write(chunk)
            else:
                for out in inflater.feed(chunk):
                    sink.write(out)
        if inflater is not None:
            for out in inflater.finish():
                sink.write(out)
    except ApiError as exc:
        if exc.status == 400:
            raise ApiError(400, f"the body (Content-Encoding: gzip): {exc}", error="BadRequest") from None
        raise
