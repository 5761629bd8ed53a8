"""Exact vector search: against a brute-force sort, with ties, and as the index's search on a real version."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kgsvc
from kgsvc.index import exact as exact_module
from kgsvc.index.exact import exact_search
from kgsvc.index.vectors import NODE_LABELS, RELATION_LABELS
from kgsvc.settings import Settings


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    rows = rng.normal(size=(n, d)).astype(np.float32)
    unit: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return unit


@pytest.mark.parametrize("seed", range(5))
def test_matches_a_brute_force_sort(seed: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = _unit(rng, 400, 16)
    matrix[200:210] = matrix[10]  # ten exact duplicates of row 10: ties broken by id
    queries = np.vstack([_unit(rng, 6, 16), matrix[[10]]])
    for k in (1, 7, 15, 400, 1000):
        for query, hits in zip(queries, exact_search(matrix, queries, k), strict=True):
            distances = np.linalg.norm(matrix.astype(np.float64) - query.astype(np.float64), axis=1)
            expected = sorted(range(len(matrix)), key=lambda i: (distances[i], i))[:k]
            assert [i for i, _ in hits] == expected
            np.testing.assert_allclose([d for _, d in hits], distances[expected], atol=1e-6)
    assert [i for i, _ in exact_search(matrix, matrix[[10]], 3)[0]] == [10, 200, 201]
    with pytest.raises(ValueError, match="k must be >= 1"):
        exact_search(matrix, queries, 0)


def test_index_searches_exactly_and_agrees_with_qdrant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path, auto_index=False)) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        kg.build_index("sample")
        index = kg.index("sample")
        assert set(index.layers) == {NODE_LABELS, RELATION_LABELS}
        queries = index.embedder.encode(["Tokyo Godfathers", "a film by Satoshi Kon", "born in"])
        exact = index.search_node_texts(queries, 10)
        qdrant = index.vectors.search(NODE_LABELS, queries, 10)  # small collection: Qdrant scans it exactly too
        assert [[i for i, _ in row] for row in exact] == [[i for i, _ in row] for row in qdrant]
        np.testing.assert_allclose(
            [[d for _, d in row] for row in exact], [[d for _, d in row] for row in qdrant], atol=1e-5
        )
        # past the size limit and with a small k, the search goes to Qdrant (HNSW)
        monkeypatch.setattr(exact_module, "EXACT_MAX_VALUES", 0)
        calls: list[int] = []
        search = index.vectors.search

        def counted(*a: Any, **kw: Any) -> Any:
            calls.append(1)
            return search(*a, **kw)

        monkeypatch.setattr(index.vectors, "search", counted)
        assert index.search_node_texts(queries, 1) == qdrant_top1(qdrant)
        assert calls == [1]


def qdrant_top1(hits: list[list[tuple[int, float]]]) -> list[list[tuple[int, float]]]:
    return [row[:1] for row in hits]
