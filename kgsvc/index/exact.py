"""Exact k-nearest-neighbour search over L2-normalised rows, with numpy (no index structure).

:func:`exact_search` is what :class:`kgsvc.index.dataset_index.DatasetIndex` uses instead of HNSW when a
collection is small enough to scan, or when ``k`` is a large share of it: on the MetaQA entity labels an exact
scan is about ten times cheaper than HNSW at SimGRAG's k(n) = 16384, which needs ``ef ≥ k`` to keep recall ≥ 0.99
(``bench/vectors.py recall``; figures in docs/benchmarks.md, "Vectors"). Results are exact, so recall is 1.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["EXACT_MAX_VALUES", "EXACT_MIN_SHARE", "exact_search", "searched_exactly", "unit_rows"]

#: Collections of at most this many float32 values (texts x dimension; 128 MB) are scanned exactly (O(values) a
#: query, recall 1; docs/benchmarks.md, "Vectors"). Their Qdrant collections get no HNSW.
EXACT_MAX_VALUES = 32_000_000
#: Larger collections are scanned exactly too when k is at least 1/EXACT_MIN_SHARE of their points (HNSW then
#: needs ef >= k and is slower than the scan).
EXACT_MIN_SHARE = 16


def unit_rows(matrix: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The rows of ``matrix`` scaled to length 1 in float32 (a zero row stays zero): what :func:`exact_search` and
    the vector collections expect."""
    rows = np.asarray(matrix, dtype=np.float32)
    unit: npt.NDArray[np.float32] = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), np.float32(1e-12))
    return unit


def searched_exactly(n: int, dimension: int, k: int | None = None) -> bool:
    """Whether a collection of ``n`` rows of ``dimension`` floats is searched exactly (for ``k``, when given).

    >>> searched_exactly(42_797, 384), searched_exactly(10**6, 384), searched_exactly(10**6, 384, k=100_000)
    (True, False, True)
    """
    return n * dimension <= EXACT_MAX_VALUES or (k is not None and k * EXACT_MIN_SHARE >= n)


def exact_search(
    matrix: npt.NDArray[np.float32],
    queries: npt.NDArray[np.float32],
    k: int,
    *,
    delta: npt.NDArray[np.float32] | None = None,
    labels: npt.NDArray[np.int64] | None = None,
) -> list[list[tuple[int, float]]]:
    """The ``k`` rows of ``matrix`` nearest to each query row by L2: ``[(row id, distance), …]`` per query,
    ascending by distance, ties by row id (the order of :meth:`kgsvc.index.vectors.VectorIndex.search`).

    Layered embeddings (:mod:`kgsvc.index.layers`): the rows searched are ``matrix`` followed by ``delta``; with
    ``labels`` (one per row) a hit reports ``labels[row]`` instead of the row id, ties go by label, and rows
    labelled ``-1`` (tombstones) are skipped.

    Both arrays hold L2-normalised rows, so ranking by cosine is ranking by L2; the rows within float32 rounding of
    the k-th best cosine are re-ranked by their true L2 distance (float64), ties by id, so the result is exact and
    deterministic.

    Complexity: O(q · n · d) for q queries over n rows of dimension d (one matrix product), plus O(q · n) for the
    selection; memory O(q · n).

    >>> m = np.eye(3, dtype=np.float32)
    >>> [[(i, round(d, 3)) for i, d in hits] for hits in exact_search(m, m[[1]], 2)]
    [[(1, 0.0), (0, 1.414)]]
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    base = matrix.shape[0]
    queries = np.asarray(queries, dtype=np.float32)
    scores = queries @ np.asarray(matrix, dtype=np.float32).T
    if delta is not None and delta.shape[0]:
        scores = np.concatenate([scores, queries @ np.asarray(delta, dtype=np.float32).T], axis=1)
    n = scores.shape[1]
    if labels is None:
        labels = np.arange(n, dtype=np.int64)
    else:
        scores[:, labels[:n] < 0] = -np.inf  # tombstones are never selected (k is capped at the live rows)
    k = min(k, int(np.count_nonzero(labels[:n] >= 0)))
    if k == 0:
        return [[] for _ in range(queries.shape[0])]
    results = []
    for query, row in zip(queries, scores, strict=True):
        # select by cosine (the same order for unit rows), with a margin for float32 rounding, then rank the
        # few selected rows by their true L2 in float64 (sqrt(2 - 2 cos) loses all precision near 0)
        kth = np.partition(row, n - k)[n - k]
        ids = np.flatnonzero(row >= kth - _MARGIN)
        low = ids < base
        rows = np.empty((ids.shape[0], queries.shape[1]), dtype=np.float64)
        rows[low] = matrix[ids[low]]
        if delta is not None:
            rows[~low] = delta[ids[~low] - base]
        distances = np.linalg.norm(rows - query.astype(np.float64), axis=1)
        order = np.lexsort((labels[ids], distances))[:k]
        results.append([(int(labels[ids[i]]), float(distances[i])) for i in order])
    return results


_MARGIN = 1e-5  # float32 dot products of unit rows of dimension <= 4096 are off by far less
