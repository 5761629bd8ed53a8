"""What the question path reads of a dataset: :class:`QAGraph` (snapshot, term texts, labels, embedder).

The pipeline (:mod:`kgsvc.qa.pipeline`) needs, per dataset: the graph snapshot (:mod:`kgsvc.index.snapshot`), the
N-Triples text of every node and relation id (to render SPARQL and answer terms), their labels (DESIGN §3), and
the sentence embedder (DESIGN §7). :class:`QAGraph` holds exactly that, built either

* from a dataset index (:meth:`QAGraph.from_index`: any object with ``snapshot``, ``node_terms``,
  ``relation_terms``, ``node_labels``, ``relation_labels`` and ``embedder.encode``), or
* from plain string triples (:meth:`QAGraph.from_triples`, used by the eval harness), with the reversible
  scheme of DESIGN §3: an IRI per entity and relation under a base IRI, the original text as label.

Relation label embeddings are computed once per graph (:meth:`QAGraph.relation_vectors`) — relation vocabularies
are small (9 relations in MetaQA, a few hundred at most in the benchmarks).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload
from urllib.parse import quote

import numpy as np
import numpy.typing as npt

from kgsvc.gnn.predict import LinkPredictor
from kgsvc.index.embed import Embedder
from kgsvc.index.labels import RDF_TYPE
from kgsvc.index.snapshot import GraphSnapshot, stable_order
from kgsvc.index.strings import BinaryTable, TextLabels
from kgsvc.ingest.triples import humanise
from kgsvc.qa.aggregate import sampled_edges
from kgsvc.qa.result import Term

__all__ = ["Degrees", "Embed", "QAGraph", "RelationEnds", "Search", "load_embedder", "parse_term", "spaced"]

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]
IntT = TypeVar("IntT", bound=np.integer[Any])
#: ``search(vectors, k) -> (node ids, L2 distances)``, both ``(len(vectors), k)``, ``-1`` ids where fewer hits.
Search = Callable[[npt.NDArray[np.float32], int], tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]]

_LITERAL = re.compile(r'^"(?P<lex>(?:[^"\\]|\\.)*)"(?:@(?P<lang>[A-Za-z0-9-]+)|\^\^<(?P<dt>[^>]*)>)?$')
#: A label that reads as a year or an ISO 8601 date (with an optional time): "1999", "1956-02-19", "2003-05".
_TIME_LABEL = re.compile(
    r"^\d{4}(?:-\d{2}(?:-\d{2})?)?(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$"
)
#: A literal datatype of a date or a time (``xsd:date``, ``xsd:dateTime``, ``xsd:gYear``, ``xsd:time``, …).
_TIME_TYPE = re.compile(r"[#/](?:date|time|gyear)", re.IGNORECASE)
_UNESCAPE = {"\\n": "\n", "\\r": "\r", "\\t": "\t", '\\"': '"', "\\\\": "\\"}


def parse_term(ntriples: str, label: str) -> Term:
    """The :class:`~kgsvc.qa.result.Term` of an N-Triples term text (``<iri>``, ``"lex"@en``, ``_:b0``).

    >>> parse_term('"2003"^^<http://www.w3.org/2001/XMLSchema#gYear>', "2003").datatype
    'http://www.w3.org/2001/XMLSchema#gYear'

    Raises
    ------
    ValueError
        When the text is not an N-Triples IRI, literal or blank node.
    """
    if ntriples.startswith("<") and ntriples.endswith(">"):
        return Term(kind="uri", value=ntriples[1:-1], label=label)
    if ntriples.startswith("_:"):
        return Term(kind="bnode", value=ntriples[2:], label=label)
    m = _LITERAL.match(ntriples)
    if m is None:
        raise ValueError(f'not an N-Triples term: {ntriples!r}; expected <iri>, "literal" or _:blank')
    lex = re.sub(r"\\[nrt\"\\]", lambda e: _UNESCAPE[e.group(0)], m.group("lex"))
    return Term(kind="literal", value=lex, label=label, datatype=m.group("dt"), lang=m.group("lang"))


@functools.cache
def load_embedder(path: str | None = None) -> Embed:
    """The sentence embedder (unit vectors): ``path`` or the bundled all-MiniLM-L6-v2 (DESIGN §7), offline.

    The index's :class:`kgsvc.index.embed.Embedder`, so the QA path and the index share one loaded model and one
    text cache per process.
    """
    return Embedder(path).encode


def _search_index(
    index: Any, vectors: npt.NDArray[np.float32], k: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Node-label vector search of a dataset index: each hit text mapped to its first node (entities first)."""
    ids = np.full((len(vectors), k), -1, dtype=np.int64)
    dists = np.full((len(vectors), k), np.inf, dtype=np.float64)
    for row, hits in enumerate(index.search_node_texts(vectors, k)):
        for col, (text_id, distance) in enumerate(hits[:k]):
            nodes = index.nodes_with_text(text_id)
            if len(nodes):
                ids[row, col], dists[row, col] = int(nodes[0]), float(distance)
    return ids, dists


class Degrees(Sequence[int]):
    """``degrees[v] == indptr[v + 1] - indptr[v]``: the degrees of a CSR, read on demand (O(1) per node)."""

    def __init__(self, indptr: npt.NDArray[np.int64]) -> None:
        self._indptr = indptr

    def __len__(self) -> int:
        return int(self._indptr.shape[0] - 1)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> list[int]: ...
    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = int(index) + len(self) if int(index) < 0 else int(index)
        if not 0 <= i < len(self):
            raise IndexError(f"node {index} out of range for {len(self)} nodes")
        return int(self._indptr[i + 1] - self._indptr[i])


@dataclass
class QAGraph:
    """A dataset as the question path sees it (module docstring)."""

    snapshot: GraphSnapshot
    node_terms: Sequence[str]
    node_labels: Sequence[str]
    relation_terms: Sequence[str]
    relation_labels: Sequence[str]
    embed: Embed
    name: str = ""
    search_nodes: Search | None = None
    predictor: LinkPredictor | None = None  # the GNN trained on this snapshot, for inferred edges (issue 7)
    version: int | None = None  # the index version it adapts, if any
    #: the index version's node changes since an earlier version (kgsvc.index.dataset_index.DatasetIndex)
    node_changes: tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None
    #: ``term -> node id`` when the terms are in a known order (an index's: binary search); ``None``: a dictionary
    term_lookup: Callable[[str], int | None] | None = None
    _relation_vectors: npt.NDArray[np.float32] | None = field(default=None, repr=False)
    _node_ids: dict[str, int] | None = field(default=None, repr=False)
    _type_relation: int | None = field(default=None, repr=False)  # -1: none
    _classes: list[int] | None = field(default=None, repr=False)
    _times: frozenset[int] | None = field(default=None, repr=False)
    _time_mask: npt.NDArray[np.bool_] | None = field(default=None, repr=False)
    _links: dict[int, frozenset[str]] | None = field(default=None, repr=False)
    _samples: dict[int, tuple[list[int], list[int]]] | None = field(default=None, repr=False)
    _ends: RelationEnds | None = field(default=None, repr=False)

    @classmethod
    def from_index(cls, index: Any, *, name: str = "") -> QAGraph:
        """Adapt a dataset index (``snapshot``, ``node_terms``, ``relation_terms``, labels, ``embedder``; ``node_id``
        when it has one)."""
        return cls(
            snapshot=index.snapshot,
            node_terms=index.node_terms,
            node_labels=index.node_labels,
            relation_terms=index.relation_terms,
            relation_labels=index.relation_labels,
            embed=index.embedder.encode,
            name=name,
            search_nodes=functools.partial(_search_index, index),
            version=getattr(index, "version", None),
            node_changes=getattr(index, "node_changes", None),
            term_lookup=getattr(index, "node_id", None),
        )

    @classmethod
    def from_triples(
        cls, triples: Sequence[tuple[str, str, str]], *, base_iri: str, embed: Embed, name: str = ""
    ) -> QAGraph:
        """A graph of plain ``(head, relation, tail)`` strings: IRIs ``<base_iri><quoted text>``, labels the text.

        Relation labels are humanised (``directed_by`` → ``directed by``, DESIGN §3).

        Notes
        -----
        O(m log m) for m triples (the snapshot build dominates); about 1 s for MetaQA's 129k triples.
        """
        node_ids: dict[str, int] = {}
        rel_ids: dict[str, int] = {}
        heads, rels, tails = [], [], []
        for h, r, t in triples:
            heads.append(node_ids.setdefault(h, len(node_ids)))
            rels.append(rel_ids.setdefault(r, len(rel_ids)))
            tails.append(node_ids.setdefault(t, len(node_ids)))
        snapshot = GraphSnapshot.from_triples(
            np.asarray(heads, dtype=np.int64),
            np.asarray(rels, dtype=np.int64),
            np.asarray(tails, dtype=np.int64),
            n_nodes=len(node_ids),
            n_relations=len(rel_ids),
        )
        nodes = list(node_ids)
        relations = list(rel_ids)
        return cls(
            snapshot=snapshot,
            node_terms=[f"<{base_iri}{quote(n, safe='')}>" for n in nodes],
            node_labels=nodes,
            relation_terms=[f"<{base_iri}rel/{quote(r, safe='')}>" for r in relations],
            relation_labels=[humanise(r) for r in relations],
            embed=embed,
            name=name,
        )

    def type_relation(self) -> int | None:
        """The relation id of ``rdf:type`` in this graph, if it has one (found once)."""
        if self._type_relation is None:
            term = f"<{RDF_TYPE}>"
            self._type_relation = next((j for j, t in enumerate(self.relation_terms) if t == term), -1)
        return self._type_relation if self._type_relation >= 0 else None

    def classes(self) -> list[int]:
        """The nodes that are the ``rdf:type`` of some node, ascending. O(triples) once, then cached."""
        if self._classes is None:
            relation = self.type_relation()
            self._classes = [] if relation is None else self.relation_ends().of(relation, outgoing=True).tolist()
        return self._classes

    def relation_ends(self) -> RelationEnds:
        """The distinct subjects and objects of each relation (:class:`RelationEnds`): O(triples) once per graph
        for every relation, then O(1) per look-up."""
        if self._ends is None:
            self._ends = RelationEnds.of_snapshot(self.snapshot)
        return self._ends

    def relation_objects(self) -> list[tuple[int, list[int]]]:
        """Each relation that has triples, with up to :data:`OBJECT_SAMPLE` of its objects evenly spaced in edge
        order: what a relation could point to. O(triples) once, then cached."""
        return [(r, objects) for r, (objects, _) in self._sampled().items()]

    def relation_subjects(self, relation: int) -> list[int]:
        """Up to :data:`OBJECT_SAMPLE` subjects of ``relation``'s triples, evenly spaced in edge order: what holds
        it. O(triples) once per graph, then cached."""
        return self._sampled().get(relation, ([], []))[1]

    def _sampled(self) -> dict[int, tuple[list[int], list[int]]]:
        """Per relation, the objects and subjects of the edges :func:`~kgsvc.qa.aggregate.sampled_edges` samples,
        read once (only the sampled rows of the triple arrays are read)."""
        if self._samples is None:
            heads, tails = np.asarray(self.snapshot.triple_heads), np.asarray(self.snapshot.triple_tails)
            self._samples = {
                r: (tails[edges].tolist(), heads[edges].tolist())
                for r, edges in sampled_edges(self.snapshot, OBJECT_SAMPLE)
            }
        return self._samples

    def link_relations(self) -> dict[int, frozenset[str]]:
        """The relations whose objects are links out of the graph, each with the words of its objects' hosts
        (``http://dbpedia.org/…`` → "dbpedia"): at least 2 distinct subjects and objects, nine in ten of the
        objects subject of no triple, and a sample of :data:`_LINKS_SAMPLE` of them IRIs of hosts that none of the
        relation's sampled subjects has; ``rdf:type`` excepted (an ``owl:sameAs`` to DBpedia, a ``foaf:page``).
        O(triples) numpy once (:meth:`relation_ends`), then cached."""
        if self._links is None:
            snapshot, kind, links, ends = self.snapshot, self.type_relation(), {}, self.relation_ends()
            described = np.bincount(np.asarray(snapshot.triple_heads), minlength=snapshot.n_nodes) > 0
            for r in range(snapshot.n_relations):
                objects, subjects = ends.of(r, outgoing=True), ends.of(r, outgoing=False)
                if r == kind or min(objects.size, subjects.size) < 2 or described[objects].mean() > 0.1:
                    continue
                hosts = {_host(self.node_terms[o]) for o in spaced(objects, _LINKS_SAMPLE).tolist()}
                if "" not in hosts and not hosts & {
                    _host(self.node_terms[h]) for h in spaced(subjects, _LINKS_SAMPLE).tolist()
                }:
                    links[r] = frozenset(_host_word(h) for h in hosts)
            self._links = links
        return self._links

    def degrees(self) -> Sequence[int]:
        """Each node's number of snapshot entries (its edges; a self-loop counts once), read from the snapshot's
        ``indptr`` when asked for: O(1) here, no list of every node's degree."""
        return Degrees(self.snapshot.indptr)

    def types(self, node: int) -> set[int]:
        """The ``rdf:type`` objects of ``node``. O(degree)."""
        relation = self.type_relation()
        if relation is None:
            return set()
        return set(self.snapshot.neighbors_via(node, relation, outgoing=True).tolist())

    def instances(self, classes: Collection[int]) -> frozenset[int]:
        """The nodes with an ``rdf:type`` among ``classes``. O(the classes' degrees)."""
        relation = self.type_relation()
        if relation is None:
            return frozenset()
        return frozenset(n for c in classes for n in self.snapshot.neighbors_via(c, relation, outgoing=False).tolist())

    def times(self) -> frozenset[int]:
        """The nodes that are a date or a time: literals of a date or time datatype, and nodes whose label reads
        as a year or an ISO 8601 date (a graph of plain triples has its years as entities: "1999"). What a question
        opening with "when" asks for. Once per graph (:meth:`_time_flags`), then cached."""
        if self._times is None:
            self._times = frozenset(np.flatnonzero(self.time_mask()).tolist())
        return self._times

    def time_mask(self) -> npt.NDArray[np.bool_]:
        """``mask[node]`` is :meth:`is_time` of ``node`` (read-only; computed once, then cached)."""
        if self._time_mask is None:
            self._time_mask = self._time_flags()
            self._time_mask.flags.writeable = False
        return self._time_mask

    def _time_flags(self) -> npt.NDArray[np.bool_]:
        """:meth:`is_time` of every node, read per distinct label text (an index's labels are texts by id) and per
        literal with a datatype (found in the term table's bytes, :meth:`StringTable.rows_containing`): O(texts)
        and O(term bytes) numpy, a regular-expression match per text that can open a time, not a term and a label
        decoded per node."""
        labels, terms = self.node_labels, self.node_terms
        if isinstance(labels, TextLabels):
            flags = _time_labels(labels.texts)[np.asarray(labels.text_ids)]
        else:
            flags = _time_labels(labels)
        typed = terms.rows_containing(b"^^<").tolist() if isinstance(terms, BinaryTable) else range(len(terms))
        for node in typed:
            if not flags[node] and _typed_time(terms[node]):
                flags[node] = True
        return flags

    def is_time(self, node: int) -> bool:
        """Whether ``node`` is a date or a time (:meth:`times`). O(1)."""
        if _TIME_LABEL.match(str(self.node_labels[node]).strip()):
            return True
        return _typed_time(self.node_terms[node])

    def node_id(self, term: str) -> int | None:
        """The node id of the N-Triples term text ``term`` (``<iri>``, ``"lex"…``, ``_:b``), or ``None``.

        O(log n) by :attr:`term_lookup` (a graph of an index version); else the first call builds a dict over all node
        terms: O(n) once, then O(1).
        """
        if self.term_lookup is not None:
            return self.term_lookup(term)
        if self._node_ids is None:
            self._node_ids = {text: node for node, text in enumerate(self.node_terms)}
        return self._node_ids.get(term)

    def node_term(self, node: int) -> Term:
        """The term of node id ``node``; a link out of the graph (:meth:`link_relations`) is labelled with its IRI,
        not with the words of its last segment: it is what "the DBpedia link of X" asks for."""
        term, label = self.node_terms[node], self.node_labels[node]
        snapshot = self.snapshot
        at = slice(int(snapshot.indptr[node]), int(snapshot.indptr[node + 1]))
        if term.startswith("<") and not snapshot.outgoing[at].any():
            links = self.link_relations()
            if links and any(int(r) in links for r in snapshot.relations[at].tolist()):
                label = term[1:-1]
        return parse_term(term, label)

    def relation_term(self, relation: int) -> Term:
        """The term of relation id ``relation``."""
        return parse_term(self.relation_terms[relation], self.relation_labels[relation])

    def relation_vectors(self) -> npt.NDArray[np.float32]:
        """Embeddings of the relation labels (computed once)."""
        if self._relation_vectors is None:
            self._relation_vectors = self.embed(list(self.relation_labels))
        return self._relation_vectors


_LINKS_SAMPLE = 32
#: Objects sampled per relation by :meth:`QAGraph.relation_objects`.
OBJECT_SAMPLE = 64
_HOST = re.compile(r"^<[a-z][a-z0-9+.-]*://([^/?#>:]+)", re.I)


@dataclass(frozen=True)
class RelationEnds:
    """The distinct objects and subjects of every relation of a snapshot, and its number of triples.

    ``objects`` holds, relation after relation, each relation's distinct objects ascending (relation ``r``'s are
    ``objects[object_bounds[r] : object_bounds[r + 1]]``); ``subjects`` / ``subject_bounds`` the same for subjects;
    ``triples[r]`` is the number of triples of relation ``r``. Built once per graph (:meth:`of_snapshot`, O(m)) for
    what every per-relation statistic of the question path reads: the classes, the link relations, the relations
    with a handful of values, how much a step's ends read as people. Node ids are held in the snapshot's own width
    (4 bytes per distinct pair below 2^31 nodes).
    """

    objects: npt.NDArray[np.integer[Any]]
    object_bounds: npt.NDArray[np.int64]
    subjects: npt.NDArray[np.integer[Any]]
    subject_bounds: npt.NDArray[np.int64]
    triples: npt.NDArray[np.int64]

    @classmethod
    def of_snapshot(cls, snapshot: GraphSnapshot) -> RelationEnds:
        """Read from the snapshot's CSR, whose slices list each node's entries by relation: a node's distinct
        ``(node, relation)`` pairs of one direction are adjacent there, so no comparison sort is needed. O(m) for m
        triples (the grouping by relation is a radix sort up to 2^16 relations,
        :func:`~kgsvc.index.snapshot.stable_order`)."""
        indptr = np.asarray(snapshot.indptr, dtype=np.int64)
        neighbors = np.asarray(snapshot.neighbors)
        node = np.repeat(np.arange(snapshot.n_nodes, dtype=neighbors.dtype), np.diff(indptr))
        relation = np.asarray(snapshot.relations)
        outgoing = np.asarray(snapshot.outgoing, dtype=bool)
        loop = outgoing & (neighbors == node)  # a self-loop is listed once, as outgoing
        found = []
        for side in (~outgoing | loop, outgoing):  # objects, then subjects
            ends, owners = node[side], relation[side]  # ordered by (node, relation)
            first = np.ones(ends.shape[0], dtype=bool)
            first[1:] = (ends[1:] != ends[:-1]) | (owners[1:] != owners[:-1])
            ends, owners = ends[first], owners[first]
            order = stable_order(owners, snapshot.n_relations)  # by relation, node ascending within one
            ends = ends[order]
            ends.flags.writeable = False  # shared by every reader
            found.append((ends, np.searchsorted(owners[order], np.arange(snapshot.n_relations + 1))))
        triples = np.bincount(np.asarray(snapshot.triple_relations), minlength=snapshot.n_relations).astype(np.int64)
        triples.flags.writeable = False
        return cls(*found[0], *found[1], triples)

    def of(self, relation: int, *, outgoing: bool) -> npt.NDArray[np.integer[Any]]:
        """The distinct objects (``outgoing``) or subjects of ``relation``'s triples, ascending. O(1) (a view)."""
        ends, bounds = (self.objects, self.object_bounds) if outgoing else (self.subjects, self.subject_bounds)
        return ends[int(bounds[relation]) : int(bounds[relation + 1])]

    def distinct_objects(self) -> npt.NDArray[np.int64]:
        """The number of distinct objects of each relation."""
        return np.diff(self.object_bounds)

    def steps_into(self, nodes: npt.NDArray[np.bool_]) -> set[tuple[int, bool]]:
        """The steps ``(relation, outgoing)`` that end at a node where the mask ``nodes`` (by node id) holds: a
        relation's step forward ends at its objects, backward at its subjects (a self-loop both ways) — what
        :func:`kgsvc.qa.candidates.steps_into` reads from the nodes' CSR slices, here for any node set in O(distinct
        pairs) numpy, no gather of the nodes' entries."""
        found: set[tuple[int, bool]] = set()
        for ends, bounds, outgoing in (
            (self.objects, self.object_bounds, True),
            (self.subjects, self.subject_bounds, False),
        ):
            filled = np.flatnonzero(np.diff(bounds) > 0)  # reduceat needs segment starts inside the array
            if filled.shape[0]:
                hit = np.logical_or.reduceat(nodes[ends], bounds[filled])
                found.update((int(r), outgoing) for r in filled[hit].tolist())
        return found

    def object_pairs(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``(relations, objects)``: every distinct ``(relation, object)`` pair of the triples, ordered by relation
        and then object (what ``np.unique`` of the pairs gives). O(pairs), a new pair of arrays."""
        relations = np.repeat(np.arange(self.triples.shape[0], dtype=np.int64), self.distinct_objects())
        return relations, self.objects.astype(np.int64)


#: The first bytes of a UTF-8 text that can open a time label once stripped: an ASCII digit or white space, or
#: the lead byte of a non-ASCII character (another script's digit, a no-break space).
_TIME_LEAD = np.zeros(256, dtype=bool)
_TIME_LEAD[[*b"0123456789", *b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "]] = True
_TIME_LEAD[0x80:] = True


def _time_labels(texts: Sequence[str]) -> npt.NDArray[np.bool_]:
    """Whether each text reads as a year, a date or a time (:data:`_TIME_LABEL`, stripped). In a string table only
    the texts whose first byte can open one are decoded (O(texts) numpy, then the few candidates)."""
    if not isinstance(texts, BinaryTable):
        return np.fromiter((bool(_TIME_LABEL.match(str(t).strip())) for t in texts), bool, count=len(texts))
    filled = np.flatnonzero(texts.byte_lengths() > 0)
    candidates = filled[_TIME_LEAD[texts.lead_bytes(filled)]]
    flags = np.zeros(len(texts), dtype=bool)
    for i in candidates.tolist():
        flags[i] = _TIME_LABEL.match(texts[i].strip()) is not None
    return flags


def _typed_time(term: str) -> bool:
    """Whether the N-Triples ``term`` is a literal of a date or time datatype."""
    return term.startswith('"') and "^^<" in term and _TIME_TYPE.search(term[term.rindex("^^<") :]) is not None


def spaced(nodes: npt.NDArray[IntT], most: int) -> npt.NDArray[IntT]:
    """Up to ``most`` of ``nodes``, evenly spaced in their order (all of them when there are no more)."""
    if nodes.size <= most:
        return nodes
    picked: npt.NDArray[IntT] = nodes[np.linspace(0, nodes.size - 1, most).astype(np.int64)]
    return picked


def _host(term: str) -> str:
    """The host of an N-Triples IRI (``""`` for a literal, a blank node or an IRI without one)."""
    m = _HOST.match(term)
    return m.group(1).lower() if m else ""


def _host_word(host: str) -> str:
    """The name a person calls a host by: its registered name, without ``www`` and the top-level domain.

    >>> _host_word("dbpedia.org"), _host_word("www.wikidata.org"), _host_word("localhost")
    ('dbpedia', 'wikidata', 'localhost')
    """
    parts = [p for p in host.split(".") if p != "www"]
    return parts[-2] if len(parts) > 1 else parts[0]
