from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kgsvc.gnn import artifacts
from kgsvc.gnn.metrics import KnownTriples, ranking_metrics
from kgsvc.gnn.split import split_edges
from kgsvc.gnn.train import TrainingCancelled, TrainProgress, TrainResult, train_gnn
from kgsvc.index.snapshot import GraphSnapshot
from tests.gnn.conftest import CONFIG


def test_held_out_link_prediction_beats_random_ranking(wc_snapshot: GraphSnapshot, trained: TrainResult) -> None:
    split = split_edges(wc_snapshot, valid_fraction=CONFIG.valid_fraction, test_fraction=CONFIG.test_fraction, seed=0)
    known = KnownTriples(split.all, wc_snapshot.n_relations)
    rng = np.random.default_rng(123)

    def random_scores(anchors: np.ndarray, relations: np.ndarray) -> np.ndarray:
        return rng.random((anchors.shape[0], wc_snapshot.n_nodes))

    baseline = ranking_metrics(random_scores, random_scores, split.test, known)
    model = trained.metrics["held_out"]
    assert trained.metrics["held_out"]["queries"] == baseline["queries"] == 2 * len(split.test)
    assert model["mrr"] > 10 * baseline["mrr"] and model["mrr"] > 0.12  # measured 0.178 (random 0.007)
    assert model["hits@10"] > 10 * baseline["hits@10"] and model["hits@10"] > 0.25  # measured 0.310
    assert trained.metrics["epochs"] <= CONFIG.epochs
    files = sorted(p.name for p in trained.output.iterdir())
    assert files == sorted(
        [
            artifacts.MODEL,
            artifacts.NODE_EMBEDDINGS,
            artifacts.RELATION_EMBEDDINGS,
            artifacts.RELATION_PRIORS,
            artifacts.RELATION_RANGES,
            artifacts.METRICS,
            artifacts.NODE_VECTORS,
            artifacts.HELD_OUT,
        ]
    )
    assert np.load(trained.output / artifacts.NODE_EMBEDDINGS).shape == (wc_snapshot.n_nodes, CONFIG.dim)
    assert trained.metrics["calibration"]["a"] > 0  # higher scores are more often true


def test_cancel_then_resume_continues_from_the_checkpoint(wc_snapshot: GraphSnapshot, tmp_path: Path) -> None:
    seen: list[TrainProgress] = []
    config = CONFIG.__class__(**{**CONFIG.to_dict(), "epochs": 4, "patience": 10})
    with pytest.raises(TrainingCancelled) as info:
        train_gnn(
            wc_snapshot,
            tmp_path / "out",
            config=config,
            checkpoint_dir=tmp_path / "ckpt",
            threads=1,
            progress=seen.append,
            should_cancel=lambda: len(seen) >= 2,
        )
    assert info.value.epoch == 2 and [p.epoch for p in seen] == [1, 2]
    assert (tmp_path / "ckpt" / "checkpoint.pt").is_file() and not (tmp_path / "out").exists()
    resumed: list[TrainProgress] = []
    result = train_gnn(
        wc_snapshot,
        tmp_path / "out",
        config=config,
        checkpoint_dir=tmp_path / "ckpt",
        threads=1,
        progress=resumed.append,
    )
    assert [p.epoch for p in resumed] == [3, 4]
    assert [h["epoch"] for h in result.metrics["history"]] == [1, 2, 3, 4]
    assert (tmp_path / "out" / artifacts.METRICS).is_file()


def test_failed_training_leaves_the_previous_output(
    wc_snapshot: GraphSnapshot, model_dir: Path, tmp_path: Path
) -> None:
    def contents() -> dict[str, bytes]:
        return {str(p.relative_to(model_dir)): p.read_bytes() for p in sorted(model_dir.rglob("*")) if p.is_file()}

    before = contents()

    def fail(progress: TrainProgress) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        train_gnn(wc_snapshot, model_dir, config=CONFIG, threads=1, progress=fail)
    with pytest.raises(TrainingCancelled):
        train_gnn(wc_snapshot, model_dir, config=CONFIG, threads=1, should_cancel=lambda: True)
    assert contents() == before
    assert not [p for p in model_dir.parent.iterdir() if ".tmp-" in p.name]


def test_checkpoint_of_another_config_is_refused(wc_snapshot: GraphSnapshot, tmp_path: Path) -> None:
    config = CONFIG.__class__(**{**CONFIG.to_dict(), "epochs": 1})
    train_gnn(wc_snapshot, tmp_path / "a", config=config, checkpoint_dir=tmp_path / "ckpt", threads=1)
    other = CONFIG.__class__(**{**CONFIG.to_dict(), "epochs": 1, "dim": 16})
    with pytest.raises(ValueError, match="another snapshot or config"):
        train_gnn(wc_snapshot, tmp_path / "b", config=other, checkpoint_dir=tmp_path / "ckpt", threads=1)
    assert json.loads((tmp_path / "a" / artifacts.METRICS).read_text())["epochs"] == 1


def test_split_is_seeded_and_held_out_nodes_are_seen_in_training(wc_snapshot: GraphSnapshot) -> None:
    a = split_edges(wc_snapshot, valid_fraction=0.1, test_fraction=0.1, seed=7)
    b = split_edges(wc_snapshot, valid_fraction=0.1, test_fraction=0.1, seed=7)
    assert np.array_equal(a.valid, b.valid) and np.array_equal(a.test, b.test)
    assert len(a.train) + len(a.valid) + len(a.test) == wc_snapshot.n_edges
    seen = set(a.train[:, 0]) | set(a.train[:, 2])
    assert set(a.test[:, 0]) <= seen and set(a.test[:, 2]) <= seen
    with pytest.raises(ValueError, match="valid_fraction"):
        split_edges(wc_snapshot, valid_fraction=0.0, test_fraction=0.1, seed=0)
