"""The exceptions kgsvc raises. One base class, one family per part:

```
KgsvcError
├── DatasetError            unknown dataset, bad dataset name, dataset already exists
├── StoreError              the store failed or refused (remote store unreachable, write refused)
│   └── QueryError          a SPARQL query or update is invalid or was stopped (timeout, size limit)
├── IngestError             a file could not be loaded; carries file, line, column and the reason
├── IndexError_             an index is missing or could not be built
├── LinkError / PatternError  the question path could not ground the question
├── MatchError              a pattern cannot be matched (for example it is disconnected or all-unknown)
├── LLMError                a model failed or returned unusable output (keeps the raw text)
└── Interrupted             kgsvc was asked to stop (SIGTERM, KG.stop) while the work was running
```

Only the API layer turns these into HTTP status codes.
"""

from __future__ import annotations

__all__ = [
    "DatasetError",
    "IndexError_",
    "IngestError",
    "Interrupted",
    "KgsvcError",
    "LLMError",
    "LinkError",
    "MatchError",
    "PatternError",
    "QueryError",
    "StoreError",
]


class KgsvcError(Exception):
    """Base class of every error kgsvc raises on purpose."""


class DatasetError(KgsvcError):
    """A dataset name is invalid, unknown, or already taken."""

    def __init__(self, message: str, *, dataset: str | None = None) -> None:
        super().__init__(message)
        self.dataset = dataset


class StoreError(KgsvcError):
    """The RDF store failed or refused an operation."""


class QueryError(StoreError):
    """A SPARQL query or update is malformed, or was stopped (timeout, result limit).

    ``kind`` is ``"syntax"``, ``"timeout"``, ``"too_large"`` or ``"forbidden"``.
    """

    def __init__(self, message: str, *, kind: str = "syntax", query: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.query = query


class IngestError(KgsvcError):
    """An input file was rejected; nothing of it was stored.

    The message is one line: ``FILE:LINE:COLUMN: reason``.
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        dataset: str | None = None,
    ) -> None:
        where = file or "<input>"
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        super().__init__(f"{where}: {reason}")
        self.reason = reason
        self.file = file
        self.line = line
        self.column = column
        self.dataset = dataset


class IndexError_(KgsvcError):  # noqa: N801 - the builtin IndexError means something else
    """An index is missing, incomplete or could not be built."""

    def __init__(self, message: str, *, dataset: str | None = None, version: int | None = None) -> None:
        super().__init__(message)
        self.dataset = dataset
        self.version = version


class LinkError(KgsvcError):
    """No entity of the question could be linked to the graph."""


class PatternError(KgsvcError):
    """No usable pattern graph could be produced for the question."""

    def __init__(self, message: str, *, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


class MatchError(KgsvcError):
    """A pattern cannot be matched as given (disconnected, all nodes unknown, unknown vocabulary)."""


class LLMError(KgsvcError):
    """A language model failed or returned output that does not fit the requested structure."""

    def __init__(self, message: str, *, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


class Interrupted(KgsvcError):
    """The work was stopped because kgsvc is shutting down (:mod:`kgsvc.interrupt`); it is safe to run it again."""
