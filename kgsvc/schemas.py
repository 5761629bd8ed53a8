"""Typed results of the public API: what the SDK returns and the JSON API sends."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = [
    "DatasetInfo",
    "DatasetStats",
    "IndexVersionInfo",
    "JobInfo",
    "LoadResult",
    "RdfTerm",
    "SimilarNode",
    "SparqlResult",
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class DatasetInfo(_Model):
    """A dataset as listed: name, its graph, how many triples, and its data version."""

    name: str
    graph: str
    base_iri: str | None = None
    description: str | None = None
    name_predicates: list[str] | None = None
    triples: int
    store_version: int
    created_at: dt.datetime
    updated_at: dt.datetime


class IndexVersionInfo(_Model):
    """One index build of a dataset."""

    version: int
    store_version: int
    state: str
    counts: dict[str, Any] = {}
    metrics: dict[str, Any] = {}
    error: str | None = None
    created_at: dt.datetime
    completed_at: dt.datetime | None = None


class DatasetStats(_Model):
    """Counts of a dataset: triples, distinct nodes (IRIs and blank nodes), literals and relations."""

    name: str
    triples: int
    nodes: int
    literals: int
    relations: int
    store_version: int
    index_versions: list[IndexVersionInfo] = []


class JobInfo(_Model):
    """A job row: state, progress (0..1), counts, error and timings."""

    id: str
    kind: str
    dataset: str | None
    state: str
    progress: float
    params: dict[str, Any] = {}
    counts: dict[str, Any] = {}
    error: str | None = None
    created_at: dt.datetime
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    seconds: float | None = None


class LoadResult(_Model):
    """The outcome of loading one file."""

    dataset: str
    job_id: str
    triples_added: int
    triples_total: int
    bytes_read: int
    seconds: float
    bulk: bool
    format: str
    store_version: int


class RdfTerm(_Model):
    """An RDF term as in SPARQL 1.1 JSON results: ``type`` is ``uri``, ``literal``, ``bnode`` or ``triple``."""

    type: str
    value: str
    datatype: str | None = None
    lang: str | None = None

    def __str__(self) -> str:
        return self.value


class SimilarNode(_Model):
    """A node near another by GNN embedding: its term, label, and the L2 distance between the two unit vectors
    (``sqrt(2 − 2 cos)``, 0 for the same direction)."""

    term: RdfTerm
    label: str
    distance: float


class SparqlResult(_Model):
    """The result of a SPARQL query: ``kind`` is ``select``, ``ask`` or ``graph`` (CONSTRUCT/DESCRIBE)."""

    kind: str
    variables: list[str] = []
    rows: list[dict[str, RdfTerm]] = []
    boolean: bool | None = None
    triples: list[tuple[RdfTerm, RdfTerm, RdfTerm]] = []
