"""Building a dataset's index version: labels and term tables, embeddings, vector collections, graph snapshot.

:func:`build_index` writes version ``N`` of dataset ``D`` under ``index_dir/D/vN/``::

    manifest.json            written last; a folder without it is incomplete (never opened)
    node_terms.json          N-Triples text of node id i            (list of str)
    relation_terms.json      N-Triples text of relation id j        (list of str)
    node_texts.json          distinct node label texts, sorted      (list of str; vector point id = index)
    relation_texts.json      distinct relation label texts, sorted
    node_text_ids.npy        int32, text id of node i
    relation_text_ids.npy    int32, text id of relation j
    text_nodes_indptr.npy    int64 CSR: nodes of text t are text_nodes[indptr[t]:indptr[t+1]], ascending
    text_nodes.npy           int32/int64
    label_literals.npy       bool per node: a literal whose only edges are labelling ones (``rdfs:label "X"``)
    node_vectors.npy         float32 (node texts x dimension), the embeddings the collections were filled from
    relation_vectors.npy     float32 (relation texts x dimension)
    node_text_points.npy     int64, vector point id of node text t (stable across incremental versions)
    relation_text_points.npy int64, likewise for relation texts
    snapshot/                kgsvc.index.snapshot.GraphSnapshot
    gnn/                     the GNN link predictor trained on snapshot/ (kgsvc.gnn.artifacts), written later by
                             the ``train_gnn`` job when Settings.gnn_train is on; absent until then
    vectors/                 Qdrant Edge shards (embedded); with Settings.qdrant_url the collections live on
                             the server as ``kgsvc_D_vN_<collection>`` and the manifest says so

The metadata row goes ``building`` → ``complete`` (with counts, and per-stage seconds and peak RSS in metrics)
or ``failed`` (with the error). Only a complete version is current (newest complete wins), so a failed or
interrupted build leaves the previous version serving. After version N completes, the complete version it replaces
is kept (queries that opened it finish on it) and every older version is marked ``removed`` and its files (and
server collections) deleted. Idempotent: when the newest complete version
already covers the requested ``store_version``, nothing is built.

Only names of nodes and relations (up to :data:`kgsvc.index.names.EMBED_MAX_CHARS` characters) and short literals
(up to :data:`~kgsvc.index.names.LITERAL_EMBED_MAX_CHARS`) are embedded; any other text (a description) gets the
zero vector (:func:`kgsvc.index.names.encode_bounded`). The
dataset's configured name predicates (``DatasetInfo.name_predicates``, else ``Settings.name_predicates``) choose
its labels (:mod:`kgsvc.index.names`).

Incremental: a build embeds only the label texts the previous complete version did not have (same model); the
other rows are copied from that version's ``*_vectors.npy``. Embedding dominates the cost of a build, so a small
change (a few new entities) costs the label pass, the snapshot and the vector inserts, not a re-embedding; the
metrics say how many texts were ``embedded`` and ``reused``. Everything else is rebuilt whole, so an
incremental version is the same as a full one (up to float rounding of the batches).

Every build embeds only the label texts the previous complete version did not have (same model); the other rows
are copied from that version's ``*_vectors.npy``; the metrics say how many texts were ``embedded`` and ``reused``.

**Incremental versions** (metrics ``mode``: ``incremental`` or ``full``). When every data version since the
previous complete index version logged the subjects it changed (:mod:`kgsvc.index.changes`; loads of files up to
``bulk_threshold_bytes`` and ``INSERT DATA`` / ``DELETE DATA`` updates do), and the previous version was built with
the same model, languages and labelling predicates, and at most :data:`INCREMENTAL_MAX_SHARE` of its nodes changed:

* labels: the previous tables (:func:`load_tables`) are patched with the changed subjects' triples, re-read from
  the store (:func:`kgsvc.index.labels.patch_tables`) — no scan of the store;
* vectors: the previous version's Qdrant Edge shards are copied (a file copy: HNSW is not rebuilt) and only the
  points of vanished texts are deleted and those of new texts upserted. Point ids are stable across versions: a
  text keeps the point id it had (``*_text_points.npy``), new texts get ids above every earlier one; Qdrant's
  optimizers compact the small appendable segment and the deletions. A full build numbers points by text id;
* snapshot: rebuilt from the patched triple arrays (O(m log m) in numpy, no store access).

Otherwise the build is full (one scan of the store, new collections). Both give the same tables, triples (in
canonical order), snapshot and answers — an incremental version equals a from-scratch build of the same data up to
float rounding of embedding batches (``tests/index/test_incremental.py``). Still O(n) per incremental version:
the term and text tables and ``*_vectors.npy`` are written whole and the shards copied (cheap sequential I/O).
"""

from __future__ import annotations

import json
import logging
import resource
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgsvc import faults, interrupt
from kgsvc.catalog import Catalog
from kgsvc.errors import IndexError_, StoreError
from kgsvc.index.changes import changed_subjects, forget_changes
from kgsvc.index.chunks import embed_planned, forget_plans
from kgsvc.index.embed import Embedder
from kgsvc.index.exact import searched_exactly
from kgsvc.index.labels import (
    DEFAULT_LANGUAGES,
    LABEL_PREDICATES,
    LabelTables,
    extract_labels,
    patch_tables,
    subject_triples,
)
from kgsvc.index.names import NamePlan, embedded, encode_bounded, name_plan
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.index.vectors import NODE_LABELS, RELATION_LABELS, EdgeVectorIndex, ServerVectorIndex, VectorIndex
from kgsvc.settings import Settings
from kgsvc.store import Store

__all__ = [
    "EMBEDDING_FOLDER",
    "FORMAT",
    "GNN_FOLDER",
    "INCREMENTAL_MAX_SHARE",
    "embeddings_file",
    "load_tables",
    "points_file",
    "node_label_vectors",
    "node_labels",
    "version_terms",
    "MANIFEST",
    "build_index",
    "delete_version_files",
    "remove_dataset_indexes",
    "vector_index_for",
]

log = logging.getLogger(__name__)

FORMAT = "kgsvc-dataset-index"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
GNN_FOLDER = "gnn"
#: Folder (beside the version folders) of the resumable embedding plans (kgsvc.index.chunks).
EMBEDDING_FOLDER = "embedding"
_KIND = {NODE_LABELS: "node", RELATION_LABELS: "relation"}  # collection -> file prefix of its tables


def embeddings_file(collection: str) -> str:
    """The file name of a collection's embeddings in a version folder (``node_vectors.npy``, …)."""
    return f"{_KIND[collection]}_vectors.npy"


def node_label_vectors(folder: Path) -> npt.NDArray[np.float32]:
    """The label embedding of every node of the version in ``folder``: row ``i`` is node ``i``'s (snapshot ids).

    The GNN's node input features (:class:`kgsvc.gnn.model.RGCNDistMult`), so a node with few or no edges still
    has an input. Memory: nodes × dimension float32 (MetaQA: 42,797 × 384, 66 MB).

    Raises
    ------
    IndexError_
        When the folder has no label embeddings (an incomplete or foreign folder).
    """
    try:
        vectors = np.load(folder / embeddings_file(NODE_LABELS), mmap_mode="r", allow_pickle=False)
        text_ids = np.load(folder / "node_text_ids.npy", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise IndexError_(f"index version folder {folder} has no node label embeddings: {exc}") from exc
    return np.asarray(vectors[text_ids], dtype=np.float32)


def node_labels(folder: Path) -> list[str]:
    """The label of every node of the version in ``folder`` (snapshot ids): the GNN's name rules read them.

    Raises
    ------
    IndexError_
        When the folder has no label tables (an incomplete or foreign folder).
    """
    try:
        texts = json.loads((folder / "node_texts.json").read_text(encoding="utf-8"))
        text_ids = np.load(folder / "node_text_ids.npy", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise IndexError_(f"index version folder {folder} has no node labels: {exc}") from exc
    return [texts[i] for i in text_ids.tolist()]


def version_terms(folder: Path) -> tuple[list[str], list[str]]:
    """The node and relation terms (N-Triples text, by snapshot id) of the index version in ``folder``.

    Raises
    ------
    IndexError_
        When the folder has no term tables.
    """
    try:
        tables = [
            json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
            for name in ("node_terms", "relation_terms")
        ]
    except (OSError, ValueError) as exc:
        raise IndexError_(f"index version folder {folder} has no term tables: {exc}") from exc
    return tables[0], tables[1]


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _dataset_lock(name: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(name, threading.Lock())


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux


def vector_index_for(settings: Settings, folder: Path, backend: dict[str, Any]) -> VectorIndex:
    """The vector index a version's manifest ``backend`` entry describes (``edge`` or ``server``)."""
    if backend.get("kind") == "edge":
        return EdgeVectorIndex(folder / "vectors")
    if backend.get("kind") == "server":
        if not settings.qdrant_url:
            raise IndexError_(f"index {folder} keeps its vectors on a Qdrant server but qdrant_url is not set")
        return ServerVectorIndex(url=settings.qdrant_url, prefix=str(backend["prefix"]))
    raise IndexError_(f"index {folder}: unknown vector backend {backend!r}")


def build_index(
    store: Store,
    catalog: Catalog,
    settings: Settings,
    dataset: str,
    *,
    store_version: int | None = None,
    embedder: Embedder | None = None,
    languages: tuple[str, ...] = DEFAULT_LANGUAGES,
    helpers: Callable[[Path], None] | None = None,
    progress: Callable[[float], None] | None = None,
) -> int:
    """Build a new index version of ``dataset`` unless the current one covers ``store_version``.

    Parameters
    ----------
    store, catalog, settings
        Where the data, the metadata rows and the index folders are.
    dataset
        The dataset name.
    store_version
        The data version to cover; ``None``: the dataset's current one.
    embedder
        The label embedder; ``None``: ``Embedder(settings.embedding_model)``.
    languages
        Label language preference (:func:`kgsvc.index.labels.extract_labels`).
    helpers
        Called with the embedding plan folder when texts must be embedded, to start other processes on it
        (:mod:`kgsvc.index.chunks`); this process works on the plan too. ``None``: this process alone.
    progress
        Called with the share of the build done (0–1): at the end of each stage (weighted by :data:`STAGE_WEIGHTS`)
        and after each embedded chunk of node texts.

    Returns
    -------
    int
        The current version after the call (the new one, or the existing one that already covered the data).

    Raises
    ------
    DatasetError
        When the dataset is unknown.
    IndexError_
        When the build failed; the version row is ``failed`` with the error and the previous version stays current.
    StoreError
        When reading the store failed (re-raised as is, so task queues retry it); the row is ``failed`` too.

    Notes
    -----
    Builds of one dataset are serialised within a process. Time is dominated by embedding the distinct label
    texts (O(texts) forward passes); memory by the label tables and the embeddings (texts x dimension float32).
    """
    with _dataset_lock(dataset):
        info = catalog.get(dataset)
        wanted = info.store_version if store_version is None else store_version
        current = catalog.current_index_version(dataset)
        if current is not None and current.store_version >= wanted:
            return current.version
        version = catalog.begin_index_version(dataset, store_version=info.store_version)
        folder = catalog.index_path(dataset, version)
        previous = catalog.index_path(dataset, current.version) if current is not None else None
        names = tuple(info.name_predicates or settings.name_predicates)
        subjects = None  # the subjects changed since the previous version, when every change logged them
        if current is not None and catalog.index_dir is not None:
            subjects = changed_subjects(catalog.index_dir, dataset, current.store_version, info.store_version)
        try:
            counts, metrics = _build(
                store,
                settings,
                info.graph,
                dataset,
                version,
                folder,
                embedder,
                languages,
                previous,
                subjects,
                helpers,
                name_predicates=names,
                progress=progress,
            )
        except BaseException as exc:
            catalog.finish_index_version(dataset, version, error=f"{type(exc).__name__}: {exc}")
            delete_version_files(settings, folder)
            log.exception("index build %s v%d failed", dataset, version)
            if isinstance(exc, Exception) and not isinstance(exc, StoreError):  # store errors stay retryable
                raise IndexError_(
                    f"building index version {version} of dataset {dataset!r} failed: {exc}",
                    dataset=dataset,
                    version=version,
                ) from exc
            raise
        faults.kill_point("index-before-publish")
        catalog.finish_index_version(dataset, version, counts=counts, metrics=metrics)
        # the version this one replaces stays (a query that opened it finishes on it); older ones go
        for old in catalog.remove_index_versions(dataset, below=current.version if current else version):
            delete_version_files(settings, catalog.index_path(dataset, old))
        if catalog.index_dir is not None:
            forget_changes(catalog.index_dir, dataset, upto=info.store_version)
        forget_plans(folder.parent / EMBEDDING_FOLDER)  # chunks of a killed attempt are kept until here
        log.info("index %s v%d complete: %s %s", dataset, version, counts, metrics)
        return version


#: Share of a build's progress each stage stands for (embedding dominates a full build; DESIGN §10).
STAGE_WEIGHTS = {"labels": 0.1, "embedding": 0.8, "vectors": 0.08, "snapshot": 0.02}


class _Stages:
    def __init__(self, progress: Callable[[float], None] | None) -> None:
        self.metrics: dict[str, Any] = {}
        self.progress = progress
        self.done = 0.0  # the weights of the stages finished

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        interrupt.check(f"the index build ({name} stage)")  # KG.stop: the version fails, its folder is deleted
        start = time.perf_counter()
        yield
        self.metrics[f"{name}_s"] = round(time.perf_counter() - start, 3)
        self.metrics[f"{name}_peak_rss_mb"] = _peak_rss_mb()
        self.done += STAGE_WEIGHTS[name]
        if self.progress is not None:
            self.progress(min(self.done, 1.0))

    def within(self, name: str) -> Callable[[int, int], None] | None:
        """A ``(done, total)`` callback reporting progress inside stage ``name`` (``None`` without a reporter)."""
        progress = self.progress
        if progress is None:
            return None
        return lambda done, total: progress(self.done + STAGE_WEIGHTS[name] * done / max(total, 1))


def _build(
    store: Store,
    settings: Settings,
    graph: str,
    dataset: str,
    version: int,
    folder: Path,
    embedder: Embedder | None,
    languages: tuple[str, ...],
    previous: Path | None,
    subjects: set[str] | None,
    helpers: Callable[[Path], None] | None = None,
    *,
    name_predicates: tuple[str, ...] = (),
    progress: Callable[[float], None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    shutil.rmtree(folder, ignore_errors=True)  # leftovers of an interrupted build with this number
    folder.mkdir(parents=True)
    embedder = embedder or Embedder(settings.embedding_model)
    stages = _Stages(progress)
    started = time.perf_counter()
    with stages.stage("labels"):
        # the name plan (which predicates name the nodes) is read from the data every time: a change that alters
        # it (a new name predicate discovered) makes the build full, since every label may change
        plan = name_plan(store, graph, configured=name_predicates, known=LABEL_PREDICATES)
        base = _incremental_base(previous, subjects, embedder, languages, plan)
        if base is None or subjects is None:
            tables = extract_labels(store, graph, languages=languages, plan=plan)
        else:
            tables = patch_tables(
                base, subjects, subject_triples(store, graph, subjects), languages=languages, plan=plan
            )
        _write_tables(folder, tables)
    incremental = base is not None
    stages.metrics["mode"] = "incremental" if incremental else "full"
    stages.metrics["changed_subjects"] = len(subjects) if incremental and subjects is not None else None
    faults.kill_point("index-mid-build")
    with stages.stage("embedding"):
        plans = folder.parent / EMBEDDING_FOLDER
        chunks: dict[str, int] = {}
        names = {label for term, label in zip(tables.node_terms, tables.node_labels, strict=True) if term[0] != '"'}
        node_vectors, node_reused = _embed(
            embedder,
            tables.node_texts,
            previous,
            NODE_LABELS,
            names,
            plans,
            helpers,
            chunks,
            stages.within("embedding"),
        )
        relation_vectors, relation_reused = _embed(
            embedder,
            tables.relation_texts,
            previous,
            RELATION_LABELS,
            set(tables.relation_texts),
            plans,
            helpers,
            chunks,
        )
        stages.metrics.update(chunks)
        np.save(folder / embeddings_file(NODE_LABELS), node_vectors, allow_pickle=False)
        np.save(folder / embeddings_file(RELATION_LABELS), relation_vectors, allow_pickle=False)
    reused = node_reused + relation_reused
    stages.metrics["reused_texts"] = reused
    stages.metrics["embedded_texts"] = len(tables.node_texts) + len(tables.relation_texts) - reused
    stages.metrics["unembedded_texts"] = sum(1 for text in tables.node_texts if not embedded(text, names))
    with stages.stage("vectors"):
        if settings.qdrant_url:
            backend: dict[str, Any] = {"kind": "server", "prefix": f"kgsvc_{dataset}_v{version}_"}
        else:
            backend = {"kind": "edge"}
        hnsw: dict[str, bool] = {}
        with vector_index_for(settings, folder, backend) as vectors:
            for name, rows, texts in (
                (NODE_LABELS, node_vectors, tables.node_texts),
                (RELATION_LABELS, relation_vectors, tables.relation_texts),
            ):
                # a collection searched exactly (kgsvc.index.exact) needs no HNSW graph: a cheap finish()
                hnsw[name] = not searched_exactly(rows.shape[0], rows.shape[1])
                old = _copied_collection(previous, folder, name, hnsw[name], backend) if incremental else None
                if old is None:
                    points = np.arange(len(texts), dtype=np.int64)
                    vectors.create_collection(name, int(rows.shape[1]), hnsw=hnsw[name])
                    vectors.add(name, rows)
                else:
                    points, new_rows, removed = _stable_points(texts, *old)
                    vectors.delete(name, removed)
                    vectors.add(name, rows[new_rows], ids=points[new_rows])
                    stages.metrics[f"{_KIND[name]}_points_upserted"] = int(new_rows.shape[0])
                    stages.metrics[f"{_KIND[name]}_points_deleted"] = int(removed.shape[0])
                vectors.finish(name)
                np.save(folder / points_file(name), points, allow_pickle=False)
    with stages.stage("snapshot"):
        _write_snapshot(folder, tables)
    counts = {
        "nodes": tables.n_nodes,
        "relations": tables.n_relations,
        "edges": int(tables.heads.shape[0]),
        "node_texts": len(tables.node_texts),
        "relation_texts": len(tables.relation_texts),
        "literals": sum(1 for term in tables.node_terms if term.startswith('"')),
        "label_literals": int(np.count_nonzero(_label_literals(tables))),
    }
    stages.metrics["total_s"] = round(time.perf_counter() - started, 3)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "dataset": dataset,
        "version": version,
        "backend": backend,
        "embedding_model": str(embedder.model_path),
        "dimension": int(node_vectors.shape[1]),
        "languages": list(languages),
        "name_plan": _plan_json(plan),
        "hnsw": hnsw,
        "counts": counts,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return counts, stages.metrics


#: An incremental build re-reads the changed subjects; above this share of the previous version's nodes a full
#: label pass (one scan) is cheaper than the per-subject look-ups.
INCREMENTAL_MAX_SHARE = 0.2


def _plan_json(plan: NamePlan) -> dict[str, list[str]]:
    return {"predicates": list(plan.predicates), "given": list(plan.given), "family": list(plan.family)}


def _incremental_base(
    previous: Path | None, subjects: set[str] | None, embedder: Embedder, languages: tuple[str, ...], plan: NamePlan
) -> LabelTables | None:
    """The previous version's tables when this build can patch them (module docstring), else ``None``."""
    if previous is None or subjects is None:
        return None
    try:
        manifest = json.loads((previous / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    same = (
        manifest.get("languages") == list(languages)
        and manifest.get("name_plan") == _plan_json(plan)
        and manifest.get("embedding_model") == str(embedder.model_path)
    )
    if not same or len(subjects) > INCREMENTAL_MAX_SHARE * max(1, manifest.get("counts", {}).get("nodes", 0)):
        return None
    try:
        return load_tables(previous)
    except IndexError_:
        return None


def load_tables(folder: Path) -> LabelTables:
    """The :class:`LabelTables` of the complete version in ``folder`` (terms, labels and triples by id).

    O(n + m) reads for n terms and m triples.

    Raises
    ------
    IndexError_
        When a table is missing or unreadable.
    """
    try:
        node_terms, relation_terms = version_terms(folder)
        texts = {
            kind: json.loads((folder / f"{kind}_texts.json").read_text(encoding="utf-8")) for kind in _KIND.values()
        }
        text_ids = {kind: np.load(folder / f"{kind}_text_ids.npy", allow_pickle=False) for kind in _KIND.values()}
        snapshot = GraphSnapshot.load(folder / "snapshot", mmap=True)
    except (OSError, ValueError) as exc:
        raise IndexError_(f"index version folder {folder} has unreadable tables: {exc}") from exc
    node_labels = [texts["node"][i] for i in text_ids["node"].tolist()]
    relation_labels = [texts["relation"][i] for i in text_ids["relation"].tolist()]
    return LabelTables(
        node_terms=node_terms,
        node_labels=node_labels,
        relation_terms=relation_terms,
        relation_labels=relation_labels,
        node_texts=texts["node"],
        node_text_ids=text_ids["node"],
        relation_texts=texts["relation"],
        relation_text_ids=text_ids["relation"],
        heads=np.asarray(snapshot.triple_heads, dtype=np.int64),
        relations=np.asarray(snapshot.triple_relations, dtype=np.int64),
        tails=np.asarray(snapshot.triple_tails, dtype=np.int64),
    )


def points_file(collection: str) -> str:
    """The file of a collection's point ids in a version folder: int64, point id of text id ``t``."""
    return f"{_KIND[collection]}_text_points.npy"


def _copied_collection(
    previous: Path | None, folder: Path, name: str, hnsw: bool, backend: dict[str, Any]
) -> tuple[list[str], npt.NDArray[np.int64]] | None:
    """Copy the previous version's Qdrant Edge shard of ``name`` into ``folder`` and return that version's texts
    and point ids; ``None`` (nothing copied) when it cannot be reused: another backend, another HNSW choice, or
    files missing. The copy is a file copy (O(collection bytes), no HNSW rebuild); the caller then deletes and
    upserts only the changed points."""
    if previous is None or backend.get("kind") != "edge":
        return None
    try:
        manifest = json.loads((previous / MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("backend", {}).get("kind") != "edge" or manifest.get("hnsw", {}).get(name) != hnsw:
            return None
        texts = json.loads((previous / f"{_KIND[name]}_texts.json").read_text(encoding="utf-8"))
        points = np.load(previous / points_file(name), allow_pickle=False)
        target = folder / "vectors" / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(previous / "vectors" / name, target)
    except (OSError, ValueError):
        return None
    if points.shape != (len(texts),):
        return None
    return texts, np.asarray(points, dtype=np.int64)


def _stable_points(
    texts: list[str], old_texts: list[str], old_points: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Point ids of ``texts`` that keep the previous version's id of every text it had; new texts get ids above
    every old one. Returns the point ids, the text ids to upsert (new texts) and the old point ids to delete.

    O(n) dictionary look-ups.
    """
    point_of = dict(zip(old_texts, old_points.tolist(), strict=True))
    points = np.empty(len(texts), dtype=np.int64)
    new_rows: list[int] = []
    next_point = int(old_points.max()) + 1 if old_points.shape[0] else 0
    for i, text in enumerate(texts):
        point = point_of.get(text)
        if point is None:
            point, next_point = next_point, next_point + 1
            new_rows.append(i)
        points[i] = point
    removed = np.setdiff1d(old_points, points, assume_unique=True)
    return points, np.asarray(new_rows, dtype=np.int64), removed


def _embed(
    embedder: Embedder,
    texts: list[str],
    previous: Path | None,
    collection: str,
    names: set[str],
    plans: Path,
    helpers: Callable[[Path], None] | None,
    chunks: dict[str, int],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[npt.NDArray[np.float32], int]:
    """Embeddings of ``texts``, reusing the rows of the previous version's embeddings of ``collection`` for the
    texts it had (when it was built with the same model); returns them and how many rows were reused. New texts are
    embedded in resumable chunks under ``plans`` (:func:`kgsvc.index.chunks.embed_planned`); their counts are added
    to ``chunks``; ``progress(chunks done, chunks)`` follows them.

    O(texts) dictionary work plus forward passes for the new texts only.
    """

    def encode(new_texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows, counts = embed_planned(embedder, list(new_texts), plans, helpers=helpers, progress=progress)
        for key, value in counts.items():
            chunks[key] = chunks.get(key, 0) + value
        return rows

    old_texts, old_vectors = _previous_vectors(embedder, previous, collection)
    if not old_texts:
        return encode_bounded(encode, texts, dimension=embedder.dimension, names=names), 0
    row_of = {text: i for i, text in enumerate(old_texts)}
    hits = [(i, row_of[t]) for i, t in enumerate(texts) if t in row_of]
    new = [i for i, t in enumerate(texts) if t not in row_of]
    vectors = np.empty((len(texts), old_vectors.shape[1]), dtype=np.float32)
    if hits:
        at, rows = (np.fromiter(column, dtype=np.int64, count=len(hits)) for column in zip(*hits, strict=True))
        vectors[at] = old_vectors[rows]
    if new:
        vectors[new] = encode_bounded(encode, [texts[i] for i in new], dimension=embedder.dimension, names=names)
    return vectors, len(hits)


def _previous_vectors(
    embedder: Embedder, previous: Path | None, collection: str
) -> tuple[list[str], npt.NDArray[np.float32]]:
    """The previous version's texts and embeddings of ``collection``; empty when it has none or another model
    made them."""
    empty: tuple[list[str], npt.NDArray[np.float32]] = ([], np.zeros((0, 0), dtype=np.float32))
    if previous is None:
        return empty
    try:
        manifest = json.loads((previous / MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("embedding_model") != str(embedder.model_path):
            return empty
        texts = json.loads((previous / f"{_KIND[collection]}_texts.json").read_text(encoding="utf-8"))
        vectors = np.load(previous / embeddings_file(collection), allow_pickle=False)
    except (OSError, ValueError):  # an older layout without the embeddings, or files removed meanwhile
        return empty
    if vectors.dtype != np.float32 or vectors.ndim != 2 or vectors.shape[0] != len(texts):
        return empty
    return texts, vectors


def _write_tables(folder: Path, tables: LabelTables) -> None:
    for name in ("node_terms", "relation_terms", "node_texts", "relation_texts"):
        (folder / f"{name}.json").write_text(json.dumps(getattr(tables, name), ensure_ascii=False), encoding="utf-8")
    np.save(folder / "node_text_ids.npy", tables.node_text_ids, allow_pickle=False)
    np.save(folder / "relation_text_ids.npy", tables.relation_text_ids, allow_pickle=False)
    order = np.argsort(tables.node_text_ids, kind="stable")  # nodes by (text id, node id)
    counts = np.bincount(tables.node_text_ids, minlength=len(tables.node_texts))
    indptr = np.zeros(len(tables.node_texts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    node_dtype = np.int32 if tables.n_nodes < 2**31 else np.int64
    np.save(folder / "text_nodes_indptr.npy", indptr, allow_pickle=False)
    np.save(folder / "text_nodes.npy", order.astype(node_dtype), allow_pickle=False)
    np.save(folder / "label_literals.npy", _label_literals(tables), allow_pickle=False)


def _label_literals(tables: LabelTables) -> npt.NDArray[np.bool_]:
    """Nodes that are literals reached only through labelling predicates (the label copies of entities)."""
    labelling = np.zeros(tables.n_relations, dtype=bool)
    for j, term in enumerate(tables.relation_terms):
        labelling[j] = term[1:-1] in LABEL_PREDICATES
    other = np.bincount(tables.tails[~labelling[tables.relations]], minlength=tables.n_nodes)
    literal = np.fromiter((t.startswith('"') for t in tables.node_terms), dtype=bool, count=tables.n_nodes)
    result: npt.NDArray[np.bool_] = literal & (other == 0)
    return result


def _write_snapshot(folder: Path, tables: LabelTables) -> None:
    snapshot = GraphSnapshot.from_triples(
        tables.heads, tables.relations, tables.tails, n_nodes=tables.n_nodes, n_relations=tables.n_relations
    )
    snapshot.save(folder / "snapshot")


def delete_version_files(settings: Settings, folder: Path) -> None:
    """Delete a version's folder and, when its manifest names a Qdrant server, its server collections."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    backend = manifest.get("backend", {})
    if backend.get("kind") == "server" and settings.qdrant_url:
        with vector_index_for(settings, folder, backend) as vectors:
            vectors.drop()
    shutil.rmtree(folder, ignore_errors=True)


def remove_dataset_indexes(settings: Settings, catalog: Catalog, dataset: str) -> None:
    """Delete every index version's files of ``dataset`` (call before :meth:`Catalog.drop`)."""
    for info in catalog.index_versions(dataset):
        delete_version_files(settings, catalog.index_path(dataset, info.version))
