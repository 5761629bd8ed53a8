"""Single-pattern lookups: the queries the endpoint answers inline, without a query worker.

Most endpoint traffic is lookups — ``SELECT ?o WHERE { <e> <r> ?o }``. Sending each to a worker process
(:mod:`kgsvc.api.executor`) costs far more than the lookup itself: the pipe round trip and two process wake-ups
are most of the CPU a request took (``docs/benchmarks-history.md``, "the ceiling of a Python front").

A worker exists so that a runaway query can be killed. A *single-pattern lookup* cannot run away:

* the query is ``[PREFIX/BASE …] SELECT (vars | *) [WHERE] { s p o [.] } [LIMIT n]`` or ``ASK [WHERE] { s p o }``,
  with no comment, ``DISTINCT``, ``FILTER``, ``ORDER BY``, dataset clause or anything else (:func:`is_lookup`);
* at least one of ``s p o`` is a constant and no variable occurs twice in the pattern.

Such a query is one index range scan in Oxigraph, and every triple the scan meets is a result row (a repeated
variable or a ``DISTINCT`` would let it scan without producing rows). Every results format writes at least one
byte per row, so its cost is bounded by the bytes it writes. :func:`answer` serialises it natively into a buffer
that stops the evaluation past :data:`INLINE_MAX_BYTES` (or ``max_result_rows`` bytes, if lower: a body that
fits has no more rows than that): a few milliseconds on the event loop at most. A larger answer is handed back
(``None``) and computed again by a worker, like any other query, under the full ``max_result_rows`` and
``query_timeout_s``. Only one default graph is allowed inline (each graph is a scan of its own).

The recogniser is a regular expression, deliberately narrow and linear, over queries of at most
:data:`MAX_LOOKUP_CHARS`: anything it does not recognise (a comment, an escape, a prefixed name with a dot, a
property path) simply takes the worker path, so it can be wrong only by being too cautious. Syntax it accepts but
SPARQL does not (an undeclared prefix) is reported by pyoxigraph's parser, as on the worker path.
"""

from __future__ import annotations

import re
from typing import IO, cast

from kgsvc.api.negotiation import RESULT_FORMATS
from kgsvc.api.results import QueryJob
from kgsvc.store import QueryBoolean, QueryResultsFormat, QuerySolutions, Store

__all__ = ["INLINE_MAX_BYTES", "MAX_LOOKUP_CHARS", "answer", "is_lookup"]

#: The largest answer written inline; a larger one is computed by a query worker.
INLINE_MAX_BYTES = 16_384
#: Longer query texts are not looked at (they are not lookups in practice).
MAX_LOOKUP_CHARS = 4_096

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
    \{{\s*(?P<s>{_NODE})\s+(?P<p>{_NODE}|a)\s+(?P<o>{_NODE}|{_LITERAL})\s*(?:\.\s*)?\}}
    \s*(?:LIMIT\s+[0-9]+\s*)?
    """,
    re.VERBOSE | re.IGNORECASE | re.ASCII,
)
_FORMATS = {f.media_type: f.native for f in RESULT_FORMATS if isinstance(f.native, QueryResultsFormat)}


def is_lookup(query: str) -> bool:
    """Whether ``query`` is a single-pattern lookup (see the module docstring). O(len(query)).

    >>> is_lookup("SELECT ?o WHERE { <http://e/a> <http://e/r> ?o }")
    True
    >>> is_lookup("PREFIX e: <http://e/> ASK { ?s e:r 12 } LIMIT 3"), is_lookup("select * { ?s ?p ?o }")
    (True, False)
    >>> is_lookup("SELECT ?x WHERE { ?x <http://e/r> ?x }"), is_lookup("SELECT DISTINCT ?o { <a:b> ?p ?o }")
    (False, False)
    """
    if len(query) > MAX_LOOKUP_CHARS:
        return False
    match = _LOOKUP.fullmatch(query)
    if match is None or "service" in query.lower():  # SERVICE can hide in a prefixed name: leave it to the workers
        return False
    variables = [t[1:] for t in match.group("s", "p", "o") if t[0] in "?$"]
    return len(variables) < 3 and len(set(variables)) == len(variables)


class _OverBudget(Exception):
    """Raised inside the native serialiser's write callback to stop the evaluation."""


class _Buffer:
    """A binary writer for pyoxigraph's ``serialize``; raises :class:`_OverBudget` past ``budget`` bytes."""

    __slots__ = ("chunks", "left")

    def __init__(self, budget: int) -> None:
        self.chunks: list[bytes] = []
        self.left = budget

    def write(self, data: bytes) -> int:
        self.left -= len(data)
        if self.left < 0:
            raise _OverBudget
        self.chunks.append(data)
        return len(data)

    def flush(self) -> None:
        pass


def answer(store: Store, job: QueryJob) -> tuple[str, bytes] | None:
    """Run the lookup ``job`` on ``store`` in the calling thread: its media type and body.

    ``None`` when the answer is longer than :data:`INLINE_MAX_BYTES` or ``job.max_rows`` bytes, or the job has
    several default graphs: run it in a worker then, which also applies the row limit. ``job.media_type`` is a
    SPARQL results format (the query is a SELECT or ASK). Raises ``QueryError`` (``kind="syntax"``) for what
    pyoxigraph's parser rejects.
    """
    if job.default_graph is not None and len(job.default_graph) > 1:
        return None
    # a lookup has no GRAPH clause: its named graphs do not matter
    result = store.query(
        job.query, default_graph=job.default_graph, union_default_graph=job.union, base_iri=job.base_iri
    )
    if not isinstance(result, QuerySolutions | QueryBoolean):  # is_lookup() only passes SELECT and ASK
        raise TypeError(f"a lookup answered {type(result).__name__}")
    buffer = _Buffer(min(job.max_rows, INLINE_MAX_BYTES))
    try:
        result.serialize(cast("IO[bytes]", buffer), format=_FORMATS[job.media_type])
    except _OverBudget:
        return None
    return job.media_type, b"".join(buffer.chunks)
