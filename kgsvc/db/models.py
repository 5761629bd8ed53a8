"""The metadata schema: datasets, jobs (ingestion, index builds, questions) and index versions.

Changed only through Alembic migrations (``alembic/versions``); :func:`kgsvc.db.session.open_database` upgrades
to the newest revision on open.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

__all__ = ["Base", "Dataset", "DatasetGraph", "IndexVersion", "Job", "JobState", "utcnow"]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class JobState:
    """The states of a job row, in the order a job goes through them."""

    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    FINISHED = (SUCCEEDED, FAILED, CANCELLED)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON}


class Dataset(Base):
    """A dataset: one named graph in the store plus its indexes.

    ``store_version`` grows by one with every change of the data (load, update, Graph Store write), so the
    index builders know what is stale.
    """

    __tablename__ = "datasets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    graph_iri: Mapped[str] = mapped_column(String(512))
    base_iri: Mapped[str | None] = mapped_column(String(512), nullable=True)
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: IRIs of the predicates that name this dataset's nodes, preferred to every other label (issue 18);
    #: ``None``: ``Settings.name_predicates``.
    name_predicates: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    store_version: Mapped[int] = mapped_column(Integer, default=0)
    triple_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)

    jobs: Mapped[list[Job]] = relationship(back_populates="dataset", cascade="all, delete-orphan")
    index_versions: Mapped[list[IndexVersion]] = relationship(back_populates="dataset", cascade="all, delete-orphan")
    named_graphs: Mapped[list[DatasetGraph]] = relationship(back_populates="dataset", cascade="all, delete-orphan")


class DatasetGraph(Base):
    """A named graph a dataset owns besides its default graph (a TriG/N-Quads load, an update at its endpoint).

    A graph IRI has at most one owner (the unique constraint makes a claim atomic); the dataset endpoint's named
    graphs are its owned graphs (:mod:`kgsvc.api.scope`).
    """

    __tablename__ = "dataset_graphs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"), index=True)
    graph_iri: Mapped[str] = mapped_column(String(2048), unique=True)

    dataset: Mapped[Dataset] = relationship(back_populates="named_graphs")


class Job(Base):
    """One unit of asynchronous or long work: ``kind`` is ``ingest``, ``build_index``, ``ask_batch``, …"""

    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=lambda: str(uuid.uuid4()))
    kind: Mapped[str] = mapped_column(String(32), index=True)
    dataset_id: Mapped[int | None] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"), nullable=True)
    state: Mapped[str] = mapped_column(String(16), default=JobState.PENDING, index=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    counts: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The process that set it running, ``host/boot id/pid/start time`` (:func:`kgsvc.recovery.process_owner`).
    owner: Mapped[str | None] = mapped_column(String(255), nullable=True)

    dataset: Mapped[Dataset | None] = relationship(back_populates="jobs")

    @property
    def seconds(self) -> float | None:
        """Wall time from start to finish (or to now while running)."""
        if self.started_at is None:
            return None
        end = self.finished_at or utcnow()
        start = self.started_at if self.started_at.tzinfo else self.started_at.replace(tzinfo=dt.UTC)
        end = end if end.tzinfo else end.replace(tzinfo=dt.UTC)
        return (end - start).total_seconds()


class IndexVersion(Base):
    """A build of a dataset's indexes. Served only when ``state == "complete"``; the newest complete one is current."""

    __tablename__ = "index_versions"
    __table_args__ = (UniqueConstraint("dataset_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    store_version: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(16), default="building")
    path: Mapped[str] = mapped_column(String(1024))
    counts: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    metrics: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    completed_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The process building it (:func:`kgsvc.recovery.process_owner`).
    owner: Mapped[str | None] = mapped_column(String(255), nullable=True)

    dataset: Mapped[Dataset] = relationship(back_populates="index_versions")
