"""The SPARQL kgsvc runs, kept as ``.rq`` files in the top-level ``sparql/`` folder and loaded by name."""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["QUERIES_DIR", "load_query"]

QUERIES_DIR = Path(__file__).resolve().parents[1] / "sparql"


@cache
def load_query(name: str) -> str:
    """The text of ``sparql/<name>.rq``.

    >>> "COUNT" in load_query("dataset_counts")
    True
    """
    path = QUERIES_DIR / f"{name}.rq"
    if not path.is_file():
        raise FileNotFoundError(f"no SPARQL file {path}")
    return path.read_text(encoding="utf-8")
