"""A dataset endpoint stays inside its dataset: the graphs a request reads and writes are checked before it runs.

``/datasets/NAME/sparql`` answers over the dataset's RDF dataset (:class:`DatasetGraphs`): its default graph is
the dataset's graph ``<urn:kgsvc:dataset:NAME>``, its named graphs are the graphs the dataset owns (the catalog's
``dataset_graphs`` rows: a TriG/N-Quads load keeps its named graphs, an update at the endpoint may create them).

* A query may name (``FROM``, ``FROM NAMED``, ``default-graph-uri``, ``named-graph-uri``) the dataset's graphs, and
  graphs that nobody owns and the store does not hold (they read as empty, as in ``oxigraph serve``); any other
  graph is refused (:func:`check_query_scope`).
* An update may name the dataset's graphs and graphs nobody owns yet, which the dataset then owns
  (:func:`update_claims`); ``ALL``, ``NAMED`` and graph variables reach only the dataset's graphs
  (:func:`kgsvc.api.sparql_text.rewrite_update` expands and filters them; ``DEFAULT`` is the dataset's graph). A
  graph of another dataset, a graph IRI kgsvc reserves (``urn:kgsvc:…``) or a graph the text does not let it
  resolve are refused.

Refusals are ``403`` naming the graph; ``/sparql`` reaches every graph.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from kgsvc.api.errors import ApiError
from kgsvc.catalog import RESERVED_GRAPH_PREFIX
from kgsvc.store.graph_scope import query_graphs, update_scope

__all__ = ["DatasetGraphs", "check_query_scope", "update_claims"]

#: ``owners(graphs)``: the dataset owning each of ``graphs`` that has one (:meth:`kgsvc.catalog.Catalog.graph_owners`).
Owners = Callable[[Collection[str]], dict[str, str]]


@dataclass(frozen=True)
class DatasetGraphs:
    """A dataset endpoint's RDF dataset: the dataset ``name``, its default ``graph`` and the ``named`` graphs it
    owns (sorted IRIs)."""

    name: str
    graph: str
    named: tuple[str, ...] = ()

    def owns(self, iri: str) -> bool:
        return iri == self.graph or iri in self.named


def check_query_scope(
    query: str,
    protocol_graphs: Iterable[str],
    dataset: DatasetGraphs,
    *,
    owners: Owners,
    stored: Callable[[], Collection[str]],
    base: str | None = None,
) -> None:
    """Refuse a query on ``dataset``'s endpoint that names a graph outside it (module docstring).

    ``protocol_graphs`` are the request's ``default-graph-uri`` and ``named-graph-uri`` values; relative IRIs in the
    query resolve against ``base``. ``stored()`` lists the store's named graphs; it and ``owners`` are called only
    for graphs the dataset does not own.

    Raises
    ------
    ApiError
        403 naming the graph.
    """
    named, unresolved = query_graphs(query, base=base)
    if unresolved:
        _refuse("a FROM clause whose graph IRI cannot be resolved (write it in full)", dataset)
    others = sorted(iri for iri in named | set(protocol_graphs) if not dataset.owns(iri))
    if not others:
        return
    taken = owners(others)
    existing = set(stored())
    for other in others:
        if other in taken:
            _refuse(f"the graph <{other}>, which belongs to dataset {taken[other]!r}", dataset)
        if other in existing or other.startswith(RESERVED_GRAPH_PREFIX):
            _refuse(f"the graph <{other}>, which belongs to no dataset", dataset)


def update_claims(
    update: str, using: Iterable[str], dataset: DatasetGraphs, *, owners: Owners, base: str | None = None
) -> list[str]:
    """The graphs that ``update`` (as the client wrote it) names and ``dataset`` does not own yet: it may claim
    them. ``using`` are the request's ``using-graph-uri`` / ``using-named-graph-uri`` values.

    Raises
    ------
    ApiError
        403 for a graph of another dataset, a reserved one, or what the text does not let it resolve.
    """
    scope = update_scope(update, base=base)
    if scope.unknown:
        _refuse("a graph it cannot name in advance (write graph IRIs in full)", dataset)
    new = sorted(iri for iri in (scope.writes | scope.reads | set(using)) if not dataset.owns(iri))
    taken = owners(new)
    for iri in new:
        if iri in taken:
            _refuse(f"the graph <{iri}>, which belongs to dataset {taken[iri]!r}", dataset)
        if iri.startswith(RESERVED_GRAPH_PREFIX):
            _refuse(f"the graph <{iri}>, an IRI kgsvc reserves", dataset)
    return new


def _refuse(what: str, dataset: DatasetGraphs) -> None:
    raise ApiError(
        403,
        f"this endpoint reads and writes the graphs of dataset {dataset.name!r} only (its default graph "
        f"<{dataset.graph}> and the named graphs it owns), and the request reaches {what}; send it to /sparql to "
        "reach other graphs",
        error="Forbidden",
    )
