"""Both vector backends (Qdrant Edge, qdrant-client local mode) against brute force on real MiniLM vectors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kgsvc.index import vectors as vectors_module
from kgsvc.index.embed import Embedder
from kgsvc.index.vectors import GNN_VECTOR, NODE_LABELS, EdgeVectorIndex, ServerVectorIndex, VectorIndex

WORDS = (
    "film director actor actress writer screenplay genre comedy drama thriller horror animation music composer "
    "release year language english japanese french german city country river mountain born died married award "
    "oscar festival studio producer camera editor novel book author poem painter museum war peace love space"
).split()


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    rng = np.random.default_rng(7)
    texts = sorted({" ".join(rng.choice(WORDS, size=int(rng.integers(1, 4)))) for _ in range(900)})
    return Embedder().encode(texts)


@pytest.fixture(params=["edge", "client-memory", "client-path"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorIndex]:
    if request.param == "edge":
        made: VectorIndex = EdgeVectorIndex(tmp_path / "edge")
    elif request.param == "client-memory":
        made = ServerVectorIndex(path=":memory:", prefix="t_")
    else:
        made = ServerVectorIndex(path=tmp_path / "local", prefix="t_")
    with made:
        yield made


def brute_force(data: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    distances = np.sqrt(((data.astype(np.float64) - query.astype(np.float64)) ** 2).sum(axis=1))
    order = sorted(range(len(data)), key=lambda i: (distances[i], i))[:k]
    return [(i, float(distances[i])) for i in order]


def test_excluded_points_are_never_returned(index: VectorIndex, vectors: np.ndarray) -> None:
    """``exclude``: the tombstones of layered versions (kgsvc.index.layers), a must_not has_id filter."""
    index.create_collection(NODE_LABELS, vectors.shape[1])
    index.add(NODE_LABELS, vectors)
    index.finish(NODE_LABELS)
    queries = vectors[:5]
    nearest = [hits[0][0] for hits in index.search(NODE_LABELS, queries, 1)]
    assert nearest == [0, 1, 2, 3, 4]
    keep = np.ones(len(vectors), dtype=bool)
    keep[nearest] = False
    for query, hits in zip(queries, index.search(NODE_LABELS, queries, 6, exclude=nearest), strict=True):
        assert [i for i, _ in hits] == [int(np.flatnonzero(keep)[i]) for i, _ in brute_force(vectors[keep], query, 6)]


def test_search_equals_brute_force(index: VectorIndex, vectors: np.ndarray) -> None:
    index.create_collection(NODE_LABELS, vectors.shape[1], extra_vectors={GNN_VECTOR: 8})
    index.add(NODE_LABELS, vectors[:400])
    index.add(NODE_LABELS, vectors[400:], start=400)
    index.finish(NODE_LABELS)
    assert index.count(NODE_LABELS) == len(vectors)
    queries = Embedder().encode(["movie director", "japanese animation", "born in a city", "oscar award"])
    queries = np.vstack([queries, vectors[:3]])  # exact hits at distance 0 too
    found = index.search(NODE_LABELS, queries, 10)
    for query, hits in zip(queries, found, strict=True):
        expected = brute_force(vectors, query, 10)
        assert [i for i, _ in hits] == [i for i, _ in expected]
        np.testing.assert_allclose([d for _, d in hits], [d for _, d in expected], atol=1e-5)
        # true L2 of unit vectors: sqrt(2 - 2 cos)
        cos = vectors[[i for i, _ in hits]] @ query
        np.testing.assert_allclose([d for _, d in hits], np.sqrt(np.maximum(2 - 2 * cos, 0)), atol=1e-3)


def test_bad_queries_are_rejected(index: VectorIndex, vectors: np.ndarray) -> None:
    index.create_collection(NODE_LABELS, vectors.shape[1])
    index.add(NODE_LABELS, vectors[:10])
    index.finish(NODE_LABELS)
    with pytest.raises(ValueError, match="2-D"):
        index.search(NODE_LABELS, vectors[0], 3)
    with pytest.raises(ValueError, match="k must be"):
        index.search(NODE_LABELS, vectors[:1], 0)
    with pytest.raises(ValueError, match="finite"):
        index.search(NODE_LABELS, np.full((1, vectors.shape[1]), np.nan), 3)
    assert index.search(NODE_LABELS, np.zeros((0, vectors.shape[1])), 3) == []


def test_edge_index_reopens_from_disk(tmp_path: Path, vectors: np.ndarray) -> None:
    with EdgeVectorIndex(tmp_path / "v") as built:
        built.create_collection(NODE_LABELS, vectors.shape[1])
        built.add(NODE_LABELS, vectors)
        built.finish(NODE_LABELS)
        before = built.search(NODE_LABELS, vectors[5:6], 5)
    with EdgeVectorIndex(tmp_path / "v") as reopened:
        assert reopened.search(NODE_LABELS, vectors[5:6], 5) == before
        with pytest.raises(FileNotFoundError, match="relation_labels"):
            reopened.count("relation_labels")


def test_an_edge_collection_in_parts_searches_as_one(
    tmp_path: Path, vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A collection larger than PART_POINTS is built part by part (one shard in memory at a time) and searched as
    one: the merged hits equal brute force, exclusions and counts span the parts."""
    monkeypatch.setattr(vectors_module, "PART_POINTS", 128)
    with EdgeVectorIndex(tmp_path / "v") as built:
        built.create_collection(NODE_LABELS, vectors.shape[1])
        built.add(NODE_LABELS, vectors[:300])  # crosses two part boundaries in one call
        built.add(NODE_LABELS, vectors[300:], start=300)
        built.finish(NODE_LABELS)
    parts = sorted(p.name for p in (tmp_path / "v" / NODE_LABELS).iterdir() if p.is_dir())
    assert len(parts) == -(-len(vectors) // 128)
    monkeypatch.setattr(vectors_module, "PART_POINTS", 10**6)  # a reader goes by the collection's parts.json
    with EdgeVectorIndex(tmp_path / "v") as index:
        assert index.count(NODE_LABELS) == len(vectors)
        queries = np.vstack([vectors[[5, 200, 600]], Embedder().encode(["japanese animation"])])
        for query, hits in zip(queries, index.search(NODE_LABELS, queries, 10), strict=True):
            assert [i for i, _ in hits] == [i for i, _ in brute_force(vectors, query, 10)]
        keep = np.ones(len(vectors), dtype=bool)
        keep[[5, 200, 600]] = False
        found = index.search(NODE_LABELS, queries[:3], 4, exclude=[5, 200, 600])
        for query, hits in zip(queries[:3], found, strict=True):
            expected = [int(np.flatnonzero(keep)[i]) for i, _ in brute_force(vectors[keep], query, 4)]
            assert [i for i, _ in hits] == expected


def test_an_edge_collection_written_before_the_parts_is_read(tmp_path: Path, vectors: np.ndarray) -> None:
    from qdrant_edge import Distance, EdgeConfig, EdgeShard, EdgeVectorParams, Point, UpdateOperation

    path = tmp_path / "v" / NODE_LABELS
    path.mkdir(parents=True)
    config = EdgeConfig(vectors={"label": EdgeVectorParams(size=vectors.shape[1], distance=Distance.Euclid)})
    shard = EdgeShard.create(str(path), config)
    shard.update(UpdateOperation.upsert_points([Point(i, {"label": row}) for i, row in enumerate(vectors.tolist())]))
    shard.flush()
    shard.close()
    with EdgeVectorIndex(tmp_path / "v") as index:
        assert index.count(NODE_LABELS) == len(vectors)
        assert [hits[0][0] for hits in index.search(NODE_LABELS, vectors[:3], 1)] == [0, 1, 2]
