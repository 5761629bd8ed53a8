"""Layered label embeddings of an index version: an immutable base plus a small per-version delta (issue 23).

Every collection's embeddings (:data:`~kgsvc.index.vectors.NODE_LABELS`, …) live in **points**: a point id names
one embedding row, and ``*_text_points.npy`` maps text id ``t`` of the version to its point. The rows are in two
layers, in the version folder::

    node_vectors.npy        float32, the base: row p is point p (p < B); written once by the build that made the base
                            (a full build or a compaction) and hard-linked by every later version that keeps it
    node_delta_vectors.npy  float32, row r is point B + r: the texts added since the base (small)
    node_text_points.npy    int64, point id of text id t

A point no text of the version has is a **tombstone** (a removed text: its row stays, searches skip it). The base
Qdrant collection holds the base points with the same ids (:mod:`kgsvc.index.build` keeps it under
``shards/vB/`` beside the version folders, shared by the versions that keep that base); the delta is small and is
searched exactly with numpy. A new text gets the point above every earlier one, so the delta only grows until
:func:`needs_compaction` says the build writes a new base (delta rows and tombstones above
:data:`LAYER_MAX_SHARE` of the base and above :data:`LAYER_MIN_POINTS`).

In a version with a fresh base (a full build) point ``p`` is text ``p`` and the delta is empty, so
``node_vectors.npy`` is the text-ordered embedding table of earlier layouts. Versions written before the layers
(no ``*_delta_vectors.npy``) hold text-ordered rows; their points file, if any, names the Qdrant point of each text
(:attr:`Layers.shard_labels`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kgsvc.index.rows import take_rows
from kgsvc.index.vectors import NODE_LABELS, RELATION_LABELS

__all__ = [
    "LAYER_MAX_SHARE",
    "LAYER_MIN_POINTS",
    "Layers",
    "delta_file",
    "embeddings_file",
    "extend_layers",
    "file_layers",
    "fresh_layers",
    "needs_compaction",
    "points_file",
    "read_layers",
    "write_layers",
]

_KIND = {NODE_LABELS: "node", RELATION_LABELS: "relation"}  # collection -> file prefix of its tables

#: A build writes a new base (compaction) once the delta rows plus the tombstones exceed this share of the base
#: and :data:`LAYER_MIN_POINTS` (a delta that small costs little to scan, whatever the base).
LAYER_MAX_SHARE = 0.1
LAYER_MIN_POINTS = 4_096


def embeddings_file(collection: str) -> str:
    """The file name of a collection's base embeddings in a version folder (``node_vectors.npy``, …)."""
    return f"{_KIND[collection]}_vectors.npy"


def delta_file(collection: str) -> str:
    """The file name of a collection's delta embeddings in a version folder (``node_delta_vectors.npy``, …)."""
    return f"{_KIND[collection]}_delta_vectors.npy"


def points_file(collection: str) -> str:
    """The file of a collection's point ids in a version folder: int64, point id of text id ``t``."""
    return f"{_KIND[collection]}_text_points.npy"


@dataclass(frozen=True)
class Layers:
    """A collection's embeddings as base + delta rows, and the point of every text (module docstring).

    ``labels[p]`` is the text id of point ``p`` (``-1``: a tombstone); ``shard_labels[p]`` is the text id of the
    base Qdrant collection's point ``p`` (the same as ``labels[:B]`` except in versions written before the layers).
    ``base_file``: the ``.npy`` file the base is mapped from, when it is; :meth:`rows` then reads base rows through a
    mapping of their own (:func:`kgsvc.index.rows.take_rows`), so gathering every row in batches does not leave the
    whole base resident in the process.
    """

    base: npt.NDArray[np.float32]
    delta: npt.NDArray[np.float32]
    points: npt.NDArray[np.int64]
    labels: npt.NDArray[np.int64]
    shard_labels: npt.NDArray[np.int64]
    base_file: Path | None = None

    @property
    def n_base(self) -> int:
        """Rows of the base (B)."""
        return int(self.base.shape[0])

    @property
    def tombstones(self) -> int:
        """How many points no text has."""
        return int(self.labels.shape[0] - self.points.shape[0])

    def rows(self, points: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The embedding rows of ``points`` (float32, in that order). O(len(points) · dimension)."""
        points = np.asarray(points, dtype=np.int64)
        out = np.empty((points.shape[0], self.base.shape[1]), dtype=np.float32)
        low = points < self.n_base
        out[low] = self.base[points[low]] if self.base_file is None else take_rows(self.base_file, points[low])
        out[~low] = self.delta[points[~low] - self.n_base]
        return out

    def text_vectors(self) -> npt.NDArray[np.float32]:
        """The embedding of every text, by text id: O(texts · dimension) (a full gather; builds and the GNN)."""
        return self.rows(self.points)


def _labels(points: npt.NDArray[np.int64], total: int) -> npt.NDArray[np.int64]:
    """Point -> text id (``-1`` for points no text has). O(total)."""
    labels = np.full(total, -1, dtype=np.int64)
    labels[points] = np.arange(points.shape[0], dtype=np.int64)
    return labels


def _layers(
    base: npt.NDArray[np.float32],
    delta: npt.NDArray[np.float32],
    points: npt.NDArray[np.int64],
    base_file: Path | None = None,
) -> Layers:
    labels = _labels(points, base.shape[0] + delta.shape[0])
    return Layers(base, delta, points, labels, labels[: base.shape[0]], base_file)


def fresh_layers(rows: npt.NDArray[np.float32], *, base_file: Path | None = None) -> Layers:
    """A new base holding ``rows`` (text-ordered: point p is text p) and an empty delta; ``base_file``: the file
    ``rows`` are mapped from (:attr:`Layers.base_file`)."""
    rows = np.asarray(rows, dtype=np.float32)
    points = np.arange(rows.shape[0], dtype=np.int64)
    return Layers(rows, np.zeros((0, rows.shape[1]), dtype=np.float32), points, points, points, base_file)


def file_layers(path: Path) -> Layers:
    """:func:`fresh_layers` over the base table in ``path``, memory-mapped (nothing read). O(texts) for the points."""
    return fresh_layers(np.load(path, mmap_mode="r", allow_pickle=False), base_file=path)


def read_layers(folder: Path, collection: str) -> Layers:
    """The layers of ``collection`` in the version ``folder``; the base is memory-mapped.

    O(texts) for the points; the base is not read. A version written before the layers gives text-ordered rows as
    the base, an empty delta, and its Qdrant points (``*_text_points.npy``) as :attr:`Layers.shard_labels`.

    Raises
    ------
    OSError, ValueError
        When a file is missing or unreadable.
    """
    base_file = folder / embeddings_file(collection)
    base = np.load(base_file, mmap_mode="r", allow_pickle=False)
    points_path = folder / points_file(collection)
    points = np.load(points_path, allow_pickle=False).astype(np.int64) if points_path.exists() else None
    if not (folder / delta_file(collection)).exists():  # before the layers: rows by text id
        texts = np.arange(base.shape[0], dtype=np.int64)
        shard = texts if points is None else _labels(points, int(points.max(initial=-1)) + 1)
        return Layers(base, np.zeros((0, base.shape[1]), dtype=np.float32), texts, texts, shard, base_file)
    delta = np.load(folder / delta_file(collection), allow_pickle=False)
    if points is None or delta.ndim != 2 or delta.shape[1] != base.shape[1]:
        raise ValueError(f"{folder}: inconsistent layers of {collection}")
    return _layers(base, delta, points, base_file)


def extend_layers(
    previous: Layers,
    texts: Sequence[str],
    old_texts: Sequence[str],
    encode: Callable[[list[str]], npt.NDArray[np.float32]],
    *,
    remap: npt.NDArray[np.int64] | None = None,
) -> tuple[Layers, int, int]:
    """The layers of ``texts`` on ``previous``'s base: a text of ``old_texts`` keeps its point, new texts are
    embedded with ``encode`` and appended to the delta (points above every earlier one).

    ``remap``: old text id -> new text id (-1: gone) when the caller knows it (a patched table,
    :func:`kgsvc.index.labels.patch_tables`); then no text is compared.

    Returns the layers, the number of texts added and the number of points that became tombstones.
    O(texts) dictionary work (O(texts) numpy with ``remap``), O(delta) rows copied; the base is not read.
    """
    next_point = previous.labels.shape[0]
    if remap is not None:
        points = np.full(len(texts), -1, dtype=np.int64)
        alive = np.flatnonzero(remap >= 0)
        points[remap[alive]] = previous.points[alive]
        fresh = np.flatnonzero(points < 0)
        points[fresh] = next_point + np.arange(fresh.shape[0], dtype=np.int64)
        new = fresh.tolist()
    else:
        point_of = dict(zip(old_texts, previous.points.tolist(), strict=True))
        points = np.empty(len(texts), dtype=np.int64)
        new = []
        for i, text in enumerate(texts):
            point = point_of.get(text)
            if point is None:
                point, next_point = next_point, next_point + 1
                new.append(i)
            points[i] = point
    added = encode([texts[i] for i in new]) if new else previous.delta[:0]
    delta = np.concatenate([previous.delta, np.asarray(added, dtype=np.float32)])
    return _layers(previous.base, delta, points, previous.base_file), len(new), len(old_texts) - (len(texts) - len(new))


def needs_compaction(layers: Layers) -> bool:
    """Whether the delta rows plus the tombstones exceed :data:`LAYER_MAX_SHARE` of the base and
    :data:`LAYER_MIN_POINTS`."""
    extra = layers.delta.shape[0] + layers.tombstones
    return bool(extra > max(LAYER_MIN_POINTS, LAYER_MAX_SHARE * layers.n_base))


def write_layers(
    folder: Path, collection: str, layers: Layers, *, base_from: Path | None = None, base_written: bool = False
) -> None:
    """Write ``layers`` into the version ``folder``; ``base_from``: the folder of a version with the same base,
    whose base file is hard-linked (copied where links fail) instead of written; ``base_written``: the base file is
    in place already (written row by row, :mod:`kgsvc.index.rows`). O(delta + texts) with a link or in place."""
    target = folder / embeddings_file(collection)
    if base_written:
        pass
    elif base_from is None:
        np.save(target, layers.base, allow_pickle=False)
    else:
        try:
            os.link(base_from / embeddings_file(collection), target)
        except OSError:
            shutil.copyfile(base_from / embeddings_file(collection), target)
    np.save(folder / delta_file(collection), layers.delta, allow_pickle=False)
    np.save(folder / points_file(collection), layers.points, allow_pickle=False)
