"""The subjects a change touches, for the change log that makes index builds incremental (kgsvc.index.changes).

* :func:`file_subjects` — the subjects of a file just loaded (parsed again, as the loader parsed it);
* :func:`file_graphs` — the named graphs of a TriG / N-Quads / TriX / JSON-LD file, which the dataset it is
  loaded into then owns (its default-graph triples go to the dataset's graph);
* :func:`update_subjects` — the subjects of a SPARQL update made of one ``INSERT DATA`` or ``DELETE DATA``
  operation, per dataset graph; ``None`` for any other update (its change is then "not known": a full build);
* :func:`data_quads` — the quads of such an update, so that what it changed is counted on them, not on the graph.

Both return N-Triples text (``<iri>``, ``_:b``); a blank-node subject makes the change unknown to the index
build, which then builds in full.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pyoxigraph as ox

from kgsvc.ingest.triples import TRIPLE_FORMATS, triples_to_ntriples
from kgsvc.store import DATASET_GRAPH_PREFIX, RdfFormat, parse_quads, read_path
from kgsvc.store.base import dataset_of_graph

__all__ = ["data_quads", "file_graphs", "file_subjects", "update_subjects"]

# one operation: a prologue of PREFIX/BASE declarations, then INSERT DATA or DELETE DATA { quads }
_DATA_UPDATE = re.compile(
    r"\A(?P<prologue>(?:\s*(?:#[^\n]*\n|PREFIX\s+[^\s:]*:\s*<[^>]*>|BASE\s*<[^>]*>))*)"
    r"\s*(?:INSERT|DELETE)\s+DATA\s*\{(?P<body>.*)\}\s*;?\s*\Z",
    re.IGNORECASE | re.DOTALL,
)


def file_subjects(path: Path, fmt: RdfFormat | str, *, base_iri: str | None, entity_base: str) -> set[str]:
    """The distinct subjects of the file ``path`` in format ``fmt`` (as :func:`kgsvc.ingest.loader.load_file`
    detected it), N-Triples text. O(file) parse; the caller bounds the file size.

    Raises
    ------
    IngestError
        When the file does not parse (it loaded, so only when it changed meanwhile).
    """
    subjects: set[str] = set()
    with read_path(path) as raw:
        if fmt in TRIPLE_FORMATS:
            mapped = triples_to_ntriples(raw, fmt=str(fmt), base=entity_base, file=str(path))
            with contextlib.closing(mapped) as chunks:
                for chunk in chunks:
                    subjects.update(str(q.subject) for q in ox.parse(chunk, format=RdfFormat.N_TRIPLES))
        else:
            subjects.update(str(q.subject) for q in parse_quads(raw, fmt, file=str(path), base_iri=base_iri))
    return subjects


def file_graphs(path: Path, fmt: RdfFormat | str, *, base_iri: str | None) -> set[str]:
    """The IRIs of the named graphs the file ``path`` in format ``fmt`` writes to (blank-node graph names are not
    counted); empty, without reading the file, for a format of triples. O(file) parse for a format of quads.

    Raises
    ------
    IngestError
        When the file does not parse.
    """
    if fmt in TRIPLE_FORMATS or (isinstance(fmt, RdfFormat) and not fmt.supports_datasets):
        return set()
    with read_path(path) as raw:
        return {
            quad.graph_name.value
            for quad in parse_quads(raw, fmt, file=str(path), base_iri=base_iri)
            if isinstance(quad.graph_name, ox.NamedNode)
        }


def update_subjects(update: str) -> dict[str, set[str]] | None:
    """Dataset name → subjects for an update of one ``INSERT DATA`` / ``DELETE DATA`` operation, else ``None``.

    The data block is parsed as TriG with the update's prologue (SPARQL's quad data is TriG's syntax, with
    ``GRAPH``); triples outside a dataset graph are ignored. ``None`` also when the block does not parse.

    >>> update_subjects('INSERT DATA { GRAPH <urn:kgsvc:dataset:m> { <x:a> <x:p> "v" } }')
    {'m': {'<x:a>'}}
    >>> update_subjects("DELETE WHERE { ?s ?p ?o }") is None
    True
    """
    match = _DATA_UPDATE.match(update)
    if match is None or DATASET_GRAPH_PREFIX not in match["body"]:
        return None
    try:
        quads = list(ox.parse(match["prologue"] + "\n" + match["body"], format=RdfFormat.TRIG))
    except SyntaxError:
        return None
    result: dict[str, set[str]] = {}
    for quad in quads:
        graph = quad.graph_name
        name = dataset_of_graph(graph.value) if isinstance(graph, ox.NamedNode) else None
        if name is not None:
            result.setdefault(name, set()).add(str(quad.subject))
    return result


def data_quads(update: str) -> list[tuple[str, str, str, str]] | None:
    """The distinct quads ``(graph IRI, subject, predicate, object)`` (N-Triples text but the graph) in named graphs
    of an update made of one ``INSERT DATA`` or ``DELETE DATA`` operation; ``None`` for any other update, one that
    does not parse, or one with a blank node (then the caller counts the graphs instead).

    >>> data_quads('DELETE DATA { GRAPH <urn:g> { <x:a> <x:p> "v" } }')
    [('urn:g', '<x:a>', '<x:p>', '"v"')]
    >>> data_quads('INSERT DATA { GRAPH <urn:g> { _:b <x:p> "v" } }') is None
    True
    """
    match = _DATA_UPDATE.match(update)
    if match is None:
        return None
    try:
        quads = list(ox.parse(match["prologue"] + "\n" + match["body"], format=RdfFormat.TRIG))
    except SyntaxError:
        return None
    if any(isinstance(term, ox.BlankNode) for q in quads for term in (q.subject, q.object)):
        return None
    return list(
        dict.fromkeys(
            (q.graph_name.value, str(q.subject), str(q.predicate), str(q.object))
            for q in quads
            if isinstance(q.graph_name, ox.NamedNode)
        )
    )
