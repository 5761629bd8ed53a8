"""Candidate sets: which KG nodes a known pattern node, and which relations a known pattern edge, may map to.

SimGRAG (arXiv 2412.15272 §5.1) takes ``C(n)[v]``, the top-``k(n)`` KG nodes nearest to pattern node ``v``, and
``C(r)[r]``, the top-``k(r)`` KG relations nearest to pattern relation ``r``, by L2 between label embeddings.
Here:

* :class:`CandidateSet` is one such set: KG ids with their **true L2** distances and the distances' fixed-point
  values (:mod:`kgsvc.retrieval.gsd`), ordered by distance with ties by id; ids are unique.
* :class:`Candidates` holds the sets of a pattern: ``nodes[i]`` for known pattern node ``i`` (the paper's
  ``C(n)[v]``) and ``relations[j]`` for the known relation of pattern edge ``j`` (``C(r)[r]``).
  Unknown nodes and relations have no set: they accept any KG node or relation at distance 0; this is never
  materialised as a set of all nodes.
* :func:`candidate_set` builds a set from the ``(ids, distances)`` arrays any vector search returns; pass
  ``squared=True`` for backends that return squared L2 (Milvus, FAISS ``IndexFlatL2``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from kgsvc.retrieval.gsd import quantize

__all__ = ["CandidateSet", "Candidates", "candidate_set"]


@dataclass(frozen=True, slots=True, eq=False)
class CandidateSet:
    """KG ids with their L2 distances to one pattern element; build it with :func:`candidate_set`.

    Attributes
    ----------
    ids : ndarray of int64
        Unique, ordered by ``(fixed, id)`` — by distance, ties (equal at 2**-36) by id.
    distances : ndarray of float64
        True L2 distances, aligned with ``ids``.
    fixed : ndarray of int64
        ``quantize(distances)``, computed on construction.
    max_id : int
        The largest id (-1 when empty), computed on construction.

    Raises
    ------
    ValueError
        When the arrays differ in shape or dtype, a distance is out of range, ids repeat or are out of order.
    """

    ids: npt.NDArray[np.int64]
    distances: npt.NDArray[np.float64]
    fixed: npt.NDArray[np.int64] = field(init=False)
    max_id: int = field(init=False)

    def __post_init__(self) -> None:
        ids, dist = self.ids, self.distances
        if ids.ndim != 1 or ids.shape != dist.shape:
            raise ValueError(f"ids and distances must be 1-D of one length, got shapes {ids.shape} and {dist.shape}")
        if ids.dtype != np.int64 or dist.dtype != np.float64:
            raise ValueError(f"expected int64 ids and float64 distances, got {ids.dtype} and {dist.dtype}")
        fixed = quantize(dist)
        if ids.shape[0] > 1:
            step = np.diff(fixed)
            if not ((step > 0) | ((step == 0) & (np.diff(ids) > 0))).all():
                raise ValueError("candidates must be ordered by (distance, id); build them with candidate_set()")
            if np.unique(ids).shape[0] != ids.shape[0]:
                raise ValueError("candidate ids must be unique; build them with candidate_set()")
        if ids.shape[0] and int(ids.min()) < 0:
            raise ValueError(f"candidate ids must be >= 0, got {int(ids.min())}")
        object.__setattr__(self, "fixed", fixed)
        object.__setattr__(self, "max_id", int(ids.max()) if ids.shape[0] else -1)

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def fixed_of(self, kg_id: int) -> int:
        """The fixed-point distance of ``kg_id``; ``KeyError`` when it is not a candidate. O(size)."""
        hits = np.flatnonzero(self.ids == kg_id)
        if not hits.shape[0]:
            raise KeyError(f"KG id {kg_id} is not a candidate")
        return int(self.fixed[hits[0]])

    def distance_of(self, kg_id: int) -> float:
        """The L2 distance of ``kg_id``; ``KeyError`` when it is not a candidate. O(size)."""
        hits = np.flatnonzero(self.ids == kg_id)
        if not hits.shape[0]:
            raise KeyError(f"KG id {kg_id} is not a candidate")
        return float(self.distances[hits[0]])


def candidate_set(ids: npt.ArrayLike, distances: npt.ArrayLike, *, squared: bool = False) -> CandidateSet:
    """A :class:`CandidateSet` from a vector search's ``(ids, distances)``.

    Parameters
    ----------
    ids : array of int, shape (k,)
        KG node or relation ids (any order; duplicates keep their smallest distance).
    distances : array of float, shape (k,)
        L2 distances of the ids to the pattern element's embedding.
    squared : bool, default False
        ``True`` when ``distances`` are squared L2; their square roots are taken.

    Returns
    -------
    CandidateSet

    Raises
    ------
    ValueError
        When the arrays differ in length, ids are not integers or negative, or a distance is not finite,
        negative, or above ``MAX_DISTANCE`` (after the square root).

    Notes
    -----
    O(k log k).

    Examples
    --------
    >>> c = candidate_set([7, 3, 7], [9.0, 16.0, 25.0], squared=True)
    >>> c.ids.tolist(), c.distances.tolist()
    ([7, 3], [3.0, 4.0])
    """
    id_array = np.asarray(ids)
    dist = np.asarray(distances, dtype=np.float64)
    if id_array.ndim != 1 or dist.ndim != 1 or id_array.shape != dist.shape:
        raise ValueError(f"ids and distances must be 1-D of one length, got shapes {id_array.shape} and {dist.shape}")
    if id_array.size and not np.issubdtype(id_array.dtype, np.integer):
        raise ValueError(f"ids must be integers, got dtype {id_array.dtype}")
    id_array = id_array.astype(np.int64)
    if squared:
        if dist.size and not (dist >= 0).all():
            raise ValueError(f"squared distances must be >= 0, got {dist[~(dist >= 0)][:5].tolist()}")
        dist = np.sqrt(dist)
    order = np.lexsort((id_array, quantize(dist)))
    id_array, dist = id_array[order], dist[order]
    if id_array.shape[0] > 1:
        _, first = np.unique(id_array, return_index=True)
        if first.shape[0] != id_array.shape[0]:
            keep = np.sort(first)  # the first occurrence in (distance, id) order has the smallest distance
            id_array, dist = id_array[keep], dist[keep]
    return CandidateSet(id_array, dist)


@dataclass(frozen=True, slots=True)
class Candidates:
    """The candidate sets of one pattern: by pattern node index and by pattern edge index.

    Known elements must have a set and unknown ones must not (checked when a search starts).
    """

    nodes: Mapping[int, CandidateSet] = field(default_factory=dict)
    relations: Mapping[int, CandidateSet] = field(default_factory=dict)

    def size(self, node: int) -> int | None:
        """Number of candidates of pattern node ``node``; ``None`` for an unknown node (any KG node)."""
        found = self.nodes.get(node)
        return None if found is None else len(found)
