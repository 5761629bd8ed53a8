"""A SPARQL 1.1 store reached over HTTP: SPARQLWrapper for query and update, the Graph Store Protocol for loads.

Tested against a real ``oxigraph serve`` (PyPI package ``oxigraph``), whose routes are the defaults here:
``<base>/query``, ``<base>/update`` and ``<base>/store``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, cast
from urllib.error import HTTPError, URLError

import httpx
from SPARQLWrapper import JSON, N3, POST, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed, SPARQLWrapperException

from kgsvc.errors import QueryError, StoreError
from kgsvc.store.base import QueryResult, Store
from kgsvc.store.rdf import (
    NamedNode,
    Quad,
    QueryResultsFormat,
    QuerySolutions,
    RdfFormat,
    Triple,
    iter_serialized,
    parse_query_results,
)

__all__ = ["RemoteStore"]

_CHUNK = 50_000
_BLOCK = 8 << 20


class RemoteStore(Store):
    """A remote SPARQL 1.1 store.

    Parameters
    ----------
    base_url
        Server root; ``query_url``, ``update_url`` and ``gsp_url`` default to ``/query``, ``/update``, ``/store``.
    timeout_s
        HTTP timeout per request.
    """

    def __init__(
        self,
        base_url: str,
        *,
        query_url: str | None = None,
        update_url: str | None = None,
        gsp_url: str | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        base = base_url.rstrip("/")
        self.query_url = query_url or f"{base}/query"
        self.update_url = update_url or f"{base}/update"
        self.gsp_url = gsp_url or f"{base}/store"
        self.timeout_s = timeout_s
        self._http = httpx.Client(timeout=timeout_s)

    def _wrapper(self, url: str) -> SPARQLWrapper:
        wrapper = SPARQLWrapper(url)
        wrapper.setTimeout(int(self.timeout_s))
        wrapper.setMethod(POST)
        return wrapper

    def query(
        self,
        sparql: str,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        union_default_graph: bool = False,
        base_iri: str | None = None,
    ) -> QueryResult:
        self.check_text(sparql)
        wrapper = self._wrapper(self.query_url)
        wrapper.setQuery(_with_base(sparql, base_iri))
        for graph in default_graph or ():
            wrapper.addDefaultGraph(graph)
        for graph in named_graphs or ():
            wrapper.addNamedGraph(graph)
        if union_default_graph:
            wrapper.addParameter("union-default-graph", "")
        construct = wrapper.queryType in ("CONSTRUCT", "DESCRIBE")
        wrapper.setReturnFormat(N3 if construct else JSON)
        if construct:
            wrapper.addCustomHttpHeader("Accept", "application/n-triples")
        raw = self._run(wrapper, sparql)
        if construct:
            from kgsvc.store.rdf import parse_quads

            return [Triple(q.subject, q.predicate, q.object) for q in parse_quads(raw, RdfFormat.N_TRIPLES)]
        return parse_query_results(raw, format=QueryResultsFormat.JSON)

    def update(self, sparql: str, *, base_iri: str | None = None) -> None:
        self.check_text(sparql)
        wrapper = self._wrapper(self.update_url)
        wrapper.setQuery(_with_base(sparql, base_iri))
        self._run(wrapper, sparql)

    @staticmethod
    def _run(wrapper: SPARQLWrapper, sparql: str) -> bytes:
        """Send the request; return the response body (the response is always closed)."""
        try:
            response = wrapper.query().response
            try:
                return bytes(response.read())
            finally:
                response.close()
        except QueryBadFormed as exc:
            _close_http_error(exc)
            raise QueryError(str(exc).strip(), kind="syntax", query=sparql) from exc
        except (SPARQLWrapperException, URLError, OSError) as exc:
            _close_http_error(exc)
            raise StoreError(f"remote store {wrapper.endpoint} failed: {exc}") from exc

    def _post(self, graph: str, triples: Iterable[Triple] | bytes) -> None:
        body = triples if isinstance(triples, bytes) else iter_serialized(triples, RdfFormat.N_TRIPLES)
        try:
            response = self._http.post(
                self.gsp_url, params={"graph": graph}, content=body, headers={"Content-Type": "application/n-triples"}
            )
        except httpx.HTTPError as exc:
            raise StoreError(f"remote store {self.gsp_url} failed: {exc}") from exc
        if response.status_code >= 400:
            raise StoreError(f"remote store refused the load ({response.status_code}): {response.text.strip()}")

    def load(
        self,
        source: IO[bytes],
        fmt: RdfFormat | str,
        *,
        graph: str,
        base_iri: str | None = None,
        bulk: bool = False,
        file: str | None = None,
        trusted: bool = False,
    ) -> None:
        if fmt != RdfFormat.N_TRIPLES or not trusted:
            super().load(source, fmt, graph=graph, base_iri=base_iri, bulk=bulk, file=file)
            return
        # N-Triples kgsvc generated itself: send the bytes as they are, cut at line ends (no parsing here)
        if not bulk:
            self._post(graph, source.read())
            return
        pending = b""
        while block := source.read(_BLOCK):
            pending += block
            cut = pending.rfind(b"\n") + 1
            if cut:
                self._post(graph, pending[:cut])
                pending = pending[cut:]
        if pending.strip():
            self._post(graph, pending)

    def insert(self, quads: Iterable[Quad]) -> None:
        for graph, triples in _by_graph(quads).items():
            self._post(graph, triples)

    def bulk_insert(self, quads: Iterable[Quad]) -> None:
        iterator = iter(quads)
        while chunk := list(itertools.islice(iterator, _CHUNK)):
            self.insert(chunk)

    def graphs(self) -> list[str]:
        result = cast(QuerySolutions, self.query("SELECT DISTINCT ?g WHERE { GRAPH ?g { } }"))
        return sorted(row["g"].value for row in result)

    def count(self, graph: str) -> int:
        result = self.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", default_graph=[graph])
        return int(next(iter(result))["n"].value)  # type: ignore[arg-type]

    def drop(self, graph: str) -> None:
        self.update(f"DROP SILENT GRAPH <{NamedNode(graph).value}>")

    def dump(self, graph: str, fmt: RdfFormat) -> bytes:
        triples = self.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", default_graph=[graph])
        return iter_serialized(_iter(triples), fmt)  # type: ignore[arg-type]

    def close(self) -> None:
        self._http.close()


def _close_http_error(exc: BaseException) -> None:
    """SPARQLWrapper keeps urllib's HTTPError (and its socket) as the context of what it raises: close it."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, HTTPError):
            seen.close()
        seen = seen.__context__


def _iter(items: Iterable[Triple]) -> Iterator[Triple]:
    yield from items


def _by_graph(quads: Iterable[Quad]) -> dict[str, list[Triple]]:
    groups: dict[str, list[Triple]] = {}
    for quad in quads:
        name = quad.graph_name
        if not isinstance(name, NamedNode):
            raise StoreError("the remote store only takes quads in named graphs")
        groups.setdefault(name.value, []).append(Triple(quad.subject, quad.predicate, quad.object))
    return groups


def _with_base(sparql: str, base_iri: str | None) -> str:
    """``sparql`` with ``BASE <base_iri>`` in front (the remote store would resolve against its own URL otherwise);
    a ``BASE`` of the text's own, later in its prologue, still wins."""
    return sparql if base_iri is None else f"BASE <{base_iri}>\n{sparql}"
