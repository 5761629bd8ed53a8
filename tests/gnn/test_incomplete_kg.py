"""The incomplete-KG setting of ``kgsvc eval --drop`` (EmbedKGQA's MetaQA-half): facts go, entities stay."""

from __future__ import annotations

import numpy as np

from kgsvc.eval.data import wc2014_kb
from kgsvc.eval.harness import _drop_facts
from kgsvc.qa.graph import QAGraph


def _no_embedding(texts: object) -> np.ndarray:
    raise AssertionError("building the graph must not embed anything")


def test_dropping_facts_keeps_every_entity_and_label() -> None:
    kb = wc2014_kb()
    full = QAGraph.from_triples(kb, base_iri="https://kgsvc.local/wc2014/", embed=_no_embedding)
    half, kept = _drop_facts(full, kb, 0.5)
    again, _ = _drop_facts(full, kb, 0.5)
    assert kept == half.snapshot.n_edges == round(len(kb) / 2)
    assert list(half.node_labels) == list(full.node_labels) and half.snapshot.n_nodes == full.snapshot.n_nodes
    assert np.array_equal(half.snapshot.triple_heads, again.snapshot.triple_heads)  # seeded
    relations = list(dict.fromkeys(r for _, r, _ in kb))  # QAGraph.from_triples numbers relations this way
    named = [half.snapshot.triple(e) for e in range(half.snapshot.n_edges)]
    facts = set(kb)
    assert all((half.node_labels[h], relations[r], half.node_labels[t]) in facts for h, r, t in named)
    degree = np.bincount(
        np.concatenate([half.snapshot.triple_heads, half.snapshot.triple_tails]), minlength=half.snapshot.n_nodes
    )
    isolated = np.flatnonzero(degree == 0)
    assert len(isolated) > 0  # some entities lost every fact and are still nodes, with their labels
    assert all(half.node_labels[int(n)] == full.node_labels[int(n)] for n in isolated)
