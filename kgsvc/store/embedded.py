"""The embedded store: pyoxigraph on disk (RocksDB), or in memory when no path is given.

RocksDB allows one writer per directory: one process owns the data dir; other processes go through
its HTTP API or use a remote store (DESIGN §8).

Bulk loads of generated text (:meth:`EmbeddedStore.load_chunks`) go through an OS pipe where the platform has
``/dev/fd``: the bulk loader reads the pipe on its own thread without the GIL, while the caller's thread writes
the chunks, so Python producing text and Rust parsing and indexing it run on two cores.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import secrets
import signal
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from kgsvc.errors import IngestError, QueryError, StoreError
from kgsvc.store.base import QueryResult, Store
from kgsvc.store.rdf import Quad, RdfFormat, iter_serialized, syntax_error
from kgsvc.store.sparql_lexer import tokens, word_at
from kgsvc.store.syntax import shorten_syntax_error

__all__ = ["EmbeddedStore", "check_query_syntax", "check_update_syntax"]


@functools.lru_cache(maxsize=256)
def _graphs(iris: tuple[str, ...]) -> tuple[ox.NamedNode, ...]:
    # an endpoint names the same dataset graph in every query; validating the IRI each time costs ~3 µs
    return tuple(ox.NamedNode(iri) for iri in iris)


class EmbeddedStore(Store):
    """pyoxigraph ``Store`` behind the :class:`~kgsvc.store.base.Store` interface.

    Parameters
    ----------
    path
        Folder of the on-disk store (created if missing); ``None`` for an in-memory store.

    Raises
    ------
    StoreError
        If the folder cannot be opened (for example another process holds its lock).
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        try:
            if path is None:
                self._store = ox.Store()
            else:
                path.mkdir(parents=True, exist_ok=True)
                self._store = ox.Store(str(path))
        except OSError as exc:
            raise StoreError(f"cannot open the store at {path}: {exc}") from exc

    @property
    def native(self) -> ox.Store:
        """The pyoxigraph store, for kgsvc modules that need its native serialisers (the endpoint)."""
        return self._store

    @classmethod
    def read_only(cls, path: Path) -> EmbeddedStore:
        """Open the on-disk store at ``path`` read-only.

        Only sound when no process writes that folder (pyoxigraph: undefined behaviour otherwise), so it is meant
        for folders written by :meth:`snapshot`. Raises ``StoreError`` if the folder cannot be opened.
        """
        store = cls.__new__(cls)
        store.path = None  # nothing to flush
        try:
            store._store = ox.Store.read_only(str(path))
        except OSError as exc:
            raise StoreError(f"cannot open the store at {path} read-only: {exc}") from exc
        return store

    def snapshot(self, target: Path) -> None:
        """Write a consistent point-in-time copy of the on-disk store into the new folder ``target``.

        A RocksDB checkpoint: files are hard-linked when ``target`` is on the same file system, so it is cheap.
        Raises ``StoreError`` for an in-memory store or if ``target`` exists or cannot be written.
        """
        if self.path is None:
            raise StoreError("an in-memory store cannot be snapshotted")
        try:
            self._store.backup(str(target))
        except OSError as exc:
            raise StoreError(f"cannot snapshot the store into {target}: {exc}") from exc

    def query(
        self,
        sparql: str,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        union_default_graph: bool = False,
        base_iri: str | None = None,
    ) -> QueryResult:
        self.check_text(sparql)
        try:
            return self._store.query(
                sparql,
                base_iri=base_iri,
                default_graph=list(_graphs(tuple(default_graph))) if default_graph is not None else None,
                named_graphs=list(_graphs(tuple(named_graphs))) if named_graphs is not None else None,
                use_default_graph_as_union=union_default_graph,
            )
        except SyntaxError as exc:
            raise QueryError(shorten_syntax_error(str(exc)), kind="syntax", query=sparql) from exc
        except ValueError as exc:
            raise QueryError(str(exc), kind="syntax", query=sparql) from exc
        except RuntimeError as exc:  # evaluation refused, e.g. "The custom function <…> is not supported"
            raise QueryError(str(exc), kind="unsupported", query=sparql) from exc
        except OSError as exc:
            raise StoreError(f"query failed: {exc}") from exc

    def update(self, sparql: str, *, base_iri: str | None = None) -> None:
        self.check_text(sparql)
        try:
            self._store.update(sparql, base_iri=base_iri)
        except SyntaxError as exc:
            raise QueryError(shorten_syntax_error(str(exc)), kind="syntax", query=sparql) from exc
        except RuntimeError as exc:
            raise QueryError(str(exc), kind="unsupported", query=sparql) from exc
        except (ValueError, OSError) as exc:
            raise QueryError(f"update failed: {exc}", kind="syntax", query=sparql) from exc

    def insert(self, quads: Iterable[Quad]) -> None:
        self._store.extend(quads)

    def bulk_insert(self, quads: Iterable[Quad]) -> None:
        self._store.bulk_extend(quads)

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
        if isinstance(fmt, str) or fmt.supports_datasets:
            super().load(source, fmt, graph=graph, base_iri=base_iri, bulk=bulk, file=file)
            return
        target = ox.NamedNode(graph)
        try:
            if bulk:
                self._store.bulk_load(source, format=fmt, base_iri=base_iri, to_graph=target, lenient=trusted)
            else:
                self._store.load(source, format=fmt, base_iri=base_iri, to_graph=target, lenient=trusted)
        except (SyntaxError, UnicodeDecodeError) as exc:
            raise _parse_error(exc, file) from exc

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
        """On the bulk path with ``piece_bytes`` > 0, the chunks go to the bulk loader in pieces of about that many
        bytes, one ``bulk_load`` call each. Oxigraph's bulk loader holds what it has parsed until its input ends
        (its own target is ~2 GB a thread, not settable from Python), so the pieces trade time for memory
        (docs/scale.md, same runs): the MetaQA KB x16 (2.76M triples, ~380 MB of N-Triples) in one call 43-45 s
        at a 1.7 GB peak, in 64 MB pieces 61-62 s at 0.65 GB (16 MB pieces: 0.39 GB, the same time); x32 (5.5M
        triples) 106 s at 2.0 GB against 163 s (1.5x) at 0.81 GB. The chunks hold whole lines of a line-based
        format without blank nodes (kgsvc's mapping of triple files), so a piece boundary changes nothing that is
        loaded."""
        if not bulk or not piece_bytes or fmt.supports_datasets or not _pipes_usable():
            super().load_chunks(chunks, fmt, graph=graph, bulk=bulk, file=file, trusted=trusted)
            return
        remaining = iter(chunks)
        lines = [0]  # lines of the pieces so far: a parse error names the input's line, not its piece's
        for first in remaining:
            before = lines[0]
            piece = _piece(first, remaining, piece_bytes, lines)
            self._bulk_load_piece(piece, fmt, graph=graph, file=file, trusted=trusted, lines_before=before)

    def _bulk_load_piece(
        self,
        chunks: Iterator[bytes],
        fmt: RdfFormat,
        *,
        graph: str,
        file: str | None,
        trusted: bool,
        lines_before: int,
    ) -> None:
        """One ``bulk_load`` reading ``chunks`` from a pipe (module docstring); ``lines_before``: lines of the input
        before these chunks."""
        read_end, write_end = os.pipe()
        _widen(write_end)
        failures: list[BaseException] = []

        def consume() -> None:
            try:
                self._store.bulk_load(
                    path=f"/dev/fd/{read_end}", format=fmt, to_graph=ox.NamedNode(graph), lenient=trusted
                )
            except BaseException as exc:  # re-raised on the caller's thread
                failures.append(exc)
            finally:
                os.close(read_end)  # a writer still blocked on the pipe now gets EPIPE

        pipe = os.fdopen(write_end, "wb", buffering=_PIPE_BUFFER)
        loader = threading.Thread(target=consume, name="kgsvc-bulk-load", daemon=True)
        loader.start()
        stopped = False
        try:
            for chunk in chunks:
                pipe.write(chunk)
        except BrokenPipeError:
            stopped = True  # the loader stopped reading: its error is raised below
        finally:
            try:
                pipe.close()  # end of input: the loader finishes what is in the pipe
            except BrokenPipeError:
                stopped = True
            loader.join()
        if stopped and not failures:
            raise StoreError("the bulk loader stopped reading its input")
        if failures:
            exc = failures[0]
            if isinstance(exc, SyntaxError | UnicodeDecodeError):
                raise _parse_error(exc, file, lines_before) from exc
            raise exc

    def graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def count(self, graph: str) -> int:
        result = self._store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", default_graph=[ox.NamedNode(graph)])
        assert isinstance(result, ox.QuerySolutions)
        return int(next(iter(result))["n"].value)

    def drop(self, graph: str) -> None:
        node = ox.NamedNode(graph)
        if self._store.contains_named_graph(node):
            self._store.remove_graph(node)

    def dump(self, graph: str, fmt: RdfFormat) -> bytes:
        triples = (
            ox.Triple(q.subject, q.predicate, q.object)
            for q in self._store.quads_for_pattern(None, None, None, ox.NamedNode(graph))
        )
        return iter_serialized(triples, fmt)

    def flush(self) -> None:
        if self.path is not None:
            self._store.flush()

    def optimize(self) -> None:
        """Compact the store after a large load."""
        if self.path is not None:
            self._store.optimize()

    def close(self) -> None:
        self.flush()
        del self._store


_PIPE_BUFFER = 1 << 20


def _piece(first: bytes, rest: Iterator[bytes], limit: int, lines: list[int]) -> Iterator[bytes]:
    """``first``, then chunks taken from ``rest`` until the piece holds ``limit`` bytes or ``rest`` ends; adds the
    lines it yields to ``lines[0]``."""
    size = 0
    chunk: bytes | None = first
    while chunk is not None:
        size += len(chunk)
        lines[0] += chunk.count(b"\n")
        yield chunk
        chunk = next(rest, None) if size < limit else None


#: The operation put in front of an update that is only checked (after its leading prologue): it fails when it runs
#: (the graph does not exist), so nothing after it runs either — no LOAD, no SERVICE — while the whole text has been
#: parsed. No line break in it: positions on later lines stay the client's.
_FAIL_FIRST = " DROP GRAPH <urn:kgsvc:syntax-check:none> ; "
_POSITION = re.compile(r"^error at (\d+):(\d+)")


def check_update_syntax(sparql: str, *, base_iri: str | None = None, guarded: bool = True) -> None:
    """Raise ``QueryError(kind="syntax")``, with pyoxigraph's own message and position, if ``sparql`` is not a valid
    SPARQL update (relative IRIs resolved against ``base_iri``); touch no data.

    pyoxigraph has no parse-only call for updates, so the update runs against a new, empty in-memory store: a
    syntax error is raised there, any other error (a missing graph) is left for the real run. ``guarded`` (the
    default) also makes sure that nothing in it runs, so that a ``LOAD`` or ``SERVICE`` fetches nothing: an
    operation that fails at run time (:data:`_FAIL_FIRST`) is put right after the text's leading
    ``PREFIX``/``BASE`` declarations (pyoxigraph does not accept declarations after a ``;``); pyoxigraph parses
    the whole request before it runs the first operation, and stops at the first failure. Positions are given in
    the client's text. ``guarded=False`` is for text known to hold neither (its messages name ``PREFIX`` among
    what may start the first operation).

    >>> check_update_syntax("INSERT DATA { GRAPH ?g { <u:s> <u:p> 1 } }")
    Traceback (most recent call last):
    ...
    kgsvc.errors.QueryError: error at 1:43: expected one of Variables are not allowed in INSERT DATA, [_]
    >>> check_update_syntax("PREFIX u: <http://127.0.0.1:9/> LOAD u:x")  # valid: nothing is fetched
    >>> check_update_syntax("PREFIX u: <u:> LOAD u:x INTO")
    Traceback (most recent call last):
    ...
    kgsvc.errors.QueryError: error at 1:29: expected [_]
    """
    text, at = (_guard(sparql), _prologue_end(sparql)) if guarded else (sparql, -1)
    try:
        ox.Store().update(text, base_iri=base_iri)
    except SyntaxError as exc:
        message = str(exc)
        if at >= 0:
            line = sparql.count("\n", 0, at) + 1
            column = at - (sparql.rfind("\n", 0, at) + 1) + 1  # where the guard starts, 1-based

            def unshift(match: re.Match[str]) -> str:
                got_line, got_column = int(match[1]), int(match[2])
                if got_line == line and got_column >= column + len(_FAIL_FIRST):
                    got_column -= len(_FAIL_FIRST)
                return f"error at {got_line}:{got_column}"

            message = _POSITION.sub(unshift, message)
        raise QueryError(shorten_syntax_error(message), kind="syntax", query=sparql) from exc
    except (ValueError, OSError, RuntimeError):
        pass  # not a syntax error (the guard's own failure, a missing graph): the real run reports it


def _prologue_end(sparql: str) -> int:
    """The offset right after the leading well-formed ``PREFIX p: <iri>`` / ``BASE <iri>`` / ``VERSION "…"``.

    Safe by construction: pyoxigraph reads each of these as a declaration too, so the guard put here comes before
    any operation it could see — whatever follows a declaration the lexer does not read (an escape, a non-ASCII
    prefix name) comes after the guard, and at worst is a syntax error there (pyoxigraph takes no declaration
    after a ``;``): an update with ``LOAD``/``SERVICE`` and such a prologue is refused as invalid.
    """
    toks, i, end = tokens(sparql), 0, 0
    while True:
        word = word_at(toks, i)
        if word == "PREFIX" and i + 2 < len(toks) and toks[i + 1].kind == "pname" and toks[i + 2].kind == "iri":
            if not toks[i + 1].text.endswith(":"):
                return end
            end, i = toks[i + 2].end, i + 3
        elif word == "BASE" and i + 1 < len(toks) and toks[i + 1].kind == "iri":
            end, i = toks[i + 1].end, i + 2
        elif word == "VERSION" and i + 1 < len(toks) and toks[i + 1].kind == "string":
            end, i = toks[i + 1].end, i + 2
        else:
            return end


def _guard(sparql: str) -> str:
    at = _prologue_end(sparql)
    return sparql[:at] + _FAIL_FIRST + sparql[at:]


def check_query_syntax(sparql: str, *, base_iri: str | None = None) -> None:
    """Raise ``QueryError(kind="syntax")`` if ``sparql`` is not a valid SPARQL query; evaluate nothing, fetch nothing.

    The query is parsed by pyoxigraph with a substitution for a variable the text does not contain (a random name,
    checked against the text with its escapes decoded, in any letter case): pyoxigraph refuses that substitution
    after parsing and before evaluating, so a ``SERVICE`` in the query is never called.

    >>> check_query_syntax("SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }")  # valid: nothing is fetched
    >>> check_query_syntax("SELECT * { ?s ?p ?o ")
    Traceback (most recent call last):
    ...
    kgsvc.errors.QueryError: error at 1:21: expected one of ",", ".", ";", "{", "{|", "}", "~", [_]
    """
    lowered = sparql.lower()
    name = "kgsvc"
    while name in lowered or ("\\" in sparql and name in _decoded(sparql)):  # a random name the text lacks
        name = f"kgsvc{secrets.token_hex(8)}"
    try:
        ox.Store().query(sparql, base_iri=base_iri, substitutions={ox.Variable(name): ox.Literal("")})
    except SyntaxError as exc:
        raise QueryError(shorten_syntax_error(str(exc)), kind="syntax", query=sparql) from exc
    except (ValueError, OSError, RuntimeError):
        pass  # the substitution refused (the query parsed), or a bad base IRI, which the real run reports


def _decoded(text: str) -> str:
    """``text`` with ``\\uXXXX`` / ``\\UXXXXXXXX`` escapes decoded (SPARQL decodes them before parsing)."""
    return _UCHAR.sub(lambda m: chr(min(int(m[1] or m[2], 16), 0x10FFFF)), text).lower()


_UCHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def _widen(pipe: int) -> None:
    """Give ``pipe`` a 1 MiB buffer where Linux allows it (the default is 64 KiB), so the bulk loader has a chunk
    of text in hand while the writer maps the next one; elsewhere the default stays."""
    import fcntl  # POSIX only, as the pipe path is (:func:`_pipes_usable`): importing it here keeps the module portable

    if hasattr(fcntl, "F_SETPIPE_SZ"):  # Linux
        with contextlib.suppress(OSError):  # above /proc/sys/fs/pipe-max-size: the default stays
            fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, _PIPE_BUFFER)


def _pipes_usable() -> bool:
    """Whether the bulk loader may read an OS pipe by path: POSIX ``/dev/fd``, and SIGPIPE ignored (Python's
    default), so that a loader that stops early gives the writer ``BrokenPipeError`` instead of killing the process.
    """
    return os.name == "posix" and os.path.isdir("/dev/fd") and signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN


def _parse_error(exc: SyntaxError | UnicodeDecodeError, file: str | None, lines_before: int = 0) -> IngestError:
    if isinstance(exc, SyntaxError):
        error = syntax_error(exc, file=file)
        if error.line is None or not lines_before:
            return error
        return IngestError(error.reason, file=file, line=error.line + lines_before, column=error.column)
    return IngestError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=file)
