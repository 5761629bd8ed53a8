"""The admissible lower bound of the branch and bound (SimGRAG §5.2, Eqs. 4–11, arXiv 2412.15272).

After the first ``i`` steps of the matching order (:mod:`kgsvc.retrieval.order`) the partial mapping has cost
``mapped`` = Σ distances of the matched known nodes (the root included) + Σ distances of the relations of the
matched known edges — the paper's Δ⁽ⁿ⁾_mapped + Δ⁽ʳ⁾_mapped. Any completion adds at least ::

    rem[i] = Σ_{known node v first matched at step ≥ i} min_{u ∈ C(v)} d(v, u)      (the paper's X, Eq. 9)
           + Σ_{known edge matched at step ≥ i}       min_{r' ∈ C(r)} d(r, r')      (the paper's Y, Eq. 10)

so ``B = mapped + rem[i] ≤ GSD`` of every completion (Eq. 11). Each node is counted once, at the step that
first matches it; closing edges (cycles, parallel edges, self-loops) add only their relation term. SimGRAG's
code adds a node minimum for the far end of *every* remaining edge, which counts a cycle's closing node twice
and is not a lower bound on cyclic patterns; this one is.

Because the order is fixed, the set of nodes and edges still to match after step ``i`` is fixed, and ``rem``
is precomputed once per search (the paper's code calls it ``final_best_score``). All values are fixed-point
integers (:mod:`kgsvc.retrieval.gsd`), so comparisons with the k-th best GSD are exact.
"""

from __future__ import annotations

from collections.abc import Mapping

from kgsvc.retrieval.candidates import Candidates, CandidateSet
from kgsvc.retrieval.order import MatchingOrder

__all__ = ["partial_lower_bound", "remaining_bounds"]


def remaining_bounds(order: MatchingOrder, node_min: Mapping[int, int], relation_min: Mapping[int, int]) -> list[int]:
    """``rem[i]`` for ``i = 0 .. len(order.steps)`` (``rem[-1] == 0``).

    Parameters
    ----------
    order : MatchingOrder
    node_min : mapping of int to int
        Smallest fixed-point distance of each known pattern node's candidates; unknown nodes are absent (0).
    relation_min : mapping of int to int
        Likewise for each known pattern edge's relation candidates.

    Returns
    -------
    list of int

    Notes
    -----
    O(|E|).
    """
    rem = [0] * (len(order.steps) + 1)
    for i in range(len(order.steps) - 1, -1, -1):
        step = order.steps[i]
        add = relation_min.get(step.edge, 0)
        if not step.closing:
            add += node_min.get(step.target, 0)
        rem[i] = rem[i + 1] + add
    return rem


def partial_lower_bound(
    order: MatchingOrder,
    candidates: Candidates,
    node_map: Mapping[int, int],
    relation_of_step: Mapping[int, int],
) -> int:
    """The bound ``B = mapped + rem[i]`` of a partial mapping, computed from scratch (fixed point).

    Parameters
    ----------
    order : MatchingOrder
    candidates : Candidates
    node_map : mapping of int to int
        Pattern node → KG node for the root and the targets of the first ``i`` steps.
    relation_of_step : mapping of int to int
        Step index → KG relation id of the triple matched there, for steps ``0 .. i - 1``.

    Returns
    -------
    int
        The fixed-point lower bound on the GSD of every completion.

    Raises
    ------
    KeyError
        When a mapped node or relation is not among its candidates.

    Notes
    -----
    Meant for tests and diagnostics (the search keeps ``mapped`` incrementally): O(|E| + Σ candidate sizes).
    """

    node_min = {v: int(c.fixed[0]) for v, c in candidates.nodes.items() if len(c)}
    relation_min = {e: int(c.fixed[0]) for e, c in candidates.relations.items() if len(c)}
    rem = remaining_bounds(order, node_min, relation_min)
    mapped = sum(_fixed_distance(candidates.nodes.get(v), u, f"node {v}") for v, u in node_map.items())
    mapped += sum(
        _fixed_distance(candidates.relations.get(order.steps[i].edge), r, f"edge {order.steps[i].edge}")
        for i, r in relation_of_step.items()
    )
    return mapped + rem[len(relation_of_step)]


def _fixed_distance(found: CandidateSet | None, kg_id: int, element: str) -> int:
    """Fixed-point distance of ``kg_id`` in ``found``; 0 for an unknown element (``found is None``)."""
    if found is None:
        return 0
    try:
        return found.fixed_of(kg_id)
    except KeyError as exc:
        raise KeyError(f"KG id {kg_id} is not a candidate of pattern {element}") from exc
