"""String tables on disk as one UTF-8 blob plus offsets, memory-mapped and decoded one string at a time (issue 23).

An index version's term and text tables (``node_terms``, ``relation_terms``, ``node_texts``, ``relation_texts``;
:mod:`kgsvc.index.build`) are lists of up to millions of strings. Stored as JSON lists they were parsed whole by
every reader (``load_index``, the next incremental build) and written whole by every build: O(n) Python work per
version however small the change. Stored as a table, ``NAME`` is two ``.npy`` files::

    NAME_offsets.npy   int64, n + 1: string i is blob[offsets[i]:offsets[i + 1]]
    NAME_blob.npy      uint8, the strings' UTF-8 bytes, concatenated

:func:`read_strings` maps both read-only (O(1), the page cache shares them between processes) and
:class:`StringTable` decodes a string when it is asked for. An incremental build patches a table with
:meth:`StringTable.splice` (a few strings dropped, a few inserted): numpy slices of the old blob and offsets,
memcpy-class, no per-string Python work. A folder written before this layout has ``NAME.json``; :func:`read_strings`
reads it (as a list) so existing data dirs keep working, and the next version writes the binary tables.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np
import numpy.typing as npt

__all__ = ["StringTable", "TextLabels", "read_strings", "strings_exist", "write_strings"]


class StringTable(Sequence[str]):
    """A read-only sequence of strings over ``offsets`` (int64, n + 1) and ``blob`` (uint8 UTF-8 bytes).

    ``table[i]`` decodes one string (O(its length)); iteration and :meth:`tolist` decode all (O(bytes)).

    >>> t = StringTable.from_strings(["a", "bé", ""])
    >>> len(t), t[1], t[-1], list(t), t[1:]
    (3, 'bé', '', ['a', 'bé', ''], ['bé', ''])
    >>> t.splice([True, False, True], [(1, "c")]).tolist()
    ['a', 'c', '']
    """

    def __init__(self, offsets: npt.NDArray[np.int64], blob: npt.NDArray[np.uint8]) -> None:
        if offsets.ndim != 1 or offsets.shape[0] < 1 or blob.ndim != 1:
            raise ValueError(f"offsets must be 1-D with n + 1 values and blob 1-D, got {offsets.shape}, {blob.shape}")
        if int(offsets[-1]) != blob.shape[0]:
            raise ValueError(f"offsets end at {int(offsets[-1])}, the blob holds {blob.shape[0]} bytes")
        self.offsets, self.blob = offsets, blob

    @classmethod
    def from_strings(cls, strings: Sequence[str]) -> StringTable:
        """A table in memory holding ``strings``. O(total length): one encode per string."""
        if isinstance(strings, StringTable):
            return strings
        encoded = [s.encode("utf-8") for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
        return cls(offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8))

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        i = int(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"string table index {index} out of range for {n} strings")
        start, stop = int(self.offsets[i]), int(self.offsets[i + 1])
        return bytes(self.blob[start:stop]).decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        data = np.asarray(self.blob).tobytes()
        bounds = np.asarray(self.offsets).tolist()
        return (data[a:b].decode("utf-8") for a, b in zip(bounds, bounds[1:], strict=False))

    def tolist(self) -> list[str]:
        """Every string, decoded (O(bytes))."""
        return list(self)

    def rows_containing(self, needle: bytes, *, window: int = 1 << 24) -> npt.NDArray[np.int64]:
        """The indices of the strings whose UTF-8 bytes hold ``needle``, ascending. O(bytes) numpy, read in windows
        of ``window`` bytes (memory bounded by the window, not by the table), no string decoded."""
        if not needle:
            return np.arange(len(self), dtype=np.int64)
        blob, width, found = self.blob, len(needle), []
        offsets = np.asarray(self.offsets, dtype=np.int64)
        for start in range(0, int(blob.shape[0]), window):
            part = np.asarray(blob[start : start + window + width - 1])
            if part.shape[0] < width:
                break
            hit = part[: part.shape[0] - width + 1] == needle[0]
            for k in range(1, width):
                hit &= part[k : part.shape[0] - width + 1 + k] == needle[k]
            at = np.flatnonzero(hit) + start
            rows = np.searchsorted(offsets, at, side="right") - 1
            found.append(rows[at + width <= offsets[rows + 1]])  # not across the end of a string
        return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)

    def splice(self, keep: npt.ArrayLike, inserts: Sequence[tuple[int, str]]) -> StringTable:
        """This table without the strings where ``keep`` is false, with ``inserts`` (position among the kept
        strings, string) put in before the kept string of that position (ascending positions; several at one
        position keep their order).

        O(n) numpy work over the offsets and one copy of the kept bytes (runs of kept strings are copied as
        slices), O(k) Python for the k dropped runs and inserted strings.
        """
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (len(self),):
            raise ValueError(f"keep must have one flag per string ({len(self)}), got shape {keep.shape}")
        offsets = np.asarray(self.offsets, dtype=np.int64)
        lengths = np.diff(offsets)
        kept = np.flatnonzero(keep)
        kept_lengths = lengths[kept]
        # runs of consecutive kept strings: each is one slice of the blob
        breaks = np.flatnonzero(np.diff(kept) != 1) + 1 if kept.shape[0] else np.zeros(0, np.int64)
        run_starts = np.concatenate([[0], breaks]).astype(np.int64) if kept.shape[0] else np.zeros(0, np.int64)
        run_stops = np.concatenate([breaks, [kept.shape[0]]]).astype(np.int64) if kept.shape[0] else run_starts
        pieces: list[npt.NDArray[np.uint8]] = []
        new_lengths: list[npt.NDArray[np.int64]] = []
        run = 0
        done = 0  # kept strings emitted so far

        def emit_kept(upto: int) -> None:
            nonlocal run, done
            while done < upto:
                r_start, r_stop = int(run_starts[run]), int(run_stops[run])
                lo = max(r_start, done)
                hi = min(r_stop, upto)
                first, last = int(kept[lo]), int(kept[hi - 1])
                pieces.append(np.asarray(self.blob[offsets[first] : offsets[last + 1]]))
                new_lengths.append(kept_lengths[lo:hi])
                done = hi
                if hi == r_stop:
                    run += 1

        for position, text in inserts:
            if not 0 <= position <= kept.shape[0]:
                raise ValueError(f"insert position {position} out of range for {kept.shape[0]} kept strings")
            if position < done:
                raise ValueError("insert positions must ascend")
            emit_kept(position)
            raw = text.encode("utf-8")
            pieces.append(np.frombuffer(raw, dtype=np.uint8))
            new_lengths.append(np.asarray([len(raw)], dtype=np.int64))
        emit_kept(int(kept.shape[0]))
        blob = np.concatenate(pieces) if pieces else np.zeros(0, np.uint8)
        all_lengths = np.concatenate(new_lengths) if new_lengths else np.zeros(0, np.int64)
        new_offsets = np.zeros(all_lengths.shape[0] + 1, dtype=np.int64)
        np.cumsum(all_lengths, out=new_offsets[1:])
        return StringTable(new_offsets, blob.astype(np.uint8, copy=False))

    def __repr__(self) -> str:
        return f"StringTable({len(self)} strings, {self.blob.shape[0]} bytes)"


class TextLabels(Sequence[str]):
    """A read-only sequence of labels: ``labels[i] == texts[text_ids[i]]`` (no copy per id)."""

    def __init__(self, texts: Sequence[str], text_ids: npt.NDArray[np.integer[Any]]) -> None:
        self._texts, self._ids = texts, text_ids

    @property
    def texts(self) -> Sequence[str]:
        """The distinct texts the labels are read from."""
        return self._texts

    @property
    def text_ids(self) -> npt.NDArray[np.integer[Any]]:
        """Each label's index in :attr:`texts`."""
        return self._ids

    def __len__(self) -> int:
        return int(self._ids.shape[0])

    def __iter__(self) -> Iterator[str]:
        texts = self._texts
        if isinstance(texts, StringTable):
            texts = texts.tolist()  # one decode of every text, not one per label
        return (texts[i] for i in np.asarray(self._ids).tolist())  # one read of the ids, not one per label

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            texts = self._texts
            return [texts[int(t)] for t in np.asarray(self._ids[index]).tolist()]
        return self._texts[int(self._ids[index])]


def _paths(folder: Path, name: str) -> tuple[Path, Path]:
    return folder / f"{name}_offsets.npy", folder / f"{name}_blob.npy"


def write_strings(folder: Path, name: str, strings: Sequence[str]) -> None:
    """Write ``strings`` as the table ``name`` in ``folder`` (module docstring). O(bytes)."""
    table = StringTable.from_strings(strings)
    offsets_path, blob_path = _paths(folder, name)
    np.save(blob_path, np.ascontiguousarray(table.blob), allow_pickle=False)
    np.save(offsets_path, np.ascontiguousarray(table.offsets, dtype=np.int64), allow_pickle=False)


def strings_exist(folder: Path, name: str) -> bool:
    """Whether ``folder`` holds the table ``name`` (binary, or the JSON list of an older version)."""
    offsets_path, _ = _paths(folder, name)
    return offsets_path.exists() or (folder / f"{name}.json").exists()


def read_strings(folder: Path, name: str) -> Sequence[str]:
    """The table ``name`` of ``folder``: memory-mapped (O(1)), or the JSON list an older version wrote (O(n)).

    Raises
    ------
    OSError
        When neither form is there or a file cannot be read.
    ValueError
        When a file is malformed.
    """
    offsets_path, blob_path = _paths(folder, name)
    if offsets_path.exists():
        offsets: Any = np.load(offsets_path, mmap_mode="r", allow_pickle=False)
        blob: Any = np.load(blob_path, mmap_mode="r", allow_pickle=False)
        if offsets.dtype != np.int64 or blob.dtype != np.uint8:
            raise ValueError(f"{offsets_path}: expected int64 offsets and a uint8 blob")
        return StringTable(offsets, blob)
    value = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    if not isinstance(value, list):
        raise ValueError(f"{folder / name}.json must hold a JSON list")
    return value
