"""The sample KG shipped with kgsvc: well-known films (``movies.ttl``) and questions about it."""

from __future__ import annotations

from pathlib import Path

__all__ = ["sample_path", "sample_questions"]

_HERE = Path(__file__).resolve().parent


def sample_path() -> Path:
    """Path of the bundled sample KG (Turtle, ~600 triples with labels)."""
    return _HERE / "movies.ttl"


def sample_questions() -> list[tuple[str, list[str]]]:
    """The bundled questions about the sample KG with their expected answers."""
    rows = []
    for line in (_HERE / "questions.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            question, answers = line.split("\t")
            rows.append((question, answers.split("|")))
    return rows
