"""A dataset endpoint stays inside its dataset: the graphs a request reads and writes are checked before it runs.

``/datasets/NAME/sparql`` has the dataset's graph as its default graph and as its only named graph. A query may
not name other graphs (``FROM``, ``FROM NAMED``, ``default-graph-uri``, ``named-graph-uri``), and an update —
after :func:`kgsvc.api.sparql_text.rewrite_update` pointed its default graph at the dataset — may write and read
no graph but the dataset's (:func:`kgsvc.store.graph_scope.update_scope`; what it cannot pin down, such as
``GRAPH ?g``, is refused too). Refusals are ``403`` with the graph named; ``/sparql`` reaches every graph.
"""

from __future__ import annotations

from collections.abc import Iterable

from kgsvc.api.errors import ApiError
from kgsvc.store.graph_scope import query_graphs, update_scope

__all__ = ["check_query_scope", "check_update_scope"]


def check_query_scope(query: str, protocol_graphs: Iterable[str], graph: str, *, base: str | None = None) -> None:
    """Refuse a query on the endpoint of dataset graph ``graph`` that names another graph.

    ``protocol_graphs`` are the request's ``default-graph-uri`` and ``named-graph-uri`` values; relative IRIs in the
    query resolve against ``base``.

    Raises
    ------
    ApiError
        403 naming the graph.
    """
    named, unresolved = query_graphs(query, base=base)
    if unresolved:
        _refuse("a FROM clause whose graph IRI cannot be resolved (write it in full)", graph)
    for other in sorted((named | set(protocol_graphs)) - {graph}):
        _refuse(f"the graph <{other}>", graph)


def check_update_scope(update: str, graph: str, *, base: str | None = None) -> None:
    """Refuse an (already rewritten) update on the endpoint of dataset graph ``graph`` that reaches other graphs.

    Raises
    ------
    ApiError
        403 naming the graph.
    """
    scope = update_scope(update, base=base)
    if scope.every_write or scope.every_read:
        _refuse("graphs it cannot name in advance (a variable in graph position, ALL or NAMED)", graph)
    if scope.writes_default or scope.reads_default:
        _refuse("the store's default graph", graph)
    for other in sorted((scope.writes | scope.reads) - {graph}):
        _refuse(f"the graph <{other}>", graph)


def _refuse(what: str, graph: str) -> None:
    raise ApiError(
        403,
        f"this endpoint reads and writes its dataset's graph <{graph}> only, and the request reaches {what}; "
        "send it to /sparql to reach other graphs",
        error="Forbidden",
    )
