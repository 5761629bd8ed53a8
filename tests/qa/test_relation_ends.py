"""QAGraph.relation_ends: each relation's distinct subjects and objects read from the CSR (O(m), no sort of the
triples) equal ``np.unique`` over the triples, on graphs with self-loops, parallel and duplicate triples, unused
relations and isolated nodes, and on snapshots patched from a previous one."""

from __future__ import annotations

import numpy as np
import pytest

from kgsvc.index.snapshot import GraphSnapshot, stable_order
from kgsvc.qa.candidates import steps_into
from kgsvc.qa.graph import RelationEnds


def _reference(
    heads: np.ndarray, relations: np.ndarray, tails: np.ndarray, n_relations: int
) -> dict[tuple[int, bool], np.ndarray]:
    return {
        (r, outgoing): np.unique((tails if outgoing else heads)[relations == r])
        for r in range(n_relations)
        for outgoing in (True, False)
    }


def _check(snapshot: GraphSnapshot, heads: np.ndarray, relations: np.ndarray, tails: np.ndarray) -> None:
    ends = RelationEnds.of_snapshot(snapshot)
    for (r, outgoing), expected in _reference(heads, relations, tails, snapshot.n_relations).items():
        got = ends.of(r, outgoing=outgoing)
        assert got.tolist() == expected.tolist(), (r, outgoing)
    assert ends.triples.tolist() == np.bincount(relations, minlength=snapshot.n_relations).tolist()
    assert ends.distinct_objects().tolist() == [ends.of(r, outgoing=True).size for r in range(snapshot.n_relations)]
    base = max(snapshot.n_nodes, 1)
    pairs = np.divmod(np.unique(relations.astype(np.int64) * base + tails), base)  # what _handful_relations read
    assert [a.tolist() for a in ends.object_pairs()] == [a.tolist() for a in pairs]


@pytest.mark.parametrize("seed", range(60))
def test_relation_ends_equal_unique_over_the_triples(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_nodes, n_relations, m = int(rng.integers(1, 40)), int(rng.integers(1, 6)), int(rng.integers(0, 120))
    heads = rng.integers(0, n_nodes, m)
    relations = rng.integers(0, n_relations, m)
    tails = np.where(rng.random(m) < 0.15, heads, rng.integers(0, n_nodes, m))  # self-loops
    if m:
        dup = rng.integers(0, m, m // 5)  # duplicate triples
        heads, relations, tails = (np.concatenate([a, a[dup]]) for a in (heads, relations, tails))
    snapshot = GraphSnapshot.from_triples(heads, relations, tails, n_nodes=n_nodes, n_relations=n_relations)
    _check(snapshot, heads, relations, tails)


def test_relation_ends_of_a_patched_snapshot() -> None:
    """A snapshot patched from a previous one (the incremental build's) keeps the CSR order the ends are read by."""
    heads, relations, tails = np.array([0, 0, 1, 2, 3, 3]), np.array([0, 1, 0, 1, 0, 0]), np.array([1, 2, 2, 3, 3, 0])
    before = GraphSnapshot.from_triples(heads, relations, tails, n_nodes=4, n_relations=2)
    # node 1 goes with its triples, a new node (now 3) gets a self-loop and an edge to node 0
    node_remap = np.array([0, -1, 1, 2])
    new = (np.array([0, 1, 2, 2, 3, 3]), np.array([1, 1, 0, 0, 0, 1]), np.array([1, 2, 2, 0, 3, 0]))
    keep = (heads != 1) & (tails != 1)
    edge_remap = np.full(heads.shape[0], -1)
    # kept triples (0,1,2) (2,1,3) (3,0,3) (3,0,0) are now (0,1,1) (1,1,2) (2,0,2) (2,0,0): positions 0, 1, 3, 2
    edge_remap[np.flatnonzero(keep)] = [0, 1, 3, 2]
    patched = before.patched(
        *new,
        n_nodes=4,
        n_relations=2,
        node_remap=node_remap,
        relation_remap=np.array([0, 1]),
        edge_remap=edge_remap,
    )
    scratch = GraphSnapshot.from_triples(*new, n_nodes=4, n_relations=2)
    assert np.array_equal(patched.neighbors, scratch.neighbors)
    _check(patched, *new)


@pytest.mark.parametrize("limit", [1, 256, 257, 65_536, 65_537, 3_000_000])
def test_stable_order_is_a_stable_argsort(limit: int) -> None:
    keys = np.random.default_rng(limit).integers(0, limit, 5_000)
    assert stable_order(keys, limit).tolist() == np.argsort(keys, kind="stable").tolist()


@pytest.mark.parametrize("seed", range(30))
def test_steps_into_a_node_set_equal_the_steps_read_from_its_entries(seed: int) -> None:
    """RelationEnds.steps_into (the relations' ends) gives what candidates.steps_into reads from the nodes' CSR
    slices, self-loops both ways, for random node sets: the "when" / "where" filters of keeps.py."""
    rng = np.random.default_rng(100 + seed)
    n_nodes, n_relations, m = int(rng.integers(1, 40)), int(rng.integers(1, 6)), int(rng.integers(0, 120))
    heads = rng.integers(0, n_nodes, m)
    relations = rng.integers(0, n_relations, m)
    tails = np.where(rng.random(m) < 0.15, heads, rng.integers(0, n_nodes, m))
    snapshot = GraphSnapshot.from_triples(heads, relations, tails, n_nodes=n_nodes, n_relations=n_relations)
    ends = RelationEnds.of_snapshot(snapshot)
    for share in (0.0, 0.1, 0.5, 1.0):
        mask = rng.random(n_nodes) < share
        for nodes in (mask, ~mask):
            assert ends.steps_into(nodes) == steps_into(snapshot, np.flatnonzero(nodes))
