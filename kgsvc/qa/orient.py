"""Read a matched subgraph in the directions of a grounded candidate (DESIGN §6; :mod:`kgsvc.qa.candidates`).

The GSD matcher (:func:`kgsvc.retrieval.top_k_subgraphs`) takes a pattern edge in **either direction** and
returns **one** assignment per subgraph (set of KG triples): the one with the smallest key. A grounded candidate,
though, is a walk read from stored triples, and its directions are part of its meaning (``X –parents→ ?`` is X's
parents, ``X ← parents ← ?`` X's children). So a match is evidence for the candidate only when its triples can be
laid on the pattern edges so that each runs from its edge's head to its tail — possibly in another assignment than
the matcher's, which it may have dropped as a duplicate of the same subgraph (``X –spouse→ Y –spouse→ X`` with
both triples stored: two assignments, one subgraph).

Entry point: :func:`oriented`.
"""

from __future__ import annotations

import itertools
import math

from kgsvc.retrieval.candidates import Candidates
from kgsvc.retrieval.pattern import Pattern
from kgsvc.retrieval.result import Match

__all__ = ["oriented"]


def oriented(match: Match, pattern: Pattern, candidates: Candidates) -> Match | None:
    """``match`` with its triples assigned so that each runs along its pattern edge, or ``None`` when none does.

    Parameters
    ----------
    match : Match
        A match of ``pattern`` (node map and stored triples).
    pattern : Pattern
        The pattern; edge ``head → tail`` is the direction a triple must run.
    candidates : Candidates
        The candidate sets of the search: a triple may move to another pattern edge only when its relation is in
        that edge's relation set.

    Returns
    -------
    Match or None
        ``match`` itself when it already runs along every edge; else the first assignment (in permutation order)
        of the same triples to the edges that does, with the relation distances of the new assignment and the GSD
        changed by their difference (``math.fsum``, so an assignment with the same distances keeps the GSD
        exactly); ``None`` when no assignment runs along every edge.

    Notes
    -----
    O(e! · e) for a pattern of e edges (grounded candidates have at most 3).
    """
    node_map = match.node_map

    def runs(edge: int, triple: tuple[int, int, int]) -> bool:
        e = pattern.edges[edge]
        return triple[0] == node_map[e.head] and triple[2] == node_map[e.tail]

    n = len(pattern.edges)
    if all(runs(e, match.triples[e]) for e in range(n)):
        return match
    for order in itertools.permutations(range(n)):
        if not all(runs(e, match.triples[i]) for e, i in enumerate(order)):
            continue
        distances: list[float | None] = []
        for e, i in enumerate(order):
            relation = match.triples[i][1]
            if not pattern.edges[e].known:
                distances.append(None)
                continue
            allowed = candidates.relations[e]
            at = [j for j, r in enumerate(allowed.ids.tolist()) if r == relation]
            if not at:
                break
            distances.append(float(allowed.distances[at[0]]))
        else:
            old = math.fsum(d for d in match.relation_distances if d is not None)
            new = math.fsum(d for d in distances if d is not None)
            return match._replace(
                gsd=match.gsd if new == old else match.gsd + (new - old),
                edge_ids=tuple(match.edge_ids[i] for i in order),
                triples=tuple(match.triples[i] for i in order),
                relation_distances=tuple(distances),
            )
    return None
