"""Run one query and serialise its result natively, under a row limit and a deadline.

This is what a query worker process (:mod:`kgsvc.api.worker`) or a query thread runs. pyoxigraph serialises
in Rust with the GIL released, writing through :class:`_LimitWriter` in chunks of about 8 KiB; the writer
counts rows (SPARQL TSV and N-Triples write exactly one line per row) and checks the deadline, and raising
from it stops the evaluation. A result asked for in another format is then converted natively (TSV →
JSON/XML/CSV, N-Triples → Turtle/RDF-XML/JSON-LD/N3): the round trip is lossless and costs a few
microseconds per row.

What a deadline check here cannot stop: an operator that works a long time before its first output
(``ORDER BY``, ``GROUP BY``, ``COUNT``, a hash join's build side). The process executor kills such a worker
(:mod:`kgsvc.api.executor`).
"""

from __future__ import annotations

import io
import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import IO, Any, cast

from kgsvc.errors import QueryError, StoreError
from kgsvc.store import (
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    RdfFormat,
    Store,
    Triple,
    parse_quads,
    parse_query_results,
    serialize,
)

__all__ = ["QueryJob", "run_query"]


@dataclass(frozen=True)
class QueryJob:
    """One query to run: the text, its dataset, the media type to answer with, and its limits.

    ``default_graph``/``named_graphs`` ``None`` keep the query's own ``FROM``/``FROM NAMED`` (or the store's);
    ``union`` makes the default graph the union of all graphs; relative IRIs resolve against ``base_iri``.
    ``timeout_s`` counts from when the job starts.
    """

    query: str
    media_type: str
    max_rows: int
    timeout_s: float
    default_graph: tuple[str, ...] | None = None
    named_graphs: tuple[str, ...] | None = None
    union: bool = False
    base_iri: str | None = None

    def to_dict(self) -> dict[str, Any]:
        # by hand: dataclasses.asdict deep-copies, and this runs on every request
        return {f: getattr(self, f) for f in _JOB_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QueryJob:
        for key in ("default_graph", "named_graphs"):
            if data.get(key) is not None:
                data[key] = tuple(data[key])
        return cls(**data)


_JOB_FIELDS = tuple(f.name for f in fields(QueryJob))


class _Stop(Exception):
    """Raised inside the native serialiser's write callback to stop the evaluation."""

    def __init__(self, error: QueryError) -> None:
        super().__init__(str(error))
        self.error = error


class _LimitWriter(io.RawIOBase):
    """Collects output; stops the query past ``max_lines`` lines (plus ``header`` lines) or past ``deadline``."""

    def __init__(self, *, max_lines: int, header: int, deadline: float, what: str) -> None:
        self.chunks: list[bytes] = []
        self.lines = -header
        self.max_lines = max_lines
        self.deadline = deadline
        self.what = what

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.chunks.append(chunk)
        self.lines += chunk.count(b"\n")
        if self.lines > self.max_lines:
            raise _Stop(QueryError(f"the result has more than {self.max_lines} {self.what}", kind="too_large"))
        if time.monotonic() > self.deadline:
            raise _Stop(_timeout_error())
        return len(chunk)

    def getvalue(self) -> bytes:
        return b"".join(self.chunks)


def _timeout_error(seconds: float | None = None) -> QueryError:
    limit = f" of {seconds:g} s" if seconds else ""
    return QueryError(f"the query ran past the time limit{limit} and was stopped", kind="timeout")


def run_query(store: Store, job: QueryJob) -> tuple[str, bytes]:
    """Run ``job`` on ``store``; returns the media type and the serialised result.

    Raises
    ------
    QueryError
        ``kind="syntax"`` for a malformed query, ``"too_large"`` past ``job.max_rows`` rows or triples,
        ``"timeout"`` when the deadline passes while results are written.
    StoreError
        If the store fails, or the result cannot be written in the format (JSON-LD has no triple terms).
    """
    from kgsvc.api.negotiation import GRAPH_FORMATS, RESULT_FORMATS

    deadline = time.monotonic() + job.timeout_s
    target = next(f for f in (*RESULT_FORMATS, *GRAPH_FORMATS) if f.media_type == job.media_type)
    result = store.query(
        job.query,
        default_graph=list(job.default_graph) if job.default_graph is not None else None,
        named_graphs=list(job.named_graphs) if job.named_graphs is not None else None,
        union_default_graph=job.union,
        base_iri=job.base_iri,
    )
    try:
        return _answer(result, target, job, deadline)
    except BaseException as exc:
        _clear_frames(exc)
        raise
    finally:
        del result


def _clear_frames(exc: BaseException) -> None:
    """Clear the frames of ``exc`` and of every exception chained to it.

    pyoxigraph's result objects are bound to the thread that made them; a traceback anywhere in the chain (the
    ``_Stop`` a limit raised is the ``__context__`` of the ``QueryError`` re-raised from it) would keep one alive
    and drop it on whichever thread frees the exception ("PyQueryTriples is unsendable").
    """
    todo, seen = [exc], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        traceback.clear_frames(current.__traceback__)
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)


def _answer(result: Any, target: Any, job: QueryJob, deadline: float) -> tuple[str, bytes]:
    try:
        if isinstance(result, QueryBoolean):
            if not isinstance(target.native, QueryResultsFormat):
                raise QueryError("an ASK query answers with a SPARQL results format", kind="syntax", query=job.query)
            return target.media_type, _bytes(result.serialize(format=target.native))
        if isinstance(result, QuerySolutions):
            if not isinstance(target.native, QueryResultsFormat):
                raise QueryError("a SELECT query answers with a SPARQL results format", kind="syntax", query=job.query)
            writer = _LimitWriter(max_lines=job.max_rows, header=1, deadline=deadline, what="rows")
            result.serialize(cast(IO[bytes], writer), format=QueryResultsFormat.TSV)
            body = writer.getvalue()
            if target.native != QueryResultsFormat.TSV:
                body = _bytes(parse_query_results(body, format=QueryResultsFormat.TSV).serialize(format=target.native))
            return target.media_type, body
        if not isinstance(target.native, RdfFormat):
            raise QueryError("a CONSTRUCT or DESCRIBE query answers with an RDF format", kind="syntax", query=job.query)
        return target.media_type, _graph(result, target.native, job.max_rows, deadline)
    except _Stop as stop:
        if stop.error.kind == "timeout":
            raise _timeout_error(job.timeout_s) from None
        raise stop.error from None
    except RuntimeError as exc:  # evaluation refused, e.g. "The custom function <…> is not supported"
        raise QueryError(str(exc), kind="unsupported", query=job.query) from exc
    except OSError as exc:
        raise StoreError(f"the query failed while writing {target.media_type}: {exc}") from exc


def _bytes(data: bytes | None) -> bytes:
    assert data is not None  # serialize() without an output returns the bytes
    return data


def _graph(result: Iterable[Triple], fmt: RdfFormat, max_rows: int, deadline: float) -> bytes:
    writer = _LimitWriter(max_lines=max_rows, header=0, deadline=deadline, what="triples")
    native = getattr(result, "serialize", None)
    if native is not None:  # pyoxigraph's lazy QueryTriples
        native(writer, format=RdfFormat.N_TRIPLES)
    else:  # a remote store's list of triples
        serialize(result, cast(IO[bytes], writer), format=RdfFormat.N_TRIPLES)
    body = writer.getvalue()
    if fmt == RdfFormat.N_TRIPLES:
        return body
    triples = (Triple(q.subject, q.predicate, q.object) for q in parse_quads(body, RdfFormat.N_TRIPLES))
    out = io.BytesIO()
    serialize(triples, out, format=fmt)
    return out.getvalue()
