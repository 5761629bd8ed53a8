"""Plain triple files (``h|r|t``, tab-separated, CSV) mapped to RDF with the reversible scheme of DESIGN §3.

An entity text ``E`` becomes ``<BASE entity/pct(E)>`` labelled ``"E"``; a relation ``R`` becomes
``<BASE relation/pct(R)>`` labelled with :func:`humanise` ``(R)`` and keeping ``kgsvc:sourceText "R"``.
``pct`` percent-encodes every byte outside ``A-Z a-z 0-9 - . _ ~``, so :func:`text_of_iri` inverts it.
The vocabulary is in ``ontologies/kgsvc.ttl``.

The mapping is written out as N-Triples text so the store's native parser can bulk-load it. The input is read in
blocks of about :data:`BLOCK_CHARS` characters; a block of clean rows (three non-empty columns, no blank or comment
lines) is split and mapped with whole-list operations that run in C, and every other block falls back to a
line-by-line parse that reports the first bad line. Both paths emit exactly the same triples. Each distinct
entity or relation is encoded (and labelled) once per file; every data row then costs three dictionary look-ups.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Generator, Iterator
from typing import IO
from urllib.parse import quote, unquote

from kgsvc.errors import IngestError
from kgsvc.store import NamedNode

__all__ = [
    "BLOCK_CHARS",
    "KGSVC_NS",
    "TRIPLE_FORMATS",
    "check_base_iri",
    "entity_iri",
    "humanise",
    "relation_iri",
    "text_of_iri",
    "triples_to_ntriples",
]

KGSVC_NS = "https://w3id.org/kgsvc/ns#"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
#: Recognised plain-triple formats: ``pipe`` (h|r|t), ``tsv``, ``csv``, ``triples`` (pipe or tab, detected).
TRIPLE_FORMATS = ("pipe", "tsv", "csv", "triples")
#: Characters of input mapped per emitted chunk (rows are never split across chunks). A quarter million gives
#: ≈1 MB of N-Triples a chunk: small enough that the store's bulk loader, reading them from a pipe, never waits
#: long for the next one (1 M-character blocks cost more wall time on MetaQA: bench/ingest.py, benchmarks-history).
BLOCK_CHARS = 1 << 18

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


def check_base_iri(base: str, *, file: str | None = None) -> str:
    """Return ``base`` if it is an absolute IRI (RFC 3987, as pyoxigraph's ``NamedNode`` checks), else raise.

    Minted IRIs are ``<base>entity/…``, written into N-Triples that the bulk loader reads without checks: a base
    holding ``>`` or a space would inject triples, so it is checked here once, before any IRI is minted. The rest
    of a minted IRI is percent-encoded unreserved characters, and literals are escaped (:func:`_literal`).

    >>> check_base_iri("https://kgsvc.local/films/")
    'https://kgsvc.local/films/'
    >>> try:
    ...     check_base_iri("http://x/> <http://evil/p> <http://evil/o> . #")
    ... except IngestError as exc:
    ...     print(exc.reason)
    invalid base IRI 'http://x/> <http://evil/p> <http://evil/o> . #': Invalid IRI code point '>'
    """
    try:
        NamedNode(base)
    except ValueError as exc:
        raise IngestError(f"invalid base IRI {base!r}: {exc}", file=file) from None
    return base


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


#: Rows of one block as three parallel lists: heads, relations, tails (stripped, non-empty).
_Rows = tuple[list[str], list[str], list[str]]


class _Entities(dict[str, bytes]):
    """Entity text → ``b"<IRI>"``; a new text is encoded, and its label triple recorded, on first look-up.

    Looking up a known text is one C-level dictionary access; :meth:`__missing__` runs once per distinct text.
    """

    def __init__(self, base: str, labels: list[str]) -> None:
        super().__init__()
        self._prefix = f"<{base}entity/"
        self._labels = labels

    def __missing__(self, text: str) -> bytes:
        iri = f"{self._prefix}{_pct(text)}>"
        self._labels.append(f"{iri} <{RDFS_LABEL}> {_literal(text)} .\n")
        value = self[text] = iri.encode()
        return value


class _Relations(dict[str, bytes]):
    """Relation text → ``b" <IRI> "``; a new text is encoded, and its label triples recorded, on first look-up."""

    def __init__(self, base: str, labels: list[str]) -> None:
        super().__init__()
        self._prefix = f"<{base}relation/"
        self._labels = labels

    def __missing__(self, text: str) -> bytes:
        iri = f"{self._prefix}{_pct(text)}>"
        self._labels.append(f"{iri} <{RDFS_LABEL}> {_literal(humanise(text))} .\n")
        self._labels.append(f"{iri} <{KGSVC_NS}sourceText> {_literal(text)} .\n")
        value = self[text] = f" {iri} ".encode()
        return value


class _Mapping:
    """The terms of one file: each distinct text is encoded and labelled once; rows become N-Triples bytes."""

    def __init__(self, base: str) -> None:
        self._labels: list[str] = []
        self._entities = _Entities(base, self._labels)
        self._relations = _Relations(base, self._labels)
        self.rows = 0

    def emit(self, rows: _Rows) -> bytes:
        """N-Triples for ``rows``, followed by the label triples of the entities and relations not seen before.

        A row is four parts of one join: subject, `` predicate ``, object, `` .\\n``.
        """
        heads, relations, tails = rows
        parts = [b"", b"", b"", b" .\n"] * len(heads)
        parts[0::4] = map(self._entities.__getitem__, heads)
        parts[1::4] = map(self._relations.__getitem__, relations)
        parts[2::4] = map(self._entities.__getitem__, tails)
        parts.append("".join(self._labels).encode())
        self._labels.clear()
        self.rows += len(heads)
        return b"".join(parts)


def _blocks(text: IO[str]) -> Iterator[tuple[int, str]]:
    """Whole lines in blocks of about :data:`BLOCK_CHARS` characters, each ending with a line break.

    Yields (number of the block's first line, block).
    """
    line = 1
    while block := text.read(BLOCK_CHARS):
        if not block.endswith("\n"):
            block += text.readline()
            if not block.endswith("\n"):  # the file's last line has no line break
                block += "\n"
        yield line, block
        line += block.count("\n")


def _delimiter_of(block: str) -> str | None:
    """Tab if the first data line (not blank, not a ``#`` comment) has one, else ``|``; ``None`` if none."""
    start = 0
    while start < len(block):
        end = block.index("\n", start)
        line = block[start:end]
        if line.strip() and not line.startswith("#"):
            return "\t" if "\t" in line else "|"
        start = end + 1
    return None


#: Delimiter → a pattern matching blocks of lines with three non-empty columns, none starting with "#".
_CLEAN = {d: re.compile(r"(?:[^#{0}\n][^{0}\n]*{0}[^{0}\n]+{0}[^{0}\n]+\n)*".format(re.escape(d))) for d in "\t|"}


def _clean_rows(block: str, delimiter: str) -> _Rows | None:
    """The rows of a block where every line has three non-blank columns and none is a comment; else ``None``.

    Whole-list operations only: one regular-expression match, one split and one ``strip`` per field, all in C.
    """
    if _CLEAN[delimiter].fullmatch(block) is None:
        return None
    fields = list(map(str.strip, block[:-1].replace("\n", delimiter).split(delimiter)))
    if "" in fields:
        return None
    return fields[0::3], fields[1::3], fields[2::3]


def _parse_lines(block: str, delimiter: str, first: int, file: str | None) -> _Rows:
    """The rows of a block, line by line: blank and ``#`` lines are skipped; the first bad line raises."""
    heads: list[str] = []
    relations: list[str] = []
    tails: list[str] = []
    for number, line in enumerate(block[:-1].split("\n"), start=first):
        if not line.strip() or line.startswith("#"):
            continue
        row = line.split(delimiter)
        if len(row) != 3:
            raise IngestError(f"expected 3 columns (head, relation, tail), found {len(row)}", file=file, line=number)
        head, relation, tail = row[0].strip(), row[1].strip(), row[2].strip()
        if not head or not relation or not tail:
            raise IngestError("empty head, relation or tail", file=file, line=number)
        heads.append(head)
        relations.append(relation)
        tails.append(tail)
    return heads, relations, tails


def _delimited_rows(text: IO[str], fmt: str, file: str | None) -> Iterator[_Rows]:
    delimiter = {"pipe": "|", "tsv": "\t"}.get(fmt)
    for first, block in _blocks(text):
        if delimiter is None and (delimiter := _delimiter_of(block)) is None:
            continue  # only blank and comment lines so far
        yield _clean_rows(block, delimiter) or _parse_lines(block, delimiter, first, file)


def _csv_rows(text: IO[str], file: str | None, batch: int = 20_000) -> Iterator[_Rows]:
    """CSV rows in batches; a first row equal to a header such as ``head,relation,tail`` is skipped."""
    reader = csv.reader(text)
    rows: _Rows = ([], [], [])
    first = True
    for row in reader:
        if not row:
            continue
        if len(row) != 3:
            raise IngestError(
                f"expected 3 columns (head, relation, tail), found {len(row)}", file=file, line=reader.line_num
            )
        head, relation, tail = row[0].strip(), row[1].strip(), row[2].strip()
        if first and (head.lower(), relation.lower(), tail.lower()) in _HEADERS:
            first = False
            continue
        first = False
        if not head or not relation or not tail:
            raise IngestError("empty head, relation or tail", file=file, line=reader.line_num)
        for column, value in zip(rows, (head, relation, tail), strict=True):
            column.append(value)
        if len(rows[0]) >= batch:
            yield rows
            rows = ([], [], [])
    yield rows


def triples_to_ntriples(
    stream: IO[bytes], *, fmt: str, base: str, file: str | None = None
) -> Generator[bytes, None, None]:
    """Yield N-Triples chunks (whole lines) for a plain triple file; raise :class:`IngestError` on the first bad line.

    Every row must have exactly three non-empty columns (``csv``: a header ``head,relation,tail`` or similar
    is skipped when it is the first row and equals those names). Entity and relation labels are emitted once
    per file, in the chunk of the row where the text first appears.
    """
    text = io.TextIOWrapper(stream, encoding="utf-8", newline="" if fmt == "csv" else None)
    mapping = _Mapping(base)
    try:
        for rows in _csv_rows(text, file) if fmt == "csv" else _delimited_rows(text, fmt, file):
            if rows[0]:
                yield mapping.emit(rows)
    except UnicodeDecodeError as exc:
        raise IngestError(f"not UTF-8 text ({exc.reason})", file=file) from exc
    except csv.Error as exc:
        raise IngestError(f"bad CSV: {exc}", file=file) from exc
    finally:
        text.detach()  # the caller owns (and closes) the binary stream
    if mapping.rows == 0:
        raise IngestError("no triples in the file", file=file)


_HEADERS = {("head", "relation", "tail"), ("subject", "predicate", "object"), ("h", "r", "t"), ("s", "p", "o")}
