"""Indexes that follow the data in the distributed mode: a real Celery worker reacts to dataset-changed events.

The submitting process and the worker both run with ``KGSVC_AUTO_INDEX=true``: the worker's ingest emits the
event and queues ``kgsvc.build_index``; the client's SPARQL UPDATE does the same from the client's process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from celery import Celery

import kgsvc
from kgsvc.index.vectors import NODE_LABELS, RELATION_LABELS
from kgsvc.recovery import VERSION_INTERRUPTED
from tests.index.test_build import snapshot_triples, stored_triples
from tests.workers.conftest import Worker, client_for, running_worker, wait_for

EX = "https://kgsvc.local/sample/"


@pytest.fixture
def indexing_env(distributed_env: dict[str, str]) -> dict[str, str]:
    return {**distributed_env, "KGSVC_AUTO_INDEX": "true"}


@pytest.fixture
def indexing_worker(indexing_env: dict[str, str], tmp_path: Path) -> Iterator[Worker]:
    yield from running_worker(indexing_env, tmp_path / "worker.log")


@pytest.fixture
def indexing_kg(indexing_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[kgsvc.KG]:
    yield from client_for(indexing_env, monkeypatch)


def _current(kg: kgsvc.KG, dataset: str) -> int:
    row = kg.catalog.current_index_version(dataset)
    return 0 if row is None else row.version


def test_ingest_then_update_keep_the_index_consistent_and_answerable(
    indexing_kg: kgsvc.KG, indexing_worker: Worker, indexing_env: dict[str, str]
) -> None:
    kg, log = indexing_kg, indexing_worker.log
    job = kg.submit_load(kgsvc.sample_path(), dataset="movies")
    wait_for(lambda: kg.job(job.id).state == "succeeded", timeout=120, what="the ingest job", log=log)
    wait_for(lambda: _current(kg, "movies") == 1, timeout=240, what="index version 1 after the ingest", log=log)

    # store, vectors and snapshot agree: the snapshot holds exactly the store's triples, each collection one
    # point per label text, with ids in text order (a text's own embedding finds itself first)
    index = kg.index("movies")
    assert index.store_version == kg.datasets()[0].store_version == 1
    dump = stored_triples(kg, "movies")
    assert snapshot_triples(index) == dump and len(dump) == 615
    collections = ((NODE_LABELS, "node", index.node_texts), (RELATION_LABELS, "relation", index.relation_texts))
    for name, kind, texts in collections:
        assert index.vectors.count(name) == len(texts)
        rows = np.load(index.path / f"{kind}_vectors.npy")
        assert [hits[0][0] for hits in index.vectors.search(name, rows, 1)] == list(range(len(texts)))

    # an UPDATE from this process: its event queues an incremental build on the worker
    changed = kg.update(
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> INSERT DATA { GRAPH <urn:kgsvc:dataset:movies> { "
        f'<{EX}film_Q> rdfs:label "Quiet Harbour Nights" ; <{EX}directedBy> <{EX}person_Satoshi_Kon> }} }}'
    )
    assert changed == ["movies"]
    wait_for(lambda: _current(kg, "movies") == 2, timeout=240, what="index version 2 after the update", log=log)
    row = kg.catalog.current_index_version("movies")
    assert row is not None and row.store_version == 2
    assert row.metrics["embedded_texts"] == 1  # only the new label; the rest was reused, not re-embedded
    assert json.loads((kg.index("movies").path / "manifest.json").read_text())["counts"]["edges"] == 617
    answer = kg.ask("who directed Quiet Harbour Nights", dataset="movies")
    assert answer.answers[0].label == "Satoshi Kon"

    # the same question submitted as a task by a plain Celery client, answered by the worker
    broker = indexing_env["KGSVC_BROKER_URL"]
    app = Celery(broker=broker, backend=broker)
    try:
        result = app.send_task(
            "kgsvc.ask", kwargs={"dataset": "movies", "question": "who directed Quiet Harbour Nights"}
        ).get(timeout=120)
    finally:
        app.close()
    assert result["answers"][0]["label"] == "Satoshi Kon" and result["evidence"]
    batch = kg.submit_ask_batch(["who directed Quiet Harbour Nights", "who directed Paprika"], dataset="movies")
    wait_for(lambda: kg.job(batch.id).state == "succeeded", timeout=120, what="the ask_batch job", log=log)
    assert [text.rstrip(".") for text in kg.job(batch.id).counts["answers"]] == ["Satoshi Kon"] * 2


def test_worker_killed_mid_build_converges(client_kg: kgsvc.KG, worker: Worker, tmp_path: Path) -> None:
    """SIGKILL during an index build: the retried build publishes exactly what an uninterrupted one does."""
    rows = "".join(f"item {i}\tpart of\tgroup {i % 499}\n" for i in range(3_000))
    path = tmp_path / "items.tsv"
    path.write_text(rows)
    for name in ("killed", "clean"):
        client_kg.load(path, dataset=name)
    client_kg.dispatcher.submit("kgsvc.build_index", dataset="killed")

    def building() -> bool:
        return any(v.state == "building" for v in client_kg.catalog.index_versions("killed"))

    wait_for(building, timeout=120, what="the build to start", log=worker.log)
    worker.kill()
    assert _current(client_kg, "killed") == 0  # nothing half-built was published
    worker.start()  # the message comes back after the visibility timeout; the build runs again
    wait_for(lambda: _current(client_kg, "killed") > 0, timeout=300, what="the retried build", log=worker.log)
    client_kg.dispatcher.submit("kgsvc.build_index", dataset="clean")
    wait_for(lambda: _current(client_kg, "clean") > 0, timeout=300, what="the clean build", log=worker.log)

    versions = client_kg.catalog.index_versions("killed")
    # the restarted worker's startup recovery failed the dead worker's version and deleted its files
    assert [(v.state, v.error) for v in versions] == [("failed", VERSION_INTERRUPTED), ("complete", None)]
    killed, clean = client_kg.index("killed"), client_kg.index("clean")
    assert sorted(p.name for p in killed.path.parent.iterdir()) == ["shards", killed.path.name]
    # the base shards of the killed attempt went once the retried version was published (kgsvc.index.build)
    assert [p.name for p in (killed.path.parent / "shards").iterdir()] == [killed.path.name]
    for kind, name in (("node", NODE_LABELS), ("relation", RELATION_LABELS)):
        texts = json.loads((killed.path / f"{kind}_texts.json").read_text())
        assert texts == json.loads((clean.path / f"{kind}_texts.json").read_text())  # same vector ids
        assert killed.vectors.count(name) == clean.vectors.count(name) == len(texts)  # no duplicates
    assert snapshot_triples(killed) == stored_triples(client_kg, "killed")  # IRIs differ by dataset, so each own
    assert snapshot_triples(clean) == stored_triples(client_kg, "clean")
    assert len(snapshot_triples(killed)) == len(snapshot_triples(clean))
