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

A table patched from one read from a folder is a :class:`SplicedTable` (:func:`spliced`): the base table's files,
hard-linked into the new folder (no byte copied or written), plus the rows gone and the strings inserted since, in
one small file::

    NAME_splice.npz    gone (int64, base rows removed, ascending), at (int64, rows of the inserted strings in
                       the table, ascending), offsets / blob (the inserted strings, as a table's)

So a version's term and text tables cost O(change) to write instead of O(bytes). Once the splice passes
:data:`SPLICE_MAX_SHARE` of the base (and :data:`SPLICE_MIN`), the next patch writes a plain table again (compaction).
"""

from __future__ import annotations

import bisect
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "SPLICE_MAX_SHARE",
    "BinaryTable",
    "SPLICE_MIN",
    "SplicedTable",
    "StringTable",
    "TextLabels",
    "read_strings",
    "spliced",
    "strings_exist",
    "write_strings",
]

#: A patched table stays a splice of its base (:class:`SplicedTable`) while the rows gone plus the strings inserted
#: stay within this share of the base's rows or within :data:`SPLICE_MIN`; past both it is written whole again.
SPLICE_MAX_SHARE = 0.05
SPLICE_MIN = 4_096


def _row(index: int, n: int) -> int:
    """``index`` of a table of ``n`` strings as a row in ``0 .. n - 1`` (negative counts from the end)."""
    i = int(index)
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError(f"string table index {index} out of range for {n} strings")
    return i


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
        #: the ``(offsets, blob)`` files the table was read from (:func:`read_strings`), else ``None``
        self.paths: tuple[Path, Path] | None = None

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
        i = _row(index, len(self))
        start, stop = int(self.offsets[i]), int(self.offsets[i + 1])
        return bytes(self.blob[start:stop]).decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        data = np.asarray(self.blob).tobytes()
        bounds = np.asarray(self.offsets).tolist()
        return (data[a:b].decode("utf-8") for a, b in zip(bounds, bounds[1:], strict=False))

    def tolist(self) -> list[str]:
        """Every string, decoded (O(bytes))."""
        return list(self)

    def byte_lengths(self) -> npt.NDArray[np.int64]:
        """Each string's length in UTF-8 bytes. O(n) numpy."""
        return np.diff(np.asarray(self.offsets, dtype=np.int64)).astype(np.int64, copy=False)

    def lead_bytes(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
        """The first UTF-8 byte of each of the (non-empty) strings ``rows``. O(len(rows)) numpy."""
        return np.asarray(self.blob[np.asarray(self.offsets, dtype=np.int64)[rows]], dtype=np.uint8)

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


class SplicedTable(Sequence[str]):
    """A :class:`StringTable` ``base`` with the rows ``gone`` removed and the strings ``inserted`` put in at the
    rows ``at`` of the result: what :meth:`StringTable.splice` gives, without copying the base's bytes.

    ``gone`` (base rows) and ``at`` (rows of the result) are ascending int64 arrays; ``len(at) == len(inserted)``.
    ``table[i]`` is O(log k) for k = ``len(gone) + len(at)`` plus the string's decode; :meth:`splice` composes a
    further patch into a splice of the same base in O(n) numpy over a mask and O(k) work, no base byte copied.

    >>> base = StringTable.from_strings(["a", "b", "c"])
    >>> t = SplicedTable(base, np.array([1]), np.array([0]), StringTable.from_strings(["0"]))
    >>> t.tolist(), t[2], len(t)
    (['0', 'a', 'c'], 'c', 3)
    >>> t.splice([True, False, True], [(2, "d")]).tolist()
    ['0', 'c', 'd']
    """

    def __init__(
        self, base: StringTable, gone: npt.NDArray[np.int64], at: npt.NDArray[np.int64], inserted: StringTable
    ) -> None:
        self.base, self.inserted = base, inserted
        self.gone = np.asarray(gone, dtype=np.int64)
        self.at = np.asarray(at, dtype=np.int64)
        n = len(base) - self.gone.shape[0] + len(inserted)
        if self.at.shape[0] != len(inserted) or (self.at.shape[0] and not 0 <= int(self.at[0]) <= int(self.at[-1]) < n):
            raise ValueError(f"at must hold one row below {n} per inserted string, got {self.at.shape[0]}")
        if self.gone.shape[0] and not 0 <= int(self.gone[0]) <= int(self.gone[-1]) < len(base):
            raise ValueError(f"gone rows must lie in the base's {len(base)} rows")
        self._n: int = n
        # survivors of the base before each gone row / before each inserted row: the two maps by binary search
        self._gone_rank = self.gone - np.arange(self.gone.shape[0], dtype=np.int64)
        self._at_rank = self.at - np.arange(self.at.shape[0], dtype=np.int64)
        self._at_list, self._gone_rank_list = self.at.tolist(), self._gone_rank.tolist()  # for one row: bisect

    @property
    def delta(self) -> int:
        """Rows gone plus strings inserted since the base."""
        return int(self.gone.shape[0] + self.at.shape[0])

    def __len__(self) -> int:
        return self._n

    def locate(self, rows: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """For each of ``rows`` (ascending or not, in range), its row in ``inserted`` and in ``base``: one of the
        two is -1. O(len(rows) log k) numpy."""
        rows = np.asarray(rows, dtype=np.int64)
        j = np.searchsorted(self.at, rows, side="left")
        hit = j < self.at.shape[0]
        hit[hit] = self.at[j[hit]] == rows[hit]
        survivor = rows - j  # rank among the base's surviving rows
        base_row = survivor + np.searchsorted(self._gone_rank, survivor, side="right")
        return np.where(hit, j, -1), np.where(hit, -1, base_row)

    def rows_of_base(self, base_rows: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """The rows in this table of the base's rows ``base_rows`` (-1: gone). O(len(base_rows) log k) numpy."""
        base_rows = np.asarray(base_rows, dtype=np.int64)
        g = np.searchsorted(self.gone, base_rows, side="left")
        is_gone = g < self.gone.shape[0]
        is_gone[is_gone] = self.gone[g[is_gone]] == base_rows[is_gone]
        survivor = base_rows - g
        return np.where(is_gone, -1, survivor + np.searchsorted(self._at_rank, survivor, side="right"))

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = _row(index, self._n)
        j = bisect.bisect_left(self._at_list, i)
        if j < len(self._at_list) and self._at_list[j] == i:
            return self.inserted[j]
        survivor = i - j
        return self.base[survivor + bisect.bisect_right(self._gone_rank_list, survivor)]

    def __iter__(self) -> Iterator[str]:
        """Every string in order: decoded from one compacted copy (O(bytes), faster than merging row by row)."""
        return iter(self.compacted())

    def tolist(self) -> list[str]:
        """Every string, decoded (O(bytes))."""
        return list(self)

    def byte_lengths(self) -> npt.NDArray[np.int64]:
        """Each string's length in UTF-8 bytes. O(n) numpy."""
        kept = np.delete(self.base.byte_lengths(), self.gone)
        return np.insert(kept, self._at_rank, self.inserted.byte_lengths())

    def lead_bytes(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
        """The first UTF-8 byte of each of the (non-empty) strings ``rows``. O(len(rows) log k) numpy."""
        in_inserted, in_base = self.locate(rows)
        result = np.empty(np.asarray(rows).shape[0], dtype=np.uint8)
        from_base = in_base >= 0
        result[from_base] = self.base.lead_bytes(in_base[from_base])
        result[~from_base] = self.inserted.lead_bytes(in_inserted[~from_base])
        return result

    def rows_containing(self, needle: bytes, *, window: int = 1 << 24) -> npt.NDArray[np.int64]:
        """As :meth:`StringTable.rows_containing`: the base's hits renumbered (O(base bytes) numpy) and the
        inserted strings'."""
        rows = self.rows_of_base(self.base.rows_containing(needle, window=window))
        found = np.concatenate([rows[rows >= 0], self.at[self.inserted.rows_containing(needle, window=window)]])
        return np.sort(found)

    def splice(self, keep: npt.ArrayLike, inserts: Sequence[tuple[int, str]]) -> SplicedTable:
        """As :meth:`StringTable.splice`, as a splice of the same base: O(n) numpy over ``keep``, O(k log k) for
        the changes since the base (the inserted strings are re-encoded), no base byte copied."""
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self._n,):
            raise ValueError(f"keep must have one flag per string ({self._n}), got shape {keep.shape}")
        dropped = np.flatnonzero(~keep)
        survivors = self._n - dropped.shape[0]
        positions = np.asarray([p for p, _ in inserts], dtype=np.int64)
        if positions.shape[0] and (
            int(positions.min()) < 0 or int(positions.max()) > survivors or bool(np.any(np.diff(positions) < 0))
        ):
            raise ValueError(f"insert positions must ascend within 0..{survivors} kept strings")
        _, dropped_base = self.locate(dropped)
        gone = np.union1d(self.gone, dropped_base[dropped_base >= 0])
        still = keep[self.at]
        old_at = self.at[still]
        old_at = old_at - np.searchsorted(dropped, old_at)  # its rank among the kept strings
        old_at = old_at + np.searchsorted(positions, old_at, side="right")  # new strings go before a kept one
        new_at = positions + np.arange(positions.shape[0], dtype=np.int64)
        old_strings = [self.inserted[j] for j in np.flatnonzero(still).tolist()]
        order = np.argsort(np.concatenate([old_at, new_at]), kind="stable")
        strings = [*old_strings, *(text for _, text in inserts)]
        at = np.concatenate([old_at, new_at])[order]
        return SplicedTable(self.base, gone, at, StringTable.from_strings([strings[k] for k in order.tolist()]))

    def compacted(self) -> StringTable:
        """The same strings as one plain table in memory (O(bytes): one copy of the base's kept bytes)."""
        keep = np.ones(len(self.base), dtype=bool)
        keep[self.gone] = False
        inserted = self.inserted.tolist()
        return self.base.splice(keep, list(zip(self._at_rank.tolist(), inserted, strict=True)))

    def __repr__(self) -> str:
        return f"SplicedTable({self._n} strings: {self.base!r} - {self.gone.shape[0]} + {self.at.shape[0]})"


#: Either binary table kind: both answer :meth:`~StringTable.byte_lengths`, :meth:`~StringTable.lead_bytes` and
#: :meth:`~StringTable.rows_containing` (a list of an older version does not).
BinaryTable = StringTable | SplicedTable


def spliced(
    strings: Sequence[str], keep: npt.ArrayLike, inserts: Sequence[tuple[int, str]]
) -> StringTable | SplicedTable:
    """``strings`` without the strings where ``keep`` is false and with ``inserts`` (as :meth:`StringTable.splice`):
    a :class:`SplicedTable` over the table ``strings`` was read from (its files are reused when written) while the
    changes since that table stay small (:data:`SPLICE_MAX_SHARE`, :data:`SPLICE_MIN`), else a plain table (a list
    of an older version is encoded once). O(n) numpy and O(changes) work, or one copy of the bytes."""
    if isinstance(strings, SplicedTable):
        result = strings.splice(keep, inserts)
    else:
        table = StringTable.from_strings(strings)
        if table.paths is None:
            return table.splice(keep, inserts)
        none = np.zeros(0, np.int64)
        result = SplicedTable(table, none, none, StringTable.from_strings([])).splice(keep, inserts)
    return result if result.delta <= max(SPLICE_MIN, SPLICE_MAX_SHARE * len(result.base)) else result.compacted()


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
        if isinstance(texts, BinaryTable):
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
    """Write ``strings`` as the table ``name`` in ``folder`` (module docstring). O(bytes); a
    :class:`SplicedTable` over a table read from files: O(changes), its base's files hard-linked."""
    offsets_path, blob_path = _paths(folder, name)
    if isinstance(strings, SplicedTable) and strings.base.paths is not None:
        for source, target in zip(strings.base.paths, (offsets_path, blob_path), strict=True):
            _link(source, target)
        inserted = strings.inserted
        np.savez(
            folder / f"{name}_splice.npz",
            gone=strings.gone,
            at=strings.at,
            offsets=np.asarray(inserted.offsets, dtype=np.int64),
            blob=np.asarray(inserted.blob, dtype=np.uint8),
        )
        return
    table = strings.compacted() if isinstance(strings, SplicedTable) else StringTable.from_strings(strings)
    np.save(blob_path, np.ascontiguousarray(table.blob), allow_pickle=False)
    np.save(offsets_path, np.ascontiguousarray(table.offsets, dtype=np.int64), allow_pickle=False)


def _link(source: Path, target: Path) -> None:
    """``target`` as a hard link of ``source`` (a copy where links cannot be made, e.g. across file systems)."""
    if target.exists() and os.path.samefile(source, target):
        return
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def strings_exist(folder: Path, name: str) -> bool:
    """Whether ``folder`` holds the table ``name`` (binary, or the JSON list of an older version)."""
    offsets_path, _ = _paths(folder, name)
    return offsets_path.exists() or (folder / f"{name}.json").exists()


def read_strings(folder: Path, name: str) -> Sequence[str]:
    """The table ``name`` of ``folder``: memory-mapped (O(1); a :class:`SplicedTable` where the folder holds a
    splice of it, O(changes)), or the JSON list an older version wrote (O(n)).

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
        table = StringTable(offsets, blob)
        table.paths = (offsets_path, blob_path)
        splice_path = folder / f"{name}_splice.npz"
        if not splice_path.exists():
            return table
        with np.load(splice_path, allow_pickle=False) as splice:
            inserted = StringTable(splice["offsets"], splice["blob"])
            return SplicedTable(table, splice["gone"], splice["at"], inserted)
    value = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    if not isinstance(value, list):
        raise ValueError(f"{folder / name}.json must hold a JSON list")
    return value
