"""The matching order: the root pattern node and the order in which pattern edges are matched.

SimGRAG's Algorithm 1 (arXiv 2412.15272 §5.2) starts at the pattern node with the fewest candidates and
matches the edges in DFS order from it. This module fixes that order deterministically, because the search's
tie-break (GSD, then the KG edge ids **in matching order**) is defined by it:

1. **Root**: the known node with the fewest candidates; ties go to the lowest node index. Unknown nodes count
   as all KG nodes, so a known node always wins (a pattern without known nodes is rejected earlier).
2. **Steps**: repeatedly take, among the unmatched pattern edges with at least one matched endpoint,

   a. a *closing* edge (both endpoints matched: a cycle edge, a parallel edge or a self-loop), lowest edge
      index first — closing edges only check and cost a relation, so they prune earliest;
   b. else an *extending* edge, preferring the one whose new endpoint is known with the fewest candidates,
      then unknown new endpoints; ties go to the lowest edge index. Its new endpoint becomes matched.

The order depends only on the pattern and the candidate-set sizes. Each :class:`Step` says which pattern
edge is matched, from which already-matched node (``source``) to which node (``target``), and whether the
target was already matched (``closing``). For a self-loop, ``source == target``.
"""

from __future__ import annotations

from typing import NamedTuple

from kgsvc.retrieval.candidates import Candidates
from kgsvc.retrieval.pattern import Pattern

__all__ = ["MatchingOrder", "Step", "matching_order"]


class Step(NamedTuple):
    """Match pattern edge ``edge`` from matched node ``source`` to node ``target`` (a named tuple: cheap)."""

    edge: int
    source: int
    target: int
    closing: bool


class MatchingOrder(NamedTuple):
    """The root pattern node and the steps, one per pattern edge (a named tuple)."""

    root: int
    steps: tuple[Step, ...]

    def first_step_of(self) -> dict[int, int]:
        """For every non-root pattern node, the index of the step that first matches it."""
        return {step.target: i for i, step in enumerate(self.steps) if not step.closing}


def matching_order(pattern: Pattern, candidates: Candidates) -> MatchingOrder:
    """The deterministic matching order of the module docstring.

    Parameters
    ----------
    pattern : Pattern
        A valid pattern (connected, at least one edge and one known node).
    candidates : Candidates
        Only the sizes of the node sets are used.

    Returns
    -------
    MatchingOrder

    Notes
    -----
    O(|E|²) for |E| pattern edges (patterns are tiny).

    Examples
    --------
    >>> import numpy as np
    >>> from kgsvc.retrieval.candidates import CandidateSet, candidate_set
    >>> p = Pattern.from_triples([("a", "r", "UNKNOWN x"), ("UNKNOWN x", "s", "b")])
    >>> c = Candidates(nodes={0: candidate_set([1, 2], [0.0, 1.0]), 2: candidate_set([3], [0.0])})
    >>> order = matching_order(p, c)
    >>> order.root, [(s.edge, s.source, s.target) for s in order.steps]
    (2, [(1, 2, 1), (0, 1, 0)])
    """
    sets = candidates.nodes
    sizes = {i: len(sets[i].ids) if i in sets else 0 for i, node in enumerate(pattern.nodes) if node.known}
    root = min(sizes, key=lambda i: (sizes[i], i))
    matched = {root}
    ends = [(edge.head, edge.tail) for edge in pattern.edges]
    left = list(range(len(ends)))
    steps: list[Step] = []
    while left:
        best: tuple[int, int, int] | None = None
        chosen = -1
        for j in left:
            head, tail = ends[j]
            head_in, tail_in = head in matched, tail in matched
            if head_in and tail_in:
                rank = (0, 0, j)
            elif head_in or tail_in:
                new = tail if head_in else head
                rank = (1, sizes[new], j) if new in sizes else (2, 0, j)
            else:
                continue
            if best is None or rank < best:
                best, chosen = rank, j
        if best is None:  # unreachable for a validated (connected) pattern
            raise ValueError("pattern is disconnected; validate it with validate_pattern first")
        head, tail = ends[chosen]
        left.remove(chosen)
        if best[0] == 0:
            steps.append(Step(chosen, head, tail, True))
        else:
            source, target = (head, tail) if head in matched else (tail, head)
            matched.add(target)
            steps.append(Step(chosen, source, target, False))
    return MatchingOrder(root, tuple(steps))
