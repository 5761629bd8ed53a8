"""Converting native query results into kgsvc's typed :class:`~kgsvc.schemas.SparqlResult`."""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from kgsvc.errors import QueryError
from kgsvc.schemas import RdfTerm, SparqlResult
from kgsvc.store.base import QueryResult

__all__ = ["to_result", "to_term"]

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def to_term(term: object) -> RdfTerm:
    """One pyoxigraph term as an :class:`RdfTerm`."""
    if isinstance(term, ox.NamedNode):
        return RdfTerm(type="uri", value=term.value)
    if isinstance(term, ox.BlankNode):
        return RdfTerm(type="bnode", value=term.value)
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value
        return RdfTerm(
            type="literal",
            value=term.value,
            lang=term.language,
            datatype=None if datatype in (_XSD_STRING, _RDF_LANG_STRING) else datatype,
        )
    if isinstance(term, ox.Triple):
        return RdfTerm(type="triple", value=str(term))
    raise TypeError(f"not an RDF term: {term!r}")


def to_result(result: QueryResult, *, max_rows: int | None = None) -> SparqlResult:
    """Materialise a query result; raises ``QueryError(kind="too_large")`` past ``max_rows`` rows or triples."""
    if isinstance(result, ox.QueryBoolean):
        return SparqlResult(kind="ask", boolean=bool(result))
    if isinstance(result, ox.QuerySolutions):
        variables = [v.value for v in result.variables]
        rows = []
        for i, solution in enumerate(result):
            if max_rows is not None and i >= max_rows:
                raise QueryError(f"the result has more than {max_rows} rows", kind="too_large")
            rows.append({name: to_term(solution[name]) for name in variables if solution[name] is not None})
        return SparqlResult(kind="select", variables=variables, rows=rows)
    triples = []
    for i, triple in enumerate(_triples(result)):
        if max_rows is not None and i >= max_rows:
            raise QueryError(f"the result has more than {max_rows} triples", kind="too_large")
        triples.append((to_term(triple.subject), to_term(triple.predicate), to_term(triple.object)))
    return SparqlResult(kind="graph", triples=triples)


def _triples(result: Iterable[ox.Triple]) -> Iterable[ox.Triple]:
    return result
