"""Ingestion: RDF files and plain triple files into a dataset graph, all or nothing."""

from __future__ import annotations

from kgsvc.ingest.loader import *  # noqa: F403
from kgsvc.ingest.triples import *  # noqa: F403
