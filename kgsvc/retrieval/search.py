"""Exact top-k subgraph matching by Graph Semantic Distance: branch and bound over the graph snapshot.

Implements SimGRAG's pattern-to-subgraph alignment (Cai et al., "SimGRAG: Leveraging Similar Subgraphs for
Knowledge Graphs Driven Retrieval-Augmented Generation", arXiv 2412.15272, §5.2: Algorithm 1 with the lower
bound of Eq. 11 and greedy ordering) as specified by DESIGN §6::

    GSD(P, S) = Σ_{known pattern nodes v} ‖z_v − z_f(v)‖₂ + Σ_{known pattern edges e} ‖z_r(e) − z_r(S, e)‖₂

Entry point: :func:`top_k_subgraphs`.

**Contract.** Given a pattern, candidate sets and ``k``, the result equals exhaustive enumeration of every
valid match followed by: group matches by their set of KG edge ids (one subgraph), keep each group's smallest
key, sort by key, take the first ``k``. A match is valid when

* every known pattern node maps into its candidate set and every known pattern edge's triple has a relation
  in its candidate set; unknown nodes and relations accept anything at distance 0;
* each pattern edge maps to one stored triple joining the two mapped nodes, **in either direction**;
* pattern edges map to distinct triples (parallel pattern edges are never collapsed; parallel KG edges give
  distinct subgraphs);
* the node map is injective, unless ``allow_node_reuse`` (then two pattern nodes may share a KG node, and an
  edge between them needs a KG self-loop).

The key is ``(GSD, edge ids in matching order, node map)``: the GSD as an exact fixed-point integer
(:mod:`kgsvc.retrieval.gsd`), then the KG edge ids listed in the order of :func:`~kgsvc.retrieval.order.
matching_order`, then the node map by pattern node index. The order is a function of the pattern and the
candidate-set sizes, so the output is deterministic (across runs and processes) and the tie-break prunes like
the GSD does: the search explores children in ascending ``(cost, edge id)``, so the k-th key's edge prefix
decides ties without enumerating them.

**Notation.** Paper → code: ``z_v``/``z_f(v)`` distances come in as ``CandidateSet.distances``;
``f`` is ``node_map`` (a list indexed by pattern node); ``C(n)[v]`` is ``candidates.nodes[v]``,
``C(r)[r]`` is ``candidates.relations[e]`` for pattern edge ``e``; the paper's traversal list ``L`` is
``order.steps``; ``res`` is ``_TopK``; Eq. 11's ``B`` is ``cost + c + rem[i + 1]``.

**Beyond the paper: lookahead.** For a later step into a *known* node ``v`` from a non-root node ``s``, the
search precomputes (per search, vectorised) the cheapest way any KG node can reach ``C(n)[v]`` over ``C(r)``,
and charges it when ``s`` is mapped instead of the plain minima of Eq. 9-10; nodes that cannot reach ``C(n)[v]``
are cut at once. Large root sets are re-ranked the same way through step 0. It is still a lower bound on every
completion (tested with the oracle's hook), so the contract is unchanged; it is what makes conjunctions and
stars over k(n)=16384 candidates tractable.

**Speed, not semantics.** Three mechanisms change only the cost: (1) searches without lookahead tables (most
small patterns, e.g. every MetaQA chain) run a lean driver (:meth:`_Searcher.run_lean`) with the step loop in one
closure; (2) node-cost and lookahead tables used by the numpy path are dense arrays over KG ids, borrowed from a
per-process pool (:class:`_Scratch`: up to ``_SCRATCH_KEEP`` free arrays of ``8 · n_nodes`` bytes kept per graph
size, reset entry by entry after each search) instead of binary search; (3) a step into a known node from a node
whose slice is long takes its children from the lookahead table's entries at that node (the same triples seen
from the candidates' side, :meth:`_Searcher._reverse`). Each has a test switch in :func:`_search`, and the
property test compares every path with the oracle.
"""

from __future__ import annotations

import time
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.retrieval.bound import remaining_bounds
from kgsvc.retrieval.candidates import Candidates, CandidateSet
from kgsvc.retrieval.gsd import GSD_SCALE
from kgsvc.retrieval.order import MatchingOrder, matching_order
from kgsvc.retrieval.pattern import Pattern, validate_pattern
from kgsvc.retrieval.result import Match, MatchResult

__all__ = ["top_k_subgraphs"]

I64 = npt.NDArray[np.int64]
Key = tuple[int, tuple[int, ...], tuple[int, ...]]
#: ``hook(node_map, edge_map, bound)`` — called for every partial mapping the search considers (tests only).
Hook = Callable[[dict[int, int], dict[int, int], int], None]

_SENTINEL = 1 << 60  # cost of a non-candidate; sums of two stay far below 2**63
_DENSE_NODE_LIMIT = 1 << 40  # up to this many KG nodes (default: any graph), the numpy path indexes dense
# node-cost arrays (pooled scratch buffers, see _Scratch) instead of binary search in id-sorted candidates
_REVERSE_MIN = 2048  # slices longer than this take their children from a lookahead table's entries (see _reverse)
_SCRATCH_KEEP = 4  # free scratch buffers kept per node count (each 8 bytes per KG node)
_SMALL_DEGREE = 48  # slices up to this size are filtered in plain Python (numpy's per-call cost dominates)
_DICT_LIMIT_NODES = 256  # candidate sets up to this size also get a dict for the Python path
_DICT_LIMIT_RELATIONS = 4096
_CHUNK = 256  # children converted to Python ints per batch
_LOOKAHEAD_ENTRIES = 1 << 22  # a lookahead table is built only when its candidates' slices hold fewer entries
_ROOT_LOOKAHEAD_MIN = 256  # root sets at least this large are re-ranked through step 0's lookahead tables
_ACCEPTED, _DUPLICATE, _WORSE = 0, 1, 2


def top_k_subgraphs(
    snapshot: GraphSnapshot,
    pattern: Pattern,
    candidates: Candidates,
    *,
    k: int,
    allow_node_reuse: bool = False,
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
    Depth-first branch and bound from the root's candidates in ascending distance. At step ``i`` from KG node
    ``x`` the children are ``x``'s CSR entries, filtered by relation candidates (a dense cost array over
    relation ids) and target-node candidates (a dense cost array over node ids, from a pooled scratch buffer), in
    one vectorised pass; then sorted by ``(cost, edge id)``. A step into a known node from a slice longer than
    ``_REVERSE_MIN`` reads its children from the lookahead table's entries at the source node instead.

    Lookahead (module docstring): tables over the candidates' adjacency, O(S log S) for the S entries in those
    slices, built only when S ≤ 2**22; ``c`` then includes the lookahead charge.

    Pruning: once ``k`` subgraphs are held, a child with bound ``B = cost + c + rem[i + 1]`` is cut when
    ``B`` exceeds the k-th GSD, or equals it and its edge-id prefix is larger than the k-th's. Children are
    sorted, so the first cut child ends the loop (``break``). The bound is admissible on cyclic patterns too
    (:mod:`kgsvc.retrieval.bound`), so the result equals exhaustive enumeration.

    Worst case (no pruning): O(Π over steps of the branching factor), i.e. exponential in the number of
    pattern edges — bounded by ``|C(root)| · Δ^|E|`` with Δ the largest degree, plus O(Δ log Δ) per expansion
    for the sort. Memory: O(k + |E|) besides the per-expansion child arrays (O(Δ)) and, for dense cost arrays,
    O(n_nodes) per known node and lookahead table while the search runs (pooled: up to ``_SCRATCH_KEEP`` such
    arrays per graph size stay allocated between searches, 16 MB each at 2M nodes).

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
    return _search(snapshot, pattern, candidates, k=k, allow_node_reuse=allow_node_reuse, deadline=deadline)


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


@dataclass(slots=True)
class _StepPlan:
    """What the search needs at one step, precomputed once per search (arrays built on first use)."""

    edge: int
    source: int
    target: int
    closing: bool
    rem_next: int  # rem[i + 1]
    relation_set: CandidateSet | None  # None: unknown relation
    relation_dict: dict[int, int] | None  # relation id -> fixed cost (Python path)
    node_set: CandidateSet | None  # known *new* target; None for unknown or closing targets
    node_dict: dict[int, int] | None  # node id -> fixed cost (Python path, small sets only)
    relation_cost: I64 | None = None  # by relation id, _SENTINEL outside C(r) (numpy path)
    dense_cost: I64 | None = None  # by node id, _SENTINEL outside C(n) (numpy path; a scratch buffer)
    sparse_ids: I64 | None = None  # id-sorted candidates (numpy path, large graphs)
    sparse_cost: I64 | None = None
    # lookahead (see _Lookahead): tables applied to this step's new node, and the one this step pays back
    ahead: list[_Lookahead] | None = None
    payback: _Lookahead | None = None
    python_ok: bool = False  # small slices may take the Python path (every set has a dict, so do built tables)


@dataclass(slots=True)
class _Lookahead:
    """A one-step lookahead for a later step ``i`` whose target is a known node ``v`` (any step source ``s``
    not the root): ``table[u]`` = min over KG entries ``(u, r, b)`` with ``r ∈ C(r_i)`` and ``b ∈ C(v)`` of
    ``d(r) + d(b)``, minus ``base`` = the minima that ``rem`` already counts for step ``i``.

    When the step that maps ``s`` picks ``u``, the child's cost rises by ``table[u]`` (a node absent from the
    table cannot be completed and is cut); step ``i`` subtracts it again before adding its real cost. Every real
    completion pays at least ``table[u] + base`` at step ``i``, so the bound stays admissible."""

    step: int
    base: int
    built: bool = False
    ids: I64 | None = None  # sorted KG ids u (None when too big to build: no lookahead)
    extra: I64 | None = None  # table[u] - base, aligned with ids
    as_dict: dict[int, int] | None = None  # the same, for small tables (Python path)
    dense: I64 | None = None  # the same by KG id, _SENTINEL where absent (numpy path, dense mode; a scratch buffer)
    # every entry behind the table, sorted by u: (u, d(b) + d(r), edge id, b), built on first use (_reverse)
    reverse: tuple[I64, I64, I64, I64] | None = None
    owner: _StepPlan | None = None  # the step that applies the table (its ``python_ok`` drops with a big table)


class _Scratch:
    """Pooled int64 arrays of ``n_nodes`` entries, all ``_SENTINEL`` while free.

    A search borrows one per dense cost table, writes the entries of its ids, and on release resets exactly those
    entries, so a table costs O(its ids) instead of O(n_nodes) once the pool is warm. Borrowing and returning
    are single ``list.pop``/``list.append`` calls (atomic under the GIL), so concurrent searches never share a
    buffer. At most ``_SCRATCH_KEEP`` free buffers are kept per node count."""

    _free: dict[int, list[I64]] = {}

    @classmethod
    def take(cls, n: int) -> I64:
        try:
            return cls._free.setdefault(n, []).pop()
        except IndexError:
            return np.full(n, _SENTINEL, dtype=np.int64)

    @classmethod
    def give(cls, buffer: I64, written: I64) -> None:
        buffer[written] = _SENTINEL
        free = cls._free.setdefault(buffer.shape[0], [])
        if len(free) < _SCRATCH_KEEP:
            free.append(buffer)


class _Deadline(Exception):
    """Raised inside the recursion when the deadline has passed."""


class _TopK:
    """The ``k`` smallest keys, at most one per subgraph (set of edge ids)."""

    __slots__ = ("k", "keys", "groups", "full", "kth_gsd", "kth_edges")

    def __init__(self, k: int) -> None:
        self.k = k
        self.keys: list[Key] = []
        self.groups: dict[frozenset[int], Key] = {}
        self.full = False
        self.kth_gsd = _SENTINEL
        self.kth_edges: tuple[int, ...] = ()

    def offer(self, key: Key) -> int:
        """Insert ``key`` if it belongs to the top k; ``_WORSE`` when it is not below the k-th key."""
        if self.full and key >= self.keys[-1]:
            return _WORSE
        group = frozenset(key[1])
        old = self.groups.get(group)
        if old is not None:
            if key >= old:
                return _DUPLICATE
            del self.keys[bisect_left(self.keys, old)]
        insort(self.keys, key)
        self.groups[group] = key
        if len(self.keys) > self.k:
            evicted = self.keys.pop()
            del self.groups[frozenset(evicted[1])]
        if len(self.keys) == self.k:
            self.full = True
            self.kth_gsd, self.kth_edges = self.keys[-1][0], self.keys[-1][1]
        return _ACCEPTED


def _search(
    snapshot: GraphSnapshot,
    pattern: Pattern,
    candidates: Candidates,
    *,
    k: int,
    allow_node_reuse: bool = False,
    deadline: float | None = None,
    prune: bool = True,
    hook: Hook | None = None,
    small_degree: int = _SMALL_DEGREE,
    dense_node_limit: int = _DENSE_NODE_LIMIT,
    root_lookahead_min: int = _ROOT_LOOKAHEAD_MIN,
    lean_path: bool = True,
    reverse_children: bool = True,
) -> MatchResult:
    """:func:`top_k_subgraphs` with test switches: ``prune=False`` is plain Algorithm 1; ``hook`` sees bounds;
    ``small_degree`` and ``dense_node_limit`` choose between the Python, dense-numpy and sparse-numpy paths;
    ``root_lookahead_min`` is the smallest root set re-ranked by :meth:`_Searcher._root_candidates`;
    ``lean_path=False`` keeps :meth:`_Searcher.run` where :meth:`_Searcher.run_lean` would apply;
    ``reverse_children=False`` scans the source's slice at steps with a lookahead table (numpy path)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    validate_pattern(pattern)
    if not check_candidates(snapshot, pattern, candidates):
        return MatchResult((), True, 0)
    order = matching_order(pattern, candidates)
    searcher = _Searcher(snapshot, candidates, order, len(pattern.nodes), k, allow_node_reuse, deadline, prune, hook)
    searcher.small_degree, searcher.dense = small_degree, snapshot.n_nodes <= dense_node_limit
    searcher.root_lookahead_min, searcher.reverse_children = root_lookahead_min, reverse_children
    if small_degree < 0:  # test switch: every slice takes the numpy path, and the reverse one where it applies
        searcher.reverse_min = -1
    lean = prune and hook is None and all(plan.ahead is None and plan.payback is None for plan in searcher.steps)
    try:
        complete = searcher.run_lean() if lean and lean_path else searcher.run()
    finally:
        searcher.release()
    return MatchResult(_report(snapshot, pattern, candidates, order, searcher.top.keys), complete, searcher.expansions)


class _Searcher:
    """State of one depth-first branch and bound (see :func:`top_k_subgraphs`, Notes)."""

    def __init__(
        self,
        snapshot: GraphSnapshot,
        candidates: Candidates,
        order: MatchingOrder,
        n_pattern_nodes: int,
        k: int,
        reuse: bool,
        deadline: float | None,
        prune: bool,
        hook: Hook | None,
    ) -> None:
        self.snapshot = snapshot
        self.indptr = _plain(snapshot.indptr)
        self.neighbors = _plain(snapshot.neighbors)
        self.relations = _plain(snapshot.relations)
        self.edge_ids = _plain(snapshot.edge_ids)
        self.borrowed: list[tuple[I64, I64]] = []  # scratch buffers and the ids written, released by release()
        self.reverse_children = True  # steps into known nodes read their children from the lookahead table
        self.reverse_min = _REVERSE_MIN  # ... when the source's slice is longer than this
        self.reuse = reuse
        self.deadline = deadline
        self.prune = prune
        self.hook = hook
        self.top = _TopK(k)
        self.expansions = 0
        self.small_degree = _SMALL_DEGREE
        self.dense = snapshot.n_nodes <= _DENSE_NODE_LIMIT
        self.root = order.root
        self.root_set = candidates.nodes[order.root]
        self.rem = remaining_bounds(
            order,
            {v: c.fixed.item(0) for v, c in candidates.nodes.items()},
            {e: c.fixed.item(0) for e, c in candidates.relations.items()},
        )
        self.steps: list[_StepPlan] = []
        for i, step in enumerate(order.steps):
            relation_set = candidates.relations.get(step.edge)
            node_set = None if step.closing else candidates.nodes.get(step.target)
            relation_dict = _as_dict(relation_set, _DICT_LIMIT_RELATIONS)
            node_dict = _as_dict(node_set, _DICT_LIMIT_NODES)
            plan = _StepPlan(
                step.edge,
                step.source,
                step.target,
                step.closing,
                self.rem[i + 1],
                relation_set,
                relation_dict,
                node_set,
                node_dict,
            )
            plan.python_ok = (relation_set is None or relation_dict is not None) and (
                node_set is None or node_dict is not None
            )
            self.steps.append(plan)
        self.last = len(self.steps) - 1
        first: dict[int, int] = {}
        for i, step in enumerate(order.steps):
            if step.closing or self.steps[i].node_set is None or step.source == order.root:
                continue
            first = first or order.first_step_of()
            registering = self.steps[first[step.source]]
            table = _Lookahead(i, self.rem[i] - self.rem[i + 1], owner=registering)
            self.steps[i].payback = table
            registering.ahead = [*(registering.ahead or []), table]
        self.node_map = [-1] * n_pattern_nodes
        self.used_nodes: set[int] = set()
        self.prefix: tuple[int, ...] = ()
        self.root_sub = 0
        self.root_lookahead_min = _ROOT_LOOKAHEAD_MIN

    # -- driver ----------------------------------------------------------------------------------------------

    def run(self) -> bool:
        """Search from every root candidate in ascending distance; ``False`` when the deadline cut it short."""
        top, rem0, root, hook, prune = self.top, self.rem[0], self.root, self.hook, self.prune
        try:
            for c, y, sub in self._root_candidates():
                if hook is not None:
                    hook({root: y}, {}, c + rem0)
                if prune and c + rem0 > top.kth_gsd:
                    break
                self.node_map[root] = y
                self.used_nodes.add(y)
                self.root_sub = sub
                self._expand(0, c)
                self.used_nodes.discard(y)
        except _Deadline:
            return False
        return True

    def run_lean(self) -> bool:
        """:meth:`run` for pruned searches without lookahead tables or hook (most small patterns), with the step
        loop of :meth:`_expand` in one closure over local variables: the same children in the same order, the
        same cuts, less interpreter overhead per expansion (the per-call cost dominates tiny searches)."""
        top, node_map, used_nodes, reuse = self.top, self.node_map, self.used_nodes, self.reuse
        indptr, neighbors, relations, edge_ids = self.indptr, self.neighbors, self.relations, self.edge_ids
        small_degree, last, deadline = self.small_degree, self.last, self.deadline
        children_numpy = self._children_numpy
        steps = [
            (plan, plan.rem_next, plan.closing, plan.source, plan.target, plan.relation_dict, plan.node_dict)
            for plan in self.steps
        ]
        expansions = 0

        def expand(i: int, cost: int, prefix: tuple[int, ...]) -> None:
            nonlocal expansions
            expansions += 1
            if deadline is not None and time.monotonic() > deadline:
                raise _Deadline
            plan, rem_next, closing, source, target, relation_cost, node_cost = steps[i]
            limit = top.kth_gsd - cost - rem_next
            if limit >= _SENTINEL:
                limit = _SENTINEL - 1
            x = node_map[source]
            start, stop = indptr.item(x), indptr.item(x + 1)
            other = -1
            if closing:
                other = node_map[target]
                other_start, other_stop = indptr.item(other), indptr.item(other + 1)
                if other_stop - other_start < stop - start:
                    other, start, stop = x, other_start, other_stop
            rows: Iterable[tuple[int, int, int]]
            if not plan.python_ok or stop - start > small_degree:
                rows = children_numpy(plan, start, stop, other, limit)
            else:  # _children_python, inlined
                rows = []
                if closing:
                    y = node_map[target]
                    for n, r, e in zip(
                        neighbors[start:stop].tolist(),
                        relations[start:stop].tolist(),
                        edge_ids[start:stop].tolist(),
                        strict=True,
                    ):
                        if n == other:
                            c = 0 if relation_cost is None else relation_cost.get(r)
                            if c is not None and c <= limit:
                                rows.append((c, e, y))
                elif relation_cost is not None:
                    if node_cost is not None:
                        for n, r, e in zip(
                            neighbors[start:stop].tolist(),
                            relations[start:stop].tolist(),
                            edge_ids[start:stop].tolist(),
                            strict=True,
                        ):
                            c = relation_cost.get(r)
                            if c is not None:
                                d = node_cost.get(n)
                                if d is not None and c + d <= limit:
                                    rows.append((c + d, e, n))
                    else:
                        for n, r, e in zip(
                            neighbors[start:stop].tolist(),
                            relations[start:stop].tolist(),
                            edge_ids[start:stop].tolist(),
                            strict=True,
                        ):
                            c = relation_cost.get(r)
                            if c is not None and c <= limit:
                                rows.append((c, e, n))
                elif node_cost is not None:
                    for n, e in zip(neighbors[start:stop].tolist(), edge_ids[start:stop].tolist(), strict=True):
                        d = node_cost.get(n)
                        if d is not None and d <= limit:
                            rows.append((d, e, n))
                elif limit >= 0:
                    rows = [
                        (0, e, n)
                        for n, e in zip(neighbors[start:stop].tolist(), edge_ids[start:stop].tolist(), strict=True)
                    ]
                rows.sort()
            leaf = i == last
            base = cost + rem_next
            for c, e, y in rows:
                bound = base + c
                if top.full:
                    if bound > top.kth_gsd:
                        break
                    if bound == top.kth_gsd and prefix + (e,) > top.kth_edges[: i + 1]:
                        break
                if e in prefix:
                    continue  # a triple serves one pattern edge only
                if not closing:
                    if y in used_nodes and not reuse:
                        continue
                    node_map[target] = y
                if leaf:
                    if top.offer((bound, prefix + (e,), tuple(node_map))) == _WORSE:
                        break
                    continue
                if closing:
                    expand(i + 1, cost + c, prefix + (e,))
                elif y in used_nodes:
                    expand(i + 1, cost + c, prefix + (e,))
                else:
                    used_nodes.add(y)
                    try:
                        expand(i + 1, cost + c, prefix + (e,))
                    finally:
                        used_nodes.discard(y)
            if not closing:
                node_map[target] = -1

        rem0, root = self.rem[0], self.root
        try:
            for c, y in zip(self.root_set.fixed.tolist(), self.root_set.ids.tolist(), strict=True):
                if c + rem0 > top.kth_gsd:
                    break
                node_map[root] = y
                used_nodes.add(y)
                expand(0, c, ())
                used_nodes.discard(y)
        except _Deadline:
            return False
        finally:
            self.expansions = expansions
        return True

    # -- one step --------------------------------------------------------------------------------------------

    def _expand(self, i: int, cost: int) -> None:
        """Try every child of the current partial map (steps ``0 .. i - 1`` matched) at step ``i``."""
        self.expansions += 1
        deadline = self.deadline
        if deadline is not None and time.monotonic() > deadline:
            raise _Deadline
        plan = self.steps[i]
        top, prefix, prune, node_map = self.top, self.prefix, self.prune, self.node_map
        if i == 0:
            cost -= self.root_sub
        payback, ahead = plan.payback, plan.ahead
        if payback is not None and payback.ids is not None:
            cost -= self._extra_of(payback, node_map[plan.source])
        if ahead is not None:
            for table in ahead:
                if not table.built:
                    self._build_lookahead(table)
        rem_next, closing, target = plan.rem_next, plan.closing, plan.target
        limit = _SENTINEL - 1  # children cheaper than this are candidates; with k held, the bound's slack
        if prune and self.hook is None:
            limit = min(limit, top.kth_gsd - cost - rem_next)
        x = node_map[plan.source]
        indptr = self.indptr
        start, stop = indptr.item(x), indptr.item(x + 1)
        other = -1  # closing steps: the node whose entries in [start, stop) are wanted
        if closing:
            other = node_map[target]
            other_start, other_stop = indptr.item(other), indptr.item(other + 1)
            if other_stop - other_start < stop - start:  # scan the smaller slice
                other, start, stop = x, other_start, other_stop
        rows: Iterable[tuple[int, int, int]]
        if plan.python_ok and stop - start <= self.small_degree:
            rows = self._children_python(plan, start, stop, other, limit)
        else:
            rows = self._children_numpy(plan, start, stop, other, limit)
        if self.hook is not None:
            rows = list(rows)
            self._report_children(plan, cost, rows)
        used_nodes, reuse = self.used_nodes, self.reuse
        leaf = i == self.last
        base = cost + rem_next
        for c, e, y in rows:
            bound = base + c
            if prune and top.full:
                if bound > top.kth_gsd:
                    break
                if bound == top.kth_gsd and prefix + (e,) > top.kth_edges[: i + 1]:
                    break
            if e in prefix:
                continue  # a triple serves one pattern edge only
            if not closing:
                if y in used_nodes and not reuse:
                    continue
                node_map[target] = y
            edges = prefix + (e,)
            if leaf:
                if top.offer((bound, edges, tuple(node_map))) == _WORSE and prune:
                    break
                continue
            self.prefix = edges
            if closing:
                self._expand(i + 1, cost + c)
            else:
                added = y not in used_nodes
                used_nodes.add(y)
                try:
                    self._expand(i + 1, cost + c)
                finally:
                    if added:
                        used_nodes.discard(y)
            self.prefix = prefix
        if not closing:
            node_map[target] = -1

    def _children_python(
        self, plan: _StepPlan, start: int, stop: int, other: int, limit: int
    ) -> list[tuple[int, int, int]]:
        """Children ``(cost, edge id, target)`` of a small slice, in plain Python, sorted, ``cost <= limit``.

        For a closing step, only the entries whose neighbour is ``other`` count."""
        neighbors = self.neighbors[start:stop].tolist()
        edge_ids = self.edge_ids[start:stop].tolist()
        relation_cost, node_cost = plan.relation_dict, plan.node_dict
        rows: list[tuple[int, int, int]] = []
        if plan.closing:
            y = self.node_map[plan.target]
            relations = self.relations[start:stop].tolist()
            for n, r, e in zip(neighbors, relations, edge_ids, strict=True):
                if n == other:
                    c = 0 if relation_cost is None else relation_cost.get(r)
                    if c is not None and c <= limit:
                        rows.append((c, e, y))
        elif relation_cost is not None:
            relations = self.relations[start:stop].tolist()
            if node_cost is not None:
                for n, r, e in zip(neighbors, relations, edge_ids, strict=True):
                    c = relation_cost.get(r)
                    if c is not None:
                        d = node_cost.get(n)
                        if d is not None and c + d <= limit:
                            rows.append((c + d, e, n))
            else:
                for n, r, e in zip(neighbors, relations, edge_ids, strict=True):
                    c = relation_cost.get(r)
                    if c is not None and c <= limit:
                        rows.append((c, e, n))
        elif node_cost is not None:
            for n, e in zip(neighbors, edge_ids, strict=True):
                d = node_cost.get(n)
                if d is not None and d <= limit:
                    rows.append((d, e, n))
        elif limit >= 0:
            rows = [(0, e, n) for n, e in zip(neighbors, edge_ids, strict=True)]
        if plan.ahead is not None:
            for table in plan.ahead:
                if table.as_dict is not None:
                    extra = table.as_dict
                    rows = [(c + extra[n], e, n) for c, e, n in rows if n in extra and c + extra[n] <= limit]
        rows.sort()
        return rows

    def _children_numpy(
        self, plan: _StepPlan, start: int, stop: int, other: int, limit: int
    ) -> Iterable[tuple[int, int, int]]:
        """Children ``(cost, edge id, target)`` of a slice, vectorised, sorted, ``cost <= limit``."""
        targets: npt.NDArray[Any]
        if plan.closing:
            hits = start + np.flatnonzero(self.neighbors[start:stop] == other)
            targets = np.full(hits.shape[0], self.node_map[plan.target], dtype=np.int64)
            eids = self.edge_ids[hits]
            costs = (
                self._relation_cost(plan)[self.relations[hits]]
                if plan.relation_set is not None
                else np.zeros(hits.shape[0], dtype=np.int64)
            )
        elif (
            plan.payback is not None
            and plan.payback.ids is not None
            and stop - start > self.reverse_min
            and self.reverse_children
        ):
            # step into a known node with a lookahead table: the children of x are the table's entries at x (the
            # same triples seen from the candidates' side), O(log S + hits) instead of a scan of x's slice
            rev_u, rev_cost, rev_eid, rev_b = self._reverse(plan.payback)
            x = self.node_map[plan.source]
            lo, hi = int(np.searchsorted(rev_u, x)), int(np.searchsorted(rev_u, x, side="right"))
            costs, eids, targets = rev_cost[lo:hi], rev_eid[lo:hi], rev_b[lo:hi]
        else:
            targets = self.neighbors[start:stop]
            eids = self.edge_ids[start:stop]
            node_cost: I64 | None = None
            if plan.node_set is not None:
                if self.dense:
                    if plan.dense_cost is None:
                        plan.dense_cost = self._borrow(plan.node_set.ids, plan.node_set.fixed)
                    node_cost = plan.dense_cost[targets]
                else:
                    if plan.sparse_ids is None or plan.sparse_cost is None:
                        by_id = np.argsort(plan.node_set.ids)
                        plan.sparse_ids, plan.sparse_cost = plan.node_set.ids[by_id], plan.node_set.fixed[by_id]
                    where = np.searchsorted(plan.sparse_ids, targets)
                    np.minimum(where, plan.sparse_ids.shape[0] - 1, out=where)
                    node_cost = np.where(plan.sparse_ids[where] == targets, plan.sparse_cost[where], _SENTINEL)
            if plan.relation_set is not None:
                costs = self._relation_cost(plan)[self.relations[start:stop]]
                if node_cost is not None:
                    costs = costs + node_cost
            elif node_cost is not None:
                costs = node_cost
            else:
                costs = np.zeros(stop - start, dtype=np.int64)
        if plan.ahead is not None:
            for table in plan.ahead:
                if table.ids is not None and table.extra is not None:
                    costs = np.minimum(costs + self._table_lookup(table, targets), _SENTINEL)
        keep = np.flatnonzero(costs <= limit)
        if keep.shape[0] != costs.shape[0]:
            costs, targets, eids = costs[keep], targets[keep], eids[keep]
        if costs.shape[0] > 1:
            order = np.lexsort((eids, costs))
            costs, targets, eids = costs[order], targets[order], eids[order]
        return _rows(costs, eids, targets)

    def _extra_of(self, table: _Lookahead, node: int) -> int:
        """``table[node] - base`` for a node the registering step let through (so it is in the table)."""
        if table.as_dict is not None:
            return table.as_dict[node]
        if table.dense is not None:
            return table.dense.item(node)
        assert table.ids is not None and table.extra is not None
        return int(table.extra[int(np.searchsorted(table.ids, node))])

    def _table_lookup(self, table: _Lookahead, wanted: npt.NDArray[Any]) -> I64:
        """``table[u] - base`` for each ``u`` in ``wanted``, ``_SENTINEL`` where absent: a dense gather (dense
        mode, the table copied into a scratch buffer on first use) or binary search."""
        assert table.ids is not None and table.extra is not None
        if not self.dense:
            return _sparse_lookup(table.ids, table.extra, wanted)
        if table.dense is None:
            table.dense = self._borrow(table.ids, table.extra)
        found: I64 = table.dense[wanted]
        return found

    def _borrow(self, ids: I64, values: I64) -> I64:
        """A scratch buffer with ``values`` at ``ids`` and ``_SENTINEL`` elsewhere (returned by release())."""
        buffer = _Scratch.take(self.snapshot.n_nodes)
        self.borrowed.append((buffer, ids))
        buffer[ids] = values
        return buffer

    def release(self) -> None:
        """Give the scratch buffers back (called once the search is over)."""
        for buffer, ids in self.borrowed:
            _Scratch.give(buffer, ids)
        self.borrowed.clear()

    def _root_candidates(self) -> Iterable[tuple[int, int, int]]:
        """Root candidates as ``(cost, id, lookahead part of cost)``, ascending by ``(cost, id)``.

        Plainly the root set with a zero lookahead. When step 0 leads from a large root set to an unknown node
        that later steps' lookahead tables constrain (a conjunction or star), each root candidate ``a`` also pays
        ``min`` over its step-0 entries of relation distance + those tables at the neighbour (minus what ``rem``
        counts for step 0), and candidates with no such entry are dropped: the same admissible bound, one step
        earlier. Step 0 subtracts it again (``root_sub``)."""
        fixed, ids = self.root_set.fixed, self.root_set.ids
        plan = self.steps[0]
        if plan.closing or plan.node_set is not None or not plan.ahead or ids.shape[0] < self.root_lookahead_min:
            return _triples(fixed, ids, np.zeros(ids.shape[0], dtype=np.int64))
        for table in plan.ahead:
            if not table.built:
                self._build_lookahead(table)
        tables = [t for t in plan.ahead if t.ids is not None and t.extra is not None]
        lengths = self.indptr[ids + 1] - self.indptr[ids]
        total = int(lengths.sum())
        if not tables or total > _LOOKAHEAD_ENTRIES:
            return _triples(fixed, ids, np.zeros(ids.shape[0], dtype=np.int64))
        ends = np.cumsum(lengths)
        entries = np.arange(total, dtype=np.int64) + np.repeat(self.indptr[ids] - (ends - lengths), lengths)
        if plan.relation_set is not None:
            costs = self._relation_cost(plan)[self.relations[entries]]
        else:
            costs = np.zeros(total, dtype=np.int64)
        targets = self.neighbors[entries]
        for table in tables:
            costs = np.minimum(costs + self._table_lookup(table, targets), _SENTINEL)
        best = np.full(ids.shape[0], _SENTINEL, dtype=np.int64)
        nonempty = lengths > 0
        if total:
            best[nonempty] = np.minimum.reduceat(costs, (ends - lengths)[nonempty])
        keep = best < _SENTINEL
        subs = best[keep] - (self.rem[0] - self.rem[1])
        costs, ids = fixed[keep] + subs, ids[keep]
        order = np.lexsort((ids, costs))
        return _triples(costs[order], ids[order], subs[order])

    def _build_lookahead(self, table: _Lookahead) -> None:
        """Fill ``table`` (see :class:`_Lookahead`) from the slices of the target's candidates, vectorised.

        O(S log S) for the S entries in those slices; skipped (no lookahead, ``ids`` stays ``None``) when S is
        above ``_LOOKAHEAD_ENTRIES``."""
        table.built = True
        plan = self.steps[table.step]
        assert plan.node_set is not None
        nodes, fixed = plan.node_set.ids, plan.node_set.fixed
        lengths = self.indptr[nodes + 1] - self.indptr[nodes]
        total = int(lengths.sum())
        if total > _LOOKAHEAD_ENTRIES:
            return
        ends = np.cumsum(lengths)
        entries = np.arange(total, dtype=np.int64) + np.repeat(self.indptr[nodes] - (ends - lengths), lengths)
        costs = np.repeat(fixed, lengths)
        if plan.relation_set is not None:
            costs = costs + self._relation_cost(plan)[self.relations[entries]]
        ids = self.neighbors[entries].astype(np.int64)
        keep = costs < _SENTINEL
        ids, costs = ids[keep], costs[keep]
        cost_bits = 62 - max(1, self.snapshot.n_nodes.bit_length())
        if costs.shape[0] and int(costs.max()) < (1 << cost_bits):  # one np.sort of packed keys: faster
            packed = np.sort((ids << cost_bits) | costs)
            ids, costs = packed >> cost_bits, packed & ((1 << cost_bits) - 1)
        else:
            order = np.lexsort((costs, ids))
            ids, costs = ids[order], costs[order]
        first = np.ones(ids.shape[0], dtype=bool)
        first[1:] = ids[1:] != ids[:-1]
        table.ids, table.extra = ids[first], costs[first] - table.base
        if table.ids.shape[0] <= _DICT_LIMIT_RELATIONS:
            table.as_dict = dict(zip(table.ids.tolist(), table.extra.tolist(), strict=True))
        elif table.owner is not None:
            table.owner.python_ok = False

    def _reverse(self, table: _Lookahead) -> tuple[I64, I64, I64, I64]:
        """The entries behind ``table`` sorted by the far end ``u`` (see :class:`_Lookahead`): for each triple
        ``(u, r, b)`` with ``b`` in the step's node candidates and ``r`` in its relation candidates, ``u``,
        ``d(b) + d(r)``, the edge id and ``b``. O(S log S), once per table."""
        if table.reverse is None:
            plan = self.steps[table.step]
            assert plan.node_set is not None
            nodes, fixed = plan.node_set.ids, plan.node_set.fixed
            lengths = self.indptr[nodes + 1] - self.indptr[nodes]
            total = int(lengths.sum())
            ends = np.cumsum(lengths)
            entries = np.arange(total, dtype=np.int64) + np.repeat(self.indptr[nodes] - (ends - lengths), lengths)
            costs = np.repeat(fixed, lengths)
            owners = np.repeat(nodes, lengths)
            if plan.relation_set is not None:
                costs = costs + self._relation_cost(plan)[self.relations[entries]]
            keep = np.flatnonzero(costs < _SENTINEL)
            entries, costs, owners = entries[keep], costs[keep], owners[keep]
            u = self.neighbors[entries].astype(np.int64)
            position_bits = max(1, total.bit_length())  # total <= _LOOKAHEAD_ENTRIES: u and position fit 63 bits
            order = np.sort((u << position_bits) | np.arange(u.shape[0], dtype=np.int64)) & ((1 << position_bits) - 1)
            table.reverse = (u[order], costs[order], self.edge_ids[entries[order]].astype(np.int64), owners[order])
        return table.reverse

    def _relation_cost(self, plan: _StepPlan) -> I64:
        """The dense relation-cost array of a known relation (built on first use)."""
        if plan.relation_cost is None:
            assert plan.relation_set is not None
            plan.relation_cost = np.full(self.snapshot.n_relations, _SENTINEL, dtype=np.int64)
            plan.relation_cost[plan.relation_set.ids] = plan.relation_set.fixed
        return plan.relation_cost

    def _report_children(self, plan: _StepPlan, cost: int, rows: list[tuple[int, int, int]]) -> None:
        """Call the test hook with every valid child of the current partial map."""
        assert self.hook is not None
        steps = self.steps
        edge_map = {steps[j].edge: e for j, e in enumerate(self.prefix)}
        for c, e, y in rows:
            if e in self.prefix or (not plan.closing and y in self.used_nodes and not self.reuse):
                continue
            nodes = {v: u for v, u in enumerate(self.node_map) if u >= 0}
            nodes[plan.target] = y
            self.hook(nodes, {**edge_map, plan.edge: e}, cost + c + plan.rem_next)


def _as_dict(found: CandidateSet | None, limit: int) -> dict[int, int] | None:
    """``{id: fixed cost}`` for sets of at most ``limit`` ids (the Python path); ``None`` otherwise."""
    if found is None or found.ids.shape[0] > limit:
        return None
    return dict(zip(found.ids.tolist(), found.fixed.tolist()))  # noqa: B905 (aligned by construction)


def _plain(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A base-class view of a (memory-mapped) array: slicing an ``np.memmap`` costs a Python-level hook."""
    return array if type(array) is np.ndarray else array.view(np.ndarray)


def _sparse_lookup(ids: I64, values: I64, wanted: npt.NDArray[Any]) -> I64:
    """``values`` at the positions of ``wanted`` in the sorted ``ids``; ``_SENTINEL`` where absent."""
    if ids.shape[0] == 0:
        return np.full(wanted.shape[0], _SENTINEL, dtype=np.int64)
    where = np.searchsorted(ids, wanted)
    np.minimum(where, ids.shape[0] - 1, out=where)
    return np.where(ids[where] == wanted, values[where], _SENTINEL)


def _triples(
    first: npt.NDArray[Any], second: npt.NDArray[Any], third: npt.NDArray[Any]
) -> Iterable[tuple[int, int, int]]:
    """Three arrays as Python int triples, converted ``_CHUNK`` at a time (loops usually stop early)."""
    if first.shape[0] <= _CHUNK:
        return zip(first.tolist(), second.tolist(), third.tolist(), strict=True)
    return _chunked(first, second, third)


def _chunked(
    first: npt.NDArray[Any], second: npt.NDArray[Any], third: npt.NDArray[Any]
) -> Iterator[tuple[int, int, int]]:
    """:func:`_triples` for long arrays."""
    for at in range(0, first.shape[0], _CHUNK):
        yield from zip(
            first[at : at + _CHUNK].tolist(),
            second[at : at + _CHUNK].tolist(),
            third[at : at + _CHUNK].tolist(),
            strict=True,
        )


def _rows(costs: I64, eids: npt.NDArray[Any], targets: npt.NDArray[Any]) -> Iterable[tuple[int, int, int]]:
    """Children as Python int triples ``(cost, edge id, target)``, converted ``_CHUNK`` at a time."""
    return _triples(costs, eids, targets)


def _report(
    snapshot: GraphSnapshot, pattern: Pattern, candidates: Candidates, order: MatchingOrder, keys: list[Key]
) -> tuple[Match, ...]:
    """The :class:`Match` of each key: edge ids back in pattern-edge order, stored triples, per-element distances."""
    if not keys:
        return ()
    heads, relations, tails = snapshot.triple_heads, snapshot.triple_relations, snapshot.triple_tails
    position = [step.edge for step in order.steps]
    m, n = len(position), len(keys[0][2])
    node_sets = [(v, _distance_finder(found)) for v, found in candidates.nodes.items()]
    relation_sets = [(e, _distance_finder(found)) for e, found in candidates.relations.items()]
    answer = pattern.answer
    matches = []
    for gsd, edges, node_map in keys:
        by_edge = [0] * m
        for edge, eid in zip(position, edges, strict=True):
            by_edge[edge] = eid
        triples = [(heads.item(e), relations.item(e), tails.item(e)) for e in by_edge]
        node_distances: list[float | None] = [None] * n
        for v, find in node_sets:
            node_distances[v] = find(node_map[v])
        relation_distances: list[float | None] = [None] * m
        for e, find in relation_sets:
            relation_distances[e] = find(triples[e][1])
        matches.append(
            Match(
                gsd / GSD_SCALE,
                node_map,
                tuple(by_edge),
                tuple(triples),
                tuple(node_distances),
                tuple(relation_distances),
                None if answer is None else node_map[answer],
            )
        )
    return tuple(matches)


def _distance_finder(found: CandidateSet) -> Callable[[int], float]:
    """``kg id -> distance`` for ids in ``found``: a linear scan of small sets (the best matches use the first
    candidates), else binary search over the id-sorted set."""
    distances = found.distances
    if found.ids.shape[0] <= _DICT_LIMIT_NODES:
        ids = found.ids.tolist()
        return lambda kg_id: distances.item(ids.index(kg_id))
    by_id = np.argsort(found.ids)
    sorted_ids = found.ids[by_id]
    return lambda kg_id: distances.item(by_id.item(int(np.searchsorted(sorted_ids, kg_id))))
