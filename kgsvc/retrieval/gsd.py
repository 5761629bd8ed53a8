"""Graph Semantic Distance (SimGRAG Definition 2 / Eq. 3, arXiv 2412.15272 §5.1; DESIGN §6).

For a pattern P and a match (node map f, one KG triple per pattern edge)::

    GSD(P, S) = Σ_{known nodes v} ‖z_v − z_f(v)‖₂ + Σ_{known edges e} ‖z_r(e) − z_r(triple(e))‖₂

with true (not squared) L2 distances between label embeddings. Unknown nodes and relations add 0. The
distances arrive with the candidate sets (:mod:`kgsvc.retrieval.candidates`); :func:`match_gsd` adds them up
for a given match.

**Fixed point.** Sums are taken over integers: each distance ``d`` becomes ``rint(d · 2**36)``
(:func:`quantize`, round half to even, ``GSD_SCALE = 2**36``, resolution 1.5e-11). Integer sums are exact and
independent of the order of addition, so "equal GSD" is exact and the search's tie-break is well defined; the
reported GSD ``Σ q / 2**36`` is within 1e-10 of the float sum for patterns of up to 4000 elements. Distances
must be finite, non-negative and at most ``MAX_DISTANCE = 2**16``, so that a sum of up to 2048 terms fits int64.

Notation: the paper's ``‖z_v − z_f(v)‖`` is ``CandidateSet.distances`` at the position of ``f(v)``; here
``node_map[v]`` is ``f(v)`` and ``relations[e]`` is the relation of the KG triple matched to pattern edge ``e``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from kgsvc.retrieval.candidates import Candidates

__all__ = ["GSD_SCALE", "MAX_DISTANCE", "check_distances", "dequantize", "match_gsd", "quantize"]

GSD_SCALE = 1 << 36
MAX_DISTANCE = float(1 << 16)


def check_distances(distances: npt.NDArray[np.float64]) -> None:
    """Raise ``ValueError`` unless every distance is finite and in ``[0, MAX_DISTANCE]``."""
    ok = np.isfinite(distances) & (distances >= 0.0) & (distances <= MAX_DISTANCE)
    if not ok.all():
        raise ValueError(f"distances must be finite and in [0, {MAX_DISTANCE:g}], got {distances[~ok][:5].tolist()}")


def quantize(distances: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Fixed-point distances ``rint(d · GSD_SCALE)`` as int64.

    Raises
    ------
    ValueError
        When a distance is not finite, negative, or above ``MAX_DISTANCE``.

    Examples
    --------
    >>> int(quantize([0.5])[0]) == GSD_SCALE // 2
    True
    """
    values = np.asarray(distances, dtype=np.float64)
    check_distances(values)
    return np.rint(values * GSD_SCALE).astype(np.int64)


def dequantize(total: int | Sequence[int]) -> float:
    """The float GSD of a fixed-point sum (or of the sum of several fixed-point terms)."""
    if not isinstance(total, int):
        total = sum(int(t) for t in total)
    return total / GSD_SCALE


def match_gsd(candidates: Candidates, node_map: Sequence[int], relations: Sequence[int]) -> float:
    """The GSD of a match, from the candidate sets (unknown elements add 0).

    Parameters
    ----------
    candidates : Candidates
        Sets by pattern node index and pattern edge index.
    node_map : sequence of int
        ``node_map[v]`` is the KG node of pattern node ``v``.
    relations : sequence of int
        ``relations[e]`` is the relation id of the KG triple matched to pattern edge ``e``.

    Returns
    -------
    float
        The fixed-point sum, as a float.

    Raises
    ------
    KeyError
        When a mapped node or relation is not a candidate of its known pattern element.

    Notes
    -----
    O(|V| + |E|) look-ups, each O(candidate-set size).

    Examples
    --------
    >>> from kgsvc.retrieval.candidates import Candidates, candidate_set
    >>> c = Candidates(nodes={0: candidate_set([5], [3.0])}, relations={0: candidate_set([1], [4.0])})
    >>> match_gsd(c, [5, 9], [1])
    7.0
    """
    total = 0
    for v, kg_node in enumerate(node_map):
        found = candidates.nodes.get(v)
        if found is not None:
            total += found.fixed_of(kg_node)
    for e, relation in enumerate(relations):
        found = candidates.relations.get(e)
        if found is not None:
            total += found.fixed_of(relation)
    return dequantize(total)
