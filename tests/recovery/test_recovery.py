"""Startup recovery in one process: whose rows it may fail, which files it deletes, and that it leaves live work.

The crash tests (``test_crash.py``) kill real subprocesses; these tests build the states a crash leaves directly
(rows written by a process that has exited, files and graphs left behind) and open the data dir again.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sqlalchemy import update

import kgsvc
from kgsvc.db import IndexVersion, Job
from kgsvc.liveness import owner_state, process_owner
from kgsvc.recovery import JOB_INTERRUPTED, JOB_NEVER_RAN, MARKER, ROLLBACK_ON_CRASH, VERSION_INTERRUPTED
from kgsvc.settings import Settings


def dead_owner() -> str:
    """The owner string of a process of this host that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    owner = process_owner(child.pid)
    child.wait()
    return owner


def test_owner_states() -> None:
    assert owner_state(process_owner()) == "alive"
    assert owner_state(dead_owner()) == "dead"
    host, boot, pid, start = process_owner().split("/")
    assert owner_state(f"{host}/{uuid.uuid4()}/{pid}/{start}") == "dead"  # another boot of this host
    assert owner_state(f"elsewhere/{boot}/{pid}/{start}") == "unknown"  # another host: maybe alive
    assert owner_state(None) == owner_state("garbage") == "unknown"


def set_owner(kg: kgsvc.KG, model: type[Job] | type[IndexVersion], owner: str, **where: object) -> None:
    with kg.catalog.sessions.begin() as session:
        statement = update(model).values(owner=owner)
        for key, value in where.items():
            statement = statement.where(getattr(model, key) == value)
        session.execute(statement)


def test_embedded_mode_fails_every_left_over_job_and_build(tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data, auto_index=False)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        running = kg.catalog.create_job("ingest", dataset="sample")
        kg.catalog.update_job(running, state="running")
        pending = kg.catalog.create_job("ingest", dataset="sample")
        version = kg.catalog.begin_index_version("sample", store_version=1)
        folder = kg.catalog.index_path("sample", version)
        folder.mkdir(parents=True)
        (folder / "node_terms.json").write_text("[]")
        stray = kg.catalog.index_path("sample", 7)  # a folder no row owns
        stray.mkdir(parents=True)
        (stray / "x.npy").write_bytes(b"0" * 1000)
        shards = [folder.parent / "shards" / f"v{n}" for n in (version, 9)]  # base shards of the dead build, of none
        for path in shards:
            path.mkdir(parents=True)
            (path / "segment").write_bytes(b"0" * 100)
        # even another host's rows: this process holds the store's LOCK, so their process is gone
        set_owner(kg, Job, "elsewhere/x/1/1", id=running)
        set_owner(kg, IndexVersion, "elsewhere/x/1/1", version=version)
    (data / "store" / "bulk-1234.sst").write_bytes(b"x" * 4096)
    with kgsvc.KG.open(settings=settings) as kg:
        report = kg.recovery
        assert report is not None and not report.unclean
        assert set(report.jobs_failed) == {running, pending}
        assert (kg.job(running).state, kg.job(running).error) == ("failed", JOB_INTERRUPTED)
        assert (kg.job(pending).state, kg.job(pending).error) == ("failed", JOB_NEVER_RAN)
        (row,) = kg.catalog.index_versions("sample")
        assert (row.state, row.error) == ("failed", VERSION_INTERRUPTED)
        assert not folder.exists() and not stray.exists() and not any(path.exists() for path in shards)
        assert not list((data / "store").glob("bulk-*"))
        assert report.orphans_deleted == 5 and report.orphan_bytes >= 4096 + 1000 + 200
        assert report.counts_fixed == {}  # the ingest job's dataset was counted: it agreed


def test_an_interrupted_bulk_load_into_an_empty_dataset_is_rolled_back(tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data, auto_index=False)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.load(kgsvc.sample_path(), dataset="kept")
        kg.catalog.create("half")
        # what a load killed half-way through the bulk path leaves: part of the file in the store, the job running
        kg.store.update("INSERT DATA { GRAPH <urn:kgsvc:dataset:half> { <urn:x:s> <urn:x:p> <urn:x:o> } }")
        half = kg.catalog.create_job("ingest", dataset="half")
        kg.catalog.update_job(half, state="running", counts={ROLLBACK_ON_CRASH: True})
        done = kg.catalog.create_job("ingest", dataset="kept")  # all in the store before it died: kept
        kg.catalog.update_job(done, state="running", counts={ROLLBACK_ON_CRASH: False})
        for job in (half, done):
            set_owner(kg, Job, dead_owner(), id=job)
    with kgsvc.KG.open(settings=settings) as kg:
        assert kg.recovery is not None and kg.recovery.rolled_back == ["half"]
        assert kg.store.count("urn:kgsvc:dataset:half") == 0 and kg.catalog.get("half").triples == 0
        assert kg.store.count("urn:kgsvc:dataset:kept") == kg.catalog.get("kept").triples == 615
        assert {kg.job(half).state, kg.job(done).state} == {"failed"}


def test_unclean_close_counts_every_dataset_and_drops_staging_graphs(tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data, auto_index=False)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        # what a crash between a store write and its catalog record leaves: triples the catalog does not count,
        # and a replacing load's staging graph
        kg.store.update("INSERT DATA { GRAPH <urn:kgsvc:dataset:sample> { <urn:x:s> <urn:x:p> <urn:x:o> } }")
        kg.store.update("INSERT DATA { GRAPH <urn:kgsvc:staging:0123> { <urn:x:s> <urn:x:p> <urn:x:o> } }")
        # and a named graph claimed by an update that never ran, beside one that holds its triple
        kg.catalog.claim_graphs("sample", ["urn:x:claimed", "urn:x:written"])
        kg.store.update("INSERT DATA { GRAPH <urn:x:written> { <urn:x:s> <urn:x:p> <urn:x:o> } }")
    (data / MARKER).write_text('{"owner": "a process that died"}')  # as if it had not closed cleanly
    with kgsvc.KG.open(settings=settings) as kg:
        report = kg.recovery
        assert report is not None and report.unclean
        assert report.graphs_released == [("sample", "urn:x:claimed")]
        assert kg.catalog.named_graphs("sample") == ["urn:x:written"]
        assert report.counts_fixed == {"sample": (615, 616)}
        assert report.orphan_triples == 1 and "urn:kgsvc:staging:0123" not in kg.store.graphs()
        info = kg.catalog.get("sample")
        assert (info.triples, info.store_version) == (616, 2)
    with kgsvc.KG.open(settings=settings) as kg:  # closed cleanly: nothing to do, nothing counted
        assert kg.recovery is not None and not kg.recovery.unclean and not kg.recovery.changed


def test_distributed_catalog_leaves_live_and_foreign_rows_alone(tmp_path: Path, postgres_url: str) -> None:
    """With a shared PostgreSQL catalog, only rows of provably dead processes of this host are failed."""
    schema = f"r{uuid.uuid4().hex[:8]}"
    from sqlalchemy import create_engine, text

    engine = create_engine(postgres_url)
    with engine.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    url = postgres_url + f"?options=-csearch_path%3D{schema}"
    settings = Settings(data_dir=tmp_path / "data", database_url=url, auto_index=False)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.catalog.create("d")
        foreign, dead, mine = (kg.catalog.create_job("ingest", dataset="d") for _ in range(3))
        for job in (foreign, dead, mine):
            kg.catalog.update_job(job, state="running")
        pending = kg.catalog.create_job("ingest", dataset="d")  # a Celery queue may still hold it
        host, boot, pid, start = process_owner().split("/")
        set_owner(kg, Job, f"worker-7/{boot}/{pid}/{start}", id=foreign)
        set_owner(kg, Job, dead_owner(), id=dead)
        building = kg.catalog.begin_index_version("d", store_version=0)
        set_owner(kg, IndexVersion, f"worker-7/{boot}/{pid}/{start}", version=building)
    with kgsvc.KG.open(settings=settings) as kg:
        assert kg.recovery is not None and kg.recovery.jobs_failed == [dead]
        assert kg.job(dead).error == JOB_INTERRUPTED
        assert [kg.job(j).state for j in (foreign, mine, pending)] == ["running", "running", "pending"]
        assert [v.state for v in kg.catalog.index_versions("d")] == ["building"]
        kg.drop("d")


@pytest.mark.parametrize("broker", [False, True])
def test_the_error_says_whether_the_queue_retries(tmp_path: Path, postgres_url: str, broker: bool) -> None:
    schema = f"q{uuid.uuid4().hex[:8]}"
    from sqlalchemy import create_engine, text

    engine = create_engine(postgres_url)
    with engine.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    url = postgres_url + f"?options=-csearch_path%3D{schema}"
    settings = Settings(data_dir=tmp_path / "data", database_url=url, auto_index=False)
    with kgsvc.KG.open(settings=settings) as kg:
        kg.catalog.create("d")
        job = kg.catalog.create_job("ingest", dataset="d")
        kg.catalog.update_job(job, state="running")
        set_owner(kg, Job, dead_owner(), id=job)
    if broker:
        settings = settings.model_copy(update={"broker_url": "redis://127.0.0.1:6379/15"})
    with kgsvc.KG.open(settings=settings) as kg:
        error = kg.job(job).error
        assert error is not None and error.startswith(JOB_INTERRUPTED)
        assert ("task queue retries it" in error) == broker
