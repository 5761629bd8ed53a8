"""The same Alembic migrations run on SQLite and PostgreSQL, and the catalog works on both."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect

from kgsvc.catalog import Catalog, DatasetChanged
from kgsvc.db import open_database
from kgsvc.errors import DatasetError
from kgsvc.store import EmbeddedStore


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'meta.db'}"
    return str(request.getfixturevalue("postgres_url"))


def test_migrations_create_the_schema_and_are_idempotent(database_url: str) -> None:
    sessions = open_database(database_url)
    engine = sessions.kw["bind"]
    assert {"datasets", "jobs", "index_versions", "alembic_version"} <= set(inspect(engine).get_table_names())
    open_database(database_url).kw["bind"].dispose()  # a second upgrade is a no-op
    engine.dispose()


def test_catalog_datasets_jobs_and_events(database_url: str) -> None:
    sessions = open_database(database_url)
    catalog = Catalog(EmbeddedStore(), sessions)
    events: list[DatasetChanged] = []
    catalog.subscribe(events.append)
    name = f"ds{abs(hash(database_url)) % 10_000}"
    if catalog.exists(name):
        catalog.drop(name)
    catalog.create(name, description="test")
    with pytest.raises(DatasetError, match="already exists"):
        catalog.create(name)
    assert catalog.mark_changed(name, cause="load", triples_added=3) == 1
    assert events == [DatasetChanged(name, 1, "load", 3, 0)]
    job = catalog.create_job("ingest", dataset=name, params={"file": "x"})
    with pytest.raises(ValueError), catalog.running(job) as update:
        update(progress=0.5, counts={"read": 10})
        raise ValueError("boom")
    info = catalog.job(job)
    assert info.state == "failed" and info.error == "ValueError: boom" and info.counts == {"read": 10}
    assert info.seconds is not None and info.seconds >= 0
    assert [j.id for j in catalog.jobs(dataset=name)] == [job]
    catalog.drop(name)
    with pytest.raises(DatasetError, match="unknown dataset"):
        catalog.get(name)
    sessions.kw["bind"].dispose()
