"""The ``kgsvc.train_gnn`` job function on a real embedded KG: progress and results on the job row, cancellation."""

from __future__ import annotations

import concurrent.futures
import time
from pathlib import Path

import kgsvc
from kgsvc import jobs
from kgsvc.db.models import JobState
from kgsvc.gnn import artifacts
from kgsvc.index.snapshot import GraphSnapshot
from tests.gnn.conftest import CONFIG


def test_train_gnn_job_records_progress_and_metrics(kg: kgsvc.KG, wc_snapshot: GraphSnapshot, tmp_path: Path) -> None:
    assert "kgsvc.train_gnn" in jobs.REGISTRY_NAMES
    wc_snapshot.save(tmp_path / "snapshot")
    options = {**CONFIG.to_dict(), "epochs": 4, "patience": 10}
    job_id = kg.catalog.create_job("train_gnn", params={"snapshot": "wc"})
    metrics = jobs.train_gnn(
        kg, job_id=job_id, snapshot=str(tmp_path / "snapshot"), output=str(tmp_path / "gnn"), options=options, threads=1
    )
    row = kg.job(job_id)
    assert row.state == JobState.SUCCEEDED and row.progress == 1.0
    assert row.counts["epoch"] == 4 and row.counts["held_out"]["mrr"] == metrics["held_out"]["mrr"] > 0
    assert (tmp_path / "gnn" / artifacts.METRICS).is_file() and (
        tmp_path / "gnn.checkpoint" / "checkpoint.pt"
    ).is_file()


def test_job_cancelled_while_running_stops_and_keeps_the_previous_output(
    kg: kgsvc.KG, wc_snapshot: GraphSnapshot, model_dir: Path, tmp_path: Path
) -> None:
    wc_snapshot.save(tmp_path / "snapshot")
    before = (model_dir / artifacts.METRICS).read_bytes()
    job_id = kg.catalog.create_job("train_gnn")
    options = {**CONFIG.to_dict(), "epochs": 200, "patience": 200}
    run = dict(snapshot=str(tmp_path / "snapshot"), output=str(model_dir), checkpoint=str(tmp_path / "ckpt"))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(jobs.train_gnn, kg, job_id=job_id, options=options, threads=1, **run)
        deadline = time.monotonic() + 60
        while kg.job(job_id).counts.get("epoch", 0) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        kg.catalog.update_job(job_id, state=JobState.CANCELLED)  # what a cancel request does to the row
        assert future.result(timeout=60) == {"cancelled": True}
    row = kg.job(job_id)
    assert row.state == JobState.CANCELLED and 1 <= row.counts["epoch"] < 200
    assert (model_dir / artifacts.METRICS).read_bytes() == before
    assert (tmp_path / "ckpt" / "checkpoint.pt").is_file()
    # a job row cancelled before it starts does not train at all
    early = kg.catalog.create_job("train_gnn")
    kg.catalog.update_job(early, state=JobState.CANCELLED)
    assert jobs.train_gnn(kg, job_id=early, options=options, threads=1, **run) == {"cancelled": True}
