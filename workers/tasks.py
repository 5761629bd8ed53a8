"""Celery tasks: thin wrappers over :mod:`kgsvc.jobs` — serialization, retries, acks and locking only.

Arguments are ids and plain options. Transient failures (the store or a service unreachable) are retried
with backoff; bad input fails once and the failure is on the job row. Jobs that change one dataset take a
Redis lock on it, so concurrent updates to one dataset are serialised.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections.abc import Iterator
from typing import Any

from celery import Task

from kgsvc import jobs
from kgsvc.errors import StoreError
from kgsvc.sdk import KG
from kgsvc.settings import Settings
from workers.app import app

__all__ = ["ask", "ask_batch", "build_index", "embed_chunks", "ingest", "train_gnn"]

log = logging.getLogger(__name__)

_TRANSIENT = (StoreError, ConnectionError, TimeoutError)
_RETRY = {"autoretry_for": _TRANSIENT, "retry_backoff": True, "retry_backoff_max": 60, "max_retries": 5}


@functools.cache
def worker_kg() -> KG:
    """The worker process's KG, opened once from the ``KGSVC_*`` environment."""
    return KG.open(settings=Settings())


@contextlib.contextmanager
def dataset_lock(dataset: str, *, ttl_s: float = 20.0, wait_s: float = 3600.0) -> Iterator[None]:
    """Hold the dataset's Redis lock while the body runs (no-op without a Redis broker).

    The lock lives ``ttl_s`` seconds and a daemon thread renews it every ``ttl_s / 3``: a worker killed while
    holding it stops renewing, and the lock expires so the retried task can take it.
    """
    url = worker_kg().settings.broker_url
    if not url or not url.startswith("redis"):
        yield
        return
    import redis

    client = redis.Redis.from_url(url)
    lock = client.lock(f"kgsvc:lock:dataset:{dataset}", timeout=ttl_s, blocking_timeout=wait_s, thread_local=False)
    if not lock.acquire():
        client.close()
        raise TimeoutError(f"dataset {dataset!r} stayed locked for {wait_s} s")
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(ttl_s / 3):
            lock.reacquire()

    renewer = threading.Thread(target=renew, daemon=True, name=f"kgsvc-lock-{dataset}")
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()
        lock.release()
        client.close()


@app.task(name="kgsvc.ingest", bind=True, **_RETRY)
def ingest(
    self: Task,
    *,
    dataset: str,
    path: str,
    job_id: str | None = None,
    format: str | None = None,
    base_iri: str | None = None,
) -> dict[str, Any]:
    with dataset_lock(dataset):
        return jobs.ingest(worker_kg(), job_id=job_id, dataset=dataset, path=path, format=format, base_iri=base_iri)


@app.task(name="kgsvc.build_index", bind=True, **_RETRY)
def build_index(self: Task, *, dataset: str, store_version: int | None = None) -> int | None:
    with dataset_lock(dataset):
        return jobs.build_index(worker_kg(), dataset=dataset, store_version=store_version)


@app.task(name="kgsvc.embed_chunks", bind=True, **_RETRY)
def embed_chunks(self: Task, *, plan: str) -> int:
    # No dataset lock: the build that wrote the plan holds it; chunks are claimed by lock files (kgsvc.index.chunks)
    return jobs.embed_chunks(worker_kg(), plan=plan)


@app.task(name="kgsvc.ask", bind=True, **_RETRY)
def ask(self: Task, *, dataset: str, question: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    answer = worker_kg().ask(question, dataset=dataset, **(options or {}))
    return answer.model_dump(mode="json")


@app.task(name="kgsvc.ask_batch", bind=True, **_RETRY)
def ask_batch(
    self: Task, *, job_id: str, dataset: str, questions: list[str], options: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    return jobs.ask_batch(worker_kg(), job_id=job_id, dataset=dataset, questions=questions, options=options)


@app.task(name="kgsvc.train_gnn", bind=True, **_RETRY)
def train_gnn(
    self: Task,
    *,
    job_id: str,
    snapshot: str,
    output: str,
    checkpoint: str | None = None,
    options: dict[str, Any] | None = None,
    threads: int | None = None,
    features: str | None = None,
    warm_from: str | None = None,
) -> dict[str, Any]:
    # No dataset lock: training reads an immutable snapshot and never blocks updates or queries; a retry resumes
    # from the checkpoint.
    return jobs.train_gnn(
        worker_kg(),
        job_id=job_id,
        snapshot=snapshot,
        output=output,
        checkpoint=checkpoint,
        options=options,
        threads=threads,
        features=features,
        warm_from=warm_from,
    )
