"""Distinct strings without a Python object per string: numpy interning and byte-order sorting (issue 23).

A full label pass (:func:`kgsvc.index.labels.extract_labels`) sees every term of a graph many times. Keeping a
``dict`` of every term (and lists of every term and label) cost ~60 MB per MetaQA KB (172k triples) of Python
objects. Here a term is a 64-bit key (Python's ``hash`` of the string) in sorted numpy arrays, and its UTF-8 bytes
are stored once, in a blob, when first seen:

* :class:`Interner` adds strings chunk by chunk (O(chunk log chunk + distinct) numpy per chunk) and returns each
  string's key; :meth:`Interner.slots` maps keys to dense first-seen slots. Every occurrence is checked against
  the first one's CRC-32: a 64-bit ``hash`` collision that the CRC also misses (about 2**-96 per pair of
  distinct strings) is the only way two strings could merge; one the CRC sees raises :class:`HashCollision`,
  and the caller falls back to exact dictionaries.
* :func:`byte_order` sorts a blob of strings by their UTF-8 bytes, which is Python's ``str`` order (code point
  order) for valid UTF-8: an MSD radix sort over 8-byte big-endian words, numpy only.
* :func:`gather` makes a :class:`~kgsvc.index.strings.StringTable` of a blob's strings in a given order,
  block by block.
"""

from __future__ import annotations

import bisect
import ctypes
import zlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kgsvc.index.strings import StringTable

__all__ = ["HashCollision", "Interner", "byte_order", "decoded", "gather", "give_back_memory"]

Buffer = bytes | bytearray
_BLOCK_BYTES = 1 << 18
_ITEMS = 1 << 16


class HashCollision(Exception):
    """Two distinct strings have the same 64-bit key (the caller redoes its work with exact dictionaries)."""


def _crc(encoded: Sequence[bytes]) -> npt.NDArray[np.uint32]:
    return np.fromiter(map(zlib.crc32, encoded), dtype=np.uint32, count=len(encoded))


def keys_of(strings: Sequence[str]) -> npt.NDArray[np.int64]:
    """The 64-bit keys of ``strings`` (Python's ``hash``: the same within a process)."""
    return np.fromiter(map(hash, strings), dtype=np.int64, count=len(strings))


class Interner:
    """Distinct strings, added in chunks, each stored once (UTF-8) in first-seen order ("slots").

    >>> terms = Interner()
    >>> keys = terms.add(["b", "a", "b"])
    >>> terms.slots(keys).tolist(), len(terms), terms.table().tolist()
    ([0, 1, 0], 2, ['b', 'a'])
    """

    def __init__(self) -> None:
        self._keys = np.zeros(0, dtype=np.int64)  # sorted
        self._slot = np.zeros(0, dtype=np.int64)  # slot of each sorted key
        self._crcs: list[npt.NDArray[np.uint32]] = []  # per slot, in chunks
        self._pieces: list[Buffer] = []
        self._lengths: list[npt.NDArray[np.int64]] = []
        self._starts: list[int] = []  # the first slot of each piece
        self._extra: list[Buffer] = []  # the payload of each slot (``add(..., extra=…)``), joined per chunk
        self._extra_lengths: list[npt.NDArray[np.int64]] = []
        self.n = 0

    def __len__(self) -> int:
        return self.n

    def add(self, strings: Sequence[str], extra: Sequence[str] | None = None) -> npt.NDArray[np.int64]:
        """Register ``strings`` (new ones get the next slots, in order of first occurrence); returns their keys.
        ``extra``: a payload per string, kept for the new ones (:meth:`extra_table`; the first occurrence's).

        Raises
        ------
        HashCollision
            When two distinct strings (in this chunk or with an earlier one) share a key.
        """
        keys = keys_of(strings)
        if not strings:
            return keys
        encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
        crcs = _crc(encoded)
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        if not bool(np.all(crcs == crcs[first][inverse])):
            raise HashCollision("two distinct strings of one chunk share a 64-bit key")
        at = np.searchsorted(self._keys, unique)
        found = at < self._keys.shape[0]
        found[found] = self._keys[at[found]] == unique[found]
        if found.any():
            known = self._slot[at[found]]
            if not bool(np.all(self.crc[known] == crcs[first[found]])):
                raise HashCollision("a string shares its 64-bit key with an earlier one")
        fresh = first[~found]  # chunk positions of the new strings, by key
        if fresh.shape[0]:
            rank = np.empty(fresh.shape[0], dtype=np.int64)
            rank[np.argsort(fresh, kind="stable")] = np.arange(fresh.shape[0], dtype=np.int64)
            self._keys = np.insert(self._keys, at[~found], unique[~found])
            self._slot = np.insert(self._slot, at[~found], self.n + rank)
            picked = [encoded[i] for i in np.sort(fresh).tolist()]  # in first-seen order: slots n, n + 1, …
            self._starts.append(self.n)
            self._pieces.append(b"".join(picked))
            self._lengths.append(np.fromiter(map(len, picked), dtype=np.int64, count=len(picked)))
            self._crcs.append(crcs[np.sort(fresh)])
            if extra is not None:
                payload = [extra[i].encode("utf-8", "surrogatepass") for i in np.sort(fresh).tolist()]
                self._extra.append(b"".join(payload))
                self._extra_lengths.append(np.fromiter(map(len, payload), dtype=np.int64, count=len(payload)))
            self.n += len(picked)
        return keys

    @property
    def crc(self) -> npt.NDArray[np.uint32]:
        """The CRC-32 of each slot's bytes."""
        if len(self._crcs) != 1:
            self._crcs = [np.concatenate(self._crcs) if self._crcs else np.zeros(0, dtype=np.uint32)]
        return self._crcs[0]

    def slots(self, keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The slots of ``keys`` (each must have been returned by :meth:`add`)."""
        return self._slot[np.searchsorted(self._keys, keys)]

    def find(self, strings: Sequence[str]) -> npt.NDArray[np.int64]:
        """The slots of ``strings``, -1 for a string never added. Raises :class:`HashCollision` like :meth:`add`."""
        keys = keys_of(strings)
        at = np.searchsorted(self._keys, keys)
        found = at < self._keys.shape[0]
        found[found] = self._keys[at[found]] == keys[found]
        slots = np.full(keys.shape[0], -1, dtype=np.int64)
        slots[found] = self._slot[at[found]]
        if found.any():
            crcs = _crc([strings[i].encode("utf-8", "surrogatepass") for i in np.flatnonzero(found).tolist()])
            if not bool(np.all(self.crc[slots[found]] == crcs)):
                raise HashCollision("a string shares its 64-bit key with an added one")
        return slots

    def table(self) -> StringTable:
        """The strings by slot (the bytes are joined once; the chunks are then dropped)."""
        self._pieces, self._lengths, table = _joined(self._pieces, self._lengths)
        self._starts = [0]
        return table

    def get(self, slot: int) -> str:
        """The string of ``slot`` (O(strings of its chunk))."""
        piece = bisect.bisect_right(self._starts, slot) - 1
        local = slot - self._starts[piece]
        lengths = self._lengths[piece]
        start = int(lengths[:local].sum())
        return bytes(self._pieces[piece][start : start + int(lengths[local])]).decode("utf-8", "surrogatepass")

    def extra_table(self) -> StringTable:
        """The payloads by slot (every :meth:`add` must have passed ``extra``)."""
        self._extra, self._extra_lengths, table = _joined(self._extra, self._extra_lengths)
        if len(table) != self.n:
            raise ValueError(f"{len(table)} payloads for {self.n} strings")
        return table


def _joined(
    pieces: list[Buffer], lengths: list[npt.NDArray[np.int64]]
) -> tuple[list[Buffer], list[npt.NDArray[np.int64]], StringTable]:
    """One blob of ``pieces`` (emptied as they are copied: the bytes are in memory once, plus one piece)."""
    sizes = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    if len(pieces) == 1:
        return pieces, [sizes], StringTable(offsets, np.frombuffer(pieces[0], dtype=np.uint8))
    blob = bytearray(int(offsets[-1]))
    at = 0
    pieces.reverse()
    while pieces:
        piece = pieces.pop()
        blob[at : at + len(piece)] = piece
        at += len(piece)
    return [blob], [sizes], StringTable(offsets, np.frombuffer(blob, dtype=np.uint8))


def _words(table: StringTable, items: npt.NDArray[np.int64], at: int) -> npt.NDArray[np.uint64]:
    """Bytes ``at`` … ``at + 7`` of strings ``items`` as big-endian words (zero past a string's end)."""
    offsets = np.asarray(table.offsets)
    blob = np.asarray(table.blob)
    starts = offsets[items] + at
    stops = offsets[items + 1]
    words = np.zeros(items.shape[0], dtype=np.uint64)
    last = max(blob.shape[0] - 1, 0)
    for j in range(8):
        position = starts + j
        inside = position < stops
        byte = blob[np.minimum(position, last)] if blob.shape[0] else np.zeros(items.shape[0], dtype=np.uint8)
        words <<= np.uint64(8)
        words |= np.where(inside, byte, 0).astype(np.uint64)
    return words


def byte_order(table: StringTable) -> npt.NDArray[np.int64]:
    """The order of ``table``'s strings by UTF-8 bytes (Python's ``str`` order); equal strings keep their order.

    MSD radix sort: strings tied on their first 8·k bytes are sorted on the next 8 (a stable lexsort within their
    group); a string that ends is placed before the longer ones it prefixes. O(n log n · rounds) numpy, where a
    round only touches the strings still tied; O(n) memory.

    >>> byte_order(StringTable.from_strings(["b", "ab", "a", "", "abcdefghij", "abcdefghi"])).tolist()
    [3, 2, 1, 5, 4, 0]
    """
    n = len(table)
    order = np.arange(n, dtype=np.int64)
    if n < 2:
        return order
    index = np.int32 if n < 2**31 else np.int64  # positions and groups: 4 bytes each below 2**31 strings
    offsets = np.asarray(table.offsets)
    group = np.zeros(n, dtype=index)  # per position of ``order``: the position where its tie group starts
    active = np.arange(n, dtype=index)  # positions still tied with a neighbour
    at = 0
    while active.shape[0]:
        items = order[active].astype(index)
        words = np.concatenate([_words(table, items[i : i + _ITEMS], at) for i in range(0, items.shape[0], _ITEMS)])
        # a string ending here sorts before the ones it prefixes: 0 … 8 bytes left, 9: goes on
        ended = (np.minimum(offsets[items + 1] - offsets[items], at + 9) - at).astype(np.uint8)
        groups = group[active]
        # one group (the first round): no group key
        perm = np.lexsort((ended, words, groups) if at else (ended, words))
        items = items[perm]
        words = words[perm]
        ended = ended[perm]
        groups = groups[perm]
        del perm
        order[active] = items  # a group's positions are contiguous in ``active`` and stay its own
        del items
        new = np.ones(words.shape[0], dtype=bool)
        new[1:] = groups[1:] != groups[:-1]
        new[1:] |= words[1:] != words[:-1]
        new[1:] |= ended[1:] != ended[:-1]
        del words, groups
        starts = np.flatnonzero(new)
        group[active] = active[starts][np.cumsum(new, dtype=index) - 1]
        del new
        sizes = np.diff(np.append(starts, active.shape[0]))
        active = active[np.repeat(sizes > 1, sizes) & (ended == 9)]
        at += 8
    return order
    lengths = np.diff(np.asarray(table.offsets))
    group = np.zeros(n, dtype=np.int64)  # per position of ``order``: the position where its tie group starts
    active = np.arange(n, dtype=np.int64)  # positions still tied with a neighbour
    at = 0
    while active.shape[0]:
        items = order[active]
        words = _words(table, items, at)
        # a string ending here sorts before the ones it prefixes: 0 … 8 bytes left, 9: goes on
        ended = (np.minimum(lengths[items], at + 9) - at).astype(np.uint8)
        groups = group[active]
        perm = np.lexsort((ended, words, groups))
        items, words, ended, groups = items[perm], words[perm], ended[perm], groups[perm]
        order[active] = items  # a group's positions are contiguous in ``active`` and stay its own
        new = np.ones(items.shape[0], dtype=bool)
        new[1:] = (groups[1:] != groups[:-1]) | (words[1:] != words[:-1]) | (ended[1:] != ended[:-1])
        starts = np.flatnonzero(new)
        start_of = active[starts][np.cumsum(new) - 1]
        group[active] = start_of
        sizes = np.diff(np.append(starts, items.shape[0]))
        tied = np.repeat(sizes > 1, sizes) & (ended == 9)
        active = active[tied]
        at += 8
    return order


def gather(table: StringTable, order: npt.NDArray[np.int64]) -> StringTable:
    """The strings ``table[order[0]], table[order[1]], …`` as a new table, in blocks of about :data:`_BLOCK_BYTES`
    bytes (the index arrays of a block are O(its bytes))."""
    offsets = np.asarray(table.offsets)
    blob = np.asarray(table.blob)
    lengths = np.diff(offsets)[order]
    new_offsets = np.zeros(order.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    out = np.empty(int(new_offsets[-1]), dtype=np.uint8)
    cuts = np.searchsorted(new_offsets, np.arange(0, int(new_offsets[-1]), _BLOCK_BYTES), side="right") - 1
    bounds = sorted({*cuts.tolist(), order.shape[0]})
    for i, stop in zip(bounds, bounds[1:], strict=False):
        sizes = lengths[i:stop]
        start, total = int(new_offsets[i]), int(new_offsets[stop] - new_offsets[i])
        if total:
            shift = np.repeat(offsets[order[i:stop]] - new_offsets[i:stop], sizes)
            shift += np.arange(start, start + total, dtype=np.int64)
            out[start : start + total] = blob[shift]
    return StringTable(new_offsets, out)


def give_back_memory() -> None:
    """Return the heap freed so far to the system (glibc ``malloc_trim``; a no-op where there is none): a pass
    that frees chunk after chunk keeps its resident memory near what it holds, not what it has allocated."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def decoded(table: StringTable, start: int, stop: int) -> list[str]:
    """``table[start:stop]`` decoded with one copy of their bytes (O(their bytes))."""
    bounds = np.asarray(table.offsets[start : stop + 1]).tolist()
    if not bounds:
        return []
    data = np.asarray(table.blob[bounds[0] : bounds[-1]]).tobytes()
    base = bounds[0]
    return [data[a - base : b - base].decode("utf-8") for a, b in zip(bounds, bounds[1:], strict=False)]
