"""A naive brute-force oracle for GSD top-k matching, sharing no code with ``kgsvc.retrieval``.

It enumerates every node map (pattern nodes in index order, each over its candidates or over every KG node),
then every assignment of KG triples to pattern edges, and keeps the valid matches. The only thing it takes from
the contract rather than computing itself is the definition: fixed-point distances ``round(d * 2**36)``, the
matching order rule (re-implemented here from the documentation), subgraph = set of edge ids (with triple reuse:
and the answer node's binding), key = (GSD, edge ids in matching order, node map).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

SCALE = 2**36


@dataclass
class Problem:
    """A KG as plain triples plus a pattern with candidate dicts (``None`` = unknown)."""

    n_nodes: int
    n_relations: int
    triples: list[tuple[int, int, int]]
    node_cands: list[dict[int, float] | None]  # per pattern node
    edges: list[tuple[int, int]]  # pattern edges (head, tail) over pattern node indices
    edge_cands: list[dict[int, float] | None]  # per pattern edge (relation id -> distance)
    answer: int | None = None  # the pattern's answer node


@dataclass(frozen=True)
class OracleMatch:
    gsd_q: int
    node_map: tuple[int, ...]
    edge_ids: tuple[int, ...]  # per pattern edge


def fixed(distance: float) -> int:
    return round(distance * SCALE)


def oracle_order(problem: Problem) -> tuple[int, list[int]]:
    """Root and the pattern edges in matching order, following the rule in ``kgsvc.retrieval.order``."""
    sizes = {v: len(c) for v, c in enumerate(problem.node_cands) if c is not None}
    root = sorted(sizes, key=lambda v: (sizes[v], v))[0]
    matched = {root}
    order: list[int] = []
    while len(order) < len(problem.edges):
        options: list[tuple[tuple[int, int, int], int, int | None]] = []
        for j, (h, t) in enumerate(problem.edges):
            if j in order:
                continue
            if h in matched and t in matched:
                options.append(((0, 0, j), j, None))
            elif h in matched or t in matched:
                new = t if h in matched else h
                rank = (1, sizes[new], j) if new in sizes else (2, 0, j)
                options.append((rank, j, new))
        options.sort()
        _, j, chosen = options[0]
        order.append(j)
        if chosen is not None:
            matched.add(chosen)
    return root, order


def all_matches(
    problem: Problem, *, allow_node_reuse: bool, allow_triple_reuse: bool = False, directed: bool = False
) -> list[OracleMatch]:
    """Every valid match (not grouped): each node map × each assignment of triples to pattern edges (distinct
    triples unless ``allow_triple_reuse``; with ``directed`` each triple runs from its edge's head to its tail)."""
    n_pattern = len(problem.node_cands)
    domains = [sorted(c) if c is not None else list(range(problem.n_nodes)) for c in problem.node_cands]
    found: list[OracleMatch] = []
    joining: dict[tuple[int, int], list[int]] = {}
    for i, (h, _, t) in enumerate(problem.triples):
        joining.setdefault((h, t), []).append(i)
        if h != t and not directed:
            joining.setdefault((t, h), []).append(i)

    def edges_between(a: int, b: int, j: int) -> list[int]:
        cands = problem.edge_cands[j]
        return [i for i in joining.get((a, b), []) if cands is None or problem.triples[i][1] in cands]

    def assign(v: int, node_map: list[int]) -> None:
        if v == n_pattern:
            options = [edges_between(node_map[h], node_map[t], j) for j, (h, t) in enumerate(problem.edges)]
            for choice in itertools.product(*options):
                if not allow_triple_reuse and len(set(choice)) != len(choice):
                    continue
                total = 0
                for u, cands in enumerate(problem.node_cands):
                    if cands is not None:
                        total += fixed(cands[node_map[u]])
                for j, cands in enumerate(problem.edge_cands):
                    if cands is not None:
                        total += fixed(cands[problem.triples[choice[j]][1]])
                found.append(OracleMatch(total, tuple(node_map), tuple(choice)))
            return
        for kg_node in domains[v]:
            if not allow_node_reuse and kg_node in node_map:
                continue
            node_map.append(kg_node)
            # plain feasibility: every pattern edge to an earlier node has some triple (no distances involved)
            if all(
                edges_between(node_map[h], node_map[t], j) for j, (h, t) in enumerate(problem.edges) if max(h, t) == v
            ):
                assign(v + 1, node_map)
            node_map.pop()

    assign(0, [])
    return found


def top_k(
    problem: Problem,
    k: int,
    *,
    allow_node_reuse: bool,
    allow_triple_reuse: bool = False,
    directed: bool = False,
    matches: list[OracleMatch] | None = None,
) -> list[OracleMatch]:
    """Group by edge-id set (with triple reuse: and answer binding) keeping the smallest key, sort by key, take
    ``k``."""
    _, order = oracle_order(problem)
    if matches is None:
        matches = all_matches(
            problem, allow_node_reuse=allow_node_reuse, allow_triple_reuse=allow_triple_reuse, directed=directed
        )
    best: dict[tuple[frozenset[int], int], tuple[tuple[int, tuple[int, ...], tuple[int, ...]], OracleMatch]] = {}
    for match in matches:
        key = (match.gsd_q, tuple(match.edge_ids[j] for j in order), match.node_map)
        ends = match.node_map[problem.answer] if allow_triple_reuse and problem.answer is not None else -1
        group = (frozenset(match.edge_ids), ends)
        if group not in best or key < best[group][0]:
            best[group] = (key, match)
    return [match for _, match in sorted(best.values(), key=lambda item: item[0])][:k]
