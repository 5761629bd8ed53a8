"""Label and term tables of a dataset: dense node/relation ids, their RDF terms and their texts (DESIGN §3).

:func:`extract_labels` reads a dataset graph with SPARQL (``sparql/labels_triples.rq``: every triple; then the
literals of the dataset's name predicates, chosen by :func:`kgsvc.index.names.name_plan`) and returns a
:class:`LabelTables`:

* **Nodes** are the distinct subjects and objects, literals in object position included (a literal is one node
  per distinct RDF term, so ``"1999"^^xsd:gYear`` shared by many films is one node). Node ids are dense:
  IRIs and blank nodes first, then literals, each group sorted by N-Triples text — so builds are reproducible
  and, among nodes sharing a label, entities come before literals.
* **Relations** are the distinct predicates (labelling predicates and ``rdf:type`` included), sorted by IRI.
* **Texts**: a term's text is its best name (:mod:`kgsvc.index.names`) — the dataset's configured name
  predicates, then ``rdfs:label``, ``skos:prefLabel``, ``schema:name``, ``foaf:name``, then name predicates
  discovered in the data, then a given + family name pair; among literals of one rank, language preference
  first (default: ``en`` (or ``en-*``), then no language tag, then any), then the smallest lexical form. Without
  one, a node's IRI name read faithfully (:func:`kgsvc.index.names.iri_name`: ``R.E.M.``, ``Paul McCartney``),
  a relation's or class's humanised (:func:`humanize`). A literal's text is its lexical form; a blank node
  without label has the text ``""``.
* **Distinct texts**: nodes sharing a text share a *text id* (``node_text_ids``), likewise relations; the
  vector indexes hold one point per distinct text.

Terms are kept as N-Triples text (``<iri>``, ``_:b``, ``"lex"@en``, ``"5"^^<…#integer>``).

Cost: one pass over the triples and one over the label literals, read in chunks of :data:`CHUNK_ROWS` rows; the
terms are interned as 64-bit keys in numpy arrays with their UTF-8 bytes in one blob (:mod:`kgsvc.index.terms`),
not as a Python dictionary of every term, then sorted by their bytes in numpy (O(n log n)). Memory: one chunk's
Python objects plus ~25 bytes per node and 12 per triple of arrays, and the term and text bytes (docs/scale.md,
"The labels stage without a Python object per term"). The previous dictionary pass (:func:`tables_from_triples`)
is kept as the reference the streamed one equals (``tests/index/test_terms.py``) and as its fallback when two terms
share a key.
Triples are kept in canonical order (by head, relation, tail id), so their edge ids depend only on the data.

Incremental: :func:`subject_triples` re-reads the triples of the subjects a change touched and
:func:`patch_tables` patches a previous version's tables with them (:mod:`kgsvc.index.build`): the node terms and
texts are spliced as binary string tables (:mod:`kgsvc.index.strings`), the kept triples keep their canonical
order and the new ones are merged in, and the old → new node, text, relation and edge ids it returns let the build
patch the embeddings' points and the graph snapshot (:meth:`kgsvc.index.snapshot.GraphSnapshot.patched`) without
sorting or comparing texts. The label choice
itself (:func:`kgsvc.index.names.best_names` under the build's name plan, :func:`_text`) is shared by both paths;
it must stay a function of a term's own labelling triples (or of the term) for the patch to equal a full pass. One
exception: an IRI-named node that is a class (object of ``rdf:type``) gets a humanised name, and the patch knows
only the changed subjects' ``rdf:type`` triples.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import logging
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote

import numpy as np
import numpy.typing as npt

from kgsvc.index.names import NamePlan, best_names, candidates_query, iri_name, name_plan
from kgsvc.index.snapshot import IntArray, id_dtype
from kgsvc.index.strings import SplicedTable, StringTable, TextLabels, spliced
from kgsvc.index.terms import HashCollision, Interner, byte_order, decoded, gather, give_back_memory
from kgsvc.queries import load_query
from kgsvc.store import Literal, QuerySolutions, Store

__all__ = [
    "DEFAULT_LANGUAGES",
    "LABEL_PREDICATES",
    "RDF_TYPE",
    "LabelTables",
    "extract_labels",
    "find_node",
    "humanize",
    "literal_start",
    "patch_tables",
    "subject_triples",
    "tables_from_triples",
]

#: The labelling predicates, most preferred first (both schema.org spellings).
LABEL_PREDICATES: tuple[str, ...] = (
    "http://www.w3.org/2000/01/rdf-schema#label",
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://schema.org/name",
    "https://schema.org/name",
    "http://xmlns.com/foaf/0.1/name",
)
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#: Default language preference: English, then untagged; any other language comes after these.
DEFAULT_LANGUAGES: tuple[str, ...] = ("en", "")

log = logging.getLogger(__name__)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[_\-+.]+|%20|\s+")


def humanize(iri: str) -> str:
    """A readable text from an IRI's local name: after the last ``#``, ``/`` or ``:``, unquoted, ``_``/``-`` and
    camelCase boundaries turned into spaces; camelCase words are lower-cased when the name starts lower-case.

    >>> humanize("http://example.org/directed_by"), humanize("https://x.org/v#releaseYear")
    ('directed by', 'release year')
    >>> humanize("https://kgsvc.local/sample/person_Satoshi_Kon")
    'person Satoshi Kon'
    """
    local = re.split(r"[#/:]", iri.rstrip("/#"))[-1] or iri
    local = unquote(local)
    camel = _CAMEL.sub(" ", local)
    if local[:1].islower():
        camel = " ".join(w.lower() if w[1:].islower() or len(w) == 1 else w for w in camel.split(" "))
    return " ".join(part for part in _SEPARATORS.split(camel) if part)


def _language_rank(language: str | None, languages: Sequence[str]) -> int:
    tag = (language or "").lower()
    for rank, wanted in enumerate(languages):
        if tag == wanted or (wanted and tag.startswith(wanted + "-")):
            return rank
    return len(languages)


@dataclass(frozen=True, eq=False)
class LabelTables:
    """The term and text tables of one dataset (see the module docstring).

    Attributes
    ----------
    node_terms, relation_terms : sequence of str
        N-Triples text of node id ``i`` / of the predicate of relation id ``j`` (a list, or a
        :class:`~kgsvc.index.strings.StringTable` or :class:`~kgsvc.index.strings.SplicedTable` when read from a
        version or patched).
    node_labels, relation_labels : sequence of str
        The text of each node / relation.
    node_texts, relation_texts : sequence of str
        The distinct texts, sorted; ``node_text_ids[i]`` indexes ``node_texts``.
    node_text_ids, relation_text_ids : ndarray of int32
    heads, relations, tails : ndarray of int
        The triples as ids (input of :meth:`kgsvc.index.snapshot.GraphSnapshot.from_triples`): int64 from a full
        pass, in the snapshot's widths when patched (:func:`patch_tables`) or read from a version
        (:func:`kgsvc.index.build.load_tables`: the snapshot's memory-mapped arrays).
    """

    node_terms: Sequence[str]
    node_labels: Sequence[str]
    relation_terms: Sequence[str]
    relation_labels: Sequence[str]
    node_texts: Sequence[str]
    node_text_ids: npt.NDArray[np.int32]
    relation_texts: Sequence[str]
    relation_text_ids: npt.NDArray[np.int32]
    heads: npt.NDArray[np.integer[Any]]
    relations: npt.NDArray[np.integer[Any]]
    tails: npt.NDArray[np.integer[Any]]
    #: set by :func:`patch_tables`: the previous tables' node id -> this one's (-1: gone), and the ids of the nodes
    #: that are new or whose label was chosen again (every other node kept its label)
    node_remap: npt.NDArray[np.int64] | None = None
    node_touched: npt.NDArray[np.int64] | None = None
    #: set by :func:`patch_tables`: the previous tables' node text id, relation id and edge id (triple position)
    #: -> this one's (-1: gone); the snapshot is patched with them (:meth:`GraphSnapshot.patched`)
    node_text_remap: npt.NDArray[np.int64] | None = None
    relation_remap: npt.NDArray[np.int64] | None = None
    edge_remap: npt.NDArray[np.int64] | None = None

    @property
    def n_nodes(self) -> int:
        return len(self.node_terms)

    @property
    def n_relations(self) -> int:
        return len(self.relation_terms)


def extract_labels(
    store: Store,
    graph: str,
    *,
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    name_predicates: Sequence[str] = (),
    discovery: bool = True,
    plan: NamePlan | None = None,
) -> LabelTables:
    """Read the triples and labels of ``graph`` from ``store`` and build the :class:`LabelTables`.

    Parameters
    ----------
    store
        The RDF store (embedded or remote).
    graph
        The dataset's graph IRI (used as the default graph).
    languages
        Language preference, most wanted first; ``""`` stands for "no language tag". A tag ``en`` also
        matches ``en-GB``. Languages not listed come after all listed ones.
    name_predicates
        The dataset's configured name predicates (IRIs), preferred to every other label
        (:func:`kgsvc.index.names.name_plan`).
    discovery
        Also discover name predicates and given + family name pairs from the data (:mod:`kgsvc.index.names`).
    plan
        The name plan when the caller has read it already (then ``name_predicates`` and ``discovery`` are unused).

    Returns
    -------
    LabelTables

    Raises
    ------
    StoreError
        When the store fails.

    Notes
    -----
    O(m + l) SPARQL rows for m triples and l label literals, O(n log n) for sorting n terms.
    """
    if plan is None:
        plan = name_plan(store, graph, configured=name_predicates, known=LABEL_PREDICATES, discovery=discovery)
    try:
        return _streamed_tables(store, graph, plan, languages)
    except HashCollision:  # two distinct terms share a 64-bit key (kgsvc.index.terms): the exact dictionaries
        log.warning("label pass of %s: a 64-bit term key collision; redone with dictionaries", graph)
        return _dict_tables(store, graph, plan, languages)


def _dict_tables(store: Store, graph: str, plan: NamePlan, languages: Sequence[str]) -> LabelTables:
    """The full pass with Python dictionaries of every term (:func:`tables_from_triples`): the reference that
    :func:`_streamed_tables` equals, and its fallback."""
    rows = cast(QuerySolutions, store.query(load_query("labels_triples"), default_graph=[graph]))
    triples = ((str(row[0]), str(row[1]), row[2]) for row in rows)
    candidates = cast(QuerySolutions, store.query(candidates_query(plan), default_graph=[graph]))
    labels = best_names(
        ((str(r[0]), r[1].value, r[2]) for r in candidates), plan, lambda tag: _language_rank(tag, languages)
    )
    return tables_from_triples(triples, labels)


#: Rows of the full pass handled at a time (:func:`_streamed_tables`): its Python objects are one chunk's.
CHUNK_ROWS = 1 << 14


def _chunks(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    iterator = iter(rows)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


def _streamed_tables(store: Store, graph: str, plan: NamePlan, languages: Sequence[str]) -> LabelTables:
    """The full pass of :func:`extract_labels` without a Python object per term (issue 23): equal to
    :func:`_dict_tables` (same terms, ids, labels, texts and triple order).

    The triples are read in chunks of :data:`CHUNK_ROWS`; each term is interned by a 64-bit key
    (:class:`~kgsvc.index.terms.Interner`: numpy arrays and one UTF-8 blob), a triple is kept as the keys of its
    head and tail and the first-seen id of its predicate. The label candidates are read in chunks too and the best
    one per term and side (name; given and family name) is kept as arrays over the terms (language rank, predicate
    rank, the text's slot in an interner of texts). The terms are then sorted by their bytes
    (:func:`~kgsvc.index.terms.byte_order`), the node labels made block by block and interned, and their distinct
    texts sorted likewise. Python objects: one chunk's rows, and the predicates (few).

    Raises
    ------
    HashCollision
        When two distinct terms or texts share a key (the caller falls back to :func:`_dict_tables`).
    """
    nodes = Interner()
    relation_index: dict[str, int] = {}
    rdf_type = f"<{RDF_TYPE}>"
    heads: list[npt.NDArray[np.integer[Any]]] = []  # node slots (first-seen ids), chunk by chunk
    tails: list[npt.NDArray[np.integer[Any]]] = []
    relations: list[npt.NDArray[np.integer[Any]]] = []
    classes: list[npt.NDArray[np.integer[Any]]] = []
    rows = iter(cast(QuerySolutions, store.query(load_query("labels_triples"), default_graph=[graph])))
    while True:
        subjects: list[str] = []
        predicates: list[str] = []
        object_texts: list[str] = []
        values: list[str] = []
        for row in itertools.islice(rows, CHUNK_ROWS):  # no row object is kept: only its strings
            subjects.append(str(row[0]))
            predicates.append(str(row[1]))
            obj = row[2]
            object_texts.append(str(obj))
            values.append(obj.value if isinstance(obj, Literal) else "")
        if not subjects:
            break
        count = len(subjects)
        slots = nodes.slots(nodes.add(subjects + object_texts, [""] * count + values))
        slots = slots.astype(np.int32) if len(nodes) < 2**31 else slots  # a triple's head and tail: 8 bytes
        heads.append(slots[:count])
        tails.append(slots[count:])
        relation = np.fromiter(
            (relation_index.setdefault(p, len(relation_index)) for p in predicates), dtype=np.int64, count=count
        )
        relations.append(relation.astype(np.int32) if len(relation_index) < 2**31 else relation)
        if rdf_type in relation_index:
            classes.append(slots[count:][relation == relation_index[rdf_type]])
        del subjects, predicates, object_texts, values, slots
        if len(heads) % 16 == 0:
            give_back_memory()  # the chunks' strings, freed
    give_back_memory()
    n = len(nodes)
    best = _best_labels(store, graph, plan, languages, nodes)
    give_back_memory()
    terms = nodes.table()
    literal_values = nodes.extra_table()
    del nodes
    relation_terms = sorted(relation_index)
    relation_names = best.labels_of(relation_terms)
    best.drop_nodes()  # the interner's key arrays, before the sort
    give_back_memory()
    by_bytes = byte_order(terms)
    starts = np.asarray(terms.offsets)[:-1]
    first_byte = np.zeros(n, dtype=np.uint8)
    nonempty = np.diff(np.asarray(terms.offsets)) > 0
    first_byte[nonempty] = np.asarray(terms.blob)[starts[nonempty]]
    literal = first_byte == ord('"')
    order = np.concatenate([by_bytes[~literal[by_bytes]], by_bytes[literal[by_bytes]]])  # IRIs, blank, literals
    del by_bytes
    give_back_memory()
    node_id = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    node_id[order] = np.arange(n, dtype=node_id.dtype)
    head_ids: npt.NDArray[Any] = node_id[np.concatenate(heads)] if heads else np.zeros(0, np.int64)
    del heads
    tail_ids: npt.NDArray[Any] = node_id[np.concatenate(tails)] if tails else np.zeros(0, np.int64)
    del tails
    is_class = np.zeros(n, dtype=bool)
    if classes:
        is_class[np.concatenate(classes)] = True
    rel_remap = np.empty(len(relation_index), dtype=np.int64)
    for new, term in enumerate(relation_terms):
        rel_remap[relation_index[term]] = new
    rel_ids: npt.NDArray[Any] = rel_remap[np.concatenate(relations)] if relations else np.zeros(0, np.int64)
    del relations
    relation_labels = [_text(term, relation_names, {}) for term in relation_terms]
    node_terms = gather(terms, order)
    del terms
    texts = Interner()
    label_slot = np.empty(n, dtype=np.int64)
    for start in range(0, n, CHUNK_ROWS):
        stop = min(start + CHUNK_ROWS, n)
        slots = order[start:stop]
        block = [
            _node_text(term, best.label(slot), literal_values, slot, klass)
            for term, slot, klass in zip(
                decoded(node_terms, start, stop), slots.tolist(), is_class[slots].tolist(), strict=True
            )
        ]
        ids = np.arange(start, stop, dtype=np.int64)
        label_slot[ids] = texts.slots(texts.add(block))
    del best, literal_values
    give_back_memory()
    distinct = texts.table()
    del texts
    text_order = byte_order(distinct)
    text_rank = np.empty(len(distinct), dtype=np.int64)
    text_rank[text_order] = np.arange(len(distinct), dtype=np.int64)
    node_texts = gather(distinct, text_order)
    node_text_ids = text_rank[label_slot].astype(np.int32)
    del distinct, text_order, text_rank, label_slot
    give_back_memory()
    # the canonical order (:func:`_tables`) of the triples, sorted and permuted as int32 when the ids fit: the
    # int64 arrays are made one at a time
    narrow = np.int32 if max(n, len(relation_terms)) < 2**31 else np.int64
    head_ids, rel_ids, tail_ids = (a.astype(narrow, copy=False) for a in (head_ids, rel_ids, tail_ids))
    canonical = np.lexsort((tail_ids, rel_ids, head_ids))
    head_ids = head_ids[canonical]
    rel_ids = rel_ids[canonical]
    tail_ids = tail_ids[canonical]
    del canonical
    relation_texts, relation_text_ids = _distinct(relation_labels)
    return LabelTables(
        node_terms=node_terms,
        node_labels=TextLabels(node_texts, node_text_ids),
        relation_terms=relation_terms,
        relation_labels=relation_labels,
        node_texts=node_texts,
        node_text_ids=node_text_ids,
        relation_texts=relation_texts,
        relation_text_ids=relation_text_ids,
        heads=head_ids.astype(np.int64),
        relations=rel_ids.astype(np.int64),
        tails=tail_ids.astype(np.int64),
    )


def _node_text(term: str, label: str | None, literal_values: StringTable, slot: int, is_class: bool) -> str:
    """A node's text as :func:`_text` gives it (``label``: its chosen name, if any)."""
    if label is not None:
        return label
    if term.startswith('"'):
        return literal_values[slot]
    if term.startswith("<"):
        return humanize(term[1:-1]) if is_class else iri_name(term[1:-1])
    return ""


class _BestLabels:
    """The best label candidate per node slot and side (0: a name predicate; 1, 2: given and family name), as
    :func:`kgsvc.index.names.best_names` chooses it: arrays over the slots, the texts in an :class:`Interner`."""

    def __init__(self, nodes: Interner, sides: int) -> None:
        self.nodes = nodes
        n = len(nodes)
        big = np.iinfo(np.int32).max
        self.rank = [np.full((n, 2), big, dtype=np.int32) for _ in range(sides)]  # (language rank, predicate rank)
        self.text = [np.full(n, -1, dtype=np.int64) for _ in range(sides)]  # slot in ``texts``, -1: none
        self.texts = Interner()
        self._table: StringTable | None = None

    def drop_nodes(self) -> None:
        self.nodes = Interner()

    def offer(self, side: int, candidates: dict[str, tuple[int, int, str]]) -> None:
        """Merge one chunk's best ``term -> (language rank, predicate rank, text)`` of ``side``."""
        terms = list(candidates)
        slots = self.nodes.find(terms)
        known = slots >= 0
        if not known.any():
            return
        keys = [candidates[terms[i]] for i in np.flatnonzero(known).tolist()]
        slots = slots[known]
        text_slots = self.texts.slots(self.texts.add([k[2] for k in keys]))
        ranks = np.asarray([(k[0], k[1]) for k in keys], dtype=np.int64).reshape(-1, 2)
        current, current_text = self.rank[side][slots], self.text[side][slots]
        lower = (ranks[:, 0] < current[:, 0]) | ((ranks[:, 0] == current[:, 0]) & (ranks[:, 1] < current[:, 1]))
        tie = (ranks[:, 0] == current[:, 0]) & (ranks[:, 1] == current[:, 1]) & (current_text >= 0)
        for i in np.flatnonzero(tie).tolist():  # the same ranks in an earlier chunk: the smallest text wins
            lower[i] = keys[i][2] < self.texts.get(int(current_text[i]))
        self.rank[side][slots[lower]] = ranks[lower]
        self.text[side][slots[lower]] = text_slots[lower]

    def label(self, slot: int) -> str | None:
        """The chosen name of node ``slot`` (a name predicate's, else the given + family pair), if any."""
        if self._table is None:
            self._table = self.texts.table()
        table = self._table
        if self.text[0][slot] >= 0:
            return table[int(self.text[0][slot])]
        parts = [table[int(side[slot])] for side in self.text[1:] if side[slot] >= 0]
        return " ".join(parts) if parts else None

    def labels_of(self, terms: Sequence[str]) -> dict[str, str]:
        """``term -> label`` of the few ``terms`` that are nodes with a chosen name (the relations)."""
        found: dict[str, str] = {}
        for term, slot in zip(terms, self.nodes.find(terms).tolist(), strict=True):
            label = self.label(slot) if slot >= 0 else None
            if label is not None:
                found[term] = label
        return found


def _best_labels(store: Store, graph: str, plan: NamePlan, languages: Sequence[str], nodes: Interner) -> _BestLabels:
    """The label candidates of the nodes of ``nodes``, read in chunks (:func:`kgsvc.index.names.best_names`)."""
    best = _BestLabels(nodes, 3 if plan.given or plan.family else 1)
    rank = {p: i for i, p in enumerate(plan.predicates)}
    sides = [(1, {p: i for i, p in enumerate(plan.given)}), (2, {p: i for i, p in enumerate(plan.family)})]
    candidates = cast(QuerySolutions, store.query(candidates_query(plan), default_graph=[graph]))
    for chunk in _chunks(candidates, CHUNK_ROWS):
        chosen: list[dict[str, tuple[int, int, str]]] = [{}, {}, {}]
        for row in chunk:
            literal = row[2]
            text = " ".join(literal.value.split())
            if not text:
                continue
            term, predicate = str(row[0]), row[1].value
            language = _language_rank(literal.language, languages)
            if predicate in rank:
                key = (language, rank[predicate], text)
                current = chosen[0].get(term)
                if current is None or key < current:
                    chosen[0][term] = key
            for side, order in sides:
                if predicate in order:
                    key = (language, order[predicate], text)
                    current = chosen[side].get(term)
                    if current is None or key < current:
                        chosen[side][term] = key
        del chunk
        for side, found in enumerate(chosen):
            if found:
                best.offer(side, found)
    return best


def tables_from_triples(triples: Iterable[tuple[str, str, Any]], labels: dict[str, str]) -> LabelTables:
    """Build the tables from ``(subject N-Triples, predicate N-Triples, object term)`` and chosen labels.

    Subjects and predicates are N-Triples text; objects are store terms (``NamedNode``, ``BlankNode``,
    ``Literal``), so that a literal's lexical form is known. ``labels`` maps N-Triples text to the chosen label.
    """
    node_index: dict[str, int] = {}
    literal_text: dict[str, str] = {}
    relation_index: dict[str, int] = {}
    heads: list[int] = []
    rels: list[int] = []
    tails: list[int] = []
    for subject, predicate, obj in triples:
        obj_text = str(obj)
        if isinstance(obj, Literal) and obj_text not in literal_text:
            literal_text[obj_text] = obj.value
        heads.append(node_index.setdefault(subject, len(node_index)))
        rels.append(relation_index.setdefault(predicate, len(relation_index)))
        tails.append(node_index.setdefault(obj_text, len(node_index)))
    # Dense ids: IRIs and blank nodes sorted, then literals sorted.
    node_terms = sorted(node_index, key=lambda t: (t.startswith('"'), t))
    relation_terms = sorted(relation_index)
    node_remap = np.empty(len(node_index), dtype=np.int64)
    for new, term in enumerate(node_terms):
        node_remap[node_index[term]] = new
    rel_remap = np.empty(len(relation_index), dtype=np.int64)
    for new, term in enumerate(relation_terms):
        rel_remap[relation_index[term]] = new
    classes = _classes(relation_index, node_index, heads, rels, tails)
    node_labels = [_text(term, labels, literal_text, faithful=term not in classes) for term in node_terms]
    relation_labels = [_text(term, labels, literal_text) for term in relation_terms]
    return _tables(
        node_terms,
        node_labels,
        relation_terms,
        relation_labels,
        node_remap[np.asarray(heads, dtype=np.int64)] if heads else np.zeros(0, np.int64),
        rel_remap[np.asarray(rels, dtype=np.int64)] if rels else np.zeros(0, np.int64),
        node_remap[np.asarray(tails, dtype=np.int64)] if tails else np.zeros(0, np.int64),
    )


def _tables(
    node_terms: Sequence[str],
    node_labels: Sequence[str],
    relation_terms: Sequence[str],
    relation_labels: Sequence[str],
    heads: IntArray,
    relations: IntArray,
    tails: IntArray,
    distinct_texts: tuple[Sequence[str], npt.NDArray[np.int32]] | None = None,
    *,
    order: npt.NDArray[np.int64] | None = None,
    ordered: bool = False,
) -> LabelTables:
    """The tables, with the triples in canonical order (by head, relation, tail id): a full and an incremental
    build of the same data give the same edge ids. ``distinct_texts``: the distinct node texts and text ids when the
    caller has them (else they are sorted out of ``node_labels``); ``order``: the canonical order when the caller
    knows it (else a lexsort); ``ordered``: the triples are in it already."""
    if ordered:
        order = None
    elif order is None:
        order = np.lexsort((tails, relations, heads))
    node_texts, node_text_ids = distinct_texts if distinct_texts is not None else _distinct(node_labels)
    relation_texts, relation_text_ids = _distinct(relation_labels)
    return LabelTables(
        node_terms=node_terms,
        node_labels=node_labels,
        relation_terms=relation_terms,
        relation_labels=relation_labels,
        node_texts=node_texts,
        node_text_ids=node_text_ids,
        relation_texts=relation_texts,
        relation_text_ids=relation_text_ids,
        heads=heads if order is None else heads[order],
        relations=relations if order is None else relations[order],
        tails=tails if order is None else tails[order],
    )


def subject_triples(store: Store, graph: str, subjects: Iterable[str]) -> list[tuple[str, str, Any]]:
    """Every triple of ``graph`` whose subject is one of ``subjects`` (N-Triples IRIs ``<…>``), as
    :func:`tables_from_triples` takes them. O(triples of the subjects) index look-ups, batched.

    Raises
    ------
    ValueError
        When a subject is not an IRI in N-Triples form.
    StoreError
        When the store fails.
    """
    terms = sorted(subjects)
    for term in terms:
        if not (term.startswith("<") and term.endswith(">")) or any(c in term[1:-1] for c in '<>" {}|^`\\\n'):
            raise ValueError(f"not an IRI subject: {term!r}")
    rows: list[tuple[str, str, Any]] = []
    for offset in range(0, len(terms), _SUBJECT_BATCH):
        values = " ".join(terms[offset : offset + _SUBJECT_BATCH])
        query = f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {values} }} ?s ?p ?o }}"
        result = cast(QuerySolutions, store.query(query, default_graph=[graph]))
        rows.extend((str(row[0]), str(row[1]), row[2]) for row in result)
    return rows


_SUBJECT_BATCH = 512
_FEW = 64


def _order(term: str) -> tuple[bool, str]:
    """The node order of the tables: IRIs and blank nodes, then literals, each by N-Triples text."""
    return (term.startswith('"'), term)


def find_node(node_terms: Sequence[str], term: str) -> int | None:
    """The id of node ``term`` among ``node_terms`` in table order (IRIs and blank nodes, then literals, each by
    N-Triples text: every index version's), or ``None``. O(log n) strings read."""
    key = _order(term)
    i = bisect.bisect_left(node_terms, key, key=_order)
    return i if i < len(node_terms) and node_terms[i] == term else None


class _SortedIndex:
    """``term -> position`` in a list of node terms in table order, by binary search (O(log n) per look-up)."""

    def __init__(self, terms: Sequence[str]) -> None:
        self.terms = terms

    def get(self, term: str) -> int | None:
        return find_node(self.terms, term)

    def __contains__(self, term: str) -> bool:
        return self.get(term) is not None

    def __getitem__(self, term: str) -> int:
        i = self.get(term)
        if i is None:
            raise KeyError(term)
        return i


def literal_start(node_terms: Sequence[str]) -> int:
    """The id of the first literal node (every node from it on is a literal; table order). O(log n)."""
    return bisect.bisect_left(node_terms, (True, ""), key=_order)


def patch_tables(
    old: LabelTables,
    subjects: Collection[str],
    triples: Iterable[tuple[str, str, Any]],
    *,
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    plan: NamePlan,
) -> LabelTables:
    """The tables of ``old``'s data after its subjects ``subjects`` got exactly the triples ``triples``.

    ``plan`` is the name plan the build read from the data (:func:`kgsvc.index.names.name_plan`); the caller
    patches only when it equals the plan ``old`` was built with.

    Every triple of ``old`` whose head is a changed subject is dropped and ``triples`` (the subjects' triples
    now, :func:`subject_triples`) are added; nodes and relations no triple mentions any more go, new ones come in
    at their place in the sorted order. A term's label depends only on its own labelling triples, so labels are
    recomputed for the changed subjects and the new terms only. The result equals :func:`extract_labels` on the
    changed data (same ids, texts and triple order).

    The node terms and texts come out spliced from ``old``'s (:func:`kgsvc.index.strings.spliced`: a
    :class:`~kgsvc.index.strings.SplicedTable` over the tables ``old`` was read from while the changes since them
    stay small; a list of an older version is encoded once), the node labels as a view of texts by text id.

    Notes
    -----
    O(m) vectorised work over the m old triples (the kept ones stay in canonical order, the new ones are merged
    in), O(n) numpy work and one copy of the term and text bytes, and O((k + a) log n) for the k changed subjects
    and a added terms (binary searches in the sorted terms and texts; no Python work per term).
    """
    rows = list(triples)
    labels = best_names(
        ((s, p[1:-1], o) for s, p, o in rows if isinstance(o, Literal)),
        plan,
        lambda tag: _language_rank(tag, languages),
    )
    classes = {str(o) for _, p, o in rows if p == f"<{RDF_TYPE}>"}
    literal_text = {str(o): o.value for _, _, o in rows if isinstance(o, Literal)}
    old_nodes = _SortedIndex(old.node_terms)  # look-ups by binary search: no O(n) dictionary
    old_relations = {term: j for j, term in enumerate(old.relation_terms)}
    changed = np.fromiter((old_nodes[s] for s in subjects if s in old_nodes), dtype=np.int64)
    keep = _kept_triples(old.heads, changed)
    if keep is None:  # no triple dropped: every old node and relation is still used (each is in a triple)
        keep = np.ones(old.heads.shape[0], dtype=bool)
        kept_heads, kept_relations, kept_tails = old.heads, old.relations, old.tails
        node_used = np.ones(old.n_nodes, dtype=bool)
        relation_used = np.ones(old.n_relations, dtype=bool)
    else:
        kept_heads, kept_relations, kept_tails = old.heads[keep], old.relations[keep], old.tails[keep]
        node_used = np.zeros(old.n_nodes, dtype=bool)
        node_used[kept_heads] = True
        node_used[kept_tails] = True
        relation_used = np.zeros(old.n_relations, dtype=bool)
        relation_used[kept_relations] = True
    added_nodes: set[str] = set()
    added_relations: set[str] = set()
    for s, p, o in rows:
        for term in (s, str(o)):
            i = old_nodes.get(term)
            if i is None:
                added_nodes.add(term)
            else:
                node_used[i] = True
        j = old_relations.get(p)
        if j is None:
            added_relations.add(p)
        else:
            relation_used[j] = True
    old_relation_labels = list(old.relation_labels)

    def label_of(term: str) -> str:  # a new node may be an old relation and vice versa: same label
        if term not in subjects:
            if (i := old_nodes.get(term)) is not None:
                return old.node_labels[i]
            if (j := old_relations.get(term)) is not None:
                return old_relation_labels[j]
        return _text(term, labels, literal_text, faithful=term not in classes)

    node_terms, node_remap, new_ids = _splice(old.node_terms, node_used, added_nodes, _order)
    relation_terms, relation_labels, relation_remap = _merge(
        list(old.relation_terms), old_relation_labels, relation_used, added_relations, label_of
    )
    touched_labels = dict(zip(new_ids.tolist(), map(label_of, sorted(added_nodes, key=_order)), strict=True))
    for subject in subjects:  # a changed subject's label is chosen again from its labelling triples now
        i = old_nodes.get(subject)
        if i is not None and node_remap[i] >= 0:
            touched_labels[int(node_remap[i])] = _text(subject, labels, literal_text, faithful=subject not in classes)
        j = old_relations.get(subject)
        if j is not None and relation_remap[j] >= 0:
            relation_labels[int(relation_remap[j])] = _text(subject, labels, literal_text)
    new_index = _SortedIndex(node_terms)
    new_relation = {term: j for j, term in enumerate(relation_terms)} if rows else {}
    count = len(rows)
    # the triples in the snapshot's widths (its arrays are then written as they are)
    node_t, relation_t = id_dtype(len(node_terms)), id_dtype(len(relation_terms))
    node_ids = node_remap.astype(node_t)
    kept = (node_ids[kept_heads], relation_remap.astype(relation_t)[kept_relations], node_ids[kept_tails])
    added = (
        np.fromiter((new_index[s] for s, _, _ in rows), dtype=node_t, count=count),
        np.fromiter((new_relation[p] for _, p, _ in rows), dtype=relation_t, count=count),
        np.fromiter((new_index[str(o)] for _, _, o in rows), dtype=node_t, count=count),
    )
    touched = np.fromiter(sorted(touched_labels), dtype=np.int64, count=len(touched_labels))
    texts, text_ids, text_remap = _patch_texts(old, len(node_terms), node_remap, touched_labels)
    node_labels = TextLabels(texts, text_ids)
    merged = _merged_triples(kept, added)
    edge_remap = np.full(old.heads.shape[0], -1, dtype=np.int64)
    if merged is not None:
        heads, relations, tails, at = merged
        ranks = np.arange(kept[0].shape[0], dtype=np.int64)
        edge_remap[keep] = ranks + np.searchsorted(at, ranks, side="right")  # np.insert's shift of a kept triple
        order = None
    else:  # the general case: one stable sort of every triple
        heads, relations, tails = (np.concatenate(pair) for pair in zip(kept, added, strict=True))
        order = np.lexsort((tails, relations, heads))
        position = np.empty_like(order)
        position[order] = np.arange(order.shape[0], dtype=np.int64)
        edge_remap[keep] = position[: kept[0].shape[0]]
    tables = _tables(
        node_terms,
        node_labels,
        relation_terms,
        relation_labels,
        heads,
        relations,
        tails,
        (texts, text_ids),
        order=order,
        ordered=merged is not None,
    )
    return dataclasses.replace(
        tables,
        node_remap=node_remap,
        node_touched=touched,
        node_text_remap=text_remap,
        relation_remap=relation_remap,
        edge_remap=edge_remap,
    )


def _kept_triples(heads: npt.NDArray[np.integer[Any]], changed: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_] | None:
    """Which triples a patch keeps: those whose head is not ``changed``; ``None`` when that is every triple.

    The triples are in canonical order (by head first), so a head's triples are one range found by binary search:
    O(k log m) for k changed heads after an O(m) check of the order (``np.isin`` when they are not in order)."""
    if changed.shape[0] == 0:
        return None
    if heads.shape[0] > 1 and not bool(np.all(heads[1:] >= heads[:-1])):
        keep: npt.NDArray[np.bool_] = ~np.isin(heads, changed)
        return None if bool(keep.all()) else keep
    changed = changed.astype(heads.dtype)  # a search in another width would copy the heads
    starts = np.searchsorted(heads, changed, side="left")
    stops = np.searchsorted(heads, changed, side="right")
    if not bool(np.any(stops > starts)):
        return None
    keep = np.ones(heads.shape[0], dtype=bool)
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        keep[start:stop] = False
    return keep


def _merged_triples(
    kept: tuple[IntArray, IntArray, IntArray], added: tuple[IntArray, IntArray, IntArray]
) -> tuple[IntArray, IntArray, IntArray, npt.NDArray[np.int64]] | None:
    """The triples ``kept`` (heads, relations, tails in canonical order: a patch renumbers monotonically) and
    ``added`` in canonical order, as a stable sort of ``kept`` then ``added`` would give them, and where the added
    ones went in (``np.insert``'s positions in ``kept``); ``None`` when an added triple's head has kept triples or
    the kept heads are out of order (sort them all).

    A patch re-adds every triple of each changed subject (its kept triples are gone), so no added head has kept
    triples and each added triple goes in before the first kept triple of a greater head: O(k log m) binary
    searches for k added triples and one O(m) insert per array, instead of packing and merging O(m) sort keys."""
    heads, relations, tails = kept
    if heads.shape[0] > 1 and not bool(np.all(heads[1:] >= heads[:-1])):
        return None
    order = np.lexsort((added[2], added[1], added[0]))
    new_heads, new_relations, new_tails = (column[order] for column in added)
    at = np.searchsorted(heads, new_heads, side="left")
    if bool(np.any(np.searchsorted(heads, new_heads, side="right") != at)):
        return None
    return (
        np.insert(heads, at, new_heads),
        np.insert(relations, at, new_relations),
        np.insert(tails, at, new_tails),
        at,
    )


def _splice(
    terms: Sequence[str], used: npt.NDArray[np.bool_], added: set[str], order: Callable[[str], Any]
) -> tuple[StringTable | SplicedTable, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The sorted table ``terms`` without the strings not ``used``, with ``added`` inserted in order: the new
    table, old id -> new id (-1: gone) and the new ids of the added strings (in ``order``).

    O(n) numpy work and O(a log n) binary searches; the table is a splice of the one ``terms`` was read from
    (:func:`kgsvc.index.strings.spliced`: no byte copied) or, past its share, one copy of the bytes."""
    new = sorted(added, key=order)
    kept_before = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(used, out=kept_before[1:])
    at = [int(kept_before[bisect.bisect_left(terms, order(term), key=order)]) for term in new]
    table = spliced(terms, used, list(zip(at, new, strict=True)))
    positions = np.asarray(at, dtype=np.int64)
    survivors = int(kept_before[-1])
    # survivor r moves up by the number of new strings inserted at or before it
    shift = np.searchsorted(positions, np.arange(survivors), side="right")
    remap = np.full(len(terms), -1, dtype=np.int64)
    remap[np.flatnonzero(used)] = np.arange(survivors, dtype=np.int64) + shift
    return table, remap, positions + np.arange(positions.shape[0], dtype=np.int64)


def _patch_texts(
    old: LabelTables, n_nodes: int, node_remap: npt.NDArray[np.int64], touched: dict[int, str]
) -> tuple[StringTable | SplicedTable, npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """The distinct node texts (sorted) and text ids of the patched tables, as :func:`_distinct` gives them, and
    old text id -> new text id (-1: gone): a node not ``touched`` (new id -> label) keeps its old text
    (renumbered), a touched one's text is looked up or inserted.

    O(n) numpy work, one copy of the text bytes, O(k log t) for k touched nodes."""
    ids = np.full(n_nodes, -1, dtype=np.int64)  # old text id of each node that kept its label
    alive = np.flatnonzero(node_remap >= 0)
    ids[node_remap[alive]] = np.asarray(old.node_text_ids)[alive]
    touched_ids = np.fromiter(touched, dtype=np.int64, count=len(touched))
    ids[touched_ids] = -1
    used = np.zeros(len(old.node_texts), dtype=bool)
    used[ids[ids >= 0]] = True
    added = set()
    for label in touched.values():
        j = bisect.bisect_left(old.node_texts, label)
        if j < len(old.node_texts) and old.node_texts[j] == label:
            used[j] = True
        else:
            added.add(label)
    texts, text_remap, _ = _splice(old.node_texts, used, added, str)
    text_ids = np.empty(n_nodes, dtype=np.int32)
    known = ids >= 0
    text_ids[known] = text_remap[ids[known]]
    for i, label in touched.items():
        text_ids[i] = bisect.bisect_left(texts, label)
    return texts, text_ids, text_remap


def _merge(
    terms: list[str],
    term_labels: Sequence[str],
    used: npt.NDArray[np.bool_],
    added: set[str],
    label_of: Callable[[str], str],
    *,
    order: Callable[[str], Any] = _order,
) -> tuple[list[str], list[str], npt.NDArray[np.int64]]:
    """Old ``terms`` (in table order) that are still ``used``, merged with the ``added`` ones; their labels
    (the old ones' kept, the new ones' ``label_of``) and old id → new id (-1: gone)."""
    gone = np.flatnonzero(~used)
    if gone.shape[0] > _FEW:
        kept = np.flatnonzero(used).tolist()
        survivors, survivor_labels = [terms[i] for i in kept], [term_labels[i] for i in kept]
    else:  # a few deletions: list copies in C
        survivors, survivor_labels = list(terms), list(term_labels)
        for i in gone[::-1].tolist():
            del survivors[i]
            del survivor_labels[i]
    new = sorted(added, key=order)
    at = [bisect.bisect_left(survivors, order(term), key=order) for term in new]
    merged: list[str] = []
    merged_labels: list[str] = []
    start = 0
    for term, position in zip(new, at, strict=True):
        merged.extend(survivors[start:position])
        merged_labels.extend(survivor_labels[start:position])
        merged.append(term)
        merged_labels.append(label_of(term))
        start = position
    merged.extend(survivors[start:])
    merged_labels.extend(survivor_labels[start:])
    # survivor r moves up by the number of new terms inserted at or before it
    shift = np.searchsorted(np.asarray(at, dtype=np.int64), np.arange(len(survivors)), side="right")
    remap = np.full(len(terms), -1, dtype=np.int64)
    remap[np.flatnonzero(used)] = np.arange(len(survivors), dtype=np.int64) + shift
    return merged, merged_labels, remap


def _classes(
    relation_index: dict[str, int], node_index: dict[str, int], heads: list[int], rels: list[int], tails: list[int]
) -> set[str]:
    """N-Triples text of the nodes used as classes (objects of ``rdf:type``): their IRI names are humanised."""
    rdf_type = relation_index.get(f"<{RDF_TYPE}>")
    if rdf_type is None:
        return set()
    ids = {t for r, t in zip(rels, tails, strict=True) if r == rdf_type}
    return {term for term, i in node_index.items() if i in ids}


def _text(term: str, labels: dict[str, str], literal_text: dict[str, str], *, faithful: bool = False) -> str:
    """A term's label; without one an IRI's name: faithful for nodes (:func:`kgsvc.index.names.iri_name`),
    humanised for relations and classes (``directed_by`` → ``directed by``, ``NobelPrize`` → ``Nobel Prize``)."""
    if term in labels:
        return labels[term]
    if term.startswith('"'):
        return literal_text[term]
    if term.startswith("<"):
        return iri_name(term[1:-1]) if faithful else humanize(term[1:-1])
    return ""  # an unlabelled blank node


def _distinct(texts: Sequence[str]) -> tuple[list[str], npt.NDArray[np.int32]]:
    distinct = sorted(set(texts))
    index = {text: i for i, text in enumerate(distinct)}
    return distinct, np.fromiter((index[t] for t in texts), dtype=np.int32, count=len(texts))
