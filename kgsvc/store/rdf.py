"""RDF terms, formats, parsing and serialisation: the one place that touches pyoxigraph's parsers.

Everything else in kgsvc imports RDF terms and parsers from :mod:`kgsvc.store`, never from pyoxigraph.

Formats are named by :class:`RdfFormat` (pyoxigraph's enum). pyoxigraph parses Turtle, N-Triples,
N-Quads, TriG, N3, RDF/XML and JSON-LD natively; TriX is parsed with rdflib (:data:`RDFLIB_FORMATS`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, cast

import pyoxigraph as ox

from kgsvc.errors import IngestError

__all__ = [
    "RDFLIB_FORMATS",
    "BlankNode",
    "DefaultGraph",
    "Literal",
    "NamedNode",
    "Quad",
    "QueryBoolean",
    "QueryResultsFormat",
    "QuerySolutions",
    "QueryTriples",
    "RdfFormat",
    "UTF8_BOM",
    "Triple",
    "format_from_name",
    "parse_quads",
    "parse_query_results",
    "iter_serialized",
    "read_path",
    "serialize",
    "syntax_error",
]

BlankNode = ox.BlankNode
DefaultGraph = ox.DefaultGraph
Literal = ox.Literal
NamedNode = ox.NamedNode
Quad = ox.Quad
Triple = ox.Triple
RdfFormat = ox.RdfFormat
QueryResultsFormat = ox.QueryResultsFormat
QuerySolutions = ox.QuerySolutions
QueryBoolean = ox.QueryBoolean
QueryTriples = ox.QueryTriples
serialize = ox.serialize
parse_query_results = ox.parse_query_results

#: Formats read with rdflib because pyoxigraph has no parser for them: name → rdflib format name.
RDFLIB_FORMATS = {"trix": "trix"}

_ALIASES: dict[str, RdfFormat] = {
    "ttl": RdfFormat.TURTLE,
    "turtle": RdfFormat.TURTLE,
    "nt": RdfFormat.N_TRIPLES,
    "ntriples": RdfFormat.N_TRIPLES,
    "n-triples": RdfFormat.N_TRIPLES,
    "nq": RdfFormat.N_QUADS,
    "nquads": RdfFormat.N_QUADS,
    "n-quads": RdfFormat.N_QUADS,
    "trig": RdfFormat.TRIG,
    "n3": RdfFormat.N3,
    "rdf": RdfFormat.RDF_XML,
    "owl": RdfFormat.RDF_XML,
    "xml": RdfFormat.RDF_XML,
    "rdfxml": RdfFormat.RDF_XML,
    "rdf/xml": RdfFormat.RDF_XML,
    "jsonld": RdfFormat.JSON_LD,
    "json-ld": RdfFormat.JSON_LD,
}

_POSITION = re.compile(r"line (\d+)(?: between columns (\d+) and \d+| column (\d+))?")


def format_from_name(name: str) -> RdfFormat | str | None:
    """Map a format name, file extension or media type to an RDF format.

    Returns an :class:`RdfFormat`, a key of :data:`RDFLIB_FORMATS` (``"trix"``), or ``None`` when the name is
    not an RDF format (plain triple files are recognised by :mod:`kgsvc.ingest`).

    >>> format_from_name("ttl")
    <RdfFormat Turtle>
    >>> format_from_name("application/n-triples")
    <RdfFormat N-Triples>
    >>> format_from_name("tsv") is None
    True
    """
    key = name.strip().lower().lstrip(".")
    if key in _ALIASES:
        return _ALIASES[key]
    if key in RDFLIB_FORMATS:
        return key
    if "/" in key:
        return RdfFormat.from_media_type(key.split(";")[0].strip())
    return None


def parse_quads(
    source: IO[bytes] | bytes,
    fmt: RdfFormat | str,
    *,
    file: str | None = None,
    base_iri: str | None = None,
    to_graph: NamedNode | None = None,
) -> Iterator[ox.Quad]:
    """Parse RDF lazily into quads; triples go to ``to_graph`` (default graph when ``None``).

    Raises
    ------
    IngestError
        On the first syntax error, with the file, line and column and the parser's reason.
    """
    if isinstance(fmt, str):
        yield from _parse_with_rdflib(source, fmt, file=file, base_iri=base_iri, to_graph=to_graph)
        return
    try:
        for quad in ox.parse(source, format=fmt, base_iri=base_iri):
            if to_graph is not None and isinstance(quad.graph_name, ox.DefaultGraph):
                quad = ox.Quad(quad.subject, quad.predicate, quad.object, to_graph)
            yield quad
    except SyntaxError as exc:
        raise syntax_error(exc, file=file) from exc
    except UnicodeDecodeError as exc:
        raise IngestError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=file) from exc


def syntax_error(exc: SyntaxError, *, file: str | None) -> IngestError:
    """Turn a pyoxigraph :class:`SyntaxError` into an :class:`IngestError` with line and column."""
    message = str(exc.msg if exc.msg else exc)
    line, column = exc.lineno, exc.offset
    match = _POSITION.search(message)
    if line is None and match:
        line = int(match.group(1))
        column = int(match.group(2) or match.group(3) or 0) or None
    reason = re.sub(r"^Parser error (at|between) .*?: ", "", message)
    reason = re.sub(r" \(line \d+\)$", "", reason)  # the position is reported once, as FILE:LINE:COLUMN
    return IngestError(reason, file=file, line=line, column=column)


def _parse_with_rdflib(
    source: IO[bytes] | bytes,
    fmt: str,
    *,
    file: str | None,
    base_iri: str | None,
    to_graph: NamedNode | None,
) -> Iterator[ox.Quad]:
    from xml.sax import SAXParseException

    import rdflib

    data = source if isinstance(source, bytes) else source.read()
    graph = rdflib.Dataset()
    try:
        graph.parse(data=data, format=RDFLIB_FORMATS[fmt], publicID=base_iri)
    except SAXParseException as exc:
        raise IngestError(exc.getMessage(), file=file, line=exc.getLineNumber(), column=exc.getColumnNumber()) from exc
    except Exception as exc:  # rdflib raises many unrelated types for bad input
        raise IngestError(f"{type(exc).__name__}: {exc}", file=file) from exc
    default = rdflib.graph.DATASET_DEFAULT_GRAPH_ID
    for s, p, o, g in graph.quads((None, None, None, None)):
        name = getattr(g, "identifier", g)  # a named graph stays one; a blank-node name is the default graph
        graph_name = ox.NamedNode(str(name)) if isinstance(name, rdflib.URIRef) and name != default else to_graph
        subject = cast(ox.NamedNode | ox.BlankNode, _from_rdflib(s))
        yield ox.Quad(subject, cast(ox.NamedNode, _from_rdflib(p)), _from_rdflib(o), graph_name or ox.DefaultGraph())


def _from_rdflib(term: object) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    import rdflib

    if isinstance(term, rdflib.URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, rdflib.BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise IngestError(f"unsupported RDF term {term!r}")


#: The UTF-8 byte order mark some editors write at the start of a text file.
UTF8_BOM = b"\xef\xbb\xbf"


def read_path(path: Path) -> IO[bytes]:
    """Open a file for parsing, transparently un-gzipping ``*.gz`` and skipping a leading UTF-8 byte order mark.

    pyoxigraph's parsers reject a BOM (``\\ufeff is not a valid subject``), and skipping it keeps every reported
    line and column where an editor shows them.
    """
    if path.suffix == ".gz":
        import gzip

        handle = cast(IO[bytes], gzip.open(path, "rb"))
    else:
        handle = path.open("rb")
    try:
        if handle.read(len(UTF8_BOM)) != UTF8_BOM:
            handle.seek(0)
    except (OSError, EOFError):
        handle.seek(0)  # not gzip after all, or truncated: the reader reports it
    return handle


def iter_serialized(quads: Iterable[ox.Quad] | Iterable[ox.Triple], fmt: RdfFormat) -> bytes:
    """Serialise quads or triples into bytes."""
    buffer = io.BytesIO()
    ox.serialize(quads, buffer, format=fmt)
    return buffer.getvalue()
