"""Loading one file into a dataset graph, all or nothing.

Formats: every RDF format of :mod:`kgsvc.store.rdf` plus plain triple files (:mod:`kgsvc.ingest.triples`);
gzipped input (``*.gz``) is read transparently. The format comes from ``fmt`` or the file name.

Two paths, one guarantee — a rejected file leaves the dataset exactly as it was:

* **transactional** (files up to ``bulk_threshold`` bytes): parsed and written in one store transaction;
* **bulk** (larger files): streamed through the store's bulk loader. Into an empty dataset graph it is
  loaded directly and the graph is dropped again on any error; into a non-empty graph the file is first
  parsed once to validate it, then streamed in.

Plain triple files are mapped to N-Triples on the calling thread, chunk by chunk, and handed to
:meth:`~kgsvc.store.Store.load_chunks` (the embedded store's bulk loader reads them from a pipe on its own
thread, so mapping and loading overlap). ``LoadReport.bytes_read`` counts the file's uncompressed bytes.
"""

from __future__ import annotations

import contextlib
import gzip
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from kgsvc.errors import IngestError
from kgsvc.ingest.triples import TRIPLE_FORMATS, check_base_iri, triples_to_ntriples
from kgsvc.store import RdfFormat, Store, format_from_name, parse_quads, read_path

__all__ = ["LoadReport", "ProgressCallback", "detect_format", "load_file"]

#: Called with (bytes read so far, total bytes or None).
ProgressCallback = Callable[[int, int | None], None]

_TRIPLE_EXTENSIONS = {"tsv": "tsv", "csv": "csv", "txt": "triples", "psv": "pipe", "triples": "triples"}


@dataclass(frozen=True)
class LoadReport:
    """What a load did: triples added (named graphs included), triples now in the dataset graph, bytes read, wall
    seconds, path taken, format."""

    triples_added: int
    triples_total: int
    bytes_read: int
    seconds: float
    bulk: bool
    format: str


def detect_format(path: Path, fmt: str | None = None) -> RdfFormat | str:
    """The format of ``path``: ``fmt`` when given (a name, extension or media type), else from the extension.

    Returns an :class:`RdfFormat`, ``"trix"``, or one of :data:`TRIPLE_FORMATS`.

    Raises
    ------
    IngestError
        If the format is unknown.
    """
    name = fmt or (path.with_suffix("").suffix if path.suffix == ".gz" else path.suffix).lstrip(".")
    key = name.lower()
    if key in TRIPLE_FORMATS:
        return key
    if fmt is None and key in _TRIPLE_EXTENSIONS:
        return _TRIPLE_EXTENSIONS[key]
    try:
        found = format_from_name(key) if key else None
    except ValueError:
        found = None
    if found is None:
        known = "ttl, nt, nq, trig, n3, rdf/owl/xml, jsonld, trix, tsv, csv, txt (h|r|t or tab), pipe"
        raise IngestError(f"unknown format {name!r}; expected one of: {known}", file=str(path))
    return found


def _position(raw: IO[bytes]) -> int:
    """Bytes of the file consumed so far (compressed bytes for gzip, to compare with the file size)."""
    if isinstance(raw, gzip.GzipFile):
        return raw.fileobj.tell()
    return raw.tell()


class _ProgressReader:
    """A binary reader over a file that counts bytes and reports progress."""

    def __init__(self, raw: IO[bytes], progress: ProgressCallback | None, total: int) -> None:
        self._raw = raw
        self._progress = progress
        self._total = total
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self.count += len(data)
        if self._progress is not None:
            self._progress(_position(self._raw), self._total)
        return data

    def readable(self) -> bool:
        return True


def _reported(
    chunks: Iterator[bytes], raw: IO[bytes], progress: ProgressCallback | None, total: int
) -> Iterator[bytes]:
    """Pass ``chunks`` through, reporting the position in ``raw`` after each one."""
    for chunk in chunks:
        yield chunk
        if progress is not None:
            progress(_position(raw), total)


def _check_not_binary(path: Path) -> None:
    with read_path(path) as handle:
        try:
            head = handle.read(4096)
        except (OSError, EOFError) as exc:
            raise IngestError(f"cannot read the file: {exc}", file=str(path)) from exc
    if not head.strip():
        raise IngestError("the file is empty", file=str(path))
    if b"\x00" in head:
        raise IngestError("the file is binary, not RDF or a triple file (NUL byte in the first 4 KiB)", file=str(path))


def load_file(
    store: Store,
    path: Path,
    *,
    graph: str,
    fmt: str | None = None,
    base_iri: str | None = None,
    entity_base: str,
    bulk_threshold: int,
    bulk_piece_bytes: int = 0,
    progress: ProgressCallback | None = None,
    named: Collection[str] = (),
) -> LoadReport:
    """Load ``path`` into the named graph ``graph`` of ``store``; all or nothing.

    Parameters
    ----------
    graph
        IRI of the dataset graph: the file's triples go there (a file of quads keeps its named graphs).
    named
        The named graphs the file writes (:func:`kgsvc.ingest.subjects.file_graphs`): their triples count in
        ``LoadReport.triples_added``.
    fmt
        Format name, extension or media type; ``None`` to take it from the file name.
    base_iri
        Base for relative IRIs in RDF files; ``None``: ``entity_base``, the base kgsvc mints the dataset's IRIs
        under (``https://kgsvc.local/{dataset}/`` unless the dataset has its own), so a file of relative IRIs
        (``<Christopher_A._Sims>``) loads as ``<https://kgsvc.local/nobel/Christopher_A._Sims>``.
    entity_base
        Base of the IRIs minted for plain triple files (``…/entity/…``, ``…/relation/…``).
    bulk_threshold
        Files larger than this many bytes take the streaming bulk path.
    bulk_piece_bytes
        On the bulk path, a triple file's N-Triples go to the store's bulk loader in pieces of about this many bytes
        (0: in one), :meth:`kgsvc.store.Store.load_chunks`.

    Raises
    ------
    IngestError
        For a missing, empty, binary or malformed file, or an unknown format; the message names file, line and
        column. The dataset graph is unchanged.
    """
    file = str(path)
    check_base_iri(entity_base, file=file)
    base_iri = check_base_iri(entity_base if base_iri is None else base_iri, file=file)
    if not path.is_file():
        raise IngestError("no such file", file=file)
    detected = detect_format(path, fmt)
    _check_not_binary(path)
    size = path.stat().st_size
    bulk = size > bulk_threshold
    before = store.count(graph)
    before_named = sum(store.count(other) for other in named)
    started = time.perf_counter()

    def run(prog: ProgressCallback | None) -> int:
        """Load the file; return the bytes read from it (uncompressed)."""
        with read_path(path) as raw:
            if detected in TRIPLE_FORMATS:
                mapped = triples_to_ntriples(raw, fmt=str(detected), base=entity_base, file=file)
                with contextlib.closing(mapped) as chunks:  # closed before raw, also when the store stops early
                    store.load_chunks(
                        _reported(chunks, raw, prog, size),
                        RdfFormat.N_TRIPLES,
                        graph=graph,
                        bulk=bulk,
                        file=file,
                        trusted=True,
                        piece_bytes=bulk_piece_bytes,
                    )
                return raw.tell()
            reader = _ProgressReader(raw, prog, size)
            store.load(cast(IO[bytes], reader), detected, graph=graph, base_iri=base_iri, bulk=bulk, file=file)
            return reader.count

    if detected == RdfFormat.RDF_XML:
        _check_xml(path, file=file)
    try:
        if bulk and before > 0:
            _validate(path, detected, file=file, base_iri=base_iri, entity_base=entity_base)
        try:
            bytes_read = run(progress)
        except BaseException:
            if bulk and before == 0:
                store.drop(graph)
            raise
    except IngestError as exc:
        moved = _at_last_line(exc, path)
        if moved is exc:
            raise
        raise moved from exc
    if bulk:
        store.flush()
    after = store.count(graph)
    added = after - before + sum(store.count(other) for other in named) - before_named
    name = detected if isinstance(detected, str) else detected.name
    return LoadReport(added, after, bytes_read, time.perf_counter() - started, bulk, name)


def _at_last_line(exc: IngestError, path: Path) -> IngestError:
    """``exc`` at the end of the file's last non-blank line when it points past it.

    pyoxigraph reports an unfinished last statement followed by a line break (a truncated file) at the line after
    the break, column 1: in a 2-line file, line 3. The statement is on the last non-blank line, so that is where the
    error is reported (column: just after its last character). Other errors are returned unchanged.

    Notes
    -----
    Reads the file once more, only when an error is reported at column 1 past line 1: O(file size).
    """
    if exc.line is None or exc.line < 2 or exc.column not in (None, 1):
        return exc
    last, width = 0, 0
    with read_path(path) as raw:
        for number, line in enumerate(raw, start=1):
            if line.strip():
                last, width = number, len(line.rstrip(b"\r\n").decode("utf-8", "replace"))
    if exc.line <= last:
        return exc
    return IngestError(exc.reason, file=exc.file, line=last, column=width + 1, dataset=exc.dataset)


def _check_xml(path: Path, *, file: str) -> None:
    """Reject XML that is not well-formed (pyoxigraph accepts a truncated RDF/XML document silently)."""
    import xml.parsers.expat

    parser = xml.parsers.expat.ParserCreate()
    with read_path(path) as raw:
        try:
            while chunk := raw.read(1 << 20):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
        except xml.parsers.expat.ExpatError as exc:
            reason = xml.parsers.expat.ErrorString(exc.code)
            raise IngestError(f"malformed XML: {reason}", file=file, line=exc.lineno, column=exc.offset + 1) from exc


def _validate(path: Path, fmt: RdfFormat | str, *, file: str, base_iri: str | None, entity_base: str) -> None:
    """Parse the whole file once, storing nothing, so a bulk load into a non-empty graph cannot half-fail."""
    with read_path(path) as raw:
        if fmt in TRIPLE_FORMATS:  # the mapping's output is valid N-Triples by construction
            for _ in triples_to_ntriples(raw, fmt=str(fmt), base=entity_base, file=file):
                pass
        else:
            for _ in parse_quads(raw, fmt, file=file, base_iri=base_iri):
                pass
