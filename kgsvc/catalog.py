"""The catalog: datasets (store graph + metadata row) and job rows, kept consistent with each other.

The store holds the triples; the metadata database holds what kgsvc knows about them (data version, jobs,
index versions). Every change of a dataset's data goes through :meth:`Catalog.mark_changed`, which bumps
its ``store_version`` and tells the listeners (the indexing workers subscribe here).
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import shutil
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from kgsvc.db import Dataset, DatasetGraph, IndexVersion, Job, JobState, utcnow
from kgsvc.errors import DatasetError, IndexError_, KgsvcError
from kgsvc.index.changes import record_change
from kgsvc.liveness import process_owner
from kgsvc.queries import load_query
from kgsvc.schemas import DatasetInfo, DatasetStats, IndexVersionInfo, JobInfo
from kgsvc.store import NamedNode, Store, check_dataset_name, dataset_graph

__all__ = ["RESERVED_GRAPH_PREFIX", "Catalog", "DatasetChanged", "check_name_predicates"]

log = logging.getLogger(__name__)

#: Graph IRIs kgsvc mints for itself (dataset graphs, staging graphs): never a dataset's named graph.
RESERVED_GRAPH_PREFIX = "urn:kgsvc:"


@dataclass(frozen=True)
class DatasetChanged:
    """The dataset-changed event: which dataset, its new data version, what happened and how much changed."""

    dataset: str
    store_version: int
    cause: str
    triples_added: int = 0
    triples_removed: int = 0


Listener = Callable[[DatasetChanged], None]


class Catalog:
    """Datasets and jobs over one store and one metadata database.

    Parameters
    ----------
    store
        The RDF store.
    sessions
        Session factory of the migrated metadata database.
    index_dir
        Folder under which each dataset's index versions live (removed with the dataset).
    """

    def __init__(self, store: Store, sessions: sessionmaker[Session], *, index_dir: Path | None = None) -> None:
        self.store = store
        self.sessions = sessions
        self.index_dir = index_dir
        self._listeners: list[Listener] = []

    # -- datasets -------------------------------------------------------------------------------------------

    def _row(self, session: Session, name: str) -> Dataset:
        row = session.scalar(select(Dataset).where(Dataset.name == name))
        if row is None:
            known = ", ".join(session.scalars(select(Dataset.name).order_by(Dataset.name))) or "none"
            raise DatasetError(f"unknown dataset {name!r} (known: {known})", dataset=name)
        return row

    def exists(self, name: str) -> bool:
        with self.sessions() as session:
            return session.scalar(select(Dataset.id).where(Dataset.name == name)) is not None

    def create(
        self,
        name: str,
        *,
        base_iri: str | None = None,
        description: str | None = None,
        name_predicates: Sequence[str] | None = None,
        exist_ok: bool = False,
    ) -> DatasetInfo:
        """Register a dataset (its graph appears with its first triple).

        Raises ``DatasetError`` if it exists, or if ``base_iri`` is not an absolute IRI. With ``exist_ok`` an
        existing dataset is returned; ``name_predicates``, when given, then replace its configured ones
        (:meth:`set_name_predicates`).
        """
        check_dataset_name(name)
        if base_iri is not None:
            try:
                NamedNode(base_iri)
            except ValueError as exc:
                raise DatasetError(f"invalid base IRI {base_iri!r}: {exc}", dataset=name) from None
        predicates = check_name_predicates(name_predicates) if name_predicates is not None else None
        with self.sessions.begin() as session:
            row = session.scalar(select(Dataset).where(Dataset.name == name))
            if row is not None:
                if not exist_ok:
                    raise DatasetError(f"dataset {name!r} already exists", dataset=name)
                if predicates is not None:
                    row.name_predicates = predicates or None
                    session.flush()
                return _info(row)
            row = Dataset(
                name=name,
                graph_iri=dataset_graph(name).value,
                base_iri=base_iri,
                description=description,
                name_predicates=predicates or None,
            )
            session.add(row)
            session.flush()
            return _info(row)

    def set_name_predicates(self, name: str, predicates: Sequence[str]) -> DatasetInfo:
        """Configure the predicates that name the nodes of ``name`` (IRIs, most preferred first; empty: back to
        ``Settings.name_predicates``). The next index build reads them (:mod:`kgsvc.index.names`).

        Raises
        ------
        DatasetError
            When the dataset is unknown or a predicate is not an absolute IRI.
        """
        checked = check_name_predicates(predicates)
        with self.sessions.begin() as session:
            row = self._row(session, name)
            row.name_predicates = checked or None
            session.flush()
            return _info(row)

    def get(self, name: str) -> DatasetInfo:
        """The dataset ``name``; raises ``DatasetError`` naming the known datasets if there is none."""
        with self.sessions() as session:
            return _info(self._row(session, name))

    def list(self) -> list[DatasetInfo]:
        with self.sessions() as session:
            return [_info(row) for row in session.scalars(select(Dataset).order_by(Dataset.name))]

    def stats(self, name: str) -> DatasetStats:
        """Counts from the store (triples, nodes, literals, relations) and the index versions."""
        info = self.get(name)
        counts = next(iter(self.store.query(load_query("dataset_counts"), default_graph=[info.graph])))  # type: ignore[arg-type]
        nodes = next(iter(self.store.query(load_query("dataset_nodes"), default_graph=[info.graph])))  # type: ignore[arg-type]
        with self.sessions() as session:
            row = self._row(session, name)
            versions = [_version(v) for v in sorted(row.index_versions, key=lambda v: v.version)]
        return DatasetStats(
            name=name,
            triples=int(counts["triples"].value),
            relations=int(counts["relations"].value),
            nodes=int(nodes["nodes"].value),
            literals=int(nodes["literals"].value),
            store_version=info.store_version,
            index_versions=versions,
        )

    def drop(self, name: str) -> None:
        """Remove the dataset: its graph and named graphs, its metadata rows and its index folders."""
        with self.sessions.begin() as session:
            row = self._row(session, name)
            for graph in [row.graph_iri, *(g.graph_iri for g in row.named_graphs)]:
                self.store.drop(graph)
            session.delete(row)
        if self.index_dir is not None:
            shutil.rmtree(self.index_dir / name, ignore_errors=True)

    # -- named graphs ---------------------------------------------------------------------------------------

    def named_graphs(self, name: str) -> builtins.list[str]:
        """The named graphs dataset ``name`` owns (IRIs, sorted), whether or not the store holds triples in them.

        Raises ``DatasetError`` if the dataset is unknown.
        """
        with self.sessions() as session:
            row = self._row(session, name)
            return sorted(g.graph_iri for g in row.named_graphs)

    def graph_owners(self, graphs: Collection[str]) -> dict[str, str]:
        """The owning dataset of each of ``graphs`` that a dataset owns: its default graph or a named graph of it."""
        if not graphs:
            return {}
        with self.sessions() as session:
            rows = session.execute(
                select(DatasetGraph.graph_iri, Dataset.name)
                .join(Dataset, DatasetGraph.dataset_id == Dataset.id)
                .where(DatasetGraph.graph_iri.in_(list(graphs)))
            )
            owners = {graph: name for graph, name in rows}
            rows = session.execute(select(Dataset.graph_iri, Dataset.name).where(Dataset.graph_iri.in_(list(graphs))))
            owners.update({graph: name for graph, name in rows})
        return owners

    def claim_graphs(self, name: str, graphs: Collection[str]) -> builtins.list[str]:
        """Make ``graphs`` named graphs of dataset ``name``, all or none; returns those it did not own before (its
        own default graph counts as owned).

        A graph owned by another dataset, or an IRI kgsvc reserves (:data:`RESERVED_GRAPH_PREFIX`), is refused.
        Atomic: the unique graph IRI makes two datasets claiming one graph at once end with one owner, and the
        other's claim fails whole.

        Raises
        ------
        DatasetError
            When the dataset is unknown, or a graph is reserved or another dataset's (the message names it).
        """
        owners = self.graph_owners(set(graphs))
        new = sorted(graph for graph in set(graphs) if owners.get(graph) != name)
        for graph in new:
            if graph in owners:
                raise DatasetError(f"graph <{graph}> belongs to dataset {owners[graph]!r}", dataset=name)
            if graph.startswith(RESERVED_GRAPH_PREFIX):
                raise DatasetError(f"graph <{graph}> is reserved by kgsvc and cannot be a named graph", dataset=name)
        if not new:
            return []
        try:
            with self.sessions.begin() as session:
                row = self._row(session, name)
                session.add_all(DatasetGraph(dataset_id=row.id, graph_iri=graph) for graph in new)
        except IntegrityError:  # claimed by another dataset meanwhile: say which
            taken = {g: o for g, o in self.graph_owners(new).items() if o != name}
            graph = min(taken) if taken else new[0]
            raise DatasetError(f"graph <{graph}> belongs to dataset {taken.get(graph)!r}", dataset=name) from None
        return new

    def release_graphs(self, name: str, graphs: Collection[str]) -> None:
        """Forget that dataset ``name`` owns ``graphs`` (the store's triples in them stay)."""
        if not graphs:
            return
        with self.sessions.begin() as session:
            row = self._row(session, name)
            session.execute(
                delete(DatasetGraph).where(DatasetGraph.dataset_id == row.id, DatasetGraph.graph_iri.in_(list(graphs)))
            )

    def mark_changed(
        self,
        name: str,
        *,
        cause: str,
        triples_added: int = 0,
        triples_removed: int = 0,
        triples: int | None = None,
        triples_delta: int | None = None,
        subjects: Collection[str] | None = None,
    ) -> int:
        """Record that the data of ``name`` changed; returns the new ``store_version`` and notifies listeners.

        ``triples`` is the dataset's new triple count when the caller knows it, ``triples_delta`` by how much it
        moved (added to the recorded count in the same transaction); else it is counted (O(triples)).
        ``subjects`` are the N-Triples texts of every subject whose triples the change added or removed (a superset
        is fine), or ``None`` when not known; they go to the change log (:mod:`kgsvc.index.changes`) before the
        version bump commits, and make the next index build incremental.
        """
        with self.sessions.begin() as session:
            row = self._row(session, name)
            row.store_version += 1
            if triples is not None:
                row.triple_count = triples
            elif triples_delta is not None:
                row.triple_count += triples_delta
            else:
                row.triple_count = self.store.count(row.graph_iri)
            row.updated_at = utcnow()
            version = row.store_version
            if self.index_dir is not None:
                record_change(self.index_dir, name, version, subjects)
        event = DatasetChanged(name, version, cause, triples_added, triples_removed)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a failing listener must not undo a committed change
                log.exception("dataset-changed listener %r failed for %s", listener, event)
        return version

    def intend_change(self, name: str, subjects: Collection[str] | None) -> None:
        """Write ``subjects`` (``None``: not known) to the change log of the data version after the current one,
        before a change is written to the store: a change that dies half-way leaves them logged, so the next index
        build re-reads them (:mod:`kgsvc.index.changes`). A no-op without an index folder or for a new dataset."""
        if self.index_dir is None or not self.exists(name):
            return
        record_change(self.index_dir, name, self.get(name).store_version + 1, subjects)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` after every change of any dataset's data."""
        self._listeners.append(listener)

    # -- index versions -------------------------------------------------------------------------------------
    # A version is "building", then "complete" (with counts and metrics) or "failed" (with the error); once a
    # newer one completes, older ones are "removed" (their folders deleted). The newest complete one is current.

    def index_path(self, name: str, version: int) -> Path:
        """The folder of index version ``version`` of ``name``: ``index_dir/NAME/vVERSION``."""
        if self.index_dir is None:
            raise IndexError_("this catalog has no index_dir", dataset=name, version=version)
        return self.index_dir / check_dataset_name(name) / f"v{version}"

    def begin_index_version(self, name: str, *, store_version: int) -> int:
        """Record a new ``building`` version (one above every version so far) and return its number."""
        with self.sessions.begin() as session:
            row = self._row(session, name)
            version = max((v.version for v in row.index_versions), default=0) + 1
            session.add(
                IndexVersion(
                    dataset_id=row.id,
                    version=version,
                    store_version=store_version,
                    state="building",
                    path=str(self.index_path(name, version)),
                    owner=process_owner(),  # startup recovery fails the row if this process dies (kgsvc.recovery)
                )
            )
        return version

    def finish_index_version(
        self,
        name: str,
        version: int,
        *,
        counts: dict[str, Any] | None = None,
        metrics: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        """Mark ``version`` ``complete`` (with ``counts``, ``metrics``) or, when ``error`` is given, ``failed``."""
        with self.sessions.begin() as session:
            row = self._version_row(session, name, version)
            row.state = "failed" if error is not None else "complete"
            row.counts = counts or {}
            row.metrics = metrics or {}
            row.error = error
            row.completed_at = utcnow() if error is None else None

    def add_index_metrics(self, name: str, version: int, metrics: dict[str, Any]) -> None:
        """Merge ``metrics`` into the metrics of ``version`` (results computed after the build, such as the GNN's
        held-out scores). Raises ``IndexError_`` if the version does not exist."""
        with self.sessions.begin() as session:
            row = self._version_row(session, name, version)
            row.metrics = {**(row.metrics or {}), **metrics}  # a new dict: the JSON column is not change-tracked

    def index_versions(self, name: str) -> builtins.list[IndexVersionInfo]:
        """All versions of ``name``, oldest first."""
        with self.sessions() as session:
            return [_version(v) for v in sorted(self._row(session, name).index_versions, key=lambda v: v.version)]

    def current_index_version(self, name: str) -> IndexVersionInfo | None:
        """The newest ``complete`` version of ``name`` (the one queries read), or ``None``."""
        complete = [v for v in self.index_versions(name) if v.state == "complete"]
        return complete[-1] if complete else None

    def remove_index_versions(self, name: str, *, below: int) -> builtins.list[int]:
        """Mark every version older than ``below`` ``removed`` (failed ones stay failed); return their numbers.

        The caller deletes their files (see :mod:`kgsvc.index.build`).
        """
        with self.sessions.begin() as session:
            old = [v for v in self._row(session, name).index_versions if v.version < below]
            for row in old:
                if row.state != "failed":
                    row.state = "removed"
            return sorted(v.version for v in old)

    def _version_row(self, session: Session, name: str, version: int) -> IndexVersion:
        for row in self._row(session, name).index_versions:
            if row.version == version:
                return row
        raise IndexError_(f"dataset {name!r} has no index version {version}", dataset=name, version=version)

    # -- jobs -----------------------------------------------------------------------------------------------

    def create_job(self, kind: str, *, dataset: str | None = None, params: dict[str, Any] | None = None) -> str:
        with self.sessions.begin() as session:
            dataset_id = self._row(session, dataset).id if dataset else None
            job = Job(kind=kind, dataset_id=dataset_id, params=params or {})
            session.add(job)
            session.flush()
            return job.id

    @contextlib.contextmanager
    def running(self, job_id: str) -> Iterator[Callable[..., None]]:
        """Mark the job running; yield ``update(progress=…, counts=…)``; mark it succeeded, or failed with the error."""
        self.update_job(job_id, state=JobState.RUNNING, started_at=utcnow())

        def update(**fields: Any) -> None:
            self.update_job(job_id, **fields)

        try:
            yield update
        except BaseException as exc:
            error = str(exc) if isinstance(exc, KgsvcError) else f"{type(exc).__name__}: {exc}"  # a user's message
            self.update_job(job_id, state=JobState.FAILED, error=error, finished_at=utcnow())
            raise
        self.update_job(job_id, state=JobState.SUCCEEDED, progress=1.0, finished_at=utcnow())

    def update_job(self, job_id: str, **fields: Any) -> None:
        with self.sessions.begin() as session:
            job = session.get(Job, job_id)
            if job is None:
                raise KeyError(job_id)
            for key, value in fields.items():
                if key == "counts":
                    value = {**job.counts, **value}
                setattr(job, key, value)
            if fields.get("state") == JobState.RUNNING:
                job.owner = process_owner()  # startup recovery fails the job if this process dies (kgsvc.recovery)

    def job(self, job_id: str) -> JobInfo:
        with self.sessions() as session:
            job = session.get(Job, job_id)
            if job is None:
                raise KeyError(f"unknown job {job_id!r}")
            return _job(job)

    def jobs(self, *, dataset: str | None = None, limit: int = 50) -> builtins.list[JobInfo]:
        with self.sessions() as session:
            query = select(Job).order_by(Job.created_at.desc()).limit(limit)
            if dataset:
                query = query.where(Job.dataset_id == self._row(session, dataset).id)
            return [_job(job) for job in session.scalars(query)]


def check_name_predicates(predicates: Sequence[str]) -> list[str]:
    """``predicates`` as a list of absolute IRIs (duplicates dropped, order kept).

    Raises
    ------
    DatasetError
        Naming the first value that is not an absolute IRI.
    """
    if isinstance(predicates, str):
        predicates = [predicates]
    checked: list[str] = []
    for predicate in predicates:
        text = predicate.strip() if isinstance(predicate, str) else predicate
        try:
            iri = NamedNode(text).value
        except (TypeError, ValueError):
            iri = ""
        if ":" not in iri:
            raise DatasetError(
                f"name predicate {predicate!r} is not an absolute IRI (e.g. http://dbpedia.org/ontology/name)"
            )
        if iri not in checked:
            checked.append(iri)
    return checked


def _info(row: Dataset) -> DatasetInfo:
    return DatasetInfo(
        name=row.name,
        graph=row.graph_iri,
        base_iri=row.base_iri,
        description=row.description,
        name_predicates=row.name_predicates,
        triples=row.triple_count,
        store_version=row.store_version,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _version(row: IndexVersion) -> IndexVersionInfo:
    return IndexVersionInfo(
        version=row.version,
        store_version=row.store_version,
        state=row.state,
        counts=row.counts,
        metrics=row.metrics,
        error=row.error,
        created_at=row.created_at,
        completed_at=row.completed_at,
    )


def _job(job: Job) -> JobInfo:
    return JobInfo(
        id=job.id,
        kind=job.kind,
        dataset=job.dataset.name if job.dataset else None,
        state=job.state,
        progress=job.progress,
        params=job.params,
        counts=job.counts,
        error=job.error,
        created_at=job.created_at,
        started_at=job.started_at,
        finished_at=job.finished_at,
        seconds=job.seconds,
    )
