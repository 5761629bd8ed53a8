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
:func:`patch_tables` patches a previous version's tables with them (:mod:`kgsvc.index.build`). The label choice
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
    node_terms, relation_terms : list of str
        N-Triples text of node id ``i`` / of the predicate of relation id ``j``.
    node_labels, relation_labels : list of str
        The text of each node / relation.
    node_texts, relation_texts : list of str
        The distinct texts, sorted; ``node_text_ids[i]`` indexes ``node_texts``.
    node_text_ids, relation_text_ids : ndarray of int32
    heads, relations, tails : ndarray of int64
        The triples as ids (input of :meth:`kgsvc.index.snapshot.GraphSnapshot.from_triples`).
    """

    node_terms: list[str]
    node_labels: list[str]
    relation_terms: list[str]
    relation_labels: list[str]
    node_texts: list[str]
    node_text_ids: npt.NDArray[np.int32]
    relation_texts: list[str]
    relation_text_ids: npt.NDArray[np.int32]
    heads: npt.NDArray[np.int64]
    relations: npt.NDArray[np.int64]
    tails: npt.NDArray[np.int64]
    #: set by :func:`patch_tables`: the previous tables' node id -> this one's (-1: gone), and the ids of the nodes
    #: that are new or whose label was chosen again (every other node kept its label)
    node_remap: npt.NDArray[np.int64] | None = None
    node_touched: npt.NDArray[np.int64] | None = None

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
    node_terms: list[str],
    node_labels: list[str],
    relation_terms: list[str],
    relation_labels: list[str],
    heads: npt.NDArray[np.int64],
    relations: npt.NDArray[np.int64],
    tails: npt.NDArray[np.int64],
    distinct_texts: tuple[list[str], npt.NDArray[np.int32]] | None = None,
) -> LabelTables:
    """The tables, with the triples in canonical order (by head, relation, tail id): a full and an incremental
    build of the same data give the same edge ids. ``distinct_texts``: the distinct node texts and text ids when the
    caller has them (else they are sorted out of ``node_labels``)."""
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

    def __init__(self, terms: list[str]) -> None:
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

    Notes
    -----
    O(m) vectorised work over the m old triples (and an O(m log m) lexsort for the canonical order), O(n) list
    copies over the n old terms and texts (in C), and O((k + a) log n) for the k changed subjects and a added terms
    (binary searches in the sorted terms and texts; no dictionary of every term).
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
    keep = ~np.isin(old.heads, changed)
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

    def label_of(term: str) -> str:  # a new node may be an old relation and vice versa: same label
        if term not in subjects:
            if (i := old_nodes.get(term)) is not None:
                return old.node_labels[i]
            if (j := old_relations.get(term)) is not None:
                return old.relation_labels[j]
        return _text(term, labels, literal_text, faithful=term not in classes)

    node_terms, node_labels, node_remap = _merge(old.node_terms, old.node_labels, node_used, added_nodes, label_of)
    relation_terms, relation_labels, relation_remap = _merge(
        old.relation_terms, old.relation_labels, relation_used, added_relations, label_of
    )
    for subject in subjects:  # a changed subject's label is chosen again from its labelling triples now
        for table, remap, index in (
            (node_labels, node_remap, old_nodes),
            (relation_labels, relation_remap, old_relations),
        ):
            i = index.get(subject)
            if i is not None and remap[i] >= 0:
                faithful = table is node_labels and subject not in classes
                table[int(remap[i])] = _text(subject, labels, literal_text, faithful=faithful)
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
    kept = np.zeros(len(node_terms), dtype=bool)
    kept[node_remap[node_remap >= 0]] = True
    relabelled = node_remap[[old_nodes[s] for s in subjects if s in old_nodes]]
    touched = np.union1d(np.flatnonzero(~kept), relabelled[relabelled >= 0]).astype(np.int64)
    texts = _patch_texts(old, node_labels, node_remap, touched)
    tables = _tables(node_terms, node_labels, relation_terms, relation_labels, heads, relations, tails, texts)
    return dataclasses.replace(tables, node_remap=node_remap, node_touched=touched)


def _patch_texts(
    old: LabelTables, node_labels: list[str], node_remap: npt.NDArray[np.int64], touched: npt.NDArray[np.int64]
) -> tuple[list[str], npt.NDArray[np.int32]]:
    """The distinct node texts (sorted) and text ids of the patched tables, as :func:`_distinct` gives them: a node
    not ``touched`` keeps its old text (renumbered), a touched one's text is looked up or inserted.

    O(n) numpy work, O(t) list copies of the t old texts (a few deletions: in C), O(k log t) for k touched nodes."""
    ids = np.full(len(node_labels), -1, dtype=np.int64)  # old text id of each node that kept its label
    alive = np.flatnonzero(node_remap >= 0)
    ids[node_remap[alive]] = old.node_text_ids[alive]
    ids[touched] = -1
    used = np.zeros(len(old.node_texts), dtype=bool)
    used[ids[ids >= 0]] = True
    touched_labels = [node_labels[i] for i in touched.tolist()]
    added = set()
    for label in touched_labels:
        j = bisect.bisect_left(old.node_texts, label)
        if j < len(old.node_texts) and old.node_texts[j] == label:
            used[j] = True
        else:
            added.add(label)
    texts, _, text_remap = _merge(old.node_texts, old.node_texts, used, added, str, order=str)
    text_ids = np.empty(len(node_labels), dtype=np.int32)
    known = ids >= 0
    text_ids[known] = text_remap[ids[known]]
    for i, label in zip(touched.tolist(), touched_labels, strict=True):
        text_ids[i] = bisect.bisect_left(texts, label)
    return texts, text_ids


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


def _distinct(texts: list[str]) -> tuple[list[str], npt.NDArray[np.int32]]:
    distinct = sorted(set(texts))
    index = {text: i for i, text in enumerate(distinct)}
    return distinct, np.fromiter((index[t] for t in texts), dtype=np.int32, count=len(texts))
