"""Optimised search == naive oracle on 1200 seeded random KGs and patterns; the bound never overestimates.

SimGRAG acceptance checks §8 items 10 (optimised == brute force) and 11 (bound validity), and STYLE (c): trees
and cycles, self-loops and parallel pattern edges, unknown nodes and relations, parallel KG edges, both
directions, k ∈ {1, 2, 3, 10}, with and without node reuse, with and without triple reuse (walk semantics: with
both, SPARQL's homomorphism), with and without an answer node, directed and not.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.retrieval import Candidates, Pattern, PatternEdge, PatternNode, candidate_set, matching_order
from kgsvc.retrieval.search import _search
from tests.retrieval.gsd_oracle import SCALE, OracleMatch, Problem, all_matches, oracle_order, top_k

CASES_PER_CHUNK = 100
CHUNKS = 12  # 1200 cases


def random_problem(rng: np.random.Generator) -> tuple[Problem, int, bool, bool, bool]:
    n_nodes = int(rng.choice([3, 5, 8, 12, 20, 50], p=[0.15, 0.3, 0.25, 0.15, 0.1, 0.05]))
    n_rel = int(rng.integers(1, 6))
    m = int(rng.integers(1, min(4 * n_nodes, 90) + 1))
    heads = rng.integers(0, n_nodes, m)
    tails = rng.integers(0, n_nodes, m)
    rels = rng.integers(0, n_rel, m)
    triples = [(int(h), int(r), int(t)) for h, r, t in zip(heads, rels, tails, strict=True)]
    for _ in range(int(rng.integers(0, 4))):  # exact duplicates and reversed copies: parallel KG edges
        h, r, t = triples[int(rng.integers(0, len(triples)))]
        triples.append((h, r, t) if rng.random() < 0.5 else (t, int(rng.integers(0, n_rel)), h))

    # pattern: a random tree on p nodes, then extra edges (cycles, parallel edges, self-loops), 1..4 edges
    n_edges = int(rng.integers(1, 5))
    p = int(rng.integers(2, n_edges + 2)) if rng.random() < 0.9 else 1
    edges: list[tuple[int, int]] = []
    for v in range(1, p):
        edges.append((int(rng.integers(0, v)), v))
    while len(edges) < n_edges:
        if p == 1 or rng.random() < 0.1:
            a = int(rng.integers(0, p))
            edges.append((a, a))
        else:
            a, b = (int(x) for x in rng.choice(p, 2, replace=False))
            edges.append((a, b))
    edges = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in edges]
    perm = rng.permutation(len(edges))
    edges = [edges[int(i)] for i in perm]

    tie_values = np.array([0.0, 0.25, 0.5, 1.0])

    def distances(size: int) -> list[float]:
        if rng.random() < 0.5:
            return [float(x) for x in rng.choice(tie_values, size)]
        return [float(x) for x in rng.random(size) * 2]

    node_cands: list[dict[int, float] | None] = []
    for _ in range(p):
        if rng.random() < 0.5:
            size = int(rng.integers(1, n_nodes + 1)) if rng.random() < 0.8 else n_nodes
            ids = [int(x) for x in rng.choice(n_nodes, size, replace=False)]
            node_cands.append(dict(zip(ids, distances(size), strict=True)))
        else:
            node_cands.append(None)
    if all(c is None for c in node_cands):
        v = int(rng.integers(0, p))
        size = int(rng.integers(1, n_nodes + 1))
        ids = [int(x) for x in rng.choice(n_nodes, size, replace=False)]
        node_cands[v] = dict(zip(ids, distances(size), strict=True))
    edge_cands: list[dict[int, float] | None] = []
    for _ in edges:
        if rng.random() < 0.6:
            size = int(rng.integers(1, n_rel + 1))
            ids = [int(x) for x in rng.choice(n_rel, size, replace=False)]
            edge_cands.append(dict(zip(ids, distances(size), strict=True)))
        else:
            edge_cands.append(None)
    k = int(rng.choice([1, 2, 3, 10]))
    reuse = bool(rng.random() < 0.2)
    # drawn after the older draws, so that the seeds' KGs and patterns stay those of the injective cases
    walks = bool(rng.random() < 0.35)
    if walks and rng.random() < 0.6:
        reuse = True  # homomorphism, as SPARQL reads the pattern
    answer = int(rng.integers(0, p)) if rng.random() < 0.7 else None
    directed = bool(rng.random() < 0.4)
    problem = Problem(n_nodes, n_rel, triples, node_cands, edges, edge_cands, answer)
    return problem, k, reuse, walks, directed


def to_kgsvc(problem: Problem) -> tuple[GraphSnapshot, Pattern, Candidates]:
    h, r, t = (np.array(col, dtype=np.int64) for col in zip(*problem.triples, strict=True))
    snapshot = GraphSnapshot.from_triples(h, r, t, n_nodes=problem.n_nodes, n_relations=problem.n_relations)
    pattern = Pattern(
        tuple(PatternNode(f"n{v}", c is not None) for v, c in enumerate(problem.node_cands)),
        tuple(
            PatternEdge(a, b, f"e{j}", c is not None)
            for j, ((a, b), c) in enumerate(zip(problem.edges, problem.edge_cands, strict=True))
        ),
        problem.answer,
    )
    candidates = Candidates(
        nodes={v: candidate_set(list(c), list(c.values())) for v, c in enumerate(problem.node_cands) if c is not None},
        relations={j: candidate_set(list(c), list(c.values())) for j, c in enumerate(problem.edge_cands) if c},
    )
    return snapshot, pattern, candidates


def as_tuples(matches: list[OracleMatch]) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    return [(m.gsd_q, m.node_map, m.edge_ids) for m in matches]


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_optimised_equals_oracle_and_bound_is_admissible(chunk: int) -> None:
    for case in range(CASES_PER_CHUNK):
        seed = chunk * CASES_PER_CHUNK + case
        rng = np.random.default_rng(seed)
        problem, k, reuse, walks, directed = random_problem(rng)
        snapshot, pattern, candidates = to_kgsvc(problem)
        flags: dict[str, Any] = {"allow_node_reuse": reuse, "allow_triple_reuse": walks, "directed": directed}
        matches = all_matches(problem, **flags)
        expected = as_tuples(top_k(problem, k, **flags, matches=matches))

        order = matching_order(pattern, candidates)
        root, edge_order = oracle_order(problem)
        assert (order.root, [s.edge for s in order.steps]) == (root, edge_order), f"seed {seed}"

        bounds: list[tuple[dict[int, int], dict[int, int], int]] = []

        def hook(nodes: dict[int, int], edges: dict[int, int], bound: int, seen: list[Any] = bounds) -> None:
            seen.append((nodes, edges, bound))

        hooked = _search(
            snapshot,
            pattern,
            candidates,
            k=k,
            **flags,
            hook=hook,
            root_lookahead_min=seed % 2,  # the root re-ranking through step 0's lookahead, on half of the cases
        )
        # the kernel's switches: the plain Eq. 11 bound without lookahead tables; reverse children wherever a
        # table applies, with every root set re-ranked; slices always scanned, no root re-ranking
        paths = (
            {"lookahead": False},
            {"reverse_min": -1, "root_lookahead_min": 0},
            {"reverse_min": 10**9, "root_lookahead_min": 10**9},
        )
        path = paths[seed % 3]
        for result in (
            _search(snapshot, pattern, candidates, k=k, **flags),
            _search(snapshot, pattern, candidates, k=k, **flags, **path),
            _search(snapshot, pattern, candidates, k=k, **flags, prune=False),
            hooked,
        ):
            got = [(round(m.gsd * SCALE), m.node_map, m.edge_ids) for m in result.matches]
            assert got == expected, f"seed {seed}: k={k} {flags}\n{problem}"
            assert result.complete
            for m in result.matches:
                assert m.triples == tuple(problem.triples[e] for e in m.edge_ids)

        # bound validity (item 11): every partial map the search considered (pruned or not) has a bound <= the
        # GSD of each of its completions. Partial maps are prefixes in matching order: index completions by them.
        best: dict[tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]], int] = {}
        for om in matches:
            nodes_seen = {root: om.node_map[root]}
            for i in range(len(edge_order) + 1):
                prefix = (frozenset(nodes_seen.items()), frozenset((j, om.edge_ids[j]) for j in edge_order[:i]))
                best[prefix] = min(best.get(prefix, om.gsd_q), om.gsd_q)
                if i < len(edge_order):
                    a, b = problem.edges[edge_order[i]]
                    nodes_seen.update({a: om.node_map[a], b: om.node_map[b]})
        for nodes, edges, bound in bounds:
            lowest = best.get((frozenset(nodes.items()), frozenset(edges.items())))
            if lowest is not None:
                assert bound <= lowest, f"seed {seed}: bound {bound} > GSD {lowest} at {nodes} {edges}"
        checked = sum((frozenset(n.items()), frozenset(e.items())) in best for n, e, _ in bounds)
        assert checked or not matches, f"seed {seed}: no considered partial map has a completion"


def test_generator_covers_every_feature() -> None:
    """The 1200 seeds above really contain what the property claims (STYLE (c)): trees and cycles, self-loops,
    parallel pattern and KG edges, unknown nodes and relations, every k, with and without node reuse, triple reuse
    (walks), both (homomorphism), and walks whose best match really uses one triple twice."""
    seen: dict[str, int] = {}

    def count(name: str, present: bool) -> None:
        seen[name] = seen.get(name, 0) + int(present)

    for seed in range(CASES_PER_CHUNK * CHUNKS):
        problem, k, reuse, walks, directed = random_problem(np.random.default_rng(seed))
        pairs = [frozenset(e) for e in problem.edges]
        kg_pairs = [frozenset((h, t)) for h, _, t in problem.triples]
        count("tree", len(problem.edges) == len(problem.node_cands) - 1)
        count("cycle", len(problem.edges) >= len(problem.node_cands) and len(problem.node_cands) >= 3)
        count("pattern self-loop", any(a == b for a, b in problem.edges))
        count("parallel pattern edges", len(set(pairs)) < len(pairs))
        count("parallel KG edges", len(set(kg_pairs)) < len(kg_pairs))
        count("KG self-loop", any(h == t for h, _, t in problem.triples))
        count("unknown node", any(c is None for c in problem.node_cands))
        count("unknown relation", any(c is None for c in problem.edge_cands))
        count("reuse", reuse)
        count("no reuse", not reuse)
        count("walks", walks)
        count("homomorphism", walks and reuse)
        count("no walks", not walks)
        count("directed", directed)
        count("directed walks", directed and walks)
        count("undirected", not directed)
        if walks:
            best = top_k(problem, k, allow_node_reuse=reuse, allow_triple_reuse=True)
            count("a triple reused in the top k", any(len(set(m.edge_ids)) < len(m.edge_ids) for m in best))
        count(f"k={k}", True)
    for name in ("tree", "cycle", "pattern self-loop", "parallel pattern edges", "parallel KG edges", "KG self-loop"):
        assert seen.get(name, 0) >= 50, (name, seen)
    for name in ("homomorphism", "a triple reused in the top k", "directed walks"):
        assert seen.get(name, 0) >= 50, (name, seen)
    for name in (
        "unknown node",
        "unknown relation",
        "reuse",
        "no reuse",
        "walks",
        "no walks",
        "directed",
        "undirected",
        "k=1",
        "k=2",
        "k=3",
        "k=10",
    ):
        assert seen.get(name, 0) >= 150, (name, seen)
