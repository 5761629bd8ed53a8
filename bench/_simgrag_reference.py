"""A plain-Python GSD top-k matcher written the way SimGRAG's code is (for ``bench/matcher.py`` only).

Style of SimGRAG's ``retriever.py`` (arXiv 2412.15272 §5.2, Algorithm 1 with its pruning):

* KG as a dict of dicts: ``adj[node][relation] = [(neighbor, edge_id), ...]``, both directions merged;
* candidates as dicts ``{kg_id: distance}``; unknown = ``None`` (accept anything at distance 0);
* root = the known pattern node with the fewest candidates; pattern edges in DFS order from it;
* recursive ``expand`` over the neighbours, children sorted ascending by added distance (greedy order);
  ``break`` when ``mapped + child + remaining-best > k-th best`` (the paper's Eq. 11 with ``>``, so ties with
  the k-th are explored, as in the paper's code);
* top-k in a bounded sorted list (SimGRAG uses a heap).

Deviations from SimGRAG's code, so that the answers are comparable with ``kgsvc.retrieval``: parallel KG edges
are kept (edge ids), the node map is injective (paper semantics), pattern edges map to distinct triples, the
remaining-best bound counts each node once (valid on cycles), and a subgraph (set of edge ids) is reported once,
with its smallest key. The top-k keeps exactly ``k`` subgraphs ordered by ``(GSD, edge ids listed in tie_order,
node map)``: pass ``kgsvc``'s matching order as ``tie_order`` and fixed-point integer distances to get exactly
``kgsvc``'s tie-break (default: sorted edge ids). ``walks=True`` drops both injectivity rules (SPARQL's
homomorphism, ``kgsvc``'s ``allow_node_reuse`` + ``allow_triple_reuse``): a subgraph is then its set of edge ids
and, when ``answer`` names a pattern node, that node's binding. SimGRAG's heap keeps every subgraph tied with the
k-th, which is what made it slow on tie-heavy patterns; that cost is **not** reproduced here, so this reference is
faster than the original.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterable

__all__ = ["ReferenceTimeout", "build_adjacency", "reference_top_k"]

Adjacency = dict[int, dict[int, list[tuple[int, int]]]]


class ReferenceTimeout(Exception):
    """The reference ran past its deadline."""


def build_adjacency(triples: Iterable[tuple[int, int, int]]) -> Adjacency:
    """``adj[node][relation] = [(neighbor, edge_id), ...]`` over both directions (self-loops once)."""
    adj: Adjacency = {}
    for eid, (h, r, t) in enumerate(triples):
        adj.setdefault(h, {}).setdefault(r, []).append((t, eid))
        if h != t:
            adj.setdefault(t, {}).setdefault(r, []).append((h, eid))
    return adj


def reference_top_k(
    adj: Adjacency,
    pattern_edges: list[tuple[int, int]],
    node_cands: list[dict[int, float] | None],
    edge_cands: list[dict[int, float] | None],
    k: int,
    *,
    deadline: float | None = None,
    tie_order: list[int] | None = None,
    walks: bool = False,
    answer: int | None = None,
) -> list[tuple[float, tuple[int, ...], tuple[int, ...]]]:
    """Top-k ``(gsd, node map, edge ids per pattern edge)``, ascending by ``(gsd, tie edges, node map)``.

    Distances may be floats or integers (fixed point: sums are then exact, and so are ties). The tie edges are
    the edge ids of the pattern edges listed in ``tie_order``, or all of them sorted when it is ``None``.
    """
    n_nodes = len(node_cands)
    known = [v for v in range(n_nodes) if node_cands[v] is not None]
    root = min(known, key=lambda v: (len(node_cands[v] or {}), v))
    # DFS order of the pattern edges from the root (tree and cycle edges alike)
    order: list[tuple[int, int, int]] = []  # (pattern edge, from node, to node)
    seen_nodes, seen_edges = {root}, set()
    stack = [root]
    while stack:
        v = stack.pop()
        for j, (a, b) in enumerate(pattern_edges):
            if j in seen_edges or v not in (a, b):
                continue
            other = b if a == v else a
            seen_edges.add(j)
            order.append((j, v, other))
            if other not in seen_nodes:
                seen_nodes.add(other)
                stack.append(other)
    first_reach = {}
    for pos, (_, _, to) in enumerate(order):
        first_reach.setdefault(to, pos)
    best_node = {v: min(c.values()) if c else 0 for v, c in enumerate(node_cands) if c is not None}
    best_rel = {j: min(c.values()) if c else 0 for j, c in enumerate(edge_cands) if c is not None}
    final_best_score = [0] * (len(order) + 1)
    for pos in range(len(order) - 1, -1, -1):
        j, _, to = order[pos]
        extra = best_rel.get(j, 0)
        if to != root and first_reach.get(to) == pos:
            extra += best_node.get(to, 0)
        final_best_score[pos] = final_best_score[pos + 1] + extra

    res: list[tuple[float, tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = []  # sorted, at most k
    in_res: dict[tuple[frozenset[int], int], tuple[float, tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}
    ends_at = answer if walks and answer is not None else None

    def group_of(nodes: tuple[int, ...], edges: tuple[int, ...]) -> tuple[frozenset[int], int]:
        return frozenset(edges), -1 if ends_at is None else nodes[ends_at]

    mapping: dict[int, int] = {}
    chosen: list[int] = [-1] * len(pattern_edges)
    counter = [0]

    def kth() -> float:
        return res[-1][0] if len(res) >= k else float("inf")

    def push(score: float) -> None:
        edges = tuple(chosen)
        tie = tuple(sorted(edges)) if tie_order is None else tuple(chosen[j] for j in tie_order)
        item = (score, tie, tuple(mapping[v] for v in range(n_nodes)), edges)
        if len(res) >= k and item >= res[-1]:
            return
        group = group_of(item[2], edges)
        old = in_res.get(group)
        if old is not None:
            if item >= old:
                return
            res.remove(old)
        bisect.insort(res, item)
        in_res[group] = item
        if len(res) > k:
            dropped = res.pop()
            del in_res[group_of(dropped[2], dropped[3])]

    def expand(pos: int, score: float) -> None:
        counter[0] += 1
        if deadline is not None and counter[0] % 64 == 0 and time.monotonic() > deadline:
            raise ReferenceTimeout
        if pos == len(order):
            push(score)
            return
        j, src, dst = order[pos]
        h = mapping[src]
        rel_c, node_c = edge_cands[j], node_cands[dst]
        closing = dst in mapping
        children = []
        for r, neighbours in adj.get(h, {}).items():
            if rel_c is not None and r not in rel_c:
                continue
            rd = rel_c[r] if rel_c is not None else 0
            for t, eid in neighbours:
                if not walks and eid in chosen:
                    continue
                if closing:
                    if t != mapping[dst]:
                        continue
                    children.append((rd, eid, t))
                else:
                    if not walks and t in used:
                        continue
                    if node_c is not None:
                        if t not in node_c:
                            continue
                        children.append((rd + node_c[t], eid, t))
                    else:
                        children.append((rd, eid, t))
        children.sort()
        rest = final_best_score[pos + 1]
        for add, eid, t in children:
            if score + add + rest > kth():
                break
            chosen[j] = eid
            if closing:
                expand(pos + 1, score + add)
            else:
                mapping[dst] = t
                used.add(t)
                expand(pos + 1, score + add)
                used.discard(t)
                del mapping[dst]
            chosen[j] = -1

    used: set[int] = set()
    root_c = node_cands[root] or {}
    for v, d in sorted(root_c.items(), key=lambda item: (item[1], item[0])):
        if d + final_best_score[0] > kth():
            break
        mapping[root] = v
        used.add(v)
        expand(0, d)
        used.discard(v)
        del mapping[root]
    return [(score, nodes, edges) for score, _, nodes, edges in res]
