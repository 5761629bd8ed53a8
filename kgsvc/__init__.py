"""kgsvc — a SPARQL-native knowledge-graph service.

The public surface is what ``__all__`` lists; everything else may change.
"""

from __future__ import annotations

from kgsvc.errors import (
    DatasetError,
    IndexError_,
    IngestError,
    KgsvcError,
    LinkError,
    LLMError,
    MatchError,
    PatternError,
    QueryError,
    StoreError,
)
from kgsvc.samples import sample_path, sample_questions
from kgsvc.schemas import DatasetInfo, DatasetStats, JobInfo, LoadResult, RdfTerm, SimilarNode, SparqlResult
from kgsvc.sdk import KG, Client
from kgsvc.settings import Settings

__version__ = "0.1.0"

__all__ = [
    "Client",
    "DatasetError",
    "DatasetInfo",
    "DatasetStats",
    "IndexError_",
    "IngestError",
    "JobInfo",
    "KG",
    "KgsvcError",
    "LLMError",
    "LinkError",
    "LoadResult",
    "MatchError",
    "PatternError",
    "QueryError",
    "RdfTerm",
    "Settings",
    "SimilarNode",
    "SparqlResult",
    "StoreError",
    "sample_path",
    "sample_questions",
]
