"""A small real KG for the GNN tests: WorldCup2014 without its ``*_inverse`` relations (3,977 triples).

The inverse relations are dropped so a held-out edge cannot be read off its stored inverse.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgsvc.eval.data import wc2014_kb
from kgsvc.gnn.model import GNNConfig
from kgsvc.gnn.train import TrainResult, train_gnn
from kgsvc.index.snapshot import GraphSnapshot

CONFIG = GNNConfig(dim=32, epochs=30, batch_size=1024, valid_fraction=0.1, test_fraction=0.1, eval_every=2, patience=3)


@pytest.fixture(scope="session")
def wc_snapshot() -> GraphSnapshot:
    nodes: dict[str, int] = {}
    relations: dict[str, int] = {}
    rows = [
        (nodes.setdefault(h, len(nodes)), relations.setdefault(r, len(relations)), nodes.setdefault(t, len(nodes)))
        for h, r, t in wc2014_kb()
        if not r.endswith("_inverse")
    ]
    ids = np.array(rows, dtype=np.int64)
    return GraphSnapshot.from_triples(ids[:, 0], ids[:, 1], ids[:, 2], n_nodes=len(nodes), n_relations=len(relations))


@pytest.fixture(scope="session")
def trained(wc_snapshot: GraphSnapshot, tmp_path_factory: pytest.TempPathFactory) -> TrainResult:
    output = tmp_path_factory.mktemp("gnn") / "model"
    return train_gnn(wc_snapshot, output, config=CONFIG, threads=1)


@pytest.fixture
def model_dir(trained: TrainResult) -> Path:
    return trained.output
