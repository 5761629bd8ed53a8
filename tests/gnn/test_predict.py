from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from kgsvc.errors import IndexError_
from kgsvc.gnn import artifacts
from kgsvc.gnn.metrics import KnownTriples
from kgsvc.gnn.predict import LinkPredictor
from kgsvc.gnn.split import split_edges
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.index.vectors import GNN_NODES, GNN_VECTOR, EdgeVectorIndex
from tests.gnn.conftest import CONFIG


def _arrays(model_dir: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The model's z, w_r, u_r and relation ranges, read straight from its files (the test's reference)."""
    names = (artifacts.NODE_EMBEDDINGS, artifacts.RELATION_EMBEDDINGS, artifacts.RELATION_PRIORS)
    z, w, u = (np.load(model_dir / name) for name in names)
    return z, w, u, np.load(model_dir / artifacts.RELATION_RANGES)


def test_top_tails_proposes_only_missing_edges_sorted_and_calibrated(
    wc_snapshot: GraphSnapshot, model_dir: Path
) -> None:
    predictor = LinkPredictor.load(model_dir, wc_snapshot)
    z, w, u, ranges = _arrays(model_dir)
    head, relation, _ = wc_snapshot.triple(0)
    proposals = predictor.top_tails(head, relation, k=5, threshold=0.0)
    assert len(proposals) == 5
    stored = {
        wc_snapshot.triple(e)[2] for e in range(wc_snapshot.n_edges) if wc_snapshot.triple(e)[:2] == (head, relation)
    }
    assert not stored & {p.tail for p in proposals}
    expected = sorted(
        (c for c in range(wc_snapshot.n_nodes) if c not in stored and ranges[relation, c]),
        key=lambda c: -((z[head] * w[relation] + u[relation]) @ z[c]),
    )
    assert [p.tail for p in proposals] == expected[:5]
    assert all(p.head == head and p.relation == relation for p in proposals)
    assert [p.logit for p in proposals] == sorted((p.logit for p in proposals), reverse=True)
    probabilities = [p.probability for p in proposals]
    assert probabilities == sorted(probabilities, reverse=True) and all(0 < p < 1 for p in probabilities)
    cut = probabilities[2]
    assert [p.tail for p in predictor.top_tails(head, relation, k=5, threshold=cut)] == [p.tail for p in proposals[:3]]
    logits, probs = predictor.score([head], [relation], [proposals[0].tail])
    assert logits[0] == pytest.approx(proposals[0].logit, rel=1e-5)
    assert probs[0] == pytest.approx(proposals[0].probability, rel=1e-5)
    outside = int(np.flatnonzero(~ranges[relation])[0])  # a node never seen as an answer of the relation
    assert predictor.score([head], [relation], [outside])[1][0] == 0.0


def test_top_heads_uses_the_inverse_relation_and_the_calibrated_threshold(
    wc_snapshot: GraphSnapshot, model_dir: Path
) -> None:
    predictor = LinkPredictor.load(model_dir, wc_snapshot)
    z, w, u, _ = _arrays(model_dir)
    _, relation, tail = wc_snapshot.triple(0)
    inverse = relation + wc_snapshot.n_relations
    stored = {
        wc_snapshot.triple(e)[0] for e in range(wc_snapshot.n_edges) if wc_snapshot.triple(e)[1:] == (relation, tail)
    }
    proposals = predictor.top_heads(relation, tail, k=3, threshold=0.0)
    assert all(p.tail == tail and p.relation == relation and p.head not in stored for p in proposals)
    scores = [(z[tail] * w[inverse] + u[inverse]) @ z[p.head] for p in proposals]
    assert scores == sorted(scores, reverse=True) and [p.logit for p in proposals] == pytest.approx(scores, rel=1e-5)
    threshold = predictor.calibration.threshold
    assert 0.0 < threshold < 1.0
    default = predictor.top_heads(relation, tail, k=3)  # threshold None: the one chosen on held-out edges
    assert [p.head for p in default] == [p.head for p in proposals if p.probability >= threshold]


def test_proposals_recover_held_out_edges_at_about_their_calibrated_rate(
    wc_snapshot: GraphSnapshot, model_dir: Path
) -> None:
    """Against the training graph (held-out edges really missing), the best proposal of each test query is a
    held-out edge far more often than a random pick, and about as often as its calibrated probability claims."""
    split = split_edges(wc_snapshot, valid_fraction=CONFIG.valid_fraction, test_fraction=CONFIG.test_fraction, seed=0)
    train = GraphSnapshot.from_triples(
        split.train[:, 0],
        split.train[:, 1],
        split.train[:, 2],
        n_nodes=wc_snapshot.n_nodes,
        n_relations=wc_snapshot.n_relations,
    )
    held = KnownTriples(np.concatenate([split.valid, split.test]), wc_snapshot.n_relations)
    predictor = LinkPredictor.load(model_dir, train)
    right, claimed, chance = [], [], []
    for h, r, _ in split.test:
        (best,) = predictor.top_tails(int(h), int(r), k=1, threshold=0.0)
        right.append(best.tail in set(held.tails(int(h), int(r)).tolist()))
        claimed.append(best.probability)
        stored = train.relation_range(int(h), int(r))
        chance.append(len(held.tails(int(h), int(r))) / (wc_snapshot.n_nodes - (stored[1] - stored[0])))
    precision = float(np.mean(right))
    assert precision > 5 * float(np.mean(chance))
    assert abs(float(np.mean(claimed)) - precision) < 0.05, (np.mean(claimed), precision)  # measured 0.068 vs 0.076


def test_node_embeddings_are_stored_in_qdrant_and_similar_searches_them(
    wc_snapshot: GraphSnapshot, model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z = _arrays(model_dir)[0]
    unit = z / np.linalg.norm(z, axis=1, keepdims=True)
    with EdgeVectorIndex(model_dir / artifacts.NODE_VECTORS) as qdrant:
        assert qdrant.count(GNN_NODES) == wc_snapshot.n_nodes
        hits = qdrant.search(GNN_NODES, unit[[7]], 3, vector=GNN_VECTOR)[0]
    assert hits[0][0] == 7 and hits[0][1] == pytest.approx(0.0, abs=1e-3)  # each node is its own nearest point

    predictor = LinkPredictor.load(model_dir, wc_snapshot)
    node = wc_snapshot.triple(0)[0]
    distances = np.sqrt(np.maximum(2.0 - 2.0 * (unit @ unit[node]), 0.0))
    distances[node] = np.inf
    expected = np.argsort(distances, kind="stable")[:5]
    exact = predictor.similar(node, k=5)
    assert [n for n, _ in exact] == expected.tolist()
    assert [d for _, d in exact] == pytest.approx(distances[expected].tolist(), abs=1e-4)

    monkeypatch.setattr("kgsvc.gnn.predict.searched_exactly", lambda *shape: False)  # as for a large graph
    through_qdrant = predictor.similar(node, k=5)
    assert [n for n, _ in through_qdrant] == [n for n, _ in exact]
    assert [d for _, d in through_qdrant] == pytest.approx([d for _, d in exact], abs=1e-4)
    predictor.close()
    predictor.vectors = None  # a model folder written before the vectors were stored
    with pytest.raises(IndexError_, match="no node vectors in Qdrant"):
        predictor.similar(node)
    with pytest.raises(ValueError, match="k >= 1"):
        predictor.similar(node, k=0)


def test_bad_input_and_incomplete_folders_are_refused(
    wc_snapshot: GraphSnapshot, model_dir: Path, tmp_path: Path
) -> None:
    predictor = LinkPredictor.load(model_dir, wc_snapshot)
    with pytest.raises(ValueError, match=r"node must lie in \[0, "):
        predictor.top_tails(wc_snapshot.n_nodes, 0)
    with pytest.raises(ValueError, match="threshold"):
        predictor.top_tails(0, 0, threshold=1.5)
    with pytest.raises(ValueError, match="one shape"):
        predictor.score([0, 1], [0], [1])
    with pytest.raises(IndexError_, match="cannot be read"):
        LinkPredictor.load(tmp_path / "missing", wc_snapshot)
    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    (broken / artifacts.NODE_EMBEDDINGS).unlink()
    with pytest.raises(IndexError_, match="cannot be read"):
        LinkPredictor.load(broken, wc_snapshot)
    other = GraphSnapshot.from_triples(np.array([0]), np.array([0]), np.array([1]), n_nodes=2, n_relations=1)
    with pytest.raises(IndexError_, match="does not fit the snapshot"):
        LinkPredictor.load(model_dir, other)
