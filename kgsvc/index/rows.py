"""Float32 row tables (``.npy``) written and read a piece at a time: memory bounded by the piece (issue 23).

A full index build writes ``texts x dimension`` float32 tables (the label embeddings, :mod:`kgsvc.index.layers`):
690k texts x 384 = 1 GB at the MetaQA KB x16. Held whole in RAM, a table (and each copy made of it) grows the
build's memory with the graph. With these functions the build creates the file first (:func:`create_rows`: header
and size, zeros, nothing resident), fills it by rows as they are embedded or gathered (:func:`write_rows`), and the
vectors stage reads it back in batches of :data:`ROW_BATCH` (:func:`read_rows`).

**Memory contract.** Each call maps the file, touches only the rows it was given or asked for, and unmaps it before
it returns, so the process's resident memory (file pages included: pages of a mapping count in RSS for as long as
they stay mapped, which ``np.load(mmap_mode=...)`` of the whole table would do for every page ever read) grows by
the rows passed or returned, never by the table. Written pages go to the page cache, which the kernel writes back
and evicts as it needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

__all__ = ["ROW_BATCH", "create_rows", "iter_rows", "read_rows", "take_rows", "write_rows"]

#: Rows per batch when a table is streamed (4,096 x 384 float32 = 6 MB).
ROW_BATCH = 4_096


def _map(path: Path, mode: Literal["r", "r+"]) -> Any:
    array = np.load(path, mmap_mode=mode, allow_pickle=False)
    if array.dtype != np.float32 or array.ndim != 2:
        raise ValueError(f"{path}: expected a 2-D float32 table, got {array.dtype} {array.shape}")
    return array


def create_rows(path: Path, n: int, dimension: int) -> None:
    """Create ``path`` as an ``(n, dimension)`` float32 ``.npy`` of zeros (a sparse file: O(1) time and memory)."""
    table = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, dimension))
    del table  # header written, size set, no page touched


def write_rows(path: Path, at: int | npt.NDArray[np.integer[Any]], rows: npt.ArrayLike) -> None:
    """Store ``rows`` in the table ``path``: from row ``at`` on (an int) or at the row ids ``at`` (an array).
    O(len(rows)) time and memory."""
    values = np.asarray(rows, dtype=np.float32)
    if values.shape[0] == 0:
        return
    table = _map(path, "r+")
    if isinstance(at, int | np.integer):
        table[int(at) : int(at) + values.shape[0]] = values
    else:
        table[np.asarray(at, dtype=np.int64)] = values
    table.flush()
    del table


def read_rows(path: Path, start: int, stop: int) -> npt.NDArray[np.float32]:
    """Rows ``start:stop`` of the table ``path`` (a copy in memory). O(stop - start)."""
    table = _map(path, "r")
    rows: npt.NDArray[np.float32] = np.array(table[start:stop], dtype=np.float32)
    del table
    return rows


def take_rows(path: Path, ids: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.float32]:
    """Rows ``ids`` of the table ``path``, in that order (a copy in memory). O(len(ids))."""
    table = _map(path, "r")
    rows: npt.NDArray[np.float32] = np.asarray(table[np.asarray(ids, dtype=np.int64)], dtype=np.float32)
    del table
    return rows


def iter_rows(path: Path, *, batch: int = ROW_BATCH) -> Iterator[tuple[int, npt.NDArray[np.float32]]]:
    """``(first row, rows)`` batches of the table ``path``, in order. O(batch) memory at a time.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "t.npy"
    >>> create_rows(path, 5, 2)
    >>> write_rows(path, 1, [[1, 2], [3, 4]]); write_rows(path, np.array([4]), [[5, 6]])
    >>> [(start, rows.tolist()) for start, rows in iter_rows(path, batch=3)]
    [(0, [[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]), (3, [[0.0, 0.0], [5.0, 6.0]])]
    """
    n = int(_map(path, "r").shape[0])
    for start in range(0, n, batch):
        yield start, read_rows(path, start, min(n, start + batch))
