"""The graph snapshot: CSR adjacency of a whole dataset, both directions, memory-mappable (DESIGN §4).

Nodes and relations are numbered densely (``0 .. n_nodes - 1``, ``0 .. n_relations - 1``); the mapping back to
RDF terms lives elsewhere. Stored triple ``i`` is ``(heads[i], relations[i], tails[i])`` as given to
:meth:`GraphSnapshot.from_triples`; ``i`` is its **edge id**. The snapshot lists every triple twice, once in
the slice of each endpoint:

``indptr`` (int64, ``n_nodes + 1``)
    node ``v``'s entries are ``indptr[v] : indptr[v + 1]``.
``neighbors``, ``relations``, ``edge_ids``, ``outgoing`` (one value per entry)
    the other endpoint, the relation id, the stored triple's id, and whether the stored triple is
    ``(v, relation, neighbor)`` (``True``) or ``(neighbor, relation, v)`` (``False``).

Inside a node's slice the entries are sorted by ``(relation, neighbor, edge id)``, so the edges of one
relation are contiguous and found by binary search (:meth:`GraphSnapshot.relation_range`). Duplicate triples
keep distinct edge ids. A self-loop ``(v, r, v)`` is listed **once** in ``v``'s slice, with ``outgoing`` true,
so that each entry of a slice is a distinct (edge, direction) pair and no triple is seen twice from one node.

The original triples are kept as ``triple_heads``, ``triple_relations``, ``triple_tails`` (one value per edge
id) so :meth:`GraphSnapshot.triple` is O(1).

On disk a snapshot is a folder of ``.npy`` files plus ``manifest.json`` (format name, version, counts, dtypes,
shapes), written last: a folder without a manifest is incomplete and :meth:`GraphSnapshot.load` refuses it.
``load(..., mmap=True)`` maps the arrays read-only, so several processes share one copy in the page cache.

Build cost: two ``np.sort`` passes over packed 64-bit keys (sort key in the high bits, entry position in the
low bits), O(m log m) time and about 40 bytes per stored triple of transient memory; about 2 s for 10 million
triples on one core. When the packed keys do not fit 63 bits the build falls back to ``np.lexsort`` (slower,
same result).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kgsvc.errors import IndexError_

__all__ = ["GraphSnapshot", "id_dtype", "stable_order"]

FORMAT = "kgsvc-graph-snapshot"
VERSION = 1
MANIFEST = "manifest.json"
_ARRAYS = (
    "indptr",
    "neighbors",
    "relations",
    "edge_ids",
    "outgoing",
    "triple_heads",
    "triple_relations",
    "triple_tails",
)

IntArray = npt.NDArray[np.integer[Any]]


def stable_order(keys: IntArray, limit: int) -> npt.NDArray[np.int64]:
    """A stable argsort of integer ``keys`` in ``0 .. limit - 1`` (relation ids; a key outside it is not checked):
    a radix sort, O(len(keys)), when ``limit`` is at most 2^16 (NumPy sorts integers of 16 bits or fewer stably by
    radix), else a merge sort, O(len(keys) log len(keys))."""
    small = np.uint8 if limit <= 2**8 else np.uint16 if limit <= 2**16 else np.int64
    return np.argsort(np.asarray(keys).astype(small, copy=False), kind="stable").astype(np.int64, copy=False)


def id_dtype(limit: int) -> type[np.signedinteger[Any]]:
    """The width a snapshot stores ids below ``limit`` in: int32 when every one fits, else int64."""
    return np.int32 if limit <= np.iinfo(np.int32).max else np.int64


def _bits(limit: int) -> int:
    """Bits needed to store values ``0 .. limit - 1`` (at least 1)."""
    return max(1, (max(limit, 1) - 1).bit_length())


def _check_ids(name: str, values: IntArray, limit: int) -> None:
    if values.size and (int(values.min()) < 0 or int(values.max()) >= limit):
        raise ValueError(f"{name} must lie in [0, {limit}), got values in [{int(values.min())}, {int(values.max())}]")


@dataclass(frozen=True, eq=False)
class GraphSnapshot:
    """CSR adjacency over all edges in both directions, with relation ids and stored directions.

    Build one with :meth:`from_triples` or :meth:`load`; the constructor only checks shapes. See the module
    docstring for the meaning of each array.
    """

    indptr: npt.NDArray[np.int64]
    neighbors: IntArray
    relations: IntArray
    edge_ids: IntArray
    outgoing: npt.NDArray[np.bool_]
    triple_heads: IntArray
    triple_relations: IntArray
    triple_tails: IntArray
    n_relations: int

    def __post_init__(self) -> None:
        entries = self.neighbors.shape
        if self.indptr.ndim != 1 or self.indptr.shape[0] < 1:
            raise ValueError(f"indptr must be 1-D with at least one value, got shape {self.indptr.shape}")
        for name in ("relations", "edge_ids", "outgoing"):
            if getattr(self, name).shape != entries:
                raise ValueError(f"{name} must have shape {entries} like neighbors, got {getattr(self, name).shape}")
        if int(self.indptr[-1]) != entries[0]:
            raise ValueError(f"indptr[-1] must equal the number of entries {entries[0]}, got {int(self.indptr[-1])}")
        edges = self.triple_heads.shape
        for name in ("triple_relations", "triple_tails"):
            if getattr(self, name).shape != edges:
                raise ValueError(f"{name} must have shape {edges} like triple_heads, got {getattr(self, name).shape}")

    # -- sizes -------------------------------------------------------------------------------------------------

    @property
    def n_nodes(self) -> int:
        """Number of nodes (ids ``0 .. n_nodes - 1``)."""
        return int(self.indptr.shape[0] - 1)

    @property
    def n_edges(self) -> int:
        """Number of stored triples (edge ids ``0 .. n_edges - 1``)."""
        return int(self.triple_heads.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (mapped or in memory)."""
        return sum(int(getattr(self, name).nbytes) for name in _ARRAYS)

    # -- access --------------------------------------------------------------------------------------------------

    def triple(self, edge_id: int) -> tuple[int, int, int]:
        """The stored triple ``(head, relation, tail)`` of ``edge_id``; ``IndexError`` when out of range."""
        if not 0 <= edge_id < self.n_edges:
            raise IndexError(f"edge_id must lie in [0, {self.n_edges}), got {edge_id}")
        return (int(self.triple_heads[edge_id]), int(self.triple_relations[edge_id]), int(self.triple_tails[edge_id]))

    def degree(self, node: int) -> int:
        """Number of entries in ``node``'s slice (a self-loop counts once)."""
        return int(self.indptr[node + 1] - self.indptr[node])

    def relation_range(self, node: int, relation: int) -> tuple[int, int]:
        """The entry range ``start, stop`` of ``node``'s edges with ``relation`` (empty when none), O(log degree)."""
        start, stop = int(self.indptr[node]), int(self.indptr[node + 1])
        rels = self.relations[start:stop]
        lo, hi = np.searchsorted(rels, [relation, relation + 1])
        return start + int(lo), start + int(hi)

    def out_edges(self, node: int) -> list[tuple[int, int]]:
        """``(relation, object)`` of the stored triples whose subject is ``node``. O(degree)."""
        start, stop = int(self.indptr[node]), int(self.indptr[node + 1])
        out = np.asarray(self.outgoing[start:stop], dtype=bool)
        relations = np.asarray(self.relations[start:stop])[out].tolist()
        return list(zip(relations, np.asarray(self.neighbors[start:stop])[out].tolist(), strict=True))

    def neighbors_via(self, node: int, relation: int, *, outgoing: bool) -> npt.NDArray[np.int64]:
        """The stored answers of ``(node, relation, ?)`` when ``outgoing``, else of ``(?, relation, node)``.

        O(log degree + answers).
        """
        start, stop = self.relation_range(node, relation)
        mask = np.asarray(self.outgoing[start:stop]) == outgoing
        found: npt.NDArray[np.int64] = np.asarray(self.neighbors[start:stop])[mask].astype(np.int64)
        return found

    # -- build ---------------------------------------------------------------------------------------------------

    @classmethod
    def from_triples(
        cls,
        heads: IntArray,
        relations: IntArray,
        tails: IntArray,
        *,
        n_nodes: int,
        n_relations: int,
    ) -> GraphSnapshot:
        """Build the snapshot of the triples ``(heads[i], relations[i], tails[i])``.

        Parameters
        ----------
        heads, relations, tails : array of int, shape (m,)
            Node ids in ``[0, n_nodes)`` and relation ids in ``[0, n_relations)``. Duplicate triples are kept as
            distinct edges; self-loops are allowed.
        n_nodes, n_relations : int
            Sizes of the id spaces (nodes without edges are allowed).

        Returns
        -------
        GraphSnapshot

        Raises
        ------
        ValueError
            When the arrays are not 1-D integer arrays of one length, or an id is out of range.

        Notes
        -----
        Vectorised: O(m log m) time in two ``np.sort`` passes, O(m) memory.

        Examples
        --------
        >>> import numpy as np
        >>> heads, relations, tails = np.array([0, 1]), np.array([0, 1]), np.array([1, 2])
        >>> g = GraphSnapshot.from_triples(heads, relations, tails, n_nodes=3, n_relations=2)
        >>> g.n_edges, g.degree(1), g.triple(1)
        (2, 2, (1, 1, 2))
        """
        arrays = [np.asarray(a) for a in (heads, relations, tails)]
        for name, array in zip(("heads", "relations", "tails"), arrays, strict=True):
            if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
                raise ValueError(f"{name} must be a 1-D integer array, got dtype {array.dtype} shape {array.shape}")
        h, r, t = arrays
        if not h.shape == r.shape == t.shape:
            raise ValueError(f"heads, relations, tails must have one length, got {h.shape}, {r.shape}, {t.shape}")
        if n_nodes < 0 or n_relations < 0:
            raise ValueError(f"n_nodes and n_relations must be >= 0, got {n_nodes} and {n_relations}")
        _check_ids("heads", h, n_nodes)
        _check_ids("tails", t, n_nodes)
        _check_ids("relations", r, n_relations)

        node_t, rel_t = id_dtype(n_nodes), id_dtype(n_relations)
        m = int(h.shape[0])
        edge_t = id_dtype(m)
        h, r, t = h.astype(node_t), r.astype(rel_t), t.astype(node_t)

        # Entry 2e is edge e seen from its head (outgoing), entry 2e + 1 from its tail; self-loops keep only 2e.
        src = np.empty(2 * m, dtype=node_t)
        dst = np.empty(2 * m, dtype=node_t)
        src[0::2], src[1::2] = h, t
        dst[0::2], dst[1::2] = t, h
        rel = np.repeat(r, 2)
        loop = h == t
        entry: npt.NDArray[np.int64] | None = None
        if loop.any():
            keep = np.ones(2 * m, dtype=bool)
            keep[1::2] = ~loop
            entry = np.flatnonzero(keep)
            src, dst, rel = src[keep], dst[keep], rel[keep]
        order, neighbors, rels = _sort_entries(src, dst, rel, n_nodes=n_nodes, n_relations=n_relations)
        if entry is not None:
            order = entry[order]

        counts = np.bincount(h, minlength=n_nodes) + np.bincount(t[~loop], minlength=n_nodes)
        indptr = np.zeros(n_nodes + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return cls(
            indptr=indptr,
            neighbors=neighbors.astype(node_t),
            relations=rels.astype(rel_t),
            edge_ids=(order >> 1).astype(edge_t),
            outgoing=(order & 1) == 0,
            triple_heads=h,
            triple_relations=r,
            triple_tails=t,
            n_relations=n_relations,
        )

    def patched(
        self,
        heads: IntArray,
        relations: IntArray,
        tails: IntArray,
        *,
        n_nodes: int,
        n_relations: int,
        node_remap: npt.NDArray[np.int64],
        relation_remap: npt.NDArray[np.int64],
        edge_remap: npt.NDArray[np.int64],
    ) -> GraphSnapshot:
        """The snapshot of the triples ``(heads[i], relations[i], tails[i])`` built from this one's, when they are
        this snapshot's triples renumbered plus a few new ones: equal to :meth:`from_triples` on them.

        ``node_remap`` / ``relation_remap`` / ``edge_remap`` map this snapshot's node, relation and edge ids to the
        new ones (-1: gone) and must be increasing on the ids they keep (an incremental build's renumbering,
        :func:`kgsvc.index.labels.patch_tables`): the kept entries then stay in slice order and only the new
        edges' entries (the new edge ids no old edge maps to) are sorted and merged in. A node's slice loses the
        entries of the edges gone.

        Notes
        -----
        A few O(m) numpy gathers through the id maps and one copy per array, O(k log degree) for the k new edges'
        entries (binary searches in their node's slice), instead of :meth:`from_triples`' O(m log m) sorts.
        """
        node_t, rel_t, edge_t = id_dtype(n_nodes), id_dtype(n_relations), id_dtype(int(heads.shape[0]))
        h, r, t = (np.asarray(a) for a in (heads, relations, tails))  # in their width: no O(m) copy
        old_indptr: npt.NDArray[np.int64] = np.asarray(self.indptr, dtype=np.int64)
        # the kept entries, renumbered through the small id maps (the maps in the final dtypes), still sorted by
        # (src, relation, neighbor, edge id, direction): read through the maps slice by slice and gathered straight
        # into the new arrays, or, when edges are gone, gathered and compressed first
        same_relations = relation_remap.shape[0] == n_relations and bool(
            np.all(relation_remap == np.arange(n_relations))
        )
        maps: list[IntArray | None] = [
            edge_remap.astype(edge_t),
            node_remap.astype(node_t),
            None if same_relations else relation_remap.astype(rel_t),
            None,
        ]
        columns: list[npt.NDArray[Any]] = [self.edge_ids, self.neighbors, self.relations, self.outgoing]
        kept_before = old_indptr
        if bool(np.any(edge_remap < 0)):  # edges gone: their entries too
            columns = [c if m is None else m[c] for c, m in zip(columns, maps, strict=True)]
            maps = [None] * 4
            kept = columns[0] >= 0
            prefix = np.zeros(kept.shape[0] + 1, dtype=np.int64)
            np.cumsum(kept, out=prefix[1:])
            kept_before = prefix[old_indptr]
            columns = [c[kept] for c in columns]

        def part(column: int, lo: int, hi: int) -> npt.NDArray[Any]:
            """Kept entries ``lo:hi`` of a column, renumbered."""
            values = np.asarray(columns[column][lo:hi])
            mapping = maps[column]
            return values if mapping is None else mapping[values]

        # kept entries per node, under the new ids (a gone node has none)
        alive = np.flatnonzero(node_remap >= 0)
        counts = np.zeros(n_nodes, dtype=np.int64)
        counts[node_remap[alive]] = kept_before[alive + 1] - kept_before[alive]
        kept_indptr = np.zeros(n_nodes + 1, dtype=np.int64)
        np.cumsum(counts, out=kept_indptr[1:])
        # the new edges' entries: from the head (outgoing), and from the tail unless a self-loop
        is_old = np.zeros(h.shape[0], dtype=bool)
        is_old[edge_remap[edge_remap >= 0]] = True
        new = np.flatnonzero(~is_old)
        back = new[h[new] != t[new]]
        entries = sorted(
            [(int(h[e]), int(r[e]), int(t[e]), 2 * int(e), int(e), True) for e in new.tolist()]
            + [(int(t[e]), int(r[e]), int(h[e]), 2 * int(e) + 1, int(e), False) for e in back.tolist()]
        )
        at = []
        for src, relation, neighbor, position, _, _ in entries:  # O(log degree) each, within the node's slice
            lo, hi = int(kept_indptr[src]), int(kept_indptr[src + 1])
            rel = part(2, lo, hi)
            lo, hi = (
                lo + int(np.searchsorted(rel, relation, side="left")),
                lo + int(np.searchsorted(rel, relation, side="right")),
            )
            dst = part(1, lo, hi)
            lo, hi = (
                lo + int(np.searchsorted(dst, neighbor, side="left")),
                lo + int(np.searchsorted(dst, neighbor, side="right")),
            )
            positions = 2 * part(0, lo, hi).astype(np.int64) + ~part(3, lo, hi)
            at.append(lo + int(np.searchsorted(positions, position)))
        np.add.at(counts, np.asarray([e[0] for e in entries], dtype=np.int64), 1)
        indptr = np.zeros(n_nodes + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        n_kept = int(kept_indptr[-1])

        def merged(column: int, values: list[Any], dtype: type[np.generic]) -> npt.NDArray[Any]:
            """``np.insert(kept column, at, values)`` written straight into the new array (no renumbered copy of
            the kept column in between): O(entries) copies in k + 1 slices."""
            result = np.empty(n_kept + len(values), dtype=dtype)
            mapping, previous = maps[column], 0
            for j, (a, value) in enumerate(zip([*at, n_kept], [*values, None], strict=True)):
                if a > previous:
                    source, target = np.asarray(columns[column][previous:a]), result[previous + j : a + j]
                    if mapping is None:
                        target[...] = source
                    else:
                        np.take(mapping, source, out=target, mode="clip")  # ids in range: no bounds buffer
                if value is not None:
                    result[a + j] = value
                previous = a
            return result

        return GraphSnapshot(
            indptr=indptr,
            neighbors=merged(1, [e[2] for e in entries], node_t),
            relations=merged(2, [e[1] for e in entries], rel_t),
            edge_ids=merged(0, [e[4] for e in entries], edge_t),
            outgoing=merged(3, [e[5] for e in entries], np.bool_),
            triple_heads=h.astype(node_t, copy=False),
            triple_relations=r.astype(rel_t, copy=False),
            triple_tails=t.astype(node_t, copy=False),
            n_relations=n_relations,
        )

    # -- persistence ---------------------------------------------------------------------------------------------

    def save(self, folder: Path) -> None:
        """Write the arrays as ``.npy`` files and then ``manifest.json`` into ``folder`` (created if missing).

        Raises
        ------
        OSError
            When the folder cannot be written.
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MANIFEST).unlink(missing_ok=True)
        arrays: dict[str, dict[str, Any]] = {}
        for name in _ARRAYS:
            array = np.ascontiguousarray(getattr(self, name))
            np.save(folder / f"{name}.npy", array, allow_pickle=False)
            arrays[name] = {"dtype": array.dtype.str, "shape": list(array.shape)}
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "n_nodes": self.n_nodes,
            "n_relations": self.n_relations,
            "n_edges": self.n_edges,
            "arrays": arrays,
        }
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, *, mmap: bool = True) -> GraphSnapshot:
        """Open a snapshot written by :meth:`save`; with ``mmap`` the arrays are mapped read-only.

        Raises
        ------
        IndexError_
            When the manifest is missing (incomplete build), of another format or version, or disagrees with
            the arrays.
        """
        folder = Path(folder)
        try:
            manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise IndexError_(f"graph snapshot {folder} has no {MANIFEST}: the build is missing or incomplete") from exc
        except json.JSONDecodeError as exc:
            raise IndexError_(f"graph snapshot manifest {folder / MANIFEST} is not valid JSON: {exc}") from exc
        if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
            raise IndexError_(
                f"graph snapshot {folder}: expected format {FORMAT!r} version {VERSION}, "
                f"got {manifest.get('format')!r} version {manifest.get('version')!r}"
            )
        loaded: dict[str, Any] = {}
        for name in _ARRAYS:
            try:
                array = np.load(folder / f"{name}.npy", mmap_mode="r" if mmap else None, allow_pickle=False)
            except (OSError, ValueError) as exc:
                raise IndexError_(f"graph snapshot {folder}: cannot read {name}.npy: {exc}") from exc
            expected = manifest["arrays"][name]
            if array.dtype.str != expected["dtype"] or list(array.shape) != expected["shape"]:
                raise IndexError_(
                    f"graph snapshot {folder}: {name}.npy has dtype {array.dtype.str} shape {list(array.shape)}, "
                    f"manifest says {expected['dtype']} {expected['shape']}"
                )
            loaded[name] = array
        snapshot = cls(n_relations=int(manifest["n_relations"]), **loaded)
        if snapshot.n_nodes != manifest["n_nodes"] or snapshot.n_edges != manifest["n_edges"]:
            raise IndexError_(
                f"graph snapshot {folder}: arrays hold {snapshot.n_nodes} nodes / {snapshot.n_edges} edges, "
                f"manifest says {manifest['n_nodes']} / {manifest['n_edges']}"
            )
        return snapshot


def _sort_entries(
    src: IntArray,
    dst: IntArray,
    rel: IntArray,
    *,
    n_nodes: int,
    n_relations: int,
) -> tuple[npt.NDArray[np.int64], IntArray, IntArray]:
    """Sort entries by (src, relation, dst, position); return the permutation and the sorted dst and relation.

    Two ``np.sort`` passes over packed keys, least significant first: ``np.sort`` of int64 is several times
    faster than ``np.argsort``, and packing the position into the low bits makes it a stable argsort. Positions
    follow edge-id order, so ties (parallel edges) end up in edge-id order.
    """
    count = int(src.shape[0])
    pos_bits = _bits(count)
    node_bits, rel_bits = _bits(n_nodes), _bits(n_relations)
    if rel_bits + node_bits + pos_bits > 63 or node_bits + pos_bits > 63:
        order = np.lexsort((dst, rel, src)).astype(np.int64)
        return order, dst[order], rel[order]
    pos_mask = (1 << pos_bits) - 1
    positions = np.arange(count, dtype=np.int64)
    # Pass 1: by (relation, dst, position).
    key = (rel.astype(np.int64) << (node_bits + pos_bits)) | (dst.astype(np.int64) << pos_bits) | positions
    key.sort()
    first = key & pos_mask
    packed = key >> pos_bits  # (relation, dst) in pass-1 order
    # Pass 2: stable by src, keeping pass-1 order through the position bits.
    key = (src[first].astype(np.int64) << pos_bits) | positions
    key.sort()
    second = key & pos_mask
    del key
    packed = packed[second]
    return first[second], packed & ((1 << node_bits) - 1), packed >> node_bits
