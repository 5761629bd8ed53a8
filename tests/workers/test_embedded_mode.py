"""The embedded mode runs the same jobs without Redis: the in-process dispatcher, and the Celery app run eagerly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import kgsvc
from kgsvc.settings import Settings

QUESTIONS = ["who directed Tokyo Godfathers", "who directed Perfect Blue", "who directed Paprika"]


def test_load_index_and_ask_batch_in_process(tmp_path: Path) -> None:
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path, auto_index=True)) as kg:
        load = kg.submit_load(kgsvc.sample_path(), dataset="movies")
        kg.wait(120)  # the ingest, then the index build its event queued
        assert kg.job(load.id).state == "succeeded"
        row = kg.catalog.current_index_version("movies")
        assert row is not None and row.store_version == 1
        batch = kg.submit_ask_batch(QUESTIONS, dataset="movies")
        kg.wait(120)
        done = kg.job(batch.id)
        assert done.state == "succeeded" and done.progress == 1.0, done
        assert done.counts["answered"] == 3
        assert [text.rstrip(".") for text in done.counts["answers"]] == ["Satoshi Kon"] * 3
        with pytest.raises(kgsvc.DatasetError):
            kg.submit_ask_batch(QUESTIONS, dataset="nope")


@pytest.fixture
def eager_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """``workers.tasks`` with no broker (run eagerly) over a fresh data folder."""
    monkeypatch.setenv("KGSVC_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("KGSVC_BROKER_URL", raising=False)
    from workers import tasks
    from workers.app import app, configure

    configure(app, Settings())
    tasks.worker_kg.cache_clear()
    yield tasks
    tasks.worker_kg().close()
    tasks.worker_kg.cache_clear()


def test_celery_tasks_run_eagerly_without_a_broker(eager_tasks: object) -> None:
    from workers import tasks

    loaded = tasks.ingest.delay(dataset="movies", path=str(kgsvc.sample_path())).get()
    assert loaded["triples_added"] == 615
    assert tasks.build_index.delay(dataset="movies").get() == 1
    answer = tasks.ask.delay(dataset="movies", question="who directed Paprika").get()
    assert answer["answers"][0]["label"] == "Satoshi Kon" and answer["evidence"]
