"""The store interface every backend implements, and how datasets map to named graphs.

A dataset ``NAME`` is the named graph ``urn:kgsvc:dataset:NAME``. Quads formats are loaded into that graph
too (their own graph names are not kept); this keeps one dataset one graph, for SPARQL and for the indexes.
"""

from __future__ import annotations

import abc
import io
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, TypeAlias, cast

from kgsvc.errors import DatasetError
from kgsvc.store.rdf import NamedNode, Quad, QueryBoolean, QuerySolutions, RdfFormat, Triple, parse_quads
from kgsvc.store.sparql_limits import DEFAULT_MAX_DEPTH, DEFAULT_MAX_OPERATORS, check_sparql

__all__ = ["DATASET_GRAPH_PREFIX", "QueryResult", "Store", "check_dataset_name", "dataset_graph", "dataset_of_graph"]

DATASET_GRAPH_PREFIX = "urn:kgsvc:dataset:"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

#: SELECT → solutions, ASK → boolean, CONSTRUCT/DESCRIBE → an iterable of triples.
QueryResult: TypeAlias = QuerySolutions | QueryBoolean | Iterable[Triple]


def check_dataset_name(name: str) -> str:
    """Return ``name`` if it is a valid dataset name (letters, digits, ``_ . -``, at most 64), else raise.

    >>> check_dataset_name("movies")
    'movies'
    """
    if not _NAME.match(name):
        raise DatasetError(
            f"invalid dataset name {name!r}: expected 1-64 letters, digits, '_', '.' or '-', starting with a letter "
            "or digit",
            dataset=name,
        )
    return name


def dataset_graph(name: str) -> NamedNode:
    """The named graph that holds dataset ``name``.

    >>> dataset_graph("movies").value
    'urn:kgsvc:dataset:movies'
    """
    return NamedNode(DATASET_GRAPH_PREFIX + check_dataset_name(name))


def dataset_of_graph(iri: str) -> str | None:
    """The dataset name of a dataset graph IRI, or ``None`` for any other graph."""
    return iri[len(DATASET_GRAPH_PREFIX) :] if iri.startswith(DATASET_GRAPH_PREFIX) else None


class Store(abc.ABC):
    """An RDF quad store reached by SPARQL 1.1. Implementations: embedded pyoxigraph, remote HTTP.

    Every query and update text is checked by :meth:`check_text` before it is parsed (or sent).
    """

    #: Bounds on SPARQL text (:mod:`kgsvc.store.sparql_limits`); ``open_store`` sets them from the settings.
    sparql_max_depth: int = DEFAULT_MAX_DEPTH
    sparql_max_operators: int = DEFAULT_MAX_OPERATORS

    def check_text(self, sparql: str) -> None:
        """Raise ``QueryError`` (``kind="too_complex"``) for text that could overflow a SPARQL parser's stack."""
        check_sparql(sparql, max_depth=self.sparql_max_depth, max_operators=self.sparql_max_operators)

    @abc.abstractmethod
    def query(
        self,
        sparql: str,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        union_default_graph: bool = False,
        base_iri: str | None = None,
    ) -> QueryResult:
        """Run a SPARQL query. ``default_graph`` lists the graph IRIs that form the default graph; relative IRIs
        in the text are resolved against ``base_iri`` (``None``: they are an error).

        Raises ``QueryError`` (kind ``"syntax"``) for an invalid query, ``StoreError`` if the store fails.
        """

    @abc.abstractmethod
    def update(self, sparql: str, *, base_iri: str | None = None) -> None:
        """Run a SPARQL update, all or nothing (relative IRIs resolved against ``base_iri``). Raises ``QueryError``
        for an invalid update."""

    @abc.abstractmethod
    def insert(self, quads: Iterable[Quad]) -> None:
        """Add quads in one transaction (all or nothing). For small and incremental loads."""

    @abc.abstractmethod
    def bulk_insert(self, quads: Iterable[Quad]) -> None:
        """Stream many quads in. Not transactional: callers roll back themselves on failure."""

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
        """Parse RDF from ``source`` into ``graph``; a format of quads keeps its named graphs (a graph named by a blank
        node is folded into ``graph``).

        ``bulk=False``: one transaction, all or nothing. ``bulk=True``: streamed, not transactional.
        ``trusted=True`` is for input kgsvc generated itself (valid by construction): backends may skip
        validating IRIs. Raises ``IngestError`` (with line and column) on malformed input.
        """
        quads = parse_quads(source, fmt, file=file, base_iri=base_iri, to_graph=NamedNode(graph))
        folded = (
            q if isinstance(q.graph_name, NamedNode) else Quad(q.subject, q.predicate, q.object, NamedNode(graph))
            for q in quads
        )
        if bulk:
            self.bulk_insert(folded)
        else:
            self.insert(list(folded))

    def load_chunks(
        self,
        chunks: Iterable[bytes],
        fmt: RdfFormat,
        *,
        graph: str,
        bulk: bool = False,
        file: str | None = None,
        trusted: bool = False,
        piece_bytes: int = 0,
    ) -> None:
        """:meth:`load` for RDF text produced piece by piece (kgsvc's mapping of triple files).

        Each chunk holds whole lines. ``piece_bytes``: on the bulk path, a store may load the input in pieces of
        about this many bytes, one bulk load each, to bound its memory (0: in one); this one loads it in one.
        ``chunks`` is consumed on the calling thread, so an exception it raises propagates unchanged (after the
        store has stopped reading); what was loaded before it is not rolled back on the bulk path.
        """
        stream = _ChunkStream(chunks)
        try:
            self.load(cast(IO[bytes], stream), fmt, graph=graph, bulk=bulk, file=file, trusted=trusted)
        except Exception as exc:
            if stream.error is not None and exc is not stream.error:
                raise stream.error from exc  # the parser wrapped what read() raised
            raise

    @abc.abstractmethod
    def graphs(self) -> list[str]:
        """IRIs of the named graphs in the store."""

    @abc.abstractmethod
    def count(self, graph: str) -> int:
        """Number of triples in a named graph."""

    @abc.abstractmethod
    def drop(self, graph: str) -> None:
        """Remove a named graph and all its triples (no error if absent)."""

    @abc.abstractmethod
    def dump(self, graph: str, fmt: RdfFormat) -> bytes:
        """Serialise a named graph's triples."""

    def flush(self) -> None:  # noqa: B027 - optional hook
        """Make sure writes are durable (no-op where the backend does it itself)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the store."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _ChunkStream(io.RawIOBase):
    """A binary reader over an iterator of byte chunks; keeps the iterator's exception in :attr:`error`."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        super().__init__()
        self._chunks: Iterator[bytes] = iter(chunks)
        self._pending = memoryview(b"")
        self.error: Exception | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            try:
                self._pending = memoryview(next(self._chunks))
            except StopIteration:
                return 0
            except Exception as exc:
                self.error = exc
                raise
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size
