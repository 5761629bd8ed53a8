"""Building a dataset's index version: labels and term tables, embeddings, vector collections, graph snapshot.

:func:`build_index` writes version ``N`` of dataset ``D`` under ``index_dir/D/vN/``::

    manifest.json            written last; a folder without it is incomplete (never opened)
    node_terms_*.npy         N-Triples text of node id i            (string table: _offsets + _blob,
    relation_terms_*.npy     N-Triples text of relation id j         memory-mapped; kgsvc.index.strings; an
                                                                     incremental version: the files it was
                                                                     patched from, hard-linked, + _splice.npz)
    node_texts_*.npy         distinct node label texts, sorted      (vector point id = index)
    relation_texts_*.npy     distinct relation label texts, sorted
    node_text_ids.npy        int32, text id of node i
    relation_text_ids.npy    int32, text id of relation j
    text_nodes_indptr.npy    int64 CSR: nodes of text t are text_nodes[indptr[t]:indptr[t+1]], ascending
    text_nodes.npy           int32/int64
    label_literals.npy       bool per node: a literal whose only edges are labelling ones (``rdfs:label "X"``)
    node_remap.npy           int32/int64, incremental versions only: node id in the version ``patched_from`` (manifest)
                             -> node id here (-1: gone)
    node_touched.npy         int64, incremental versions only: ids of the nodes new or relabelled since then
    node_vectors.npy         float32, the base layer of the node text embeddings (row = point id; kgsvc.index.layers)
    node_delta_vectors.npy   float32, the delta layer (texts added since the base)
    node_text_points.npy     int64, point id of node text t (stable across incremental versions)
    relation_*.npy           likewise for relation texts
    snapshot/                kgsvc.index.snapshot.GraphSnapshot
    gnn/                     the GNN link predictor trained on snapshot/ (kgsvc.gnn.artifacts), written later by
                             the ``train_gnn`` job when Settings.gnn_train is on; absent until then

and the Qdrant Edge shards of its base under ``index_dir/D/shards/vB/`` (:data:`SHARDS_FOLDER`; the manifest's
``backend.shards`` names ``vB``), shared by the versions that keep base B; with Settings.qdrant_url the collections
live on the server as ``kgsvc_D_vN_<collection>`` instead and the manifest says so.

The metadata row goes ``building`` → ``complete`` (with counts, and per-stage seconds and peak RSS in metrics)
or ``failed`` (with the error). A stage's peak RSS is the process's peak during that stage (in a process running
two builds at once it can be the other build's). Only a complete version is current (newest complete wins), so a
failed or interrupted build leaves the previous version serving. After version N completes, the complete version it
replaces is kept (queries that opened it finish on it) and every older version is marked ``removed`` and its files
(and server collections) deleted; then every base shard no remaining version refers to. Idempotent: when the newest
complete version already covers the requested ``store_version``, nothing is built.

Only names of nodes and relations (up to :data:`kgsvc.index.names.EMBED_MAX_CHARS` characters) and short literals
(up to :data:`~kgsvc.index.names.LITERAL_EMBED_MAX_CHARS`) are embedded; any other text (a description) gets the
zero vector (:func:`kgsvc.index.names.encode_bounded`). The
dataset's configured name predicates (``DatasetInfo.name_predicates``, else ``Settings.name_predicates``) choose
its labels (:mod:`kgsvc.index.names`).

Every build embeds only the label texts the previous complete version did not have (same model); the others keep
the previous version's rows. The metrics say how many texts were ``embedded`` and ``reused``, and whether the
version wrote a new base (``layers``: ``base``) or kept the previous one (``delta``).

**Incremental versions** (metrics ``mode``: ``incremental`` or ``full``). When every data version since the
previous complete index version logged the subjects it changed (:mod:`kgsvc.index.changes`; loads of files up to
``bulk_threshold_bytes`` and ``INSERT DATA`` / ``DELETE DATA`` updates do), and the previous version was built with
the same model, languages and labelling predicates, and at most :data:`INCREMENTAL_MAX_SHARE` of its nodes changed:

* labels: the previous tables (:func:`load_tables`) are patched with the changed subjects' triples, re-read from
  the store (:func:`kgsvc.index.labels.patch_tables`) — no scan of the store;
* embeddings and vectors (Qdrant Edge): the version keeps the previous version's base (its ``*_vectors.npy`` is
  hard-linked, its shards referenced, neither read nor copied) and writes a delta: the previous delta plus the
  new texts' rows, under point ids above every earlier one; removed texts' points become tombstones that searches
  skip (:mod:`kgsvc.index.layers`). No Qdrant work at all. When the delta and tombstones pass
  :data:`~kgsvc.index.layers.LAYER_MAX_SHARE` of the base, the build writes a new base from the same embeddings
  (a compaction: new shards, HNSW rebuilt). With a Qdrant server every version has new collections;
* snapshot: the previous version's patched (:meth:`~kgsvc.index.snapshot.GraphSnapshot.patched`: its entries
  renumbered, the removed edges' dropped, the new edges' merged in; O(m) numpy, no sort, no store access).

Otherwise the build is full (one scan of the store, a new base). Both give the same tables, triples (in canonical
order), snapshot and answers — an incremental version equals a from-scratch build of the same data up to float
rounding of embedding batches (``tests/index/test_incremental.py``). An incremental version also writes
``node_remap.npy`` and ``node_touched.npy`` (manifest ``patched_from``), from which the question path layers the
entity linker's label index over the previous version's (:meth:`kgsvc.qa.link.LabelIndex.extend`) instead of
walking every label. Still O(n + m) per incremental version, but numpy or memcpy-class (no sort, no Python work per
term): the term and text tables are O(change) (a splice of the tables they were patched from, whose files are
hard-linked, until the splice passes :data:`~kgsvc.index.strings.SPLICE_MAX_SHARE`), but the text-id arrays and
the snapshot are renumbered and written whole, the text -> nodes CSR re-sorted; docs/scale.md says how much.
"""

from __future__ import annotations

import bisect
import contextlib
import ctypes
import dataclasses
import json
import logging
import resource
import shutil
import threading
import time
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgsvc import faults, interrupt
from kgsvc.catalog import Catalog
from kgsvc.errors import IndexError_, StoreError
from kgsvc.index.changes import changed_subjects, forget_changes
from kgsvc.index.chunks import embed_planned, embed_planned_into, forget_plans
from kgsvc.index.embed import Embedder
from kgsvc.index.exact import searched_exactly
from kgsvc.index.labels import (
    DEFAULT_LANGUAGES,
    LABEL_PREDICATES,
    RDF_TYPE,
    LabelTables,
    extract_labels,
    find_node,
    literal_start,
    patch_tables,
    subject_triples,
)
from kgsvc.index.layers import (
    Layers,
    embeddings_file,
    extend_layers,
    file_layers,
    needs_compaction,
    points_file,
    read_layers,
    write_layers,
)
from kgsvc.index.names import (
    EMBED_MAX_CHARS,
    LITERAL_EMBED_MAX_CHARS,
    NamePlan,
    discovered_from,
    embedded,
    encode_bounded,
    name_plan,
)
from kgsvc.index.rows import ROW_BATCH, create_rows, iter_rows, write_rows
from kgsvc.index.snapshot import GraphSnapshot, id_dtype
from kgsvc.index.strings import BinaryTable, TextLabels, read_strings, write_strings
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
    "SHARDS_FOLDER",
    "build_index",
    "delete_version_files",
    "drop_unused_shards",
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
#: Folder (beside the version folders) of the Qdrant Edge shards of the layered versions' bases: ``shards/vN`` was
#: written by version N and serves every later version that keeps its base.
SHARDS_FOLDER = "shards"
_KIND = {NODE_LABELS: "node", RELATION_LABELS: "relation"}  # collection -> file prefix of its tables
Encode = Callable[[list[str]], npt.NDArray[np.float32]]


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
        layers = read_layers(folder, NODE_LABELS)
        text_ids = np.load(folder / "node_text_ids.npy", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise IndexError_(f"index version folder {folder} has no node label embeddings: {exc}") from exc
    return layers.rows(layers.points[text_ids])


def node_labels(folder: Path) -> list[str]:
    """The label of every node of the version in ``folder`` (snapshot ids): the GNN's name rules read them.

    Raises
    ------
    IndexError_
        When the folder has no label tables (an incomplete or foreign folder).
    """
    try:
        texts = read_strings(folder, "node_texts")
        text_ids = np.load(folder / "node_text_ids.npy", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise IndexError_(f"index version folder {folder} has no node labels: {exc}") from exc
    return list(TextLabels(texts, text_ids))


def version_terms(folder: Path) -> tuple[Sequence[str], Sequence[str]]:
    """The node and relation terms (N-Triples text, by snapshot id) of the index version in ``folder``
    (memory-mapped string tables, or the JSON lists of an older version; :mod:`kgsvc.index.strings`).

    Raises
    ------
    IndexError_
        When the folder has no term tables.
    """
    try:
        tables = [read_strings(folder, name) for name in ("node_terms", "relation_terms")]
    except (OSError, ValueError) as exc:
        raise IndexError_(f"index version folder {folder} has no term tables: {exc}") from exc
    return tables[0], tables[1]


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _dataset_lock(name: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(name, threading.Lock())


def _reset_peak_rss() -> None:
    """Make the process's peak RSS (``VmHWM``) its current RSS, so that :func:`_peak_rss_mb` reads the peak of what
    runs from now on, not a peak from before the build (an embedded KG's load of a large file). Linux >= 4.0
    (``/proc/self/clear_refs``); elsewhere a no-op, and the metric is the process's lifetime peak."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_rss_mb() -> float:
    """The process's peak RSS in MB since the last :func:`_reset_peak_rss` (or since it started)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux


def _give_back_memory() -> None:
    """Return the heap memory freed so far to the system (glibc ``malloc_trim``; a no-op where there is none): after
    a stage drops what it held (the labels stage's dictionaries and lists), the next stage starts from the memory
    still in use, not from the previous stage's peak. ~35 MB at the MetaQA KB x2 (docs/scale.md).

    No ``gc.collect``: the stages' data holds no reference cycles (a full collection after each stage of a MetaQA
    ×1 build found 22–458 unreachable objects), and a full collection walks every object of the process: 1.1–1.5 s
    a call next to a loaded model and QA graph, which made a one-triple change cost 6 s instead of 0.2 s."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def vector_index_for(settings: Settings, folder: Path, backend: dict[str, Any]) -> VectorIndex:
    """The vector index a version's manifest ``backend`` entry describes (``edge`` or ``server``)."""
    if backend.get("kind") == "edge":
        shards = backend.get("shards")  # layered versions (kgsvc.index.layers); earlier ones hold their own
        return EdgeVectorIndex(folder.parent / SHARDS_FOLDER / str(shards) if shards else folder / "vectors")
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
    texts (O(texts) forward passes). Memory, stage by stage (docs/scale.md, "Memory of a full build"): the labels
    stage of a full build holds Python dictionaries of every term and label (O(n), the largest stage); the
    embedding stage one chunk of rows at a time (the ``texts x dimension`` table is written row by row into the
    version's file, :mod:`kgsvc.index.rows`) plus the model; the vectors stage one batch of rows and one Qdrant
    Edge part (:data:`kgsvc.index.vectors.PART_POINTS` points); the snapshot stage O(m) id arrays. Freed heap is
    given back at the end of each stage.
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
            shutil.rmtree(folder.parent / SHARDS_FOLDER / f"v{version}", ignore_errors=True)  # no one refers to it
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
        drop_unused_shards(folder.parent, keep=lambda number: number >= version)  # later: a build under way
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
        _reset_peak_rss()
        start = time.perf_counter()
        yield
        self.metrics[f"{name}_s"] = round(time.perf_counter() - start, 3)
        self.metrics[f"{name}_peak_rss_mb"] = _peak_rss_mb()
        _give_back_memory()
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
    embedder = embedder or Embedder(settings.embedding_model, device=settings.embedding_device)
    stages = _Stages(progress)
    started = time.perf_counter()
    with stages.stage("labels"):
        base, old_plan = _incremental_base(previous, subjects, embedder, languages)
        rows = list(subject_triples(store, graph, subjects)) if base is not None and subjects is not None else []
        head = tuple(dict.fromkeys((*name_predicates, *LABEL_PREDICATES)))
        plan = _kept_plan(old_plan, head, base, subjects, rows) if base is not None and subjects else None
        stages.metrics["name_plan"] = "kept" if plan is not None else "discovered"
        if plan is None:
            # the name plan (which predicates name the nodes) is read from the data (one scan of its literals): a
            # change that alters it (a new name predicate discovered) makes the build full, as every label may change
            plan = name_plan(store, graph, configured=name_predicates, known=LABEL_PREDICATES)
            base = base if old_plan == _plan_json(plan) else None
        if base is None or subjects is None:
            tables = extract_labels(store, graph, languages=languages, plan=plan)
        else:
            tables = patch_tables(base, subjects, rows, languages=languages, plan=plan)
        label_literals = _write_tables(folder, tables)
        tables = _mapped_tables(folder, tables)  # the later stages read the files: the Python lists of terms go
    incremental = base is not None
    stages.metrics["mode"] = "incremental" if incremental else "full"
    stages.metrics["changed_subjects"] = len(subjects) if incremental and subjects is not None else None
    faults.kill_point("index-mid-build")
    backend: dict[str, Any] = (
        {"kind": "server", "prefix": f"kgsvc_{dataset}_v{version}_"} if settings.qdrant_url else {"kind": "edge"}
    )
    with stages.stage("embedding"):
        literals = literal_start(tables.node_terms)  # nodes from here on are literals (table order)
        names = _NameTexts(tables.node_texts, tables.node_text_ids, literals)
        layers, kept = _embed_layers(
            embedder,
            tables,
            names,
            previous,
            base if incremental and backend["kind"] == "edge" else None,
            helpers,
            stages,
            folder.parent / EMBEDDING_FOLDER,
            folder,
        )
        for name, layer in layers.items():
            write_layers(folder, name, layer, base_from=previous if kept else None, base_written=not kept)
    stages.metrics["layers"] = "delta" if kept else "base"
    # only a text longer than a short literal can go unembedded, and it is embedded only as a name of at most
    # EMBED_MAX_CHARS characters (kgsvc.index.names.embedded); text t is a name where names.named[t]
    long_texts = _longer_than(tables.node_texts, LITERAL_EMBED_MAX_CHARS)
    unembedded = sum(1 for t in long_texts if not (names.named[t] and len(tables.node_texts[t]) <= EMBED_MAX_CHARS))
    stages.metrics["unembedded_texts"] = unembedded
    with stages.stage("vectors"):
        if kept:  # the previous version's base collections serve this version too: no Qdrant work
            assert previous is not None
            old = json.loads((previous / MANIFEST).read_text(encoding="utf-8"))
            backend, hnsw = old["backend"], old["hnsw"]
        else:
            hnsw = _write_collections(settings, folder, version, backend, layers)
    with stages.stage("snapshot"):
        _write_snapshot(folder, tables, previous if incremental else None)
    counts = {
        "nodes": tables.n_nodes,
        "relations": tables.n_relations,
        "edges": int(tables.heads.shape[0]),
        "node_texts": len(tables.node_texts),
        "relation_texts": len(tables.relation_texts),
        "literals": tables.n_nodes - literals,
        "label_literals": label_literals,
    }
    stages.metrics["total_s"] = round(time.perf_counter() - started, 3)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "dataset": dataset,
        "version": version,
        "backend": backend,
        "embedding_model": str(embedder.model_path),
        "dimension": int(layers[NODE_LABELS].base.shape[1]),
        "languages": list(languages),
        "name_plan": _plan_json(plan),
        "hnsw": hnsw,
        "counts": counts,
    }
    if incremental and previous is not None and tables.node_remap is not None:
        # node_remap.npy / node_touched.npy: from the previous version's node ids (the linker's label index layers)
        manifest["patched_from"] = json.loads((previous / MANIFEST).read_text(encoding="utf-8"))["version"]
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return counts, stages.metrics


#: An incremental build re-reads the changed subjects; above this share of the previous version's nodes a full
#: label pass (one scan) is cheaper than the per-subject look-ups.
INCREMENTAL_MAX_SHARE = 0.2


def _plan_json(plan: NamePlan) -> dict[str, list[str]]:
    return {
        "predicates": list(plan.predicates),
        "given": list(plan.given),
        "family": list(plan.family),
        "discovered": list(plan.discovered),
    }


def _incremental_base(
    previous: Path | None, subjects: set[str] | None, embedder: Embedder, languages: tuple[str, ...]
) -> tuple[LabelTables | None, dict[str, list[str]] | None]:
    """The previous version's tables and name plan when this build can patch them (module docstring; the caller
    checks the plan), else ``(None, None)``."""
    if previous is None or subjects is None:
        return None, None
    try:
        manifest = json.loads((previous / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    same = manifest.get("languages") == list(languages) and manifest.get("embedding_model") == str(embedder.model_path)
    if not same or len(subjects) > INCREMENTAL_MAX_SHARE * max(1, manifest.get("counts", {}).get("nodes", 0)):
        return None, None
    try:
        return load_tables(previous), manifest.get("name_plan")
    except IndexError_:
        return None, None


def _kept_plan(
    old_plan: dict[str, list[str]] | None,
    head: tuple[str, ...],
    old: LabelTables,
    subjects: set[str],
    rows: Sequence[tuple[str, str, Any]],
) -> NamePlan | None:
    """The previous version's name plan when the change cannot alter it, else ``None`` (discover it again).

    :func:`kgsvc.index.names.discover` counts, per predicate whose local name says it names (and per name part),
    the subjects it names per ``rdf:type`` and their literals' mean length, against each type's size. So when the
    changed subjects' triples of those predicates and of ``rdf:type`` (``rows``: their triples now; their triples
    before: in ``old``) are the same before and after, and the plan's head (configured and well-known predicates)
    is unchanged, the plan is the same. O(m) vectorised over the old triples, O(k log n) for k changed subjects.
    """
    if old_plan is None or "discovered" not in old_plan:
        return None
    discovered = old_plan["discovered"]
    if [p for p in old_plan["predicates"] if p not in discovered] != list(head):
        return None

    def relevant(predicate: str) -> bool:  # N-Triples IRI
        iri = predicate[1:-1]
        return iri == RDF_TYPE or (discovered_from(iri) and iri not in head)

    now = sorted((s, p, str(o)) for s, p, o in rows if relevant(p))
    ids = [i for i in (find_node(old.node_terms, s) for s in subjects) if i is not None]
    relation = np.fromiter((relevant(t) for t in old.relation_terms), dtype=bool, count=old.n_relations)
    mask = relation[old.relations] & np.isin(old.heads, ids)
    triples = zip(old.heads[mask].tolist(), old.relations[mask].tolist(), old.tails[mask].tolist(), strict=True)
    before = sorted((old.node_terms[h], old.relation_terms[r], old.node_terms[t]) for h, r, t in triples)
    if now != before:
        return None
    return NamePlan(*(tuple(old_plan[key]) for key in ("predicates", "given", "family", "discovered")))


def load_tables(folder: Path) -> LabelTables:
    """The :class:`LabelTables` of the complete version in ``folder`` (terms, labels and triples by id).

    O(1): the string tables and the snapshot's triples are memory-mapped (O(n) for the JSON lists of an older
    version).

    Raises
    ------
    IndexError_
        When a table is missing or unreadable.
    """
    try:
        node_terms, relation_terms = version_terms(folder)
        texts = {kind: read_strings(folder, f"{kind}_texts") for kind in _KIND.values()}
        text_ids = {kind: np.load(folder / f"{kind}_text_ids.npy", allow_pickle=False) for kind in _KIND.values()}
        snapshot = GraphSnapshot.load(folder / "snapshot", mmap=True)
    except (OSError, ValueError) as exc:
        raise IndexError_(f"index version folder {folder} has unreadable tables: {exc}") from exc
    return LabelTables(
        node_terms=node_terms,
        node_labels=TextLabels(texts["node"], text_ids["node"]),
        relation_terms=relation_terms,
        relation_labels=list(TextLabels(texts["relation"], text_ids["relation"])),
        node_texts=texts["node"],
        node_text_ids=text_ids["node"],
        relation_texts=texts["relation"],
        relation_text_ids=text_ids["relation"],
        heads=snapshot.triple_heads,  # memory-mapped in the snapshot's width: no O(m) copy
        relations=snapshot.triple_relations,
        tails=snapshot.triple_tails,
    )


def _mapped_tables(folder: Path, tables: LabelTables) -> LabelTables:
    """``tables`` with its term and text tables replaced by the memory-mapped ones written in ``folder`` (the same
    strings): the lists of every term and label a full pass made are freed, O(1) memory instead of O(n)."""
    texts = {kind: read_strings(folder, f"{kind}_texts") for kind in _KIND.values()}
    return dataclasses.replace(
        tables,
        node_terms=read_strings(folder, "node_terms"),
        relation_terms=read_strings(folder, "relation_terms"),
        node_texts=texts["node"],
        relation_texts=texts["relation"],
        node_labels=TextLabels(texts["node"], tables.node_text_ids),
    )


def _layered(previous: Path) -> bool:
    """Whether the version in ``previous`` keeps its embeddings in layers over a shared Qdrant Edge base."""
    try:
        manifest = json.loads((previous / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return "shards" in manifest.get("backend", {})


def _previous_layers(embedder: Embedder, previous: Path | None) -> dict[str, Layers]:
    """The previous version's layers of both collections; empty when it has none or another model made them.

    O(texts): the points are read, the base is memory-mapped."""
    if previous is None:
        return {}
    try:
        manifest = json.loads((previous / MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("embedding_model") != str(embedder.model_path):
            return {}
        layers = {name: read_layers(previous, name) for name in _KIND}
    except (OSError, ValueError):  # an older layout without the embeddings, or files removed meanwhile
        return {}
    if any(layer.base.dtype != np.float32 or layer.base.ndim != 2 for layer in layers.values()):
        return {}
    return layers


def _embed_layers(
    embedder: Embedder,
    tables: LabelTables,
    names: Container[str],
    previous: Path | None,
    old: LabelTables | None,
    helpers: Callable[[Path], None] | None,
    stages: _Stages,
    plans: Path,
    folder: Path,
) -> tuple[dict[str, Layers], bool]:
    """The layers of both collections, embedding only the texts the previous version did not have.

    With ``old`` (the previous version's tables, patched by an incremental build on Qdrant Edge) and a layered
    previous version, the new texts go to the delta over the previous base (:func:`kgsvc.index.layers.extend_layers`,
    O(texts + delta)); the second value is then ``True`` (the base is kept). Otherwise, or when
    :func:`~kgsvc.index.layers.needs_compaction`, a fresh base of every text's embedding is written into
    ``folder`` row by row (reused rows gathered from the previous version, new texts embedded in resumable chunks
    under ``plans``: :func:`kgsvc.index.chunks.embed_planned_into`) and returned memory-mapped. Counts go to
    ``stages.metrics``.

    Notes
    -----
    Memory: O(texts) ids and Python look-ups, one chunk (:data:`~kgsvc.index.chunks.CHUNK_TEXTS`) or batch
    (:data:`~kgsvc.index.rows.ROW_BATCH`) of rows at a time for a base (never the ``texts x dimension`` table),
    the delta's rows for a delta (at most :data:`~kgsvc.index.layers.LAYER_MAX_SHARE` of the base).
    """
    chunks: dict[str, int] = {}
    dimension = embedder.dimension

    def count(counts: dict[str, int]) -> None:
        for key, value in counts.items():
            chunks[key] = chunks.get(key, 0) + value

    def embed_into(texts: Sequence[str], at: npt.NDArray[np.int64], path: Path, label_names: Container[str]) -> None:
        """Embed texts ``at`` (the :func:`embedded` ones; the others keep their zero rows) into the table ``path``."""
        short = np.fromiter((i for i in at.tolist() if embedded(texts[i], label_names)), dtype=np.int64)
        if short.shape[0] == 0:
            return
        progress = stages.within("embedding") if label_names is names else None
        count(
            embed_planned_into(
                embedder,
                [texts[i] for i in short.tolist()],
                plans,
                lambda start, rows: write_rows(path, short[start : start + rows.shape[0]], rows),
                helpers=helpers,
                progress=progress,
            )
        )

    def encoder(label_names: Container[str]) -> Encode:  # the delta's new texts (few): in memory
        def planned(texts: Sequence[str]) -> npt.NDArray[np.float32]:
            rows, counts = embed_planned(embedder, list(texts), plans, helpers=helpers)
            count(counts)
            return rows

        return lambda texts: encode_bounded(planned, texts, dimension=dimension, names=label_names)

    collections: dict[str, tuple[Sequence[str], Container[str]]] = {
        NODE_LABELS: (tables.node_texts, names),
        RELATION_LABELS: (tables.relation_texts, set(tables.relation_texts)),
    }
    before = _previous_layers(embedder, previous)
    layers: dict[str, Layers] = {}
    embedded_texts = 0
    if old is not None and before and previous is not None and _layered(previous):
        for name, (texts, label_names) in collections.items():
            old_texts = old.node_texts if name == NODE_LABELS else old.relation_texts
            remap = tables.node_text_remap if name == NODE_LABELS else None
            layers[name], added, removed = extend_layers(
                before[name], texts, old_texts, encoder(label_names), remap=remap
            )
            stages.metrics[f"{_KIND[name]}_points_upserted"] = added
            stages.metrics[f"{_KIND[name]}_points_deleted"] = removed
            embedded_texts += added
        kept = not any(needs_compaction(layer) for layer in layers.values())
        if not kept:  # compaction: a new base of the same embeddings
            layers = {name: _compacted(folder / embeddings_file(name), layer) for name, layer in layers.items()}
    else:
        kept = False
        for name, (texts, label_names) in collections.items():
            path = folder / embeddings_file(name)
            create_rows(path, len(texts), dimension)
            new = _reuse_rows(texts, _previous_texts(previous, name, old), before.get(name), path)
            embed_into(texts, new, path, label_names)
            layers[name] = file_layers(path)
            embedded_texts += int(new.shape[0])
    stages.metrics.update(chunks)
    stages.metrics["embedded_texts"] = embedded_texts
    stages.metrics["reused_texts"] = len(tables.node_texts) + len(tables.relation_texts) - embedded_texts
    return layers, kept


def _compacted(path: Path, layers: Layers) -> Layers:
    """A new base in ``path`` holding every text's embedding of ``layers`` (text-ordered), written in batches of
    :data:`~kgsvc.index.rows.ROW_BATCH` rows. O(texts · dimension) time, O(batch) memory."""
    n = int(layers.points.shape[0])
    create_rows(path, n, int(layers.base.shape[1]))
    for start in range(0, n, ROW_BATCH):
        write_rows(path, start, layers.rows(layers.points[start : start + ROW_BATCH]))
    return file_layers(path)


class _NameTexts(Container[str]):
    """The node texts that name a node other than a literal (the first ``literals`` nodes): ``text in names`` by
    binary search in the sorted ``texts``. O(n) numpy to build, O(log t) per test (no set of every label)."""

    def __init__(self, texts: Sequence[str], text_ids: npt.NDArray[np.integer[Any]], literals: int) -> None:
        self.texts = texts
        self.named = np.zeros(len(texts), dtype=bool)
        self.named[np.asarray(text_ids[:literals])] = True

    def __contains__(self, text: object) -> bool:
        if not isinstance(text, str):
            return False
        j = bisect.bisect_left(self.texts, text)
        return j < len(self.texts) and bool(self.named[j]) and self.texts[j] == text


def _longer_than(texts: Sequence[str], limit: int) -> list[int]:
    """The ids of the texts longer than ``limit`` characters (a table's byte lengths bound them: O(t) numpy)."""
    if isinstance(texts, BinaryTable):
        candidates = np.flatnonzero(texts.byte_lengths() > limit).tolist()
        return [t for t in candidates if len(texts[t]) > limit]
    return np.flatnonzero(np.fromiter(map(len, texts), np.int64, count=len(texts)) > limit).tolist()


def _previous_texts(previous: Path | None, collection: str, old: LabelTables | None) -> Sequence[str]:
    """The previous version's texts of ``collection`` (from ``old`` when given); empty when unreadable."""
    if old is not None:
        return old.node_texts if collection == NODE_LABELS else old.relation_texts
    if previous is None:
        return []
    try:
        return read_strings(previous, f"{_KIND[collection]}_texts")
    except (OSError, ValueError):
        return []


def _reuse_rows(
    texts: Sequence[str], old_texts: Sequence[str], old: Layers | None, path: Path
) -> npt.NDArray[np.int64]:
    """Write into the table ``path`` (text-ordered, created) the rows of ``old`` for the texts of ``old_texts``, in
    batches; returns the ids of the other texts (to embed). O(texts) look-ups, O(batch) rows in memory."""
    if old is None or old.points.shape[0] != len(old_texts):
        return np.arange(len(texts), dtype=np.int64)
    row_of = {text: i for i, text in enumerate(old_texts)}
    found = np.fromiter((row_of.get(t, -1) for t in texts), dtype=np.int64, count=len(texts))
    del row_of
    hits = np.flatnonzero(found >= 0)
    for start in range(0, hits.shape[0], ROW_BATCH):
        at = hits[start : start + ROW_BATCH]
        write_rows(path, at, old.rows(old.points[found[at]]))
    return np.flatnonzero(found < 0)


def _write_collections(
    settings: Settings, folder: Path, version: int, backend: dict[str, Any], layers: dict[str, Layers]
) -> dict[str, bool]:
    """Fill new collections with the (fresh) bases of ``layers``: Qdrant Edge shards under
    ``shards/v<version>/`` beside the version folders (``backend["shards"]`` names it), or server collections.
    Returns which collections have an HNSW graph. O(points) inserts plus the HNSW build; memory: one batch of rows
    on this side (the base is read from its file), plus what the vector store keeps (Qdrant Edge: its shards)."""
    if backend["kind"] == "edge":
        backend["shards"] = f"v{version}"
        shutil.rmtree(folder.parent / SHARDS_FOLDER / backend["shards"], ignore_errors=True)  # a killed attempt's
    hnsw: dict[str, bool] = {}
    with vector_index_for(settings, folder, backend) as vectors:
        for name, layer in layers.items():
            n, dimension = (int(size) for size in layer.base.shape)
            # a collection searched exactly (kgsvc.index.exact) needs no HNSW graph: a cheap finish()
            hnsw[name] = not searched_exactly(n, dimension)
            vectors.create_collection(name, dimension, hnsw=hnsw[name])
            if layer.base_file is None:
                vectors.add(name, layer.base)
            else:  # in batches read from the file (kgsvc.index.rows): the base is never resident whole
                for start, rows in iter_rows(layer.base_file):
                    vectors.add(name, rows, start=start)
            vectors.finish(name)
    return hnsw


def _write_tables(folder: Path, tables: LabelTables) -> int:
    """Write the tables' files (module docstring); returns the number of label literals."""
    for name in ("node_terms", "relation_terms", "node_texts", "relation_texts"):
        write_strings(folder, name, getattr(tables, name))
    np.save(folder / "node_text_ids.npy", tables.node_text_ids, allow_pickle=False)
    np.save(folder / "relation_text_ids.npy", tables.relation_text_ids, allow_pickle=False)
    order = np.argsort(tables.node_text_ids, kind="stable")  # nodes by (text id, node id)
    counts = np.bincount(tables.node_text_ids, minlength=len(tables.node_texts))
    indptr = np.zeros(len(tables.node_texts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    node_dtype = np.int32 if tables.n_nodes < 2**31 else np.int64
    np.save(folder / "text_nodes_indptr.npy", indptr, allow_pickle=False)
    np.save(folder / "text_nodes.npy", order.astype(node_dtype), allow_pickle=False)
    label_literals = _label_literals(tables)
    np.save(folder / "label_literals.npy", label_literals, allow_pickle=False)
    if tables.node_remap is not None and tables.node_touched is not None:
        # in the snapshot's node width (ids here, or -1)
        np.save(folder / "node_remap.npy", tables.node_remap.astype(id_dtype(tables.n_nodes)), allow_pickle=False)
        np.save(folder / "node_touched.npy", tables.node_touched, allow_pickle=False)
    return int(np.count_nonzero(label_literals))


def _label_literals(tables: LabelTables) -> npt.NDArray[np.bool_]:
    """Nodes that are literals reached only through labelling predicates (the label copies of entities)."""
    labelling = np.zeros(tables.n_relations, dtype=bool)
    for j, term in enumerate(tables.relation_terms):
        labelling[j] = term[1:-1] in LABEL_PREDICATES
    other = np.bincount(tables.tails[~labelling[tables.relations]], minlength=tables.n_nodes)
    literal = np.arange(tables.n_nodes) >= literal_start(tables.node_terms)  # literals come last (table order)
    result: npt.NDArray[np.bool_] = literal & (other == 0)
    return result


def _write_snapshot(folder: Path, tables: LabelTables, previous: Path | None) -> None:
    """The version's snapshot: patched from the ``previous`` version's when ``tables`` were patched from its tables
    (O(m) numpy, no sort; :meth:`GraphSnapshot.patched`), else built from the triples (O(m log m))."""
    remaps = (tables.node_remap, tables.relation_remap, tables.edge_remap)
    before = None
    if previous is not None and remaps[0] is not None and remaps[1] is not None and remaps[2] is not None:
        try:
            before = GraphSnapshot.load(previous / "snapshot", mmap=True)
        except IndexError_:  # removed meanwhile: built from the triples
            before = None
    if before is not None and remaps[0] is not None and remaps[1] is not None and remaps[2] is not None:
        snapshot = before.patched(
            tables.heads,
            tables.relations,
            tables.tails,
            n_nodes=tables.n_nodes,
            n_relations=tables.n_relations,
            node_remap=remaps[0],
            relation_remap=remaps[1],
            edge_remap=remaps[2],
        )
    else:
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
    if catalog.index_dir is not None:
        shutil.rmtree(catalog.index_dir / dataset / SHARDS_FOLDER, ignore_errors=True)


def drop_unused_shards(dataset_dir: Path, *, keep: Callable[[int], bool]) -> list[Path]:
    """Delete the base shards ``shards/vN`` of the dataset folder ``dataset_dir`` that no version folder's manifest
    refers to any more, except those ``keep(N)`` holds for (a build in progress); returns the folders deleted.

    O(versions) manifest reads."""
    used = set()
    for manifest in dataset_dir.glob(f"v*/{MANIFEST}"):
        try:
            used.add(json.loads(manifest.read_text(encoding="utf-8")).get("backend", {}).get("shards"))
        except (OSError, ValueError):
            continue
    dropped = []
    for shards in sorted(dataset_dir.glob(f"{SHARDS_FOLDER}/v*")):
        number = shards.name[1:]
        if number.isdigit() and not keep(int(number)) and shards.name not in used:
            shutil.rmtree(shards, ignore_errors=True)
            dropped.append(shards)
    return dropped
