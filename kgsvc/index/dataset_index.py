"""The query side of a dataset's indexes: one loaded, complete index version (DESIGN §4–§6).

Contract (what the question path codes against)::

    index = open_index(settings, catalog, "movies")      # the current complete version; IndexError_ if none
    index.dataset, index.version, index.store_version, index.path
    index.snapshot                                         # GraphSnapshot, memory-mapped (kgsvc.index.snapshot)
    index.node_terms[i]      -> N-Triples text of node i ("<iri>", "_:b", '"lex"@en', '"5"^^<…>')
    index.relation_terms[j]  -> N-Triples text of the predicate IRI of relation j
    index.node_labels[i], index.relation_labels[j]   -> the label text (DESIGN §3; kgsvc.index.labels)
    index.node_texts[t], index.relation_texts[t]     -> distinct label texts; t is a *text id* (= vector point id)
    index.node_text_ids[i], index.relation_text_ids[j] -> text id of node i / relation j
    index.embedder                                   -> Embedder used for the labels (encode questions with it)
    index.node_candidates(text_or_vector, k, label_literals=True) -> CandidateSet: top-k NODES by true L2 of
                                                   label vectors (label_literals=False: skip label copies)
    index.label_literals[i]  -> True when node i is a literal whose only edges are labelling ones
    index.relation_candidates(text_or_vector, k) -> CandidateSet: top-k RELATIONS likewise
    index.search_node_texts(vectors (q, d), k)   -> per row [(node text id, L2), …] ascending (ties by id)
    index.search_relation_texts(vectors, k)      -> same for relation texts
    index.nodes_with_text(t) / relations_with_text(t) -> ascending int64 ids sharing text t
    index.node_term(i), index.node_label(i), index.relation_term(j), index.relation_label(j)
    index.close()                                # also a context manager

Ids are the graph snapshot's: node ids ``0 .. n_nodes - 1`` (IRIs and blank nodes first, then literals, each
sorted by N-Triples text), relation ids ``0 .. n_relations - 1`` (sorted by IRI). Distances are true L2 between
L2-normalised embeddings (``sqrt(2 - 2 cos)``), SimGRAG's (arXiv 2412.15272, Eq. 1) ``‖z_v − z_f(v)‖₂``.

``node_candidates(x, k)`` searches the top-``k`` label *texts*, expands each to all nodes carrying it, orders
the nodes by (fixed-point distance, node id) — the order of :class:`kgsvc.retrieval.candidates.CandidateSet` —
and keeps the first ``k``; so when many nodes share one label, the entities (smaller ids) win, deterministically.
The vector search is exact (:func:`kgsvc.index.exact.exact_search` over the version's embedding layers: the base
``*_vectors.npy``, memory-mapped, and the small delta; :mod:`kgsvc.index.layers`) when
:func:`~kgsvc.index.exact.searched_exactly` says so (at most ``EXACT_MAX_VALUES`` floats, or ``k`` at least
1/``EXACT_MIN_SHARE`` of the collection); otherwise HNSW (approximate) in the base's Qdrant collection without the
tombstoned points, merged with an exact scan of the delta. Versions built before the embeddings were kept beside
the collections always use Qdrant. Opening a version maps its term and text tables (:mod:`kgsvc.index.strings`;
a version written before them has JSON lists, parsed whole) and reads its point ids, not its embeddings.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgsvc.catalog import Catalog
from kgsvc.errors import IndexError_
from kgsvc.index.build import FORMAT, MANIFEST, vector_index_for
from kgsvc.index.embed import Embedder
from kgsvc.index.exact import exact_search, searched_exactly
from kgsvc.index.labels import find_node
from kgsvc.index.layers import Layers, embeddings_file, read_layers
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.index.strings import TextLabels, read_strings
from kgsvc.index.vectors import NODE_LABELS, RELATION_LABELS, Hits, VectorIndex
from kgsvc.retrieval.candidates import CandidateSet, candidate_set
from kgsvc.retrieval.gsd import quantize
from kgsvc.settings import Settings

__all__ = ["DatasetIndex", "TextLabels", "load_index", "open_index"]


def _csr(text_ids: npt.NDArray[np.integer[Any]], n_texts: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    order = np.argsort(text_ids, kind="stable").astype(np.int64)
    indptr = np.zeros(n_texts + 1, dtype=np.int64)
    np.cumsum(np.bincount(text_ids, minlength=n_texts), out=indptr[1:])
    return indptr, order


@dataclass(eq=False)
class DatasetIndex:
    """One complete index version, loaded for queries; see the module docstring for the contract."""

    dataset: str
    version: int
    store_version: int
    path: Path
    snapshot: GraphSnapshot
    node_terms: Sequence[str]
    relation_terms: Sequence[str]
    node_texts: Sequence[str]
    relation_texts: Sequence[str]
    node_text_ids: npt.NDArray[np.integer[Any]]
    relation_text_ids: npt.NDArray[np.integer[Any]]
    embedder: Embedder
    vectors: VectorIndex
    _text_nodes_indptr: npt.NDArray[np.int64] = field(repr=False)
    _text_nodes: npt.NDArray[np.integer[Any]] = field(repr=False)
    label_literals: npt.NDArray[np.bool_] = field(repr=False)
    #: collection -> its embeddings, base + delta (kgsvc.index.layers); absent for versions built before the
    #: embeddings were kept beside the collections (searched through Qdrant only)
    layers: dict[str, Layers] = field(default_factory=dict, repr=False)
    #: an incremental version's node changes since the version it was patched from: (that version, node id there
    #: -> node id here or -1, ids here of the nodes new or relabelled); ``None`` for a full build
    node_changes: tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = field(default=None, repr=False)
    _text_relations_indptr: npt.NDArray[np.int64] = field(init=False, repr=False)
    _text_relations: npt.NDArray[np.int64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._text_relations_indptr, self._text_relations = _csr(self.relation_text_ids, len(self.relation_texts))

    # -- terms and labels ----------------------------------------------------------------------------------------

    @property
    def node_labels(self) -> Sequence[str]:
        """Label text of each node id."""
        return TextLabels(self.node_texts, self.node_text_ids)

    @property
    def relation_labels(self) -> Sequence[str]:
        """Label text of each relation id."""
        return TextLabels(self.relation_texts, self.relation_text_ids)

    def node_term(self, node_id: int) -> str:
        """N-Triples text of node ``node_id``."""
        return self.node_terms[node_id]

    def node_id(self, term: str) -> int | None:
        """The node id of the N-Triples text ``term``, or ``None``. O(log n): the terms are in table order."""
        return find_node(self.node_terms, term)

    def node_label(self, node_id: int) -> str:
        """Label text of node ``node_id``."""
        return self.node_texts[int(self.node_text_ids[node_id])]

    def relation_term(self, relation_id: int) -> str:
        """N-Triples text (``<iri>``) of the predicate of relation ``relation_id``."""
        return self.relation_terms[relation_id]

    def relation_label(self, relation_id: int) -> str:
        """Label text of relation ``relation_id``."""
        return self.relation_texts[int(self.relation_text_ids[relation_id])]

    def nodes_with_text(self, text_id: int) -> npt.NDArray[np.int64]:
        """Node ids whose label is node text ``text_id``, ascending."""
        lo, hi = int(self._text_nodes_indptr[text_id]), int(self._text_nodes_indptr[text_id + 1])
        return np.asarray(self._text_nodes[lo:hi], dtype=np.int64)

    def relations_with_text(self, text_id: int) -> npt.NDArray[np.int64]:
        """Relation ids whose label is relation text ``text_id``, ascending."""
        lo, hi = int(self._text_relations_indptr[text_id]), int(self._text_relations_indptr[text_id + 1])
        return self._text_relations[lo:hi]

    # -- vector search -------------------------------------------------------------------------------------------

    def _rows(self, query: str | npt.ArrayLike) -> npt.NDArray[np.float32]:
        if isinstance(query, str):
            return self.embedder.encode([query])
        rows = np.asarray(query, dtype=np.float32)
        return rows[None, :] if rows.ndim == 1 else rows

    def search_node_texts(self, vectors: npt.ArrayLike, k: int) -> list[list[tuple[int, float]]]:
        """Top-``k`` node label texts per query row: ``[(text id, L2), …]`` ascending, ties by id."""
        return self._search(NODE_LABELS, vectors, k)

    def search_relation_texts(self, vectors: npt.ArrayLike, k: int) -> list[list[tuple[int, float]]]:
        """Top-``k`` relation label texts per query row, as :meth:`search_node_texts`."""
        return self._search(RELATION_LABELS, vectors, k)

    def text_vectors(self, collection: str) -> npt.NDArray[np.float32]:
        """The embedding of every text of ``collection``, by text id (a gather, O(texts · dimension)).

        Raises
        ------
        KeyError
            When the version keeps no embeddings beside its collections.
        """
        return self.layers[collection].text_vectors()

    def _search(self, collection: str, vectors: npt.ArrayLike, k: int) -> Hits:
        """Exact or HNSW search of ``collection`` (module docstring)."""
        rows = np.asarray(vectors, dtype=np.float32)
        rows = rows[None, :] if rows.ndim == 1 else rows
        layers = self.layers.get(collection)
        if layers is None:
            return self.vectors.search(collection, rows, k)
        if searched_exactly(layers.points.shape[0], layers.base.shape[1], k):
            return exact_search(layers.base, rows, k, delta=layers.delta, labels=layers.labels)
        # HNSW over the base without its tombstones, exact over the small delta, merged by (distance, text id)
        dead = np.flatnonzero(layers.shard_labels < 0)
        base = self.vectors.search(collection, rows, k, exclude=dead)
        delta = exact_search(layers.delta, rows, k, labels=layers.labels[layers.n_base :])
        return [
            sorted([(int(layers.shard_labels[p]), d) for p, d in hits] + extra, key=lambda h: (h[1], h[0]))[:k]
            for hits, extra in zip(base, delta, strict=True)
        ]

    def node_candidates(self, query: str | npt.ArrayLike, k: int, *, label_literals: bool = True) -> CandidateSet:
        """The ``k`` nodes nearest to ``query`` (a text, or one embedding row) by L2 of their label vectors.

        Parameters
        ----------
        query
            A text (embedded with :attr:`embedder`) or one vector of the index's dimension.
        k
            How many nodes.
        label_literals
            ``False`` leaves out literals whose only edges are labelling ones (``ex:x rdfs:label "Tom Hanks"``
            makes the literal ``"Tom Hanks"`` a node with the same text as ``ex:x``); see :attr:`label_literals`.

        Raises
        ------
        ValueError
            When ``k < 1`` or the vector is not one finite row of the index's dimension.

        Notes
        -----
        One vector search for ``k`` texts (repeated with twice as many while filtered nodes leave fewer than
        ``k``) plus O(m log m) over the m nodes carrying them.
        """
        keep = None if label_literals else ~np.asarray(self.label_literals, dtype=bool)
        return self._candidates(query, k, NODE_LABELS, self.nodes_with_text, len(self.node_texts), keep)

    def relation_candidates(self, query: str | npt.ArrayLike, k: int) -> CandidateSet:
        """The ``k`` relations nearest to ``query`` by L2 of their label vectors (see :meth:`node_candidates`)."""
        return self._candidates(query, k, RELATION_LABELS, self.relations_with_text, len(self.relation_texts), None)

    def _candidates(
        self,
        query: str | npt.ArrayLike,
        k: int,
        collection: str,
        expand: Any,
        n_texts: int,
        keep: npt.NDArray[np.bool_] | None,
    ) -> CandidateSet:
        rows = self._rows(query)
        if rows.shape[0] != 1:
            raise ValueError(f"expected one query vector, got shape {rows.shape}")
        texts = k
        while True:
            hits = self._search(collection, rows, texts)[0]
            ids = [expand(text_id) for text_id, _ in hits]
            dists = [np.full(m.shape[0], d, dtype=np.float64) for m, (_, d) in zip(ids, hits, strict=True)]
            all_ids = np.concatenate(ids) if ids else np.zeros(0, np.int64)
            all_dists = np.concatenate(dists) if dists else np.zeros(0, np.float64)
            if keep is not None:
                mask = keep[all_ids]
                all_ids, all_dists = all_ids[mask], all_dists[mask]
            if all_ids.shape[0] >= k or texts >= n_texts:
                break
            texts *= 2
        order = np.lexsort((all_ids, quantize(all_dists)))[:k]
        return candidate_set(all_ids[order], all_dists[order])

    # -- lifecycle -----------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Release the vector index (the snapshot's mappings go with the object)."""
        self.vectors.close()

    def __enter__(self) -> DatasetIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def load_index(
    settings: Settings,
    folder: Path,
    *,
    dataset: str,
    version: int,
    store_version: int,
    embedder: Embedder | None = None,
) -> DatasetIndex:
    """Load the index version in ``folder`` (written by :func:`kgsvc.index.build.build_index`).

    Raises
    ------
    IndexError_
        When the folder has no manifest (incomplete) or a part is missing or of another format.
    """
    folder = Path(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("format") != FORMAT:
            raise IndexError_(f"{folder}: not a {FORMAT} folder", dataset=dataset, version=version)
        # memory-mapped string tables (O(1)); JSON lists in a folder written before them (kgsvc.index.strings)
        tables = {n: read_strings(folder, n) for n in ("node_terms", "relation_terms", "node_texts", "relation_texts")}
        arrays = {
            n: np.load(folder / f"{n}.npy", mmap_mode="r", allow_pickle=False)
            for n in ("node_text_ids", "relation_text_ids", "text_nodes_indptr", "text_nodes", "label_literals")
        }
    except (OSError, ValueError) as exc:
        raise IndexError_(
            f"index version {version} of dataset {dataset!r} at {folder} is missing or incomplete: {exc}",
            dataset=dataset,
            version=version,
        ) from exc
    snapshot = GraphSnapshot.load(folder / "snapshot", mmap=True)
    layers = {}
    for collection in (NODE_LABELS, RELATION_LABELS):
        if (folder / embeddings_file(collection)).exists():
            try:
                layers[collection] = read_layers(folder, collection)
            except (OSError, ValueError) as exc:
                raise IndexError_(f"{folder}: unreadable embeddings: {exc}", dataset=dataset, version=version) from exc
    changes = None
    if manifest.get("patched_from") is not None:
        try:
            changes = (
                int(manifest["patched_from"]),
                np.load(folder / "node_remap.npy", mmap_mode="r", allow_pickle=False),
                np.load(folder / "node_touched.npy", allow_pickle=False),
            )
        except (OSError, ValueError):
            changes = None  # the label index is then built in full
    return DatasetIndex(
        dataset=dataset,
        version=version,
        store_version=store_version,
        path=folder,
        snapshot=snapshot,
        node_terms=tables["node_terms"],
        relation_terms=tables["relation_terms"],
        node_texts=tables["node_texts"],
        relation_texts=tables["relation_texts"],
        node_text_ids=arrays["node_text_ids"],
        relation_text_ids=arrays["relation_text_ids"],
        embedder=embedder
        or Embedder(manifest.get("embedding_model") or settings.embedding_model, device=settings.embedding_device),
        vectors=vector_index_for(settings, folder, manifest["backend"]),
        _text_nodes_indptr=arrays["text_nodes_indptr"],
        _text_nodes=arrays["text_nodes"],
        label_literals=arrays["label_literals"],
        layers=layers,
        node_changes=changes,
    )


def open_index(settings: Settings, catalog: Catalog, dataset: str, *, embedder: Embedder | None = None) -> DatasetIndex:
    """Open the current (newest complete) index version of ``dataset``.

    Raises
    ------
    DatasetError
        When the dataset is unknown.
    IndexError_
        When the dataset has no complete index version (naming the dataset), or its files are unusable.
    """
    current = catalog.current_index_version(dataset)
    if current is None:
        raise IndexError_(
            f"dataset {dataset!r} has no complete index yet (its build shows in `kgsvc jobs` and GET /jobs; "
            f"`kgsvc index {dataset}` builds it)",
            dataset=dataset,
        )
    return load_index(
        settings,
        catalog.index_path(dataset, current.version),
        dataset=dataset,
        version=current.version,
        store_version=current.store_version,
        embedder=embedder,
    )
