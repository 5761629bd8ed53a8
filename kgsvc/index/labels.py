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

Cost: one pass over the triples and one over the label literals, O(m) dict look-ups plus an O(n log n) sort of
the terms; about 1 s for MetaQA's 129k triples (measured in ``tests/index``, reported by the build metrics).
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
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote

import numpy as np
import numpy.typing as npt

from kgsvc.index.names import NamePlan, best_names, candidates_query, iri_name, name_plan
from kgsvc.index.strings import StringTable, TextLabels
from kgsvc.queries import load_query
from kgsvc.store import Literal, QuerySolutions, Store

__all__ = [
    "DEFAULT_LANGUAGES",
    "LABEL_PREDICATES",
    "RDF_TYPE",
    "LabelTables",
    "extract_labels",
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
        :class:`~kgsvc.index.strings.StringTable` when read from a version or patched).
    node_labels, relation_labels : sequence of str
        The text of each node / relation.
    node_texts, relation_texts : sequence of str
        The distinct texts, sorted; ``node_text_ids[i]`` indexes ``node_texts``.
    node_text_ids, relation_text_ids : ndarray of int32
    heads, relations, tails : ndarray of int64
        The triples as ids (input of :meth:`kgsvc.index.snapshot.GraphSnapshot.from_triples`).
    """

    node_terms: Sequence[str]
    node_labels: Sequence[str]
    relation_terms: Sequence[str]
    relation_labels: Sequence[str]
    node_texts: Sequence[str]
    node_text_ids: npt.NDArray[np.int32]
    relation_texts: Sequence[str]
    relation_text_ids: npt.NDArray[np.int32]
    heads: npt.NDArray[np.int64]
    relations: npt.NDArray[np.int64]
    tails: npt.NDArray[np.int64]
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
    rows = cast(QuerySolutions, store.query(load_query("labels_triples"), default_graph=[graph]))
    triples = ((str(row[0]), str(row[1]), row[2]) for row in rows)
    if plan is None:
        plan = name_plan(store, graph, configured=name_predicates, known=LABEL_PREDICATES, discovery=discovery)
    candidates = cast(QuerySolutions, store.query(candidates_query(plan), default_graph=[graph]))
    labels = best_names(
        ((str(r[0]), r[1].value, r[2]) for r in candidates), plan, lambda tag: _language_rank(tag, languages)
    )
    return tables_from_triples(triples, labels)


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
    heads: npt.NDArray[np.int64],
    relations: npt.NDArray[np.int64],
    tails: npt.NDArray[np.int64],
    distinct_texts: tuple[Sequence[str], npt.NDArray[np.int32]] | None = None,
    *,
    order: npt.NDArray[np.int64] | None = None,
) -> LabelTables:
    """The tables, with the triples in canonical order (by head, relation, tail id): a full and an incremental
    build of the same data give the same edge ids. ``distinct_texts``: the distinct node texts and text ids when the
    caller has them (else they are sorted out of ``node_labels``); ``order``: the canonical order when the caller
    knows it (else a lexsort)."""
    if order is None:
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
        heads=heads[order],
        relations=relations[order],
        tails=tails[order],
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


class _SortedIndex:
    """``term -> position`` in a list of node terms in table order, by binary search (O(log n) per look-up)."""

    def __init__(self, terms: Sequence[str]) -> None:
        self.terms = terms

    def get(self, term: str) -> int | None:
        key = _order(term)
        i = bisect.bisect_left(self.terms, key, key=_order)
        return i if i < len(self.terms) and self.terms[i] == term else None

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

    The node terms and texts come out as :class:`~kgsvc.index.strings.StringTable` spliced from ``old``'s (a
    list of an older version is encoded once), the node labels as a view of texts by text id.

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
    heads = np.concatenate(
        [node_remap[kept_heads], np.fromiter((new_index[s] for s, _, _ in rows), dtype=np.int64, count=count)]
    )
    relations = np.concatenate(
        [relation_remap[kept_relations], np.fromiter((new_relation[p] for _, p, _ in rows), np.int64, count)]
    )
    tails = np.concatenate(
        [node_remap[kept_tails], np.fromiter((new_index[str(o)] for _, _, o in rows), dtype=np.int64, count=count)]
    )
    touched = np.fromiter(sorted(touched_labels), dtype=np.int64, count=len(touched_labels))
    texts, text_ids, text_remap = _patch_texts(old, len(node_terms), node_remap, touched_labels)
    node_labels = TextLabels(texts, text_ids)
    canonical = _canonical_order(heads, relations, tails, kept=int(kept_heads.shape[0]), n_nodes=len(node_terms))
    if canonical is None:
        canonical = np.lexsort((tails, relations, heads))
    position = np.empty_like(canonical)
    position[canonical] = np.arange(canonical.shape[0], dtype=np.int64)
    edge_remap = np.full(old.heads.shape[0], -1, dtype=np.int64)
    edge_remap[keep] = position[: kept_heads.shape[0]]
    tables = _tables(
        node_terms,
        node_labels,
        relation_terms,
        relation_labels,
        heads,
        relations,
        tails,
        (texts, text_ids),
        order=canonical,
    )
    return dataclasses.replace(
        tables,
        node_remap=node_remap,
        node_touched=touched,
        node_text_remap=text_remap,
        relation_remap=relation_remap,
        edge_remap=edge_remap,
    )


def _kept_triples(heads: npt.NDArray[np.int64], changed: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_] | None:
    """Which triples a patch keeps: those whose head is not ``changed``; ``None`` when that is every triple.

    The triples are in canonical order (by head first), so a head's triples are one range found by binary search:
    O(k log m) for k changed heads after an O(m) check of the order (``np.isin`` when they are not in order)."""
    if changed.shape[0] == 0:
        return None
    if heads.shape[0] > 1 and not bool(np.all(heads[1:] >= heads[:-1])):
        keep: npt.NDArray[np.bool_] = ~np.isin(heads, changed)
        return None if bool(keep.all()) else keep
    starts = np.searchsorted(heads, changed, side="left")
    stops = np.searchsorted(heads, changed, side="right")
    if not bool(np.any(stops > starts)):
        return None
    keep = np.ones(heads.shape[0], dtype=bool)
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        keep[start:stop] = False
    return keep


def _canonical_order(
    heads: npt.NDArray[np.int64],
    relations: npt.NDArray[np.int64],
    tails: npt.NDArray[np.int64],
    *,
    kept: int,
    n_nodes: int,
) -> npt.NDArray[np.int64] | None:
    """The canonical order (by head, relation, tail; stable) of triples whose first ``kept`` are in it already
    (a patch renumbers monotonically): the few others merged in by binary search, O(m) numpy instead of an
    O(m log m) sort. ``None`` (sort them all) when the packed keys do not fit 63 bits or the first ``kept`` are
    not in order."""
    node_bits = max(1, (max(n_nodes, 1) - 1).bit_length())
    relation_bits = max(1, int(relations.max(initial=0)).bit_length())
    if 2 * node_bits + relation_bits > 63:
        return None
    keys = (heads << (node_bits + relation_bits)) | (relations << node_bits) | tails
    old, new = keys[:kept], keys[kept:]
    if old.shape[0] > 1 and not bool(np.all(old[1:] >= old[:-1])):
        return None
    new_order = np.argsort(new, kind="stable")
    at = np.searchsorted(old, new[new_order], side="right")  # after equal kept keys: a stable sort's place
    order = np.insert(np.arange(kept, dtype=np.int64), at, kept + new_order)
    return order


def _splice(
    terms: Sequence[str], used: npt.NDArray[np.bool_], added: set[str], order: Callable[[str], Any]
) -> tuple[StringTable, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The sorted table ``terms`` without the strings not ``used``, with ``added`` inserted in order: the new
    table, old id -> new id (-1: gone) and the new ids of the added strings (in ``order``).

    O(n) numpy work and one copy of the bytes (:meth:`StringTable.splice`), O(a log n) binary searches."""
    table = StringTable.from_strings(terms)  # a table already, or the list of a version written before them
    new = sorted(added, key=order)
    kept_before = np.zeros(len(table) + 1, dtype=np.int64)
    np.cumsum(used, out=kept_before[1:])
    at = [int(kept_before[bisect.bisect_left(table, order(term), key=order)]) for term in new]
    spliced = table.splice(used, list(zip(at, new, strict=True)))
    positions = np.asarray(at, dtype=np.int64)
    survivors = int(kept_before[-1])
    # survivor r moves up by the number of new strings inserted at or before it
    shift = np.searchsorted(positions, np.arange(survivors), side="right")
    remap = np.full(len(table), -1, dtype=np.int64)
    remap[np.flatnonzero(used)] = np.arange(survivors, dtype=np.int64) + shift
    return spliced, remap, positions + np.arange(positions.shape[0], dtype=np.int64)


def _patch_texts(
    old: LabelTables, n_nodes: int, node_remap: npt.NDArray[np.int64], touched: dict[int, str]
) -> tuple[StringTable, npt.NDArray[np.int32], npt.NDArray[np.int64]]:
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
