"""Content negotiation: which serialisation answers a request, from ``Accept`` or a ``format`` parameter.

SELECT and ASK answer with a SPARQL results format, CONSTRUCT and DESCRIBE (and Graph Store GETs) with an RDF
format. With no ``Accept`` (or ``*/*``) the first format of each table is used: SPARQL JSON results, Turtle.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from kgsvc.store import QueryResultsFormat, RdfFormat

__all__ = ["GRAPH_FORMATS", "RESULT_FORMATS", "Format", "NotAcceptable", "negotiate", "rdf_format_for_media_type"]


@dataclass(frozen=True)
class Format:
    """One serialisation: the media type sent back, the native format, and the names that select it."""

    media_type: str
    native: QueryResultsFormat | RdfFormat
    aliases: tuple[str, ...]
    names: tuple[str, ...] = ()

    @cached_property
    def content_type(self) -> str:
        return f"{self.media_type}; charset=utf-8" if self.media_type.startswith("text/") else self.media_type


RESULT_FORMATS = (
    Format("application/sparql-results+json", QueryResultsFormat.JSON, ("application/json",), ("json", "srj")),
    Format("application/sparql-results+xml", QueryResultsFormat.XML, ("application/xml", "text/xml"), ("xml", "srx")),
    Format("text/csv", QueryResultsFormat.CSV, (), ("csv",)),
    Format("text/tab-separated-values", QueryResultsFormat.TSV, (), ("tsv",)),
)
GRAPH_FORMATS = (
    Format("text/turtle", RdfFormat.TURTLE, ("application/x-turtle", "application/turtle"), ("turtle", "ttl")),
    Format("application/n-triples", RdfFormat.N_TRIPLES, ("text/plain",), ("ntriples", "nt", "n-triples")),
    Format("application/rdf+xml", RdfFormat.RDF_XML, ("application/xml", "text/xml"), ("rdfxml", "rdf", "xml")),
    Format("application/ld+json", RdfFormat.JSON_LD, ("application/json",), ("jsonld", "json-ld", "json")),
    Format("text/n3", RdfFormat.N3, ("text/rdf+n3",), ("n3",)),
)


class NotAcceptable(Exception):
    """No format the client accepts can carry this result (HTTP 406 at the API layer)."""


def _ranges(accept: str) -> list[tuple[str, float, int]]:
    """``(media range, q, position)`` of an Accept header; malformed q values count as 1."""
    out = []
    for position, part in enumerate(accept.split(",")):
        fields = [f.strip() for f in part.split(";")]
        media = fields[0].lower()
        if not media:
            continue
        q = 1.0
        for field in fields[1:]:
            key, _, value = field.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 1.0
        out.append((media, q, position))
    return out


def _match(ranges: list[tuple[str, float, int]], media_types: tuple[str, ...]) -> tuple[float, int, int] | None:
    """Best (q, specificity, -position) of the ranges that match one of ``media_types``."""
    best = None
    for media, q, position in ranges:
        for candidate in media_types:
            if media == candidate:
                specificity = 2
            elif media.endswith("/*") and candidate.startswith(media[:-1]):
                specificity = 1
            elif media == "*/*":
                specificity = 0
            else:
                continue
            key = (specificity, q, -position)
            if best is None or key > best:
                best = key
    if best is None:
        return None
    specificity, q, position = best
    return q, specificity, position


@lru_cache(maxsize=512)
def negotiate(accept: str | None, kind: str, format_name: str | None = None) -> Format:
    """The format for a result of ``kind`` (``"results"`` or ``"graph"``).

    ``format_name`` (the ``format`` / ``output`` request parameter: a name like ``json`` or a media type) wins
    when it names a format of that kind; otherwise ``Accept`` decides, preferring higher q, then exact over
    wildcard matches, then the client's order.

    Raises
    ------
    NotAcceptable
        When ``Accept`` excludes every format of that kind.

    >>> negotiate("text/csv, */*;q=0.1", "results").media_type
    'text/csv'
    >>> negotiate(None, "graph").media_type
    'text/turtle'
    """
    table = RESULT_FORMATS if kind == "results" else GRAPH_FORMATS
    if format_name:
        key = format_name.strip().lower()
        for fmt in table:
            if key in fmt.names or key == fmt.media_type or key in fmt.aliases:
                return fmt
    if not accept or not accept.strip():
        return table[0]
    ranges = _ranges(accept)
    scored = []
    for order, fmt in enumerate(table):
        match = _match(ranges, (fmt.media_type, *fmt.aliases))
        if match is not None and match[0] > 0:
            q, specificity, position = match
            scored.append(((q, specificity, position, -order), fmt))
    if not scored:
        offered = ", ".join(f.media_type for f in table)
        raise NotAcceptable(f"none of the accepted media types ({accept}) can carry this result; offered: {offered}")
    return max(scored, key=lambda item: item[0])[1]


def rdf_format_for_media_type(content_type: str | None) -> RdfFormat | None:
    """The RDF format of a request body's ``Content-Type`` (Graph Store PUT/POST), or ``None`` if not RDF.

    >>> rdf_format_for_media_type("text/turtle; charset=utf-8")
    <RdfFormat Turtle>
    """
    if not content_type:
        return None
    media = content_type.split(";")[0].strip().lower()
    for fmt in GRAPH_FORMATS:
        if media == fmt.media_type or media in fmt.aliases:
            assert isinstance(fmt.native, RdfFormat)
            return fmt.native
    try:
        return RdfFormat.from_media_type(media)
    except ValueError:
        return None
