"""The change log of a dataset: which subjects each data version changed, so an index build can be incremental.

Every change of a dataset's data goes through :meth:`kgsvc.catalog.Catalog.mark_changed`, which appends the
change's **subjects** (N-Triples text of every subject whose triples were added or removed) to the log of the new
data version before it commits the version bump::

    index_dir/NAME/changes/<store_version>.log     one N-Triples term a line; a line "*" means "not known"

An incremental build (:mod:`kgsvc.index.build`) from a version covering data version ``a`` to data version ``b``
reads the logs ``a+1 .. b``; it re-reads from the store every triple of those subjects and patches the previous
version's tables with them. It falls back to a full build when a log is missing or holds ``*`` (a change whose
subjects were not known, e.g. a SPARQL update other than ``INSERT DATA`` / ``DELETE DATA``, a bulk load or a
``replace``) or names a blank node (which SPARQL cannot look up by label).

Kill-safety: the log is appended (never rewritten) before the version bump commits, so a change that failed
after writing its subjects leaves a superset in the log of the next version, never a subset; a change that never
reached :meth:`~kgsvc.catalog.Catalog.mark_changed` did not bump the version, and the next change's log does not
name its subjects — the recovery that re-runs a lost ``mark_changed`` must therefore pass ``subjects=None``
(a full build). Logs at or below a complete version's data version are deleted once that version is built (and
the folder with them when empty).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection
from pathlib import Path

__all__ = ["UNKNOWN", "changed_subjects", "forget_changes", "record_change"]

#: The log line meaning "this change's subjects are not known" (forces a full build).
UNKNOWN = "*"
_FOLDER = "changes"


def _log(index_dir: Path, dataset: str, store_version: int) -> Path:
    return index_dir / dataset / _FOLDER / f"{store_version}.log"


def record_change(index_dir: Path, dataset: str, store_version: int, subjects: Collection[str] | None) -> None:
    """Append ``subjects`` (N-Triples terms; ``None``: not known) to the log of data version ``store_version``.

    The file is fsynced, so the log survives a crash of the process that then commits the version bump.
    """
    path = _log(index_dir, dataset, store_version)
    lines = [UNKNOWN] if subjects is None else [s for s in subjects if "\n" not in s]
    for attempt in range(3):  # forget_changes may remove the empty folder between mkdir and open
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("a", encoding="utf-8") as handle:
                handle.write("".join(f"{line}\n" for line in lines))
                handle.flush()
                os.fsync(handle.fileno())
            return
        except FileNotFoundError:
            if attempt == 2:
                raise


def changed_subjects(index_dir: Path, dataset: str, after: int, upto: int) -> set[str] | None:
    """The subjects changed by data versions ``after + 1 .. upto``, or ``None`` when one of them is not known.

    Not known: a log is missing, holds :data:`UNKNOWN`, or names a blank node.
    """
    subjects: set[str] = set()
    for version in range(after + 1, upto + 1):
        try:
            text = _log(index_dir, dataset, version).read_text(encoding="utf-8")
        except OSError:
            return None
        for line in text.splitlines():
            if line == UNKNOWN or line.startswith("_:"):
                return None
            if line:
                subjects.add(line)
    return subjects


def forget_changes(index_dir: Path, dataset: str, upto: int) -> None:
    """Delete the logs of data versions ``<= upto`` (covered by a complete index version)."""
    folder = index_dir / dataset / _FOLDER
    if not folder.is_dir():
        return
    for path in folder.glob("*.log"):
        stem = path.stem
        if stem.isdigit() and int(stem) <= upto:
            path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # not empty: a newer change is logged
        folder.rmdir()
