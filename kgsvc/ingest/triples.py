"""Plain triple files (``h|r|t``, tab-separated, CSV) mapped to RDF with the reversible scheme of DESIGN §3.

An entity text ``E`` becomes ``<BASE entity/pct(E)>`` labelled ``"E"``; a relation ``R`` becomes
``<BASE relation/pct(R)>`` labelled with :func:`humanise` ``(R)`` and keeping ``kgsvc:sourceText "R"``.
``pct`` percent-encodes every byte outside ``A-Z a-z 0-9 - . _ ~``, so :func:`text_of_iri` inverts it.
The vocabulary is in ``ontologies/kgsvc.ttl``.

The mapping is written out as N-Triples text so the store's native parser can bulk-load it.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from typing import IO
from urllib.parse import quote, unquote

from kgsvc.errors import IngestError

__all__ = ["KGSVC_NS", "TRIPLE_FORMATS", "entity_iri", "humanise", "relation_iri", "text_of_iri", "triples_to_ntriples"]

KGSVC_NS = "https://w3id.org/kgsvc/ns#"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
#: Recognised plain-triple formats: ``pipe`` (h|r|t), ``tsv``, ``csv``, ``triples`` (pipe or tab, detected).
TRIPLE_FORMATS = ("pipe", "tsv", "csv", "triples")

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def humanise(relation: str) -> str:
    """A readable label for a relation name.

    >>> humanise("directed_by")
    'directed by'
    >>> humanise("birthDate")
    'birth date'
    >>> humanise("plays_in_club_inverse")
    'plays in club inverse'
    """
    text = _CAMEL.sub(" ", relation.strip()).replace("_", " ").replace("-", " ")
    return " ".join(text.split()).lower() if text != text.upper() else " ".join(text.split())


_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: ASCII → percent-encoded ASCII, for ``str.translate`` (much faster than ``urllib.parse.quote``).
_ASCII_PCT = {c: (chr(c) if c in _UNRESERVED else f"%{c:02X}") for c in range(128)}


def _pct(text: str) -> str:
    """RFC 3986 percent-encoding of the UTF-8 text, leaving only unreserved characters (= ``quote(safe='')``)."""
    return text.translate(_ASCII_PCT) if text.isascii() else quote(text, safe="")


def entity_iri(base: str, text: str) -> str:
    """The IRI of an entity text under ``base``.

    >>> entity_iri("https://kgsvc.local/m/", "Tokyo Godfathers")
    'https://kgsvc.local/m/entity/Tokyo%20Godfathers'
    """
    return f"{base}entity/{_pct(text)}"


def relation_iri(base: str, text: str) -> str:
    """The IRI of a relation name under ``base``."""
    return f"{base}relation/{_pct(text)}"


def text_of_iri(iri: str) -> str:
    """Invert :func:`entity_iri` / :func:`relation_iri`: the original string.

    >>> text_of_iri(entity_iri("https://kgsvc.local/m/", "Amélie | 2001"))
    'Amélie | 2001'
    """
    return unquote(iri.rsplit("/", 1)[1])


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


def _rows(stream: IO[str], fmt: str, file: str | None) -> Iterator[tuple[int, list[str]]]:
    if fmt == "csv":
        reader = csv.reader(stream)
        for row in reader:
            yield reader.line_num, row
        return
    delimiter = {"pipe": "|", "tsv": "\t"}.get(fmt)
    for number, line in enumerate(stream, start=1):
        line = line.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            yield number, []
            continue
        if delimiter is None:
            delimiter = "\t" if "\t" in line else "|"
        yield number, line.split(delimiter)


def triples_to_ntriples(stream: IO[bytes], *, fmt: str, base: str, file: str | None = None) -> Iterator[bytes]:
    """Yield N-Triples chunks for a plain triple file; raise :class:`IngestError` on the first bad line.

    Every row must have exactly three non-empty columns (``csv``: a header ``head,relation,tail`` or similar
    is skipped when it is the first row and equals those names). Entity and relation labels are emitted once
    per file.
    """
    text = io.TextIOWrapper(stream, encoding="utf-8", newline="" if fmt == "csv" else None)
    entities: dict[str, str] = {}  # text → "<IRI>"; also "label already written"
    relations: dict[str, str] = {}
    out: list[str] = []
    label = f"<{RDFS_LABEL}>"
    source = f"<{KGSVC_NS}sourceText>"
    rows = 0
    try:
        for number, row in _rows(text, fmt, file):
            if not row:
                continue
            if len(row) != 3:
                raise IngestError(
                    f"expected 3 columns (head, relation, tail), found {len(row)}", file=file, line=number
                )
            head, rel, tail = row[0].strip(), row[1].strip(), row[2].strip()
            if fmt == "csv" and rows == 0 and (head.lower(), rel.lower(), tail.lower()) in _HEADERS:
                rows += 1
                continue
            if not head or not rel or not tail:
                raise IngestError("empty head, relation or tail", file=file, line=number)
            rows += 1
            h = entities.get(head)
            if h is None:
                h = entities[head] = f"<{entity_iri(base, head)}>"
                out.append(f"{h} {label} {_literal(head)} .\n")
            t = entities.get(tail)
            if t is None:
                t = entities[tail] = f"<{entity_iri(base, tail)}>"
                out.append(f"{t} {label} {_literal(tail)} .\n")
            r = relations.get(rel)
            if r is None:
                r = relations[rel] = f"<{relation_iri(base, rel)}>"
                out.append(f"{r} {label} {_literal(humanise(rel))} .\n{r} {source} {_literal(rel)} .\n")
            out.append(f"{h} {r} {t} .\n")
            if len(out) >= 4096:
                yield "".join(out).encode()
                out.clear()
    except UnicodeDecodeError as exc:
        raise IngestError(f"not UTF-8 text ({exc.reason})", file=file) from exc
    except csv.Error as exc:
        raise IngestError(f"bad CSV: {exc}", file=file) from exc
    finally:
        text.detach()  # the caller owns (and closes) the binary stream
    if out:
        yield "".join(out).encode()
    if rows == 0:
        raise IngestError("no triples in the file", file=file)


_HEADERS = {("head", "relation", "tail"), ("subject", "predicate", "object"), ("h", "r", "t"), ("s", "p", "o")}
