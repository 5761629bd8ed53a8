"""Single-pattern lookups: the queries the endpoint answers inline, without a query worker.

Most endpoint traffic is lookups — ``SELECT ?o WHERE { <e> <r> ?o }``. Sending each to a worker process
(:mod:`kgsvc.api.executor`) costs far more than the lookup itself: the pipe round trip and two process wake-ups
are most of the ~290 µs of CPU a request took (``docs/benchmarks.md``, "the ceiling of a Python front").

A worker exists so that a runaway query can be killed. A *single-pattern lookup* cannot run away:

* the query is ``[PREFIX/BASE …] SELECT (vars | *) [WHERE] { s p o [.] } [LIMIT n]`` or ``ASK [WHERE] { s p o }``,
  with no comment, ``DISTINCT``, ``FILTER``, ``ORDER BY``, dataset clause or anything else (:func:`is_lookup`);
* at least one of ``s p o`` is a constant and no variable occurs twice in the pattern.

Such a query is one index range scan in Oxigraph, and every triple the scan meets is a result row (a repeated
variable or a ``DISTINCT`` would let it scan without producing rows). Its cost is therefore proportional to the
rows it writes, and :func:`answer` stops it after :data:`INLINE_MAX_ROWS` rows — a few milliseconds on the
event loop at most. A lookup with more rows than that is handed back (``None``) and runs in a worker like any
other query, under the full ``max_result_rows`` and ``query_timeout_s``.

The recogniser is a regular expression, deliberately narrow: anything it does not recognise (a comment, an
escape, a prefixed name with a dot, a property path) simply takes the worker path, so it can be wrong only by
being too cautious. Syntax the regular expression accepts but SPARQL does not (an undeclared prefix) is
reported by pyoxigraph's parser, as on the worker path.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kgsvc.api.negotiation import RESULT_FORMATS
from kgsvc.api.results import QueryJob
from kgsvc.errors import QueryError
from kgsvc.store import QueryBoolean, QueryResultsFormat, QuerySolutions, Store

__all__ = ["INLINE_MAX_ROWS", "Lookup", "answer", "parse"]

#: The most rows a lookup may write inline; a larger result is recomputed by a query worker.
INLINE_MAX_ROWS = 10_000

_IRI = r"<[^<>\"{}|^`\\\x00-\x20]*>"
_PREFIX = r"(?:[A-Za-z][A-Za-z0-9_\-]*)?:"
_PNAME = _PREFIX + r"[A-Za-z0-9_\-]*"
_VAR = r"[?$][A-Za-z0-9_]+"
_LITERAL = rf"\"[^\"\\\r\n]*\"(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*|\^\^(?:{_IRI}|{_PNAME}))?|[+\-]?[0-9]+"
_NODE = rf"{_IRI}|{_PNAME}|{_VAR}"
_LOOKUP = re.compile(
    rf"""
    (?:\s*(?:PREFIX\s+{_PREFIX}\s*{_IRI}|BASE\s*{_IRI}))*
    \s*(?:SELECT\s+(?:\*|{_VAR}(?:\s+{_VAR})*)|ASK)\s*(?:WHERE\s*)?
    \{{\s*(?P<s>{_NODE})\s+(?P<p>{_NODE}|a)\s+(?P<o>{_NODE}|{_LITERAL})\s*\.?\s*\}}
    \s*(?P<limit>LIMIT\s+(?P<n>[0-9]+)\s*)?
    """,
    re.VERBOSE | re.IGNORECASE,
)
_FORMATS = {f.media_type: f.native for f in RESULT_FORMATS if isinstance(f.native, QueryResultsFormat)}


class Lookup(NamedTuple):
    """A recognised lookup: its ``LIMIT`` (``None`` without one) and where the ``LIMIT`` clause starts."""

    limit: int | None
    limit_at: int

    def capped(self, query: str, rows: int) -> str:
        """``query`` returning at most ``rows`` rows (its own ``LIMIT`` if lower)."""
        if self.limit is not None and self.limit <= rows:
            return query
        return f"{query[: self.limit_at]} LIMIT {rows}"


def parse(query: str) -> Lookup | None:
    """The lookup ``query`` is, or ``None`` if it is not one (see the module docstring). O(len(query)).

    >>> parse("SELECT ?o WHERE { <http://e/a> <http://e/r> ?o }")
    Lookup(limit=None, limit_at=48)
    >>> parse("PREFIX e: <http://e/> ASK { ?s e:r 12 } LIMIT 3"), parse("select * { ?s ?p ?o }")
    (Lookup(limit=3, limit_at=40), None)
    >>> parse("SELECT ?x WHERE { ?x <http://e/r> ?x }"), parse("SELECT DISTINCT ?o { <a:b> ?p ?o }")
    (None, None)
    """
    match = _LOOKUP.fullmatch(query)
    if match is None or "service" in query.lower():  # SERVICE can hide in a prefixed name: leave it to the workers
        return None
    terms = match.group("s", "p", "o")
    variables = [t[1:] for t in terms if t[0] in "?$"]
    if len(variables) == 3 or len(set(variables)) < len(variables):
        return None
    n = match.group("n")
    return Lookup(int(n) if n is not None else None, match.start("limit") if n is not None else len(query))


def answer(store: Store, job: QueryJob, lookup: Lookup) -> tuple[str, bytes] | None:
    """Run the lookup ``job`` on ``store`` in the calling thread: its media type and body.

    The query runs with ``LIMIT`` one past the row cap (``job.max_rows`` or :data:`INLINE_MAX_ROWS`, whichever
    is lower) and is serialised natively in ``job.media_type`` (a SPARQL results format). Every format writes at
    least one byte per row, so a body no longer than the cap has no more rows than the cap; a longer one is
    counted as TSV (one line per row). ``None`` when the result has more than :data:`INLINE_MAX_ROWS` rows and
    the job allows more: run it in a worker then.

    Raises
    ------
    QueryError
        ``kind="syntax"`` for what pyoxigraph's parser rejects, ``"too_large"`` past ``job.max_rows`` rows.
    """
    cap = min(job.max_rows, INLINE_MAX_ROWS)
    body = _run(store, job, lookup.capped(job.query, cap + 1), _FORMATS[job.media_type])
    if len(body) <= cap:
        return job.media_type, body
    tsv = _run(store, job, lookup.capped(job.query, cap + 1), QueryResultsFormat.TSV)
    if tsv.count(b"\n") - 1 <= cap:
        return job.media_type, body
    if job.max_rows > cap:
        return None
    raise QueryError(f"the result has more than {job.max_rows} rows", kind="too_large", query=job.query)


def _run(store: Store, job: QueryJob, query: str, native: QueryResultsFormat) -> bytes:
    # a lookup has no GRAPH clause: its named graphs do not matter
    result = store.query(query, default_graph=job.default_graph, union_default_graph=job.union)
    if not isinstance(result, QuerySolutions | QueryBoolean):  # parse() only passes SELECT and ASK
        raise TypeError(f"a lookup answered {type(result).__name__}")
    body = result.serialize(format=native)
    assert body is not None  # serialize() without an output returns the bytes
    return body
