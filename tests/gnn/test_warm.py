"""Fine-tuning from the previous version's model (kgsvc.gnn.warm)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from kgsvc.gnn import artifacts
from kgsvc.gnn.model import GNNConfig, RGCNDistMult
from kgsvc.gnn.split import split_held_out
from kgsvc.gnn.train import TrainResult, train_gnn
from kgsvc.gnn.warm import WarmStart, warm_start
from kgsvc.index.snapshot import GraphSnapshot
from tests.gnn.conftest import CONFIG


def test_held_out_triples_stay_held_out_in_the_new_ids(wc_snapshot: GraphSnapshot, trained: TrainResult) -> None:
    held = np.load(trained.output / artifacts.HELD_OUT)
    n, r = wc_snapshot.n_nodes, wc_snapshot.n_relations
    shifted = np.concatenate([[-1], np.arange(n)])  # a new node 0 first: every old node id moves up by one
    warm = WarmStart.from_maps(trained.output, shifted, np.arange(r))
    assert warm.held_out is not None
    expected = held.copy()
    expected[:, [0, 2]] += 1
    assert np.array_equal(warm.held_out, expected)
    split = split_held_out(wc_snapshot, held)
    assert len(split.valid) == (held[:, 3] == 0).sum() and len(split.test) == (held[:, 3] == 1).sum()
    assert len(split.train) + len(split.valid) + len(split.test) == wc_snapshot.n_edges
    train_keys = {tuple(x) for x in split.train.tolist()}
    assert not any(tuple(x) in train_keys for x in held[:, :3].tolist())


def test_maps_follow_the_terms(trained: TrainResult) -> None:
    old_nodes, new_nodes = ["<a>", "<b>", "<c>"], ["<c>", "<d>", "<a>"]
    warm = WarmStart.from_terms(trained.output, old_nodes, new_nodes, ["<p>"], ["<q>", "<p>"])
    assert warm.nodes.tolist() == [2, -1, 0] and warm.relations.tolist() == [-1, 0]
    assert warm.kept_share == pytest.approx(2 / 3)


def test_kept_rows_are_copied_and_new_ones_keep_their_initialisation(trained: TrainResult) -> None:
    old = torch.load(trained.output / artifacts.MODEL, weights_only=True)["model"]
    n, r = old["node.weight"].shape[0], old["relation"].shape[0] // 2
    nodes = np.array([5, -1, 0], dtype=np.int64)  # new node 1 is new
    relations = np.array([1, -1], dtype=np.int64)  # new relation 0 is old relation 1
    torch.manual_seed(0)
    model = RGCNDistMult(3, 2, CONFIG)
    fresh = {k: v.clone() for k, v in model.state_dict().items()}
    copied = warm_start(model, WarmStart(trained.output, nodes, relations), CONFIG)
    state = model.state_dict()
    assert copied == 2
    torch.testing.assert_close(state["node.weight"][0], old["node.weight"][5])
    torch.testing.assert_close(state["node.weight"][1], fresh["node.weight"][1])
    torch.testing.assert_close(state["relation"][[0, 2]], old["relation"][[1, 1 + r]])  # both directions
    torch.testing.assert_close(state["relation"][1], fresh["relation"][1])
    torch.testing.assert_close(state["convs.0.basis"], old["convs.0.basis"])
    assert n > 5
    with pytest.raises(ValueError, match="cannot start from it"):
        warm_start(RGCNDistMult(3, 2, dataclasses.replace(CONFIG, dim=8)), WarmStart(trained.output, nodes, relations),
                   dataclasses.replace(CONFIG, dim=8))  # fmt: skip


def test_a_warm_start_reaches_the_previous_quality_in_few_epochs(
    wc_snapshot: GraphSnapshot, trained: TrainResult, tmp_path: Path
) -> None:
    n, r = wc_snapshot.n_nodes, wc_snapshot.n_relations
    config = dataclasses.replace(CONFIG, finetune_epochs=2)
    warm = WarmStart.from_maps(trained.output, np.arange(n), np.arange(r))
    assert warm.held_out is not None and len(warm.held_out) == sum(
        trained.metrics["split"][k] for k in ("valid", "test")
    )
    tuned = train_gnn(wc_snapshot, tmp_path / "warm", config=config, threads=1, warm=warm)
    assert tuned.metrics["epochs"] == 2 and tuned.metrics["warm_start"]["nodes_copied"] == n
    assert tuned.metrics["split"] == trained.metrics["split"]  # validated on the edges the old model never saw
    cold = train_gnn(wc_snapshot, tmp_path / "cold", config=dataclasses.replace(CONFIG, epochs=2), threads=1)
    before, after, scratch = (m.metrics["held_out"]["mrr"] for m in (trained, tuned, cold))
    # measured 0.178 before, 0.174 after 2 warm epochs, 0.141 after 2 epochs from scratch
    assert after > 0.9 * before and after > scratch + 0.015, (before, after, scratch)
    assert GNNConfig.from_dict(tuned.metrics["config"]).epochs == 2
