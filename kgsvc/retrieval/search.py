"""Exact top-k subgraph matching by Graph Semantic Distance: branch and bound over the graph snapshot.

Implements SimGRAG's pattern-to-subgraph alignment (Cai et al., "SimGRAG: Leveraging Similar Subgraphs for
Knowledge Graphs Driven Retrieval-Augmented Generation", arXiv 2412.15272, §5.2: Algorithm 1 with the lower
bound of Eq. 11 and greedy ordering) as specified by DESIGN §6::

    GSD(P, S) = Σ_{known pattern nodes v} ‖z_v − z_f(v)‖₂ + Σ_{known pattern edges e} ‖z_r(e) − z_r(S, e)‖₂

Entry point: :func:`top_k_subgraphs`.

**Contract.** Given a pattern, candidate sets and ``k``, the result equals exhaustive enumeration of every
valid match followed by: group matches by their subgraph, keep each group's smallest key, sort by key, take the
first ``k``. A match is valid when

* every known pattern node maps into its candidate set and every known pattern edge's triple has a relation
  in its candidate set; unknown nodes and relations accept anything at distance 0;
* each pattern edge maps to one stored triple joining the two mapped nodes, **in either direction** (with
  ``directed``: running from the edge's head to its tail, as a SPARQL triple pattern reads; a KG self-loop runs
  both ways);
* pattern edges map to distinct triples (parallel pattern edges are never collapsed; parallel KG edges give
  distinct subgraphs), unless ``allow_triple_reuse``;
* the node map is injective, unless ``allow_node_reuse`` (then two pattern nodes may share a KG node, and an
  edge between them needs a KG self-loop).

The subgraph of a match is its set of KG edge ids; under ``allow_triple_reuse`` it is that set **and** the KG
node bound to the pattern's answer node (when the pattern names one), because a walk over the same triples may
end at different nodes (``X –r→ Y``, a self-loop at ``Y``: the 3-edge walks ``r, loop, r`` and ``r, loop, loop``
end at ``X`` and at ``Y``).

**Semantics.** The default (both flags off) is SimGRAG's subgraph isomorphism (the paper's bijection; the
reference of ``bench/matcher.py``). Both flags on is **homomorphism**, how SPARQL matches a basic graph pattern
(SPARQL 1.1 §18.3: a solution maps variables to terms, nothing keeps two variables or two triple patterns apart):
a pattern that is a walk may go back over the triple it came by, round a self-loop several times, and come back
to a node it passed. The question path uses it (:mod:`kgsvc.qa.pipeline`, ``QAOptions.node_reuse``).

The key is ``(GSD, edge ids in matching order, node map)``: the GSD as an exact fixed-point integer
(:mod:`kgsvc.retrieval.gsd`), then the KG edge ids listed in the order of :func:`~kgsvc.retrieval.order.
matching_order`, then the node map by pattern node index. The order is a function of the pattern and the
candidate-set sizes, so the output is deterministic (across runs and processes) and the tie-break prunes like
the GSD does: the search explores children in ascending ``(cost, edge id)``, so the k-th key's edge prefix
decides ties without enumerating them.

**Notation.** Paper → code: ``z_v``/``z_f(v)`` distances come in as ``CandidateSet.distances``;
``f`` is ``node_map`` (a list indexed by pattern node); ``C(n)[v]`` is ``candidates.nodes[v]``,
``C(r)[r]`` is ``candidates.relations[e]`` for pattern edge ``e``; the paper's traversal list ``L`` is
``order.steps``; ``res`` is the kernel's key slots; Eq. 11's ``B`` is ``cost + c + rem[i + 1]``.

**Beyond the paper: lookahead.** For a later step into a *known* node ``v`` from a non-root node ``s``, the
search precomputes (per search, one pass over the candidates' slices) the cheapest way any KG node can reach
``C(n)[v]`` over ``C(r)``, and charges it when ``s`` is mapped instead of the plain minima of Eq. 9-10; nodes that
cannot reach ``C(n)[v]`` are cut at once. Large root sets are re-ranked the same way through step 0. It is still
a lower bound on every completion (tested with the oracle's hook), so the contract is unchanged; it is what makes
conjunctions and stars over k(n)=16384 candidates tractable.

**Compiled kernel.** The search itself (children generation, bound, tie-break, top-k bookkeeping, lookahead
tables and the :class:`Match` records) runs in :mod:`kgsvc.retrieval._kernel` (Cython → C++, built by
``pip install -e .`` from ``setup.py``); this module validates the input, fixes the matching order and ``rem``, and
calls it. There is no Python twin: every case (trees, cycles, self-loops, node and triple reuse, the test hook)
runs there.
Three mechanisms change only the cost: (1) node-cost and lookahead tables are dense arrays over KG ids borrowed
from a per-process pool (up to 6 free arrays of ``8 · n_nodes`` bytes kept per graph size, reset entry by entry
after each search); a lookahead table is built in one O(S) pass over its candidates' slices, skipped above 2**22
entries; (2) a step into a known node from a node whose slice is longer than 2048 entries takes its children
from linked lists of the lookahead table's entries by far end (the same triples seen from the candidates' side);
(3) root sets of at least 256 are re-ranked through step 0's lookahead tables, lazily (a root is scanned only
when its distance could still beat the k-th GSD). Each has a test switch in :func:`_search`, and the property
test compares them with the exhaustive oracle.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.retrieval import _kernel
from kgsvc.retrieval.bound import remaining_bounds
from kgsvc.retrieval.candidates import Candidates
from kgsvc.retrieval.order import matching_order
from kgsvc.retrieval.pattern import Pattern, validate_pattern
from kgsvc.retrieval.result import MatchResult

__all__ = ["top_k_subgraphs"]

#: ``hook(node_map, edge_map, bound)`` — called for every partial mapping the search considers (tests only).
Hook = Callable[[dict[int, int], dict[int, int], int], None]

_GRAPHS: weakref.WeakKeyDictionary[GraphSnapshot, _kernel.Graph] = weakref.WeakKeyDictionary()


def top_k_subgraphs(
    snapshot: GraphSnapshot,
    pattern: Pattern,
    candidates: Candidates,
    *,
    k: int,
    allow_node_reuse: bool = False,
    allow_triple_reuse: bool = False,
    directed: bool = False,
    deadline: float | None = None,
) -> MatchResult:
    """The ``k`` subgraphs of ``snapshot`` with the smallest GSD to ``pattern`` (module docstring: contract).

    Parameters
    ----------
    snapshot : GraphSnapshot
        The KG.
    pattern : Pattern
        Connected, at least one edge and one known node.
    candidates : Candidates
        One set per known node and per known edge, none for unknown ones.
    k : int
        Number of subgraphs wanted (≥ 1).
    allow_node_reuse : bool, default False
        Let two pattern nodes map to one KG node (SimGRAG's code does; the paper's bijection does not).
    allow_triple_reuse : bool, default False
        Let two pattern edges map to one stored triple (walk semantics; with ``allow_node_reuse``: SPARQL's
        homomorphism). The subgraph then also carries the answer binding (module docstring).
    directed : bool, default False
        Map each pattern edge only to triples stored from its head to its tail (DESIGN §6 takes either direction;
        a grounded candidate's directions are part of its meaning).
    deadline : float, optional
        A ``time.monotonic()`` value; the search stops when it passes.

    Returns
    -------
    MatchResult
        ``min(k, #subgraphs)`` matches ascending by key, ``complete``, and the number of expansions.

    Raises
    ------
    MatchError
        When the pattern has no edge, is disconnected, or has no known node.
    ValueError
        When ``k < 1``, a known element lacks a candidate set, an unknown element has one, or a candidate id
        is outside the snapshot.

    See Also
    --------
    kgsvc.retrieval.order.matching_order : the root and edge order (and so the tie-break).
    kgsvc.retrieval.bound.remaining_bounds : the admissible bound.

    Notes
    -----
    Depth-first branch and bound (compiled, :mod:`kgsvc.retrieval._kernel`) from the root's candidates in
    ascending distance. At step ``i`` from KG node ``x`` the children are ``x``'s CSR entries, filtered by
    relation candidates (a dense cost array over relation ids) and target-node candidates (a dense cost array over
    node ids, from a pooled scratch buffer) in one pass, then sorted by ``(cost, edge id)``. A step into a known
    node from a slice longer than 2048 entries reads its children from the lookahead table's entries at the
    source node instead.

    Lookahead (module docstring): tables over the candidates' adjacency, O(S) for the S entries in those
    slices, built only when S ≤ 2**22; ``c`` then includes the lookahead charge.

    Pruning: once ``k`` subgraphs are held, a child with bound ``B = cost + c + rem[i + 1]`` is cut when
    ``B`` exceeds the k-th GSD, or equals it and its edge-id prefix is larger than the k-th's. Children are
    sorted, so the first cut child ends the loop (``break``). The bound is admissible on cyclic patterns too
    (:mod:`kgsvc.retrieval.bound`), so the result equals exhaustive enumeration.

    Worst case (no pruning): O(Π over steps of the branching factor), i.e. exponential in the number of
    pattern edges — bounded by ``|C(root)| · Δ^|E|`` with Δ the largest degree, plus O(Δ log Δ) per expansion
    for the sort. Memory: O(k + |E|) besides the per-expansion child arrays (O(Δ)) and, for dense cost arrays,
    O(n_nodes) per known node and lookahead table (and its reverse lists) while the search runs (pooled: up to 6
    such arrays per graph size stay allocated between searches, 16 MB each at 2M nodes).

    Deadline: checked at every expansion; when passed, the search stops and returns the best subgraphs found
    so far with ``complete=False`` — ascending, valid, but possibly not the true top-k.

    References
    ----------
    .. [1] Y. Cai, Z. Guo, Y. Pei, W. Bian, W. Zheng, "SimGRAG: Leveraging Similar Subgraphs for Knowledge
       Graphs Driven Retrieval-Augmented Generation", arXiv:2412.15272, 2024, §5.2.

    Examples
    --------
    >>> import numpy as np
    >>> from kgsvc.index.snapshot import GraphSnapshot
    >>> from kgsvc.retrieval.candidates import Candidates, candidate_set
    >>> # 0 = Tokyo Godfathers, 1 = Satoshi Kon, 2 = 2003; relations 0 = directed_by, 1 = release_year
    >>> g = GraphSnapshot.from_triples(np.array([0, 0]), np.array([0, 1]), np.array([1, 2]), n_nodes=3, n_relations=2)
    >>> p = Pattern.from_triples([("Tokyo Godfathers", "director", "UNKNOWN director 1")])
    >>> c = Candidates(nodes={0: candidate_set([0], [0.0])}, relations={0: candidate_set([0, 1], [0.2, 0.9])})
    >>> r = top_k_subgraphs(g, p, c, k=2)
    >>> [(round(m.gsd, 6), m.triples[0]) for m in r.matches], r.complete
    ([(0.2, (0, 0, 1)), (0.9, (0, 1, 2))], True)
    """
    return _search(
        snapshot,
        pattern,
        candidates,
        k=k,
        allow_node_reuse=allow_node_reuse,
        allow_triple_reuse=allow_triple_reuse,
        directed=directed,
        deadline=deadline,
    )


def check_candidates(snapshot: GraphSnapshot, pattern: Pattern, candidates: Candidates) -> bool:
    """Raise ``ValueError`` unless candidate sets exist exactly for the known elements and fit the snapshot;
    return whether every set is non-empty (an empty set means no match)."""
    nonempty = True
    nodes, relations = candidates.nodes, candidates.relations
    known_nodes = known_edges = 0
    for index, node in enumerate(pattern.nodes):
        if node.known:
            known_nodes += 1
            if index not in nodes:
                raise ValueError(f"known pattern node {index} ({node.label!r}) has no candidate set")
    for index, edge in enumerate(pattern.edges):
        if edge.known:
            known_edges += 1
            if index not in relations:
                raise ValueError(f"known pattern edge {index} ({edge.label!r}) has no candidate set")
    for kind, elements, sets, limit, known in (
        ("node", pattern.nodes, nodes, snapshot.n_nodes, known_nodes),
        ("edge", pattern.edges, relations, snapshot.n_relations, known_edges),
    ):
        if len(sets) != known:  # a set for an unknown element or a bad index: find it for the message
            for index in sets:
                if not (0 <= index < len(elements)) or not elements[index].known:
                    raise ValueError(f"candidate set given for pattern {kind} {index}; expected only known {kind}s")
        for index, found in sets.items():
            if found.max_id >= limit:
                raise ValueError(f"candidates of pattern {kind} {index} hold id {found.max_id}; expected ids < {limit}")
            if found.max_id < 0:
                nonempty = False
    return nonempty


def _search(
    snapshot: GraphSnapshot,
    pattern: Pattern,
    candidates: Candidates,
    *,
    k: int,
    allow_node_reuse: bool = False,
    allow_triple_reuse: bool = False,
    directed: bool = False,
    deadline: float | None = None,
    prune: bool = True,
    hook: Hook | None = None,
    lookahead: bool = True,
    root_lookahead_min: int = _kernel.ROOT_LOOKAHEAD_MIN,
    reverse_min: int = _kernel.REVERSE_MIN,
) -> MatchResult:
    """:func:`top_k_subgraphs` with test switches: ``prune=False`` is plain Algorithm 1; ``hook`` sees bounds
    (and turns off the ``limit`` filter of children, not the cuts); ``lookahead=False`` drops the lookahead
    tables; ``root_lookahead_min`` is the smallest root set re-ranked through step 0's tables; ``reverse_min`` is
    the longest slice scanned at a step with a lookahead table (longer ones read the table's reverse lists;
    -1: always)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    validate_pattern(pattern)
    if not check_candidates(snapshot, pattern, candidates):
        return MatchResult((), True, 0)
    order = matching_order(pattern, candidates)
    rem = remaining_bounds(
        order,
        {v: c.fixed.item(0) for v, c in candidates.nodes.items()},
        {e: c.fixed.item(0) for e, c in candidates.relations.items()},
    )
    graph = _GRAPHS.get(snapshot)
    if graph is None:
        graph = _GRAPHS[snapshot] = _kernel.Graph(snapshot)
    search = _kernel.Search(
        graph,
        pattern,
        candidates,
        order,
        rem,
        k,
        allow_node_reuse,
        allow_triple_reuse,
        directed,
        deadline,
        prune,
        hook,
        root_lookahead_min,
        reverse_min,
        lookahead,
    )
    try:
        complete = search.run()
    finally:
        search.release()
    return MatchResult(search.matches(), complete, search.expansions)
