"""A dataset's user-supplied exemplars, kept as JSON lines in the data directory.

The file is ``<data_dir>/exemplars/<dataset>.jsonl`` (the format of :func:`kgsvc.qa.exemplars.read_exemplars`).
The question path reads it when it builds a dataset's answerer and again whenever the file changed
(:mod:`kgsvc.qa.service` keys its cache on the file's modification time and size), so a running server and an open
``KG`` pick up an added or removed exemplar without a restart.

Writes replace the file atomically (write a temporary file in the same folder, then ``os.replace``) under a
process-wide lock, so a reader never sees half a file. An exemplar is identified by its question text (folded):
adding one whose question is already there replaces it.

Entry points: :func:`list_exemplars`, :func:`add_exemplars`, :func:`remove_exemplars`, :func:`exemplar_path`.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from kgsvc.qa.exemplars import Exemplar, read_exemplars, write_exemplars
from kgsvc.qa.link import fold

__all__ = ["add_exemplars", "exemplar_path", "list_exemplars", "parse_exemplars", "remove_exemplars"]

_LOCK = threading.Lock()


def exemplar_path(data_dir: Path, dataset: str) -> Path:
    """Where ``dataset``'s exemplars live under ``data_dir``."""
    return Path(data_dir) / "exemplars" / f"{dataset}.jsonl"


def _key(question: str) -> str:
    return " ".join(fold(question).split()).rstrip(" ?")


def list_exemplars(path: Path) -> list[Exemplar]:
    """The exemplars in ``path`` (``[]`` when there is no file)."""
    return read_exemplars(path) if Path(path).exists() else []


def parse_exemplars(rows: Iterable[Mapping[str, object]]) -> list[Exemplar]:
    """Exemplars from JSON objects (``question``, ``entities``, ``triples``, ``answer``, optional ``qtype``).

    Raises
    ------
    ValueError
        Naming the position of the first object that is not a valid exemplar and what is wrong with it.
    """
    out = []
    for number, row in enumerate(rows, start=1):
        try:
            if not isinstance(row, Mapping):
                raise TypeError(f"expected an object, got {type(row).__name__}")
            missing = [k for k in ("question", "triples", "answer") if k not in row]
            if missing:
                raise ValueError(f"missing {', '.join(missing)}")
            out.append(Exemplar.from_json(dict(row)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"exemplar {number} is not valid: {exc}") from None
    return out


def _write(path: Path, exemplars: list[Exemplar]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".exemplars-", suffix=".jsonl", dir=path.parent)
    os.close(fd)
    try:
        write_exemplars(Path(tmp), exemplars)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def add_exemplars(path: Path, new: Iterable[Exemplar]) -> list[Exemplar]:
    """Add ``new`` to the file (an exemplar with the same question replaces the old one); returns all of them."""
    with _LOCK:
        current = {_key(e.question): e for e in list_exemplars(path)}
        for e in new:
            current[_key(e.question)] = e
        exemplars = list(current.values())
        _write(path, exemplars)
        return exemplars


def remove_exemplars(path: Path, questions: Iterable[str]) -> int:
    """Remove the exemplars with these questions (folded match); returns how many were removed.

    The file is deleted when no exemplar is left.
    """
    with _LOCK:
        drop = {_key(q) for q in questions}
        current = list_exemplars(path)
        kept = [e for e in current if _key(e.question) not in drop]
        if len(kept) == len(current):
            return 0
        if kept:
            _write(path, kept)
        else:
            Path(path).unlink(missing_ok=True)
        return len(current) - len(kept)
