"""The SPARQL 1.1 Protocol: ``/sparql`` (all data) and ``/datasets/{name}/sparql`` (one dataset).

Queries: ``GET ?query=``, ``POST`` form (``application/x-www-form-urlencoded``) and ``POST
application/sparql-query`` (parameters in the URL). Updates: ``POST`` form with ``update=`` and ``POST
application/sparql-update``. ``GET`` without a query answers the service description.

The RDF dataset of a query, in order of precedence:

1. ``default-graph-uri`` / ``named-graph-uri`` parameters (the protocol's rule);
2. the query's own ``FROM`` / ``FROM NAMED``;
3. the endpoint's default — ``/sparql``: the default graph is the **union of all graphs**, every named graph is
   available to ``GRAPH``; ``/datasets/NAME/sparql``: the default graph is the dataset's graph, and its named
   graphs are the graphs the dataset owns (:mod:`kgsvc.api.scope`).

Updates: at ``/sparql`` an update runs as written (its default graph is the store's own default graph, which
belongs to no dataset: name dataset graphs ``<urn:kgsvc:dataset:NAME>``). At ``/datasets/NAME/sparql`` the
dataset graph is the default graph, the graphs the update names become the dataset's, and ``ALL``, ``NAMED`` and
graph variables reach the dataset's graphs only (:func:`kgsvc.api.scope.update_claims`,
:func:`kgsvc.api.sparql_text.rewrite_update`). ``using-graph-uri`` /
``using-named-graph-uri`` become ``USING`` / ``USING NAMED``. Every update runs through :meth:`KG.update`, so
changed datasets emit the dataset-changed event; the answer is ``200`` with ``{"changed": [datasets]}``.
Updates are not bounded by ``query_timeout_s`` (a write cannot be stopped half-way).

Relative IRIs in queries and updates resolve against the URL the request was sent to, without its query string
(:func:`base_iri`), as ``oxigraph serve`` does: ``CONSTRUCT { <s> <p> 1 } WHERE {}`` sent to
``http://h/sparql`` answers ``<http://h/s>``. A ``BASE`` in the text still wins.

``SERVICE`` (in queries and updates) and ``LOAD`` are refused with 403 unless ``KGSVC_ALLOW_REMOTE_SPARQL`` —
after the text was checked for its depth (:func:`kgsvc.store.check_sparql`) and parsed without running it
(:func:`kgsvc.store.check_query_syntax`, :func:`kgsvc.store.check_update_syntax`): a request that does not parse
gets the parser's 400, with its position, whatever it contains.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Scope

from kgsvc.api import lookup
from kgsvc.api.errors import ApiError
from kgsvc.api.negotiation import NotAcceptable, negotiate
from kgsvc.api.query_string import parse_form
from kgsvc.api.results import QueryJob
from kgsvc.api.scope import DatasetGraphs, check_query_scope, update_claims
from kgsvc.api.service_description import service_description
from kgsvc.api.sparql_text import find_keyword, has_dataset_clause, query_form, rewrite_update
from kgsvc.api.state import ApiState, get_state, require_write
from kgsvc.errors import QueryError
from kgsvc.store import NamedNode, check_query_syntax, check_sparql, check_update_syntax

__all__ = ["answer_query", "base_iri", "dataset_sparql", "endpoint", "sparql"]

_FORM = "application/x-www-form-urlencoded"
_QUERY = "application/sparql-query"
_UPDATE = "application/sparql-update"
_GRAPH_PARAMS = ("default-graph-uri", "named-graph-uri", "using-graph-uri", "using-named-graph-uri")


async def sparql(request: Request) -> Response:
    """``/sparql``: query and update over all datasets."""
    return await endpoint(request, None)


async def dataset_sparql(request: Request) -> Response:
    """``/datasets/{name}/sparql``: query and update with the dataset's graph as the default graph."""
    return await endpoint(request, request.path_params["name"])


def _one(params: list[tuple[str, str]], key: str) -> str | None:
    values = [v for k, v in params if k == key]
    if len(values) > 1:
        raise ApiError(400, f"the parameter {key!r} was given {len(values)} times; expected at most once")
    return values[0] if values else None


def _iris(params: list[tuple[str, str]], key: str) -> list[str]:
    values = [v for k, v in params if k == key]
    for value in values:
        try:
            NamedNode(value)
        except ValueError as exc:
            raise ApiError(400, f"{key}={value!r} is not an absolute IRI: {exc}") from None
    return values


def base_iri(scope: Scope, public_url: str | None = None) -> str | None:
    """The base IRI of a request's SPARQL text: the URL it was sent to, without query string (as ``oxigraph
    serve`` resolves), or ``None`` if that is not an IRI (a strange ``Host`` header; relative IRIs are then errors).

    Built as Starlette's ``request.url`` is (the ``Host`` header, else the server address), without building it:
    this runs on every query. With ``public_url`` (``Settings.public_url``, behind a proxy) it is that URL and the
    request's path, whatever the ``Host`` header says.

    >>> base_iri({"type": "http", "scheme": "http", "server": ("h", 80), "path": "/sparql", "query_string": b"a=1",
    ...           "headers": [(b"host", b"example.org:8000")]})
    'http://example.org:8000/sparql'
    >>> base_iri({"type": "http", "scheme": "http", "server": ("h", 80), "path": "/sparql", "headers": []})
    'http://h/sparql'
    >>> base_iri({"type": "http", "path": "/sparql", "headers": [(b"host", b"evil")]}, "https://kg.example.org")
    'https://kg.example.org/sparql'
    """
    scheme = scope.get("scheme", "http")
    path = scope["path"]
    if "?" in path or "#" in path or "\\" in path:
        path = path.replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")
    if public_url is not None:
        return _checked_base(public_url + path)
    host = next((value for key, value in scope["headers"] if key == b"host"), None)
    if host is not None:
        return _checked_base(f"{scheme}://{host.decode('latin-1')}{path}")
    server = scope.get("server")
    if server is None:
        return None
    name, port = server
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    default = 443 if scheme in ("https", "wss") else 80
    return _checked_base(f"{scheme}://{name}{path}" if port == default else f"{scheme}://{name}:{port}{path}")


@lru_cache(maxsize=256)
def _checked_base(url: str) -> str | None:
    try:
        NamedNode(url)
    except ValueError:
        return None
    return url


async def endpoint(request: Request, dataset: str | None) -> Response:
    """Answer a SPARQL Protocol request at ``/sparql`` (``dataset`` ``None``) or ``/datasets/{dataset}/sparql``."""
    state = get_state(request)
    graph = state.graphs(dataset) if dataset is not None else None
    base = base_iri(request.scope, state.settings.public_url)
    url_params = list(request.query_params.multi_items())
    if request.method == "GET":
        if _one(url_params, "update") is not None:
            raise ApiError(400, "a SPARQL update must be sent with POST (SPARQL 1.1 Protocol §2.2)")
        query = _one(url_params, "query")
        if query is None:
            if any(k in _GRAPH_PARAMS for k, _ in url_params):
                raise ApiError(400, "the request has graph parameters but no 'query'")
            return await service_description(request, state, dataset)
        return await _query(request, state, query, url_params, graph, base)
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media == _UPDATE:  # the token first: an unauthorised update costs no memory for its body
        require_write(request, state)
    body = await request.body()
    text = _decode(body)
    if media == _FORM:
        params = parse_form(body)  # the body is UTF-8 (_decode): parse_form raises nothing
        query, update = _one(params, "query"), _one(params, "update")
        if query is not None and update is not None:
            raise ApiError(400, "a request carries either 'query' or 'update', not both")
        if query is not None:
            return await _query(request, state, query, params, graph, base)
        if update is not None:
            return await _update(request, state, update, params, graph, base)
        raise ApiError(400, "the form has neither a 'query' nor an 'update' parameter")
    if media == _QUERY:
        return await _query(request, state, text, url_params, graph, base)
    if media == _UPDATE:
        return await _update(request, state, text, url_params, graph, base)
    raise ApiError(
        415,
        f"unsupported Content-Type {media or '(none)'!r}: expected {_FORM}, {_QUERY} or {_UPDATE}",
        error="UnsupportedMediaType",
    )


def _decode(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, f"the request body is not UTF-8 ({exc.reason} at byte {exc.start})") from None


def _check_text(state: ApiState, text: str) -> None:
    """Refuse text that could overflow the parser's stack (400, naming the limit), before anything parses it."""
    settings = state.settings
    check_sparql(text, max_depth=settings.sparql_max_depth, max_operators=settings.sparql_max_operators)


def _refuse_remote(state: ApiState, text: str, keywords: tuple[str, ...], check_syntax: Callable[[], None]) -> None:
    """403 for ``SERVICE`` / ``LOAD`` (:func:`~kgsvc.api.sparql_text.find_keyword`) unless allowed — after
    ``check_syntax`` (a parse that fetches nothing): text that does not parse gets the parser's 400 first."""
    if state.settings.allow_remote_sparql:
        return
    for keyword in keywords:
        found = find_keyword(text, keyword)
        if found is not None:
            check_syntax()
            line, column = found
            raise QueryError(
                f"{keyword} is not allowed on this server (it would make the server fetch URLs); found at line "
                f"{line}, column {column}. If it is part of a name, write the IRI in full. "
                "KGSVC_ALLOW_REMOTE_SPARQL=true allows it.",
                kind="forbidden",
                query=text,
            )


async def _query(
    request: Request,
    state: ApiState,
    query: str,
    params: list[tuple[str, str]],
    graph: DatasetGraphs | None,
    base: str | None,
) -> Response:
    content_type, body = await answer_query(state, query, params, request.headers.get("accept"), graph, base)
    return Response(body, media_type=content_type)


async def answer_query(
    state: ApiState,
    query: str,
    params: list[tuple[str, str]],
    accept: str | None,
    graph: DatasetGraphs | None,
    base: str | None = None,
) -> tuple[str, bytes]:
    """The ``Content-Type`` and body answering ``query``, with the request's parameters and ``Accept`` header.

    ``graph`` is the endpoint's dataset (``None`` at ``/sparql``); relative IRIs resolve against ``base``
    (:func:`base_iri`). A single-pattern lookup runs inline (:mod:`kgsvc.api.lookup`), anything else in the
    executor. Raises ``ApiError`` / ``QueryError`` / ``StoreError`` / ``NotAcceptable`` for the error handlers.
    """
    is_lookup = lookup.is_lookup(query)
    if is_lookup:  # a SELECT or ASK without SERVICE or FROM
        form: str | None = "select"
    else:
        _check_text(state, query)
        _refuse_remote(state, query, ("SERVICE",), lambda: check_query_syntax(query, base_iri=base))
        form = query_form(query)
    # SPARQLWrapper repeats format/output: the first value counts
    format_name = next((v for k, v in params if k in ("format", "output")), None)
    if form is None:  # not a query pyoxigraph will accept: pick any format, let the parser say what is wrong
        try:
            fmt = negotiate(accept, "results", format_name)
        except NotAcceptable:
            fmt = negotiate(None, "results")
    else:
        fmt = negotiate(accept, "graph" if form in ("construct", "describe") else "results", format_name)
    default_graph, named_graphs = _iris(params, "default-graph-uri"), _iris(params, "named-graph-uri")
    if graph is not None and (default_graph or named_graphs or (not is_lookup and has_dataset_clause(query))):
        catalog = state.kg.catalog
        check_query_scope(
            query,
            [*default_graph, *named_graphs],
            graph,
            owners=catalog.graph_owners,
            stored=catalog.store.graphs,
            base=base,
        )
    union = False
    if default_graph or named_graphs:
        dataset: tuple[tuple[str, ...] | None, tuple[str, ...] | None] = (tuple(default_graph), tuple(named_graphs))
    elif not is_lookup and has_dataset_clause(query):
        dataset = (None, None)
    elif graph is not None:
        dataset = ((graph.graph,), graph.named)
    else:
        dataset, union = (None, None), True
    settings = state.settings
    job = QueryJob(
        query=query,
        media_type=fmt.media_type,
        max_rows=settings.max_result_rows,
        timeout_s=settings.query_timeout_s,
        default_graph=dataset[0],
        named_graphs=dataset[1],
        union=union,
        base_iri=base,
    )
    inline = state.executor.inline
    answer = lookup.answer(inline, job) if is_lookup and inline is not None else None
    media_type, body = answer if answer is not None else await state.executor.run(job)
    return (fmt.content_type if media_type == fmt.media_type else media_type), body


async def _update(
    request: Request,
    state: ApiState,
    update: str,
    params: list[tuple[str, str]],
    graph: DatasetGraphs | None,
    base: str | None,
) -> Response:
    require_write(request, state)
    if _one(params, "default-graph-uri") is not None or _one(params, "named-graph-uri") is not None:
        raise ApiError(400, "default-graph-uri / named-graph-uri apply to queries; updates take using-graph-uri")
    _check_text(state, update)  # before any parse
    _refuse_remote(state, update, ("LOAD", "SERVICE"), lambda: check_update_syntax(update, base_iri=base))
    using, using_named = _iris(params, "using-graph-uri"), _iris(params, "using-named-graph-uri")
    claimed: list[str] = []
    if graph is None:
        text = rewrite_update(update, using=using, using_named=using_named)
    else:
        # before the rewrite, so that errors and positions are the client's text's; unguarded (pyoxigraph's exact
        # messages) where the text was just found to hold no LOAD/SERVICE
        check_update_syntax(update, base_iri=base, guarded=state.settings.allow_remote_sparql)
        catalog = state.kg.catalog
        new = update_claims(update, [*using, *using_named], graph, owners=catalog.graph_owners, base=base)
        named = sorted({*graph.named, *new})
        text = rewrite_update(update, graph=graph.graph, named=named, using=using, using_named=using_named)
        claimed = catalog.claim_graphs(graph.name, new)  # released again if the update fails
    try:
        changed = await run_in_threadpool(partial(state.kg.update, text, base_iri=base))
    except BaseException:
        if graph is not None:
            state.kg.catalog.release_graphs(graph.name, claimed)
        raise
    finally:
        state.changed()
    return JSONResponse({"changed": changed})
