"""What a GSD search returns: :class:`Match` (one evidence subgraph) and :class:`MatchResult`.

A match is a node map ``f`` (pattern node → KG node, the paper's ``f(v)``) and one KG triple per pattern edge.
Triples are reported in their **stored** direction, whatever direction the pattern used. Two matches with the
same set of KG edge ids are the same subgraph: only the best of them (smallest key, below) is reported.
Matches are ordered by the key ``(GSD, edge ids in matching order, node map)`` — see
:mod:`kgsvc.retrieval.search`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["Match", "MatchResult"]


class Match(NamedTuple):
    """One matched subgraph (a named tuple: cheap to build, immutable).

    Attributes
    ----------
    gsd : float
        Graph Semantic Distance (fixed-point sum, see :mod:`kgsvc.retrieval.gsd`).
    node_map : tuple of int
        ``node_map[v]`` is the KG node of pattern node ``v``.
    edge_ids : tuple of int
        ``edge_ids[e]`` is the KG edge id (stored triple) matched to pattern edge ``e``.
    triples : tuple of (int, int, int)
        ``triples[e]`` is that stored triple ``(head, relation, tail)``.
    node_distances : tuple of float or None
        Per pattern node: L2 distance to its KG node; ``None`` for unknown nodes.
    relation_distances : tuple of float or None
        Per pattern edge: L2 distance to the matched relation; ``None`` for unknown relations.
    answer : int or None
        KG node of the pattern's answer node, when the pattern names one.
    """

    gsd: float
    node_map: tuple[int, ...]
    edge_ids: tuple[int, ...]
    triples: tuple[tuple[int, int, int], ...]
    node_distances: tuple[float | None, ...]
    relation_distances: tuple[float | None, ...]
    answer: int | None = None


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The ordered top-k matches of a search.

    Attributes
    ----------
    matches : tuple of Match
        Ascending by key; ``min(k, number of distinct subgraphs)`` of them when ``complete``.
    complete : bool
        ``False`` when the deadline stopped the search: ``matches`` are then the best found so far.
    expansions : int
        Partial mappings whose children were generated (root candidates included).
    """

    matches: tuple[Match, ...]
    complete: bool
    expansions: int
