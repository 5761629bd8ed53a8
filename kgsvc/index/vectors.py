"""Vector indexes over label embeddings: Qdrant Edge (embedded, in-process HNSW) or a Qdrant server (DESIGN §4).

Every index version holds two collections, :data:`NODE_LABELS` and :data:`RELATION_LABELS`, with **one point
per distinct label text** of its base; the point id is the text id of :class:`kgsvc.index.labels.LabelTables` in
the build that wrote the base. Later incremental versions search the same collections, skipping the points of
removed texts (``exclude=``), and keep their new texts beside them (:mod:`kgsvc.index.layers`). Points carry
the named vector :data:`LABEL_VECTOR`. A trained GNN (:mod:`kgsvc.gnn`) adds the collection :data:`GNN_NODES`
with **one point per node** (point id = snapshot node id) and the named vector :data:`GNN_VECTOR`: its node
embeddings cannot be a second vector of the label points, because one label text names many nodes.

Distances are **true L2** (Qdrant's ``Euclid`` score, not squared). With unit vectors
``L2 = sqrt(2 - 2 cos)``, the per-element distance of the GSD (SimGRAG, arXiv 2412.15272, Eq. 1).
:meth:`VectorIndex.search` returns, per query row, ``(text id, L2)`` pairs ordered by distance, ties by id.

Implementations (same interface, same collections):

* :class:`EdgeVectorIndex` — ``qdrant-edge-py``, a collection is one Edge shard per part of
  :data:`PART_POINTS` points in the version folder (a build holds one part in memory); HNSW is built once per
  part with :meth:`EdgeShard.optimize`. The embedded default.
* :class:`ServerVectorIndex` — ``qdrant-client``: a Qdrant server (``Settings.qdrant_url``), or local mode
  (``path=`` / ``":memory:"``, brute force, for tests). Collections are named ``{prefix}{collection}`` so
  that versions of many datasets share one server.

The HNSW parameters are module constants (recall is benchmarked elsewhere): :data:`HNSW_M`,
:data:`HNSW_EF_CONSTRUCT`, :data:`HNSW_EF_SEARCH`, :data:`FULL_SCAN_THRESHOLD_KB`.
"""

from __future__ import annotations

import abc
import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from uuid import UUID

import numpy as np
import numpy.typing as npt

__all__ = [
    "FULL_SCAN_THRESHOLD_KB",
    "GNN_NODES",
    "GNN_VECTOR",
    "HNSW_EF_CONSTRUCT",
    "HNSW_EF_SEARCH",
    "HNSW_M",
    "LABEL_VECTOR",
    "NODE_LABELS",
    "PART_POINTS",
    "RELATION_LABELS",
    "EdgeVectorIndex",
    "ServerVectorIndex",
    "VectorIndex",
]

NODE_LABELS = "node_labels"
RELATION_LABELS = "relation_labels"
GNN_NODES = "gnn_nodes"
LABEL_VECTOR = "label"
GNN_VECTOR = "gnn"

#: HNSW graph degree (edges per node).
HNSW_M = 16
#: Candidates kept while building the HNSW graph.
HNSW_EF_CONSTRUCT = 128
#: Candidates kept while searching (raised to ``k`` when ``k`` is larger).
HNSW_EF_SEARCH = 128
#: Below this many KB of vectors a segment is scanned exactly instead of through HNSW.
FULL_SCAN_THRESHOLD_KB = 1_000
_NO_HNSW_KB = 2**31 - 1  # a segment never reaches it: no HNSW graph, exact scans

_BATCH = 2_048
#: Points per Qdrant Edge shard of a collection (:class:`EdgeVectorIndex`). Building a part of 384-d points holds
#: 3.7-5 KB per point in Qdrant at its peak (inserts, then the HNSW build; 96 MB of vectors here: ~250-330 MB),
#: whatever the collection's size; a search queries ``ceil(points / PART_POINTS)`` shards and merges them
#: (docs/scale.md, "Memory of a full build").
PART_POINTS = 65_536
_PARTS = "parts.json"

Hits = list[list[tuple[int, float]]]


def _check_rows(vectors: npt.ArrayLike, what: str) -> npt.NDArray[np.float32]:
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (rows, dimension), got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{what} must be finite")
    return array


def _ordered(hits: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    return sorted(hits, key=lambda h: (h[1], h[0]))[:k]


class VectorIndex(abc.ABC):
    """Named collections of points ``0 .. n - 1`` with named float32 vectors, searched by L2."""

    @abc.abstractmethod
    def create_collection(
        self,
        name: str,
        dimension: int,
        *,
        vector: str = LABEL_VECTOR,
        extra_vectors: Mapping[str, int] | None = None,
        hnsw: bool = True,
    ) -> None:
        """Create collection ``name`` with the named vector ``vector`` of size ``dimension`` plus ``extra_vectors``.

        ``hnsw=False`` builds no HNSW graph (searches scan exactly): for collections the caller searches exactly
        anyway (:mod:`kgsvc.index.exact`), which makes :meth:`finish` cheap.
        """

    @abc.abstractmethod
    def add(self, name: str, vectors: npt.ArrayLike, *, vector: str = LABEL_VECTOR, start: int = 0) -> None:
        """Store row ``i`` of ``vectors`` as point ``start + i`` (named vector ``vector``)."""

    @abc.abstractmethod
    def finish(self, name: str) -> None:
        """Build the search structure (HNSW) and persist; call once after the last :meth:`add`."""

    @abc.abstractmethod
    def count(self, name: str) -> int:
        """Number of points in collection ``name``."""

    @abc.abstractmethod
    def _search(
        self, name: str, queries: npt.NDArray[np.float32], k: int, vector: str, exclude: list[int] | None
    ) -> Hits: ...

    def search(
        self,
        name: str,
        queries: npt.ArrayLike,
        k: int,
        *,
        vector: str = LABEL_VECTOR,
        exclude: npt.ArrayLike | None = None,
    ) -> Hits:
        """The ``k`` nearest points of each query row: ``[(point id, L2 distance), …]`` by distance, then id;
        points of ``exclude`` are never returned (a Qdrant ``must_not has_id`` filter: the tombstones of layered
        versions, :mod:`kgsvc.index.layers`).

        Raises
        ------
        ValueError
            When ``queries`` is not 2-D and finite, or ``k < 1``.
        """
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        rows = _check_rows(queries, "queries")
        if rows.shape[0] == 0:
            return []
        excluded = np.asarray(exclude, dtype=np.int64).tolist() if exclude is not None else None
        return [_ordered(hits, k) for hits in self._search(name, rows, k, vector, excluded or None)]

    @abc.abstractmethod
    def drop(self) -> None:
        """Delete every collection of this index (and its files)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release files and connections (idempotent)."""

    def __enter__(self) -> VectorIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class EdgeVectorIndex(VectorIndex):
    """Qdrant Edge shards under ``folder``; opens existing ones lazily.

    A collection is the folder ``folder/NAME`` holding ``parts.json`` and one Edge shard per **part**
    (``part0``, ``part1``, …): part ``i`` holds the points ``i * P .. (i + 1) * P - 1`` (``P``:
    :data:`PART_POINTS` when the collection was created, recorded in ``parts.json``). :meth:`add` fills the parts in
    the order of their points and, when it moves on to a later part, builds the earlier one (HNSW) and closes it, so
    a build holds one part's shard in memory, never the collection's (memory O(P), not O(points)). A search queries
    every part and merges their hits (exact per part below the HNSW thresholds, as one shard would be). A folder
    written before the parts (the shard itself in ``folder/NAME``) is read as one part.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._shards: dict[str, list[Any]] = {}  # searched: every part, loaded
        self._writing: dict[str, tuple[int, Any]] = {}  # filled: the part being written and its shard
        self._configs: dict[str, Any] = {}

    def _parts(self, name: str) -> list[Any]:
        shards = self._shards.get(name)
        if shards is None:
            from qdrant_edge import EdgeShard

            self._close_writing(name)
            path = self.folder / name
            if not path.is_dir():
                raise FileNotFoundError(f"no vector collection {name!r} under {self.folder}")
            if (path / _PARTS).exists():
                count = sum(1 for p in path.iterdir() if p.name.startswith("part") and p.name[4:].isdigit())
                shards = [EdgeShard.load(str(path / f"part{i}")) for i in range(count)]
            else:  # written before the parts: the collection's one shard
                shards = [EdgeShard.load(str(path))]
            self._shards[name] = shards
        return shards

    def _part_points(self, name: str) -> int:
        return int(json.loads((self.folder / name / _PARTS).read_text(encoding="utf-8"))["part_points"])

    def _part(self, name: str, index: int) -> Any:
        """The shard of part ``index``, open for writing; the part written before it is built and closed."""
        writing = self._writing.get(name)
        if writing is not None and writing[0] == index:
            return writing[1]
        self._close_writing(name)
        from qdrant_edge import EdgeShard

        path = self.folder / name / f"part{index}"
        config = self._configs.get(name)
        if path.is_dir():
            shard = EdgeShard.load(str(path), config) if config is not None else EdgeShard.load(str(path))
        elif config is None:
            raise FileNotFoundError(f"vector collection {name!r} under {self.folder} has no part {index}")
        else:
            path.mkdir(parents=True)
            shard = EdgeShard.create(str(path), config)
        self._writing[name] = (index, shard)
        return shard

    def _close_writing(self, name: str) -> None:
        writing = self._writing.pop(name, None)
        if writing is not None:
            shard = writing[1]
            shard.optimize()
            shard.flush()
            shard.close()

    def create_collection(
        self,
        name: str,
        dimension: int,
        *,
        vector: str = LABEL_VECTOR,
        extra_vectors: Mapping[str, int] | None = None,
        hnsw: bool = True,
    ) -> None:
        from qdrant_edge import (
            Distance,
            EdgeConfig,
            EdgeOptimizersConfig,
            EdgeVectorParams,
            HnswIndexConfig,
        )

        sizes = {vector: dimension, **(extra_vectors or {})}
        threshold = FULL_SCAN_THRESHOLD_KB if hnsw else _NO_HNSW_KB
        self._configs[name] = EdgeConfig(
            vectors={key: EdgeVectorParams(size=size, distance=Distance.Euclid) for key, size in sizes.items()},
            hnsw_config=HnswIndexConfig(m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT, full_scan_threshold=threshold),
            optimizers=EdgeOptimizersConfig(indexing_threshold=threshold),
            wal_enabled=False,
        )
        path = self.folder / name
        path.mkdir(parents=True, exist_ok=True)
        (path / _PARTS).write_text(json.dumps({"part_points": PART_POINTS}), encoding="utf-8")
        self._part(name, 0)  # an empty collection has one (empty) part

    def add(self, name: str, vectors: npt.ArrayLike, *, vector: str = LABEL_VECTOR, start: int = 0) -> None:
        from qdrant_edge import Point, UpdateOperation

        rows = _check_rows(vectors, "vectors")
        size = self._part_points(name)
        offset = 0
        while offset < rows.shape[0]:
            first = start + offset
            part = first // size
            stop = min(rows.shape[0], offset + _BATCH, (part + 1) * size - start)  # a batch stays in its part
            points = [Point(first + i, {vector: row}) for i, row in enumerate(rows[offset:stop].tolist())]
            self._part(name, part).update(UpdateOperation.upsert_points(points))
            offset = stop

    def finish(self, name: str) -> None:
        self._close_writing(name)

    def count(self, name: str) -> int:
        from qdrant_edge import CountRequest

        return sum(int(shard.count(CountRequest())) for shard in self._parts(name))

    def _search(
        self, name: str, queries: npt.NDArray[np.float32], k: int, vector: str, exclude: list[int] | None
    ) -> Hits:
        from qdrant_edge import Filter, HasIdCondition, Query, QueryBatchRequest, QueryRequest, SearchParams

        params = SearchParams(hnsw_ef=max(HNSW_EF_SEARCH, k))
        excluded: set[int | UUID | str] = set(exclude or ())
        where = Filter(must_not=[HasIdCondition(point_ids=excluded)]) if excluded else None
        requests = [
            QueryRequest(limit=k, query=Query.Nearest(row, using=vector), params=params, filter=where)
            for row in queries.tolist()
        ]
        hits: Hits = [[] for _ in requests]
        for shard in self._parts(name):  # every part's k nearest: the merge (VectorIndex.search) keeps the k best
            for found, points in zip(hits, shard.query_batch(QueryBatchRequest(requests)), strict=True):
                found.extend((int(p.id), float(p.score)) for p in points)
        return hits

    def drop(self) -> None:
        self.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def close(self) -> None:
        for name in list(self._writing):
            self._close_writing(name)
        shards, self._shards = self._shards, {}
        for parts in shards.values():
            for shard in parts:
                shard.close()


class ServerVectorIndex(VectorIndex):
    """Collections ``{prefix}{name}`` on a Qdrant server (``url``) or in qdrant-client's local mode (``path``).

    Parameters
    ----------
    url
        Qdrant server URL; or
    path
        qdrant-client local storage folder, or ``":memory:"`` (brute force; tests only, DESIGN §10).
    prefix
        Collection name prefix, e.g. ``kgsvc_movies_v3_``.
    """

    def __init__(self, *, url: str | None = None, path: str | Path | None = None, prefix: str = "") -> None:
        if (url is None) == (path is None):
            raise ValueError("give exactly one of url= (a Qdrant server) or path= (local mode)")
        self.url, self.path, self.prefix = url, path, prefix
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            from qdrant_client import QdrantClient

            if self.url is not None:
                self._client = QdrantClient(url=self.url)
            elif str(self.path) == ":memory:":
                self._client = QdrantClient(location=":memory:")
            else:
                self._client = QdrantClient(path=str(self.path))
        return self._client

    def _name(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def create_collection(
        self,
        name: str,
        dimension: int,
        *,
        vector: str = LABEL_VECTOR,
        extra_vectors: Mapping[str, int] | None = None,
        hnsw: bool = True,
    ) -> None:
        from qdrant_client import models

        sizes = {vector: dimension, **(extra_vectors or {})}
        if self.client.collection_exists(self._name(name)):
            self.client.delete_collection(self._name(name))
        self.client.create_collection(
            self._name(name),
            vectors_config={
                key: models.VectorParams(size=size, distance=models.Distance.EUCLID) for key, size in sizes.items()
            },
            hnsw_config=models.HnswConfigDiff(
                m=HNSW_M if hnsw else 0,  # m = 0: no HNSW graph
                ef_construct=HNSW_EF_CONSTRUCT,
                full_scan_threshold=FULL_SCAN_THRESHOLD_KB if hnsw else _NO_HNSW_KB,
            ),
        )

    def add(self, name: str, vectors: npt.ArrayLike, *, vector: str = LABEL_VECTOR, start: int = 0) -> None:
        from qdrant_client import models

        rows = _check_rows(vectors, "vectors")
        for offset in range(0, rows.shape[0], _BATCH):
            chunk = rows[offset : offset + _BATCH].tolist()
            points = [models.PointStruct(id=start + offset + i, vector={vector: row}) for i, row in enumerate(chunk)]
            self.client.upsert(self._name(name), points=points, wait=True)

    def finish(self, name: str) -> None:
        return None  # the server indexes in the background; local mode is brute force

    def count(self, name: str) -> int:
        return int(self.client.count(self._name(name), exact=True).count)

    def _search(
        self, name: str, queries: npt.NDArray[np.float32], k: int, vector: str, exclude: list[int] | None
    ) -> Hits:
        from qdrant_client import models

        # local mode is exact and warns about search parameters
        params = models.SearchParams(hnsw_ef=max(HNSW_EF_SEARCH, k)) if self.url is not None else None
        excluded: list[int | str | UUID] = list(exclude or ())
        where = models.Filter(must_not=[models.HasIdCondition(has_id=excluded)]) if excluded else None
        requests = [
            models.QueryRequest(query=row, using=vector, limit=k, params=params, filter=where)
            for row in queries.tolist()
        ]
        responses = self.client.query_batch_points(self._name(name), requests=requests)
        return [[(int(p.id), float(p.score)) for p in response.points] for response in responses]

    def drop(self) -> None:
        for name in (NODE_LABELS, RELATION_LABELS):
            if self.client.collection_exists(self._name(name)):
                self.client.delete_collection(self._name(name))

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()
