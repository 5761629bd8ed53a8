"""Pattern graphs: the query side of GSD matching (SimGRAG §4–5, arXiv 2412.15272; DESIGN §5–6).

A :class:`Pattern` is a small multigraph over pattern nodes. Each node and each edge is **known** (it carries a
label whose embedding is compared with the KG's, so it needs a candidate set) or **unknown** (it accepts any KG
node or relation at distance 0). One node may be marked as the answer.

Node identity is by index: :meth:`Pattern.from_triples` makes identical strings one node, as SimGRAG does.
Edge direction is kept for display only; matching ignores it (DESIGN §6).

Rules, checked by :func:`validate_pattern` before a search (``MatchError`` when broken):

* at least one edge;
* connected when directions are ignored (no isolated nodes) — SimGRAG's code matches components separately
  and concatenates, which returns more than ``k`` graphs; we reject and let the caller split;
* at least one known node — the search starts from a known node's candidates; an all-unknown pattern would
  start from every KG node.

Parallel pattern edges (two edges over one node pair) and self-loops are allowed: they map to distinct KG
triples unless the search allows triple reuse (:func:`kgsvc.retrieval.search.top_k_subgraphs`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kgsvc.errors import MatchError

__all__ = ["Pattern", "PatternEdge", "PatternNode", "is_unknown_label", "validate_pattern"]


def is_unknown_label(label: str) -> bool:
    """SimGRAG's rule: a label containing ``UNKNOWN`` (``"UNKNOWN actor 1"``) is an unknown node or relation."""
    return "UNKNOWN" in label


@dataclass(frozen=True, slots=True)
class PatternNode:
    """A pattern node: ``label`` is its text; ``known`` nodes need a candidate set."""

    label: str
    known: bool = True


@dataclass(frozen=True, slots=True)
class PatternEdge:
    """A pattern edge between node indices ``head`` and ``tail``; ``known`` edges need relation candidates."""

    head: int
    tail: int
    label: str = ""
    known: bool = True


@dataclass(frozen=True, slots=True)
class Pattern:
    """A pattern graph: nodes, edges over node indices, and optionally the index of the answer node.

    Raises
    ------
    ValueError
        When an edge or the answer refers to a node index that does not exist.

    Examples
    --------
    >>> p = Pattern.from_triples([("Tokyo Godfathers", "director", "UNKNOWN director 1")], answer="UNKNOWN director 1")
    >>> [n.known for n in p.nodes], p.edges[0].known, p.answer
    ([True, False], True, 1)
    """

    nodes: tuple[PatternNode, ...]
    edges: tuple[PatternEdge, ...]
    answer: int | None = None

    def __post_init__(self) -> None:
        n = len(self.nodes)
        for i, edge in enumerate(self.edges):
            if not (0 <= edge.head < n and 0 <= edge.tail < n):
                raise ValueError(f"edge {i} refers to nodes ({edge.head}, {edge.tail}); expected indices in [0, {n})")
        if self.answer is not None and not 0 <= self.answer < n:
            raise ValueError(f"answer must be a node index in [0, {n}) or None, got {self.answer}")

    @classmethod
    def from_triples(
        cls,
        triples: Iterable[tuple[str, str, str]],
        *,
        answer: str | None = None,
        is_unknown: Callable[[str], bool] = is_unknown_label,
    ) -> Pattern:
        """A pattern from ``(head, relation, tail)`` strings; equal strings are one node.

        Parameters
        ----------
        triples : iterable of (str, str, str)
            Pattern triples in free text.
        answer : str, optional
            Label of the answer node; must be one of the triples' nodes.
        is_unknown : callable, default :func:`is_unknown_label`
            Decides whether a node or relation label is unknown.

        Raises
        ------
        ValueError
            When ``answer`` names no node of the triples.
        """
        index: dict[str, int] = {}
        nodes: list[PatternNode] = []
        edges: list[PatternEdge] = []

        def node(label: str) -> int:
            if label not in index:
                index[label] = len(nodes)
                nodes.append(PatternNode(label, not is_unknown(label)))
            return index[label]

        for head, relation, tail in triples:
            edges.append(PatternEdge(node(head), node(tail), relation, not is_unknown(relation)))
        if answer is not None and answer not in index:
            raise ValueError(f"answer must be one of the pattern's nodes {sorted(index)}, got {answer!r}")
        return cls(tuple(nodes), tuple(edges), None if answer is None else index[answer])


def validate_pattern(pattern: Pattern) -> None:
    """Check the rules of the module docstring.

    Raises
    ------
    MatchError
        When the pattern has no edge, is disconnected (an isolated node counts), or has no known node.
    """
    if not pattern.edges:
        raise MatchError("pattern has no edges; expected at least one triple")
    n = len(pattern.nodes)
    seen = {0}
    left = [(edge.head, edge.tail) for edge in pattern.edges]
    grew = True
    while grew and len(seen) < n:  # patterns are tiny: sweep the edge list until nothing joins (O(|E|²))
        grew = False
        for head, tail in left:
            if (head in seen) != (tail in seen):
                seen.add(head)
                seen.add(tail)
                grew = True
    if len(seen) != n:
        apart = sorted(set(range(n)) - seen)
        raise MatchError(
            f"pattern is disconnected: nodes {apart} are not reachable from node 0; expected one connected pattern"
        )
    if not any(node.known for node in pattern.nodes):
        raise MatchError("pattern has no known node; expected at least one node with a label to search from")
