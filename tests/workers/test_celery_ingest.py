"""Ingestion submitted through Celery to a real worker process, and a worker killed mid-task."""

from __future__ import annotations

import gzip
from pathlib import Path

from celery import Celery

import kgsvc
from tests.workers.conftest import Worker, wait_for


def test_ingest_through_celery(client_kg: kgsvc.KG, worker: Worker) -> None:
    job = client_kg.submit_load(kgsvc.sample_path(), dataset="movies")
    assert job.state == "pending"
    wait_for(lambda: client_kg.job(job.id).state == "succeeded", timeout=90, what="the ingest job", log=worker.log)
    done = client_kg.job(job.id)
    assert done.counts["triples_added"] == 615 and done.seconds is not None
    assert client_kg.stats("movies").triples == 615
    assert client_kg.datasets()[0].store_version == 1


def test_plain_celery_client_submits_and_reads_the_result(
    client_kg: kgsvc.KG, worker: Worker, distributed_env: dict[str, str]
) -> None:
    """The README's example: any Python process with Celery, no kgsvc SDK, submits by task name."""
    broker = distributed_env["KGSVC_BROKER_URL"]
    app = Celery(broker=broker, backend=broker)
    try:
        result = app.send_task("kgsvc.ingest", kwargs={"dataset": "plain", "path": str(kgsvc.sample_path())})
        answer = result.get(timeout=90)
    finally:
        app.close()
    assert answer["dataset"] == "plain" and answer["triples_added"] == 615
    assert client_kg.job(answer["job_id"]).state == "succeeded"
    assert client_kg.stats("plain").triples == 615


def test_bad_file_fails_once_with_the_reason(client_kg: kgsvc.KG, worker: Worker, tmp_path: Path) -> None:
    bad = tmp_path / "bad.nt"
    bad.write_text("<http://ex/a> <http://ex/p> .\n")
    job = client_kg.submit_load(bad, dataset="bad")
    wait_for(lambda: client_kg.job(job.id).state == "failed", timeout=90, what="the failed job", log=worker.log)
    assert "bad.nt:1:" in (client_kg.job(job.id).error or "")
    assert client_kg.store.count("urn:kgsvc:dataset:bad") == 0


def test_worker_killed_mid_ingest_converges(client_kg: kgsvc.KG, worker: Worker, tmp_path: Path) -> None:
    rows = "".join(f"subject {i}\trelation {i % 50}\tobject {i % 7919}\n" for i in range(100_000))
    path = tmp_path / "big.tsv.gz"
    path.write_bytes(gzip.compress(rows.encode()))
    job = client_kg.submit_load(path, dataset="big")
    wait_for(lambda: client_kg.job(job.id).state == "running", timeout=90, what="the ingest to start", log=worker.log)
    worker.kill()
    assert client_kg.job(job.id).state == "running"  # the row still says running: nobody finished it
    worker.start()  # the message comes back after the visibility timeout; the task runs again
    wait_for(lambda: client_kg.job(job.id).state == "succeeded", timeout=240, what="the retried ingest", log=worker.log)
    killed_count = client_kg.store.count("urn:kgsvc:dataset:big")
    # an uninterrupted run of the same file, into another dataset, for comparison
    clean = client_kg.submit_load(path, dataset="clean")
    wait_for(lambda: client_kg.job(clean.id).state == "succeeded", timeout=240, what="the clean ingest", log=worker.log)
    expected = 100_000 + (100_000 + 7_919) + 50 * 2  # facts, entity labels, relation label + source text
    assert killed_count == client_kg.store.count("urn:kgsvc:dataset:clean") == expected
