"""Startup recovery: bringing the store, the catalog and the index folders back into agreement after a crash.

A process killed mid-work (SIGKILL, power loss, OOM) can leave: triples in the store that the catalog does not
count (a load killed after its store write, before :meth:`~kgsvc.catalog.Catalog.mark_changed`); job rows
``running`` forever; index versions ``building`` forever with half-written folders; and the bulk loader's
``bulk-*.sst`` files in the store folder (written, never ingested), which nothing else ever deletes.
:func:`recover` runs once when :meth:`kgsvc.KG.open` opens a data dir, before any work is accepted:

1. **Orphan files.** With the embedded on-disk store (whose RocksDB ``LOCK`` this process now holds, so no other
   process can be bulk-loading into it) every ``bulk-*`` file in the store folder is deleted, and so is every
   staging graph of a replacing load (``urn:kgsvc:staging:…``) that never got swapped in. Index folders
   ``index_dir/NAME/vN`` that no ``building``/``complete`` row owns are deleted too, and so are base shards
   ``index_dir/NAME/shards/vN`` that no such row owns and no kept version refers to.
2. **Dead jobs.** A ``running`` job whose owner process (:mod:`kgsvc.liveness`) is provably dead ends ``failed``
   with ``"interrupted: the process running it stopped"``. A dead ingest job that was a bulk load into an empty
   dataset and had not put all its triples in the store (:data:`ROLLBACK_ON_CRASH`) has the dataset's graph
   dropped again, as the loader does for a rejected file: the load is all or nothing across a crash too. Rows of
   other hosts are left alone (a Celery worker elsewhere may be running them; Celery redelivers the task of a lost
   worker, ``task_acks_late``, and the re-run sets the row running again). In the purely embedded mode (embedded
   store, no broker, SQLite in the data dir) this process holds the store's ``LOCK``, so every ``running`` or
   ``pending`` row of another process is dead (its in-memory queue died with it), whatever its owner says.
3. **Dead index builds.** A ``building`` version whose owner is provably dead (same rules) ends ``failed`` with
   ``"interrupted: …"`` and its folder is deleted; the previous complete version keeps serving.
4. **Counts.** The catalog's triple count of a dataset follows the store: when they differ the count is set,
   the data version bumped and the dataset-changed event sent (cause ``"recovery"``), so the auto-index listener
   queues the index build. Which datasets are counted: all of them when the data dir was not closed cleanly
   (the marker file :data:`MARKER` was left behind; counting costs about one store scan per dataset), else the
   datasets of the dead jobs found in step 2.
5. **Claims.** After an unclean close, a named graph a dataset owns but the store does not hold (a process died
   between claiming it and writing it, :meth:`~kgsvc.catalog.Catalog.claim_graphs`) is no longer the dataset's.
6. **Resumed builds.** With ``queue_build`` (the KG passes it when ``auto_index`` is on), a dataset whose current
   index version does not cover its data version gets a build queued — its build was interrupted (step 3, or
   stopped by :class:`~kgsvc.errors.Interrupted` at a clean shutdown), or the process died before it queued one
   — unless a build of it is under way or its newest build failed for another reason at this data version (that
   error is on the version row; it would fail again).

After a crash, recovery + the queued build reach the state of an uninterrupted run, except for a load killed
before its triples were all in the store: its job is ``failed`` as interrupted and the dataset is as before the
load (empty dataset, bulk path: rolled back) or holds what the store had ingested (a non-empty dataset: the bulk
path validated the whole file first, then streamed it; counted exactly); loading the file again completes it
(RDF set semantics).

A load and its catalog record are not one transaction (the store and the metadata database are two systems):
recovery makes them agree, as above.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from kgsvc.catalog import Catalog
from kgsvc.db import Dataset, IndexVersion, Job, JobState, utcnow
from kgsvc.errors import StoreError
from kgsvc.index.build import SHARDS_FOLDER, delete_version_files, drop_unused_shards
from kgsvc.interrupt import INTERRUPTED_PREFIX
from kgsvc.liveness import owner_state, process_owner
from kgsvc.settings import Settings
from kgsvc.store import EmbeddedStore, Store

__all__ = [
    "JOB_INTERRUPTED",
    "JOB_NEVER_RAN",
    "MARKER",
    "ROLLBACK_ON_CRASH",
    "RecoveryReport",
    "STAGING_GRAPH_PREFIX",
    "VERSION_INTERRUPTED",
    "close_marker",
    "recover",
]

log = logging.getLogger(__name__)

#: The error of a job whose process died while it ran.
JOB_INTERRUPTED = "interrupted: the process running it stopped"
#: The error of a job still ``pending`` when the process that queued it (in-process queue) died.
JOB_NEVER_RAN = "interrupted: the process that queued it stopped before it ran"
#: The error of an index version whose process died while it was building.
VERSION_INTERRUPTED = "interrupted: the process building it stopped"
#: Key of an ingest job's ``counts``: true while a bulk load into an empty dataset has not put all its triples in the
#: store (:meth:`kgsvc.KG.load`); recovery then drops the dataset's graph, as the loader does for a rejected file.
ROLLBACK_ON_CRASH = "rollback_on_crash"
#: Graphs a replacing load fills before it swaps them in (:meth:`kgsvc.KG.load`); one left in the store is orphaned.
STAGING_GRAPH_PREFIX = "urn:kgsvc:staging:"
#: The file in the data dir that says a process has the data dir open; removed by a clean :meth:`KG.close`.
MARKER = "kgsvc-open.json"

_VERSION_FOLDER = re.compile(r"^v(\d+)$")


@dataclass
class RecoveryReport:
    """What :func:`recover` found and did."""

    #: The data dir's marker was left by a process that did not close it (so every dataset was counted).
    unclean: bool = False
    #: Dataset → (triples the catalog had, triples in the store), for the datasets whose counts were corrected.
    counts_fixed: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Ids of the jobs ended ``failed`` as interrupted.
    jobs_failed: list[str] = field(default_factory=list)
    #: (dataset, version) of the index versions ended ``failed`` as interrupted.
    versions_failed: list[tuple[str, int]] = field(default_factory=list)
    #: Datasets whose index build was queued to resume an interrupted one.
    builds_queued: list[str] = field(default_factory=list)
    #: Datasets whose interrupted bulk load into an empty graph was rolled back (the graph dropped again).
    rolled_back: list[str] = field(default_factory=list)
    #: Orphaned files and folders deleted, and their bytes.
    orphans_deleted: int = 0
    orphan_bytes: int = 0
    #: Triples dropped: orphaned staging graphs (a replacing load killed before its swap) and rolled-back loads.
    orphan_triples: int = 0
    #: (dataset, graph) of the named graphs released: claimed, never written (step 5).
    graphs_released: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether recovery changed anything."""
        return bool(
            self.counts_fixed
            or self.jobs_failed
            or self.versions_failed
            or self.builds_queued
            or self.orphans_deleted
            or self.rolled_back
            or self.graphs_released
        )


def _size(path: Path) -> int:
    if path.is_dir() and not path.is_symlink():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _embedded_dir(store: Store) -> Path | None:
    return store.path if isinstance(store, EmbeddedStore) else None


def _open_marker(data_dir: Path) -> bool:
    """Write this process's marker; return whether a marker of another (dead) process was there."""
    marker = data_dir / MARKER
    unclean = marker.exists()
    marker.write_text(json.dumps({"owner": process_owner()}) + "\n", encoding="utf-8")
    return unclean


def close_marker(settings: Settings, store: Store) -> None:
    """Remove the marker :func:`recover` wrote (a clean close); no-op for stores it did not mark."""
    if _embedded_dir(store) is not None:
        (settings.data_dir / MARKER).unlink(missing_ok=True)


def _delete_bulk_files(store_dir: Path, report: RecoveryReport) -> None:
    for path in sorted(store_dir.glob("bulk-*")):
        size = _size(path)
        try:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            log.exception("cannot delete the orphaned bulk file %s", path)
            continue
        report.orphans_deleted += 1
        report.orphan_bytes += size


def _drop_staging_graphs(store: Store, report: RecoveryReport) -> None:
    for graph in store.graphs():
        if graph.startswith(STAGING_GRAPH_PREFIX):
            report.orphans_deleted += 1
            report.orphan_triples += store.count(graph)
            store.drop(graph)


def _fail_dead_jobs(catalog: Catalog, settings: Settings, purely_embedded: bool, report: RecoveryReport) -> set[str]:
    """End the jobs of dead processes ``failed``; return the datasets they were about."""
    suffix = " (the task queue retries it if it still holds the task)" if settings.broker_url else ""
    datasets: set[str] = set()
    rollback: list[tuple[str, str]] = []
    with catalog.sessions.begin() as session:
        rows = session.scalars(select(Job).where(Job.state.in_((JobState.RUNNING, JobState.PENDING))))
        for job in rows:
            state = owner_state(job.owner)
            if not (state == "dead" or (purely_embedded and state != "alive")):
                continue
            ran = job.state == JobState.RUNNING
            job.state = JobState.FAILED
            job.error = JOB_INTERRUPTED + suffix if ran else JOB_NEVER_RAN
            job.finished_at = utcnow()
            report.jobs_failed.append(job.id)
            if job.dataset is not None and job.kind == "ingest":
                datasets.add(job.dataset.name)
                if ran and (job.counts or {}).get(ROLLBACK_ON_CRASH):
                    rollback.append((job.dataset.name, job.dataset.graph_iri))
    for name, graph in rollback:
        report.orphan_triples += catalog.store.count(graph)
        catalog.store.drop(graph)
        report.rolled_back.append(name)
    return datasets


def _fail_dead_builds(catalog: Catalog, settings: Settings, purely_embedded: bool, report: RecoveryReport) -> None:
    folders: list[Path] = []
    with catalog.sessions.begin() as session:
        for row in session.scalars(select(IndexVersion).where(IndexVersion.state == "building")):
            state = owner_state(row.owner)
            if not (state == "dead" or (purely_embedded and state != "alive")):
                continue
            row.state = "failed"
            row.error = VERSION_INTERRUPTED
            report.versions_failed.append((row.dataset.name, row.version))
            folders.append(Path(row.path))
    for folder in folders:
        if folder.exists():
            report.orphans_deleted += 1
            report.orphan_bytes += _size(folder)
        delete_version_files(settings, folder)


def _delete_orphan_versions(catalog: Catalog, report: RecoveryReport) -> None:
    """Delete ``index_dir/NAME/vN`` folders that no ``building`` or ``complete`` row of NAME owns, and the base shards
    ``index_dir/NAME/shards/vN`` that none owns and no kept version refers to (a build killed after writing them)."""
    index_dir = catalog.index_dir
    if index_dir is None or not index_dir.is_dir():
        return
    with catalog.sessions() as session:
        live = {
            (name, version)
            for name, version in session.execute(
                select(Dataset.name, IndexVersion.version)
                .join(IndexVersion, IndexVersion.dataset_id == Dataset.id)
                .where(IndexVersion.state.in_(("building", "complete")))
            )
        }
        known = set(session.scalars(select(Dataset.name)))
    for dataset_dir in sorted(p for p in index_dir.iterdir() if p.is_dir()):
        if dataset_dir.name not in known:
            continue  # a dataset of another catalog sharing the folder, or one being created: not ours to judge
        for folder in sorted(dataset_dir.iterdir()):
            found = _VERSION_FOLDER.match(folder.name)
            if found is None or not folder.is_dir() or (dataset_dir.name, int(found.group(1))) in live:
                continue
            report.orphans_deleted += 1
            report.orphan_bytes += _size(folder)
            shutil.rmtree(folder, ignore_errors=True)
        sizes = {path: _size(path) for path in dataset_dir.glob(f"{SHARDS_FOLDER}/v*")}
        owned = {version for name, version in live if name == dataset_dir.name}
        for shards in drop_unused_shards(dataset_dir, keep=owned.__contains__):
            report.orphans_deleted += 1
            report.orphan_bytes += sizes.get(shards, 0)


def _reconcile_counts(catalog: Catalog, names: set[str] | None, report: RecoveryReport) -> None:
    """Make the catalog's counts follow the store for ``names`` (``None``: every dataset)."""
    for info in catalog.list():
        if names is not None and info.name not in names:
            continue
        try:
            stored = catalog.store.count(info.graph)
        except StoreError:
            log.exception("recovery could not count dataset %s in the store", info.name)
            continue
        if stored != info.triples:
            catalog.mark_changed(
                info.name,
                cause="recovery",
                triples_added=max(0, stored - info.triples),
                triples_removed=max(0, info.triples - stored),
                triples=stored,
            )
            report.counts_fixed[info.name] = (info.triples, stored)


def _release_unwritten_graphs(catalog: Catalog, report: RecoveryReport) -> None:
    """Release the named graphs datasets own that the store does not hold (claimed by a process that then died)."""
    stored = set(catalog.store.graphs())
    for info in catalog.list():
        vanished = [graph for graph in catalog.named_graphs(info.name) if graph not in stored]
        catalog.release_graphs(info.name, vanished)
        report.graphs_released.extend((info.name, graph) for graph in vanished)


def _resume_builds(catalog: Catalog, report: RecoveryReport, queue_build: Callable[[str], None]) -> None:
    """Queue a build for every dataset whose indexes lag its data, unless a build is under way or the newest one
    failed for a reason other than an interruption (it would fail again: that error is on its row)."""
    for info in catalog.list():
        if info.name in report.counts_fixed:
            continue  # its dataset-changed event already queued a build
        current = catalog.current_index_version(info.name)
        if current is not None and current.store_version >= info.store_version:
            continue
        versions = catalog.index_versions(info.name)
        newest = versions[-1] if versions else None
        if newest is not None and newest.state == "building":
            continue  # another live process is building it
        if (
            newest is not None
            and newest.state == "failed"
            and newest.store_version >= info.store_version
            and not (newest.error or "").startswith((INTERRUPTED_PREFIX, VERSION_INTERRUPTED))
        ):
            continue
        if info.store_version == 0:
            continue  # never loaded
        queue_build(info.name)
        report.builds_queued.append(info.name)


def recover(
    catalog: Catalog, settings: Settings, *, queue_build: Callable[[str], None] | None = None
) -> RecoveryReport:
    """Reconcile the store, the catalog and the index folders after a crash (module docstring); idempotent.

    Parameters
    ----------
    catalog
        The opened catalog (its store open too).
    settings
        The settings it was opened with (data dir, broker, database).
    queue_build
        Queues an index build of a dataset (``None``: interrupted builds are not resumed; changed counts still
        send the dataset-changed event to the catalog's listeners).

    Returns
    -------
    RecoveryReport
        What was found and done; also logged (a warning when anything changed).

    Notes
    -----
    Cost: a few metadata queries and a listing of the store and index folders; after an unclean close, one
    ``COUNT`` per dataset graph in addition (linear in the dataset's triples).
    """
    report = RecoveryReport()
    store_dir = _embedded_dir(catalog.store)
    # the embedded store's LOCK is ours, jobs run in-process and the catalog is this data dir's: every job or build
    # that another process left running or pending is dead
    purely_embedded = store_dir is not None and settings.broker_url is None and settings.database_url is None
    if store_dir is not None:
        report.unclean = _open_marker(settings.data_dir)
        _delete_bulk_files(store_dir, report)
        _drop_staging_graphs(catalog.store, report)
    touched = _fail_dead_jobs(catalog, settings, purely_embedded, report)
    _fail_dead_builds(catalog, settings, purely_embedded, report)
    _delete_orphan_versions(catalog, report)
    _reconcile_counts(catalog, None if report.unclean else touched, report)
    if report.unclean:
        _release_unwritten_graphs(catalog, report)
    if queue_build is not None:
        _resume_builds(catalog, report, queue_build)
    if report.changed:
        log.warning(
            "recovered %s: %d count(s) corrected %s, %d interrupted job(s) failed, %d interrupted index version(s) "
            "removed, %d build(s) resumed, %d load(s) rolled back %s, %d orphaned file(s) deleted (%d bytes), "
            "%d unwritten named graph(s) released",
            settings.data_dir,
            len(report.counts_fixed),
            report.counts_fixed,
            len(report.jobs_failed),
            len(report.versions_failed),
            len(report.builds_queued),
            len(report.rolled_back),
            report.rolled_back,
            report.orphans_deleted,
            report.orphan_bytes,
            len(report.graphs_released),
        )
    elif report.unclean:
        log.info("recovered %s after an unclean close: the catalog already agreed with the store", settings.data_dir)
    return report
