# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""The compiled branch and bound behind :func:`kgsvc.retrieval.search.top_k_subgraphs` (one implementation).

:mod:`kgsvc.retrieval.search` validates the input and fixes the matching order and ``rem`` (Eq. 9-10); this
module runs SimGRAG's Algorithm 1 with the Eq. 11 bound plus the known-target lookahead (all described in
:mod:`kgsvc.retrieval.search`) over the snapshot's CSR arrays, and builds the :class:`Match` records. The
contract, tie-break and notation are those of :mod:`kgsvc.retrieval.search`; nothing here changes a result.

Layout: fixed-point costs are int64 with ``SENTINEL = 2**60`` for "not a candidate"; dense cost tables over KG
node ids come from a per-process pool of scratch arrays (:func:`free_scratch`), written entry by entry and reset
entry by entry when the search releases them, so a table costs O(its entries), not O(n_nodes). Children of a
partial map are gathered into a per-depth C++ vector and sorted by ``(cost, edge id)`` with ``std::sort``; the
top k are ``k`` key slots ``(GSD, edge ids in matching order, node map, distinct edge ids sorted and padded with
-1, answer binding or -1)`` kept in key order, the last two identifying the subgraph (the answer binding only
under triple reuse, see :mod:`kgsvc.retrieval.search`). A directed search keeps only the CSR entries whose
``outgoing`` flag runs along the step's pattern edge (``StepC.want``); its lookahead tables stay undirected (a
superset, so still a lower bound). The GIL is held throughout (the test hook and the scratch pool are
Python objects), so concurrent searches in threads interleave only between calls.

Built by ``setup.py`` (``pip install -e .``; ``python setup.py build_ext --inplace`` after editing this file);
``_kernel.pyi`` is its type stub.
"""

from libc.stdint cimport int32_t, int64_t
from libcpp.algorithm cimport pop_heap, push_heap
from libcpp.algorithm cimport sort as std_sort
from libcpp.vector cimport vector
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

cimport numpy as cnp

import numpy as np

from kgsvc.retrieval.gsd import GSD_SCALE
from kgsvc.retrieval.result import Match

cnp.import_array()

cdef extern from *:
    """
    #include <cstdint>
    #define KG_SENTINEL (((int64_t)1) << 60)
    #define KG_LOOKAHEAD_ENTRIES (((int64_t)1) << 22)
    struct KChild { int64_t cost; int64_t eid; int64_t target; };
    static inline bool operator<(const KChild& a, const KChild& b) {
        return a.cost < b.cost || (a.cost == b.cost && a.eid < b.eid);
    }
    """
    ctypedef struct KChild:
        int64_t cost
        int64_t eid
        int64_t target
    const int64_t SENTINEL "KG_SENTINEL"  # C constants (a Cython DEF of 1 << 60 becomes a Python int)
    # a lookahead table is built only when its candidates' slices hold at most this many entries
    const int64_t _LOOKAHEAD_ENTRIES "KG_LOOKAHEAD_ENTRIES"

SENTINEL_VALUE = SENTINEL
#: slices longer than this take their children from a lookahead table's reverse lists (test switch: -1)
REVERSE_MIN = 2048
#: root sets at least this large are re-ranked through step 0's lookahead tables
ROOT_LOOKAHEAD_MIN = 256
#: free scratch arrays kept per node count (a 3-star borrows 6: two node-cost arrays, two tables, two heads)
SCRATCH_KEEP = 6
cdef dict _FREE = {}
cdef double _SCALE = float(GSD_SCALE)


def free_scratch(n_nodes: int) -> list:
    """The free scratch arrays of ``n_nodes`` entries (all ``SENTINEL``; tests check that)."""
    return _FREE.setdefault(n_nodes, [])


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int64_t _get(const int32_t* narrow, const int64_t* wide, int64_t i) noexcept nogil:
    return wide[i] if wide != NULL else narrow[i]


cdef cnp.ndarray _contiguous(object array, int typenum):
    """``array`` itself when it is a C-contiguous ndarray of ``typenum``, else a converted copy."""
    cdef cnp.ndarray a
    if isinstance(array, cnp.ndarray):
        a = <cnp.ndarray>array
        if cnp.PyArray_TYPE(a) == typenum and cnp.PyArray_IS_C_CONTIGUOUS(a):
            return a
    return np.ascontiguousarray(array, dtype=np.int64 if typenum == cnp.NPY_INT64 else np.float64)


cdef class _Column:
    """An int32 or int64 array of the snapshot, read without conversion."""

    cdef object array
    cdef const int32_t* narrow
    cdef const int64_t* wide

    def __cinit__(self, object array):
        cdef cnp.ndarray a
        if isinstance(array, cnp.ndarray) and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>array) and (
            cnp.PyArray_TYPE(<cnp.ndarray>array) == cnp.NPY_INT32
        ):
            a = <cnp.ndarray>array
            self.narrow = <const int32_t*>cnp.PyArray_DATA(a)
            self.wide = NULL
        else:
            a = _contiguous(array, cnp.NPY_INT64)
            self.narrow = NULL
            self.wide = <const int64_t*>cnp.PyArray_DATA(a)
        self.array = a


cdef class Graph:
    """The snapshot's arrays as C pointers (made once per snapshot, see :func:`kgsvc.retrieval.search._graph`)."""

    cdef readonly int64_t n_nodes, n_relations
    cdef object indptr_array
    cdef const int64_t* indptr
    cdef _Column neighbors, relations, edge_ids, heads, triple_relations, tails
    cdef object outgoing_array
    cdef const unsigned char* outgoing  # per CSR entry: 1 when the entry's node is the triple's head

    def __cinit__(self, snapshot: object):
        self.indptr_array = _contiguous(snapshot.indptr, cnp.NPY_INT64)
        self.indptr = <const int64_t*>cnp.PyArray_DATA(self.indptr_array)
        self.n_nodes = self.indptr_array.shape[0] - 1
        self.n_relations = snapshot.n_relations
        self.neighbors = _Column(snapshot.neighbors)
        self.relations = _Column(snapshot.relations)
        self.edge_ids = _Column(snapshot.edge_ids)
        self.heads = _Column(snapshot.triple_heads)
        self.triple_relations = _Column(snapshot.triple_relations)
        self.tails = _Column(snapshot.triple_tails)
        self.outgoing_array = np.ascontiguousarray(snapshot.outgoing).view(np.uint8)
        self.outgoing = <const unsigned char*>cnp.PyArray_DATA(self.outgoing_array)


cdef struct StepC:
    int64_t edge, source, target, rem_next, payback, relation_set, node_set
    int64_t want  # directed search: 1 = a triple from source to target, 0 = from target to source; -1 = either
    bint closing
    int64_t* node_cost  # dense by KG node id (a scratch buffer), NULL for an unknown or closing target


cdef struct TableC:
    int64_t step, base
    bint built, valid, reversed
    int64_t* dense  # table[u] - base by KG node id, SENTINEL where absent (a scratch buffer)
    int64_t* head  # reverse lists: first entry index at u, SENTINEL where none (a scratch buffer)


cdef struct SetC:
    const int64_t* ids
    const int64_t* fixed
    const double* distances
    int64_t size


cdef class Search:
    """One search: ``run()`` once, then ``matches()``; ``release()`` always (returns the scratch buffers).

    Parameters are those of :func:`kgsvc.retrieval.search._search`, with the validated ``order`` and ``rem``.
    """

    cdef Graph g
    cdef object pattern, hook
    cdef list keep, borrowed
    cdef vector[vector[int64_t]] written  # per borrowed buffer: the ids written
    cdef vector[SetC] sets  # known node sets (by pattern node) then relation sets (by pattern edge)
    cdef vector[int64_t] node_set_of, relation_set_of  # pattern node / edge -> index in sets, -1 if unknown
    cdef vector[int64_t] relation_cost  # m × n_relations, SENTINEL outside C(r)
    cdef vector[StepC] steps
    cdef vector[TableC] tables
    cdef vector[vector[int64_t]] ahead  # per step: the tables it applies
    cdef vector[vector[int64_t]] table_touched, rev_entry, rev_owner, rev_next
    cdef vector[vector[KChild]] kids
    cdef vector[int64_t*] ahead_dense
    cdef vector[int64_t] node_map, eids, slots, sorted_edges
    cdef vector[int64_t] order, free_slots
    cdef int64_t m, n, k, root, root_set, last, root_sub, kth, width, root_lookahead_min, reverse_min, answer
    cdef int64_t kth_gsd, _rem0
    cdef bint reuse, triple_reuse, prune, full, has_deadline, has_hook, lookahead
    cdef double deadline
    cdef readonly int64_t expansions

    def __cinit__(
        self,
        Graph graph,
        pattern: object,
        candidates: object,
        order: object,
        rem: list,
        int64_t k,
        bint reuse,
        bint triple_reuse,
        bint directed,
        deadline: object,
        bint prune,
        hook: object,
        int64_t root_lookahead_min,
        int64_t reverse_min,
        bint lookahead,
    ):
        cdef int64_t i, j, v, e, r, rel_base
        cdef SetC s
        cdef StepC step
        cdef TableC table
        cdef cnp.ndarray ids, fixed, distances
        self.g, self.pattern, self.hook = graph, pattern, hook
        self.keep, self.borrowed = [], []
        self.k, self.reuse, self.triple_reuse, self.prune = k, reuse, triple_reuse, prune
        self.answer = -1 if pattern.answer is None or not triple_reuse else pattern.answer
        self.has_hook = hook is not None
        self.has_deadline = deadline is not None
        self.deadline = deadline if deadline is not None else 0.0
        self.root_lookahead_min, self.reverse_min, self.lookahead = root_lookahead_min, reverse_min, lookahead
        self.n = len(pattern.nodes)
        self.m = len(pattern.edges)
        self.node_set_of.assign(self.n, -1)
        self.relation_set_of.assign(self.m, -1)
        for kind, found_sets in ((0, candidates.nodes), (1, candidates.relations)):
            for index, found in found_sets.items():
                ids = _contiguous(found.ids, cnp.NPY_INT64)
                fixed = _contiguous(found.fixed, cnp.NPY_INT64)
                distances = _contiguous(found.distances, cnp.NPY_FLOAT64)
                self.keep.append((ids, fixed, distances))
                s.ids = <const int64_t*>cnp.PyArray_DATA(ids)
                s.fixed = <const int64_t*>cnp.PyArray_DATA(fixed)
                s.distances = <const double*>cnp.PyArray_DATA(distances)
                s.size = ids.shape[0]
                if kind == 0:
                    self.node_set_of[index] = self.sets.size()
                else:
                    self.relation_set_of[index] = self.sets.size()
                self.sets.push_back(s)
        self.root = order.root
        self.root_set = self.node_set_of[self.root]
        self.relation_cost.assign(self.m * graph.n_relations, SENTINEL)
        self.kids.resize(self.m)
        self.ahead.resize(self.m)
        self.node_map.assign(self.n, -1)
        self.eids.assign(self.m, -1)
        self.sorted_edges.assign(self.m, 0)
        i = 0
        first = {}
        for step_py in order.steps:
            step.edge, step.source, step.target, step.closing = step_py
            head, tail = pattern.edges[step.edge].head, pattern.edges[step.edge].tail
            step.want = -1 if not directed or head == tail else (1 if step.source == head else 0)
            step.rem_next = rem[i + 1]
            step.payback = -1
            step.relation_set = self.relation_set_of[step.edge]
            step.node_set = -1 if step.closing else self.node_set_of[step.target]
            step.node_cost = NULL
            if step.relation_set >= 0:
                s = self.sets[step.relation_set]
                rel_base = i * graph.n_relations
                for j in range(s.size):
                    self.relation_cost[rel_base + s.ids[j]] = s.fixed[j]
            if not step.closing:
                first[step.target] = i
            if lookahead and step.node_set >= 0 and step.source != self.root:
                table.step, table.base = i, rem[i] - rem[i + 1]
                table.built = table.valid = table.reversed = False
                table.dense = table.head = NULL
                step.payback = self.tables.size()
                self.ahead[first[step.source]].push_back(self.tables.size())
                self.tables.push_back(table)
            self.steps.push_back(step)
            i += 1
        self.table_touched.resize(self.tables.size())
        self.rev_entry.resize(self.tables.size())
        self.rev_owner.resize(self.tables.size())
        self.rev_next.resize(self.tables.size())
        self.last = self.m - 1
        self.width = 2 + 2 * self.m + self.n
        self._rem0 = rem[0]
        self.kth_gsd = SENTINEL
        self.full = False
        self.kth = -1
        self.root_sub = 0
        self.expansions = 0

    # -- scratch buffers --------------------------------------------------------------------------------------

    cdef int64_t* _borrow(self, int64_t* index) except NULL:
        """A scratch array of ``n_nodes`` int64, all SENTINEL; ``index`` receives its slot in ``written``."""
        free = _FREE.setdefault(self.g.n_nodes, [])
        buffer = free.pop() if free else np.full(self.g.n_nodes, SENTINEL, dtype=np.int64)
        self.borrowed.append(buffer)
        self.written.push_back(vector[int64_t]())
        index[0] = self.written.size() - 1
        return <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>buffer)

    def release(self) -> None:
        """Reset the written entries of every borrowed buffer and give it back to the pool."""
        cdef int64_t q, j
        cdef int64_t* data
        free = _FREE.setdefault(self.g.n_nodes, [])
        for q in range(len(self.borrowed)):
            buffer = self.borrowed[q]
            data = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>buffer)
            for j in range(<int64_t>self.written[q].size()):
                data[self.written[q][j]] = SENTINEL
            if len(free) < SCRATCH_KEEP:
                free.append(buffer)
        self.borrowed = []
        self.written.clear()
        for q in range(self.m):
            self.steps[q].node_cost = NULL
        for q in range(<int64_t>self.tables.size()):
            self.tables[q].dense = self.tables[q].head = NULL
            self.tables[q].valid = False

    # -- tables -------------------------------------------------------------------------------------------------

    cdef int _node_costs(self) except -1:
        """Dense node-cost arrays for the steps into known new nodes."""
        cdef int64_t i, j, q
        cdef SetC s
        for i in range(self.m):
            if self.steps[i].node_set >= 0:
                s = self.sets[self.steps[i].node_set]
                self.steps[i].node_cost = self._borrow(&q)
                for j in range(s.size):
                    self.steps[i].node_cost[s.ids[j]] = s.fixed[j]
                    self.written[q].push_back(s.ids[j])
        return 0

    cdef int _build_table(self, int64_t t) except -1:
        """``table[u] - base`` for every KG node u with an entry ``(b, r, u)``, ``b`` in the step's node
        candidates and ``r`` in its relation candidates: one pass over those slices, O(S)."""
        cdef TableC* table = &self.tables[t]
        cdef StepC* step = &self.steps[table.step]
        cdef SetC s = self.sets[step.node_set]
        cdef const int64_t* indptr = self.g.indptr
        cdef const int64_t* rel_cost = (
            &self.relation_cost[table.step * self.g.n_relations] if step.relation_set >= 0 else NULL
        )
        cdef const int32_t* nb32 = self.g.neighbors.narrow
        cdef const int64_t* nb64 = self.g.neighbors.wide
        cdef const int32_t* rl32 = self.g.relations.narrow
        cdef const int64_t* rl64 = self.g.relations.wide
        cdef int64_t j, p, b, u, c, q, total = 0
        cdef int64_t* dense
        cdef int64_t base = table.base
        table.built = True
        for j in range(s.size):
            b = s.ids[j]
            total += indptr[b + 1] - indptr[b]
        if total > _LOOKAHEAD_ENTRIES:
            return 0
        dense = self._borrow(&q)
        cdef vector[int64_t]* touched = &self.written[q]
        for j in range(s.size):
            b = s.ids[j]
            for p in range(indptr[b], indptr[b + 1]):
                c = s.fixed[j]
                if rel_cost != NULL:
                    if rel_cost[_get(rl32, rl64, p)] >= SENTINEL:
                        continue
                    c += rel_cost[_get(rl32, rl64, p)]
                u = _get(nb32, nb64, p)
                c -= base
                if dense[u] == SENTINEL:
                    touched.push_back(u)
                    dense[u] = c
                elif c < dense[u]:
                    dense[u] = c
        self.table_touched[t] = touched[0]
        table.dense = dense
        table.valid = True
        return 0

    cdef int _build_reverse(self, int64_t t) except -1:
        """The entries behind table ``t`` as linked lists by their far end ``u`` (``head[u]``, ``rev_next``)."""
        cdef TableC* table = &self.tables[t]
        cdef StepC* step = &self.steps[table.step]
        cdef SetC s = self.sets[step.node_set]
        cdef const int64_t* indptr = self.g.indptr
        cdef const int64_t* rel_cost = (
            &self.relation_cost[table.step * self.g.n_relations] if step.relation_set >= 0 else NULL
        )
        cdef const int32_t* nb32 = self.g.neighbors.narrow
        cdef const int64_t* nb64 = self.g.neighbors.wide
        cdef const int32_t* rl32 = self.g.relations.narrow
        cdef const int64_t* rl64 = self.g.relations.wide
        cdef int64_t j, p, b, u, q
        cdef int64_t* head = self._borrow(&q)
        self.written[q] = self.table_touched[t]  # heads are set exactly where the table is
        table.reversed = True
        table.head = head
        for j in range(s.size):
            b = s.ids[j]
            for p in range(indptr[b], indptr[b + 1]):
                if rel_cost != NULL and rel_cost[_get(rl32, rl64, p)] >= SENTINEL:
                    continue
                u = _get(nb32, nb64, p)
                self.rev_next[t].push_back(head[u])
                head[u] = self.rev_entry[t].size()
                self.rev_entry[t].push_back(p)
                self.rev_owner[t].push_back(b)
        return 0

    # -- top k --------------------------------------------------------------------------------------------------

    cdef inline int _compare(self, int64_t gsd, int64_t slot) noexcept:
        """Sign of (gsd, eids, node_map) - the key in ``slot``."""
        cdef int64_t* key = &self.slots[slot * self.width]
        cdef int64_t j
        if gsd != key[0]:
            return -1 if gsd < key[0] else 1
        for j in range(self.m):
            if self.eids[j] != key[1 + j]:
                return -1 if self.eids[j] < key[1 + j] else 1
        for j in range(self.n):
            if self.node_map[j] != key[1 + self.m + j]:
                return -1 if self.node_map[j] < key[1 + self.m + j] else 1
        return 0

    cdef int _offer(self, int64_t gsd) except -1:
        """Insert the current full map with ``gsd`` if it is among the k best; 2 when it is not below the k-th
        key (the caller stops), 1 when its subgraph is held with a smaller key, 0 when accepted."""
        cdef int64_t size = self.order.size()
        cdef int64_t j, q, h, slot, bound, old = -1, at
        cdef int64_t* key
        if self.full and self._compare(gsd, self.order[size - 1]) >= 0:
            return 2
        for j in range(self.m):  # the subgraph: the edge ids as a sorted list (m is tiny)
            h = self.eids[j]
            q = j
            while q > 0 and self.sorted_edges[q - 1] > h:
                self.sorted_edges[q] = self.sorted_edges[q - 1]
                q -= 1
            self.sorted_edges[q] = h
        if self.triple_reuse:  # a triple may serve several pattern edges: keep each once, pad with -1
            q = 0
            for j in range(self.m):
                if q == 0 or self.sorted_edges[j] != self.sorted_edges[q - 1]:
                    self.sorted_edges[q] = self.sorted_edges[j]
                    q += 1
            for j in range(q, self.m):
                self.sorted_edges[j] = -1
        bound = -1 if self.answer < 0 else self.node_map[self.answer]
        for q in range(size):
            key = &self.slots[self.order[q] * self.width + 1 + self.m + self.n]
            if key[self.m] != bound:
                continue
            for j in range(self.m):
                if key[j] != self.sorted_edges[j]:
                    break
            else:
                old = q
                break
        if old >= 0:
            if self._compare(gsd, self.order[old]) >= 0:
                return 1
            self.free_slots.push_back(self.order[old])
            self.order.erase(self.order.begin() + old)
            size -= 1
        at = size
        while at > 0 and self._compare(gsd, self.order[at - 1]) < 0:
            at -= 1
        if self.free_slots.size():
            slot = self.free_slots.back()
            self.free_slots.pop_back()
        else:
            slot = self.slots.size() // self.width
            self.slots.resize(self.slots.size() + self.width)
        key = &self.slots[slot * self.width]
        key[0] = gsd
        for j in range(self.m):
            key[1 + j] = self.eids[j]
            key[1 + self.m + self.n + j] = self.sorted_edges[j]
        for j in range(self.n):
            key[1 + self.m + j] = self.node_map[j]
        key[1 + 2 * self.m + self.n] = bound
        self.order.insert(self.order.begin() + at, slot)
        if <int64_t>self.order.size() > self.k:
            self.free_slots.push_back(self.order.back())
            self.order.pop_back()
        if <int64_t>self.order.size() == self.k:
            self.full = True
            self.kth = self.order.back()
            self.kth_gsd = self.slots[self.kth * self.width]
        return 0

    cdef inline bint _prefix_after_kth(self, int64_t i, int64_t e) noexcept:
        """Whether (eids[:i], e) > the k-th key's first i + 1 edge ids."""
        cdef int64_t* kth = &self.slots[self.kth * self.width + 1]
        cdef int64_t j
        for j in range(i):
            if self.eids[j] != kth[j]:
                return self.eids[j] > kth[j]
        return e > kth[i]

    # -- search ------------------------------------------------------------------------------------------------

    cdef inline bint _used(self, int64_t y) noexcept:
        cdef int64_t v
        for v in range(self.n):
            if self.node_map[v] == y:
                return True
        return False

    def run(self) -> bool:
        """Search from every root candidate in ascending cost; ``False`` when the deadline cut it short.

        Plainly the root set in its ``(distance, id)`` order. When step 0 leads from a root set of at least
        ``root_lookahead_min`` to an unknown node that later steps' lookahead tables constrain (a conjunction or
        star), each root candidate ``a`` also pays ``min`` over its step-0 entries of relation distance + those
        tables at the neighbour (minus what ``rem`` counts for step 0), and candidates with no such entry are
        dropped: the same admissible bound, one step earlier (step 0 subtracts it again, ``root_sub``). That cost
        is computed lazily, in the root set's order, merged through a heap: a root's re-ranked cost is at least
        its distance, so a heap top below the next root's distance comes next in ``(cost, id)`` order, and roots
        whose distance already exceeds the k-th GSD are never scanned."""
        cdef SetC s = self.sets[self.root_set]
        cdef vector[int64_t*] tables
        cdef vector[KChild] heap
        cdef KChild top, child
        cdef int64_t j = 0, best, rem0 = self._rem0, step0 = self._rem0 - self.steps[0].rem_next
        cdef int rc
        cdef bint rerank
        self._node_costs()
        rerank = self._rerank_tables(tables)
        while True:
            if rerank:
                while j < s.size and (heap.empty() or -heap.front().cost >= s.fixed[j]):
                    if self.prune and s.fixed[j] + rem0 > self.kth_gsd:
                        j = s.size  # every later root costs at least this much
                        break
                    best = self._root_best(s.ids[j], tables)
                    if best < SENTINEL:  # a max-heap of negated (cost, id): the smallest first
                        child.cost, child.eid, child.target = -(s.fixed[j] + best - step0), -s.ids[j], best - step0
                        heap.push_back(child)
                        push_heap(heap.begin(), heap.end())
                    j += 1
                if heap.empty():
                    break
                pop_heap(heap.begin(), heap.end())
                top = heap.back()
                heap.pop_back()
                top.cost, top.eid = -top.cost, -top.eid
            elif j < s.size:
                top.cost, top.eid, top.target = s.fixed[j], s.ids[j], 0
                j += 1
            else:
                break
            if self.has_hook:
                self.hook({self.root: top.eid}, {}, top.cost + rem0)
            if self.prune and top.cost + rem0 > self.kth_gsd:
                break
            self.node_map[self.root] = top.eid
            self.root_sub = top.target
            rc = self._expand(0, top.cost)
            self.node_map[self.root] = -1
            if rc == 1:
                return False
        return True

    cdef bint _rerank_tables(self, vector[int64_t*]& tables) except -1:
        """Whether the root set is re-ranked (see :meth:`run`); fills ``tables`` with step 0's built tables."""
        cdef StepC* step = &self.steps[0]
        cdef int64_t t
        if step.closing or step.node_set >= 0 or self.sets[self.root_set].size < self.root_lookahead_min:
            return False
        for t in self.ahead[0]:
            if not self.tables[t].built:
                self._build_table(t)
            if self.tables[t].valid:
                tables.push_back(self.tables[t].dense)
        return tables.size() > 0

    cdef int64_t _root_best(self, int64_t a, vector[int64_t*]& tables) noexcept:
        """min over root ``a``'s step-0 entries of relation cost + the tables at the neighbour; SENTINEL if none."""
        cdef const int64_t* indptr = self.g.indptr
        cdef const int64_t* rel_cost = &self.relation_cost[0] if self.steps[0].relation_set >= 0 else NULL
        cdef const int32_t* nb32 = self.g.neighbors.narrow
        cdef const int64_t* nb64 = self.g.neighbors.wide
        cdef const int32_t* rl32 = self.g.relations.narrow
        cdef const int64_t* rl64 = self.g.relations.wide
        cdef int64_t p, c, ex, t, best = SENTINEL
        cdef bint ok
        for p in range(indptr[a], indptr[a + 1]):
            c = 0
            if rel_cost != NULL:
                c = rel_cost[_get(rl32, rl64, p)]
                if c >= SENTINEL:
                    continue
            ok = True
            for t in range(<int64_t>tables.size()):
                ex = tables[t][_get(nb32, nb64, p)]
                if ex >= SENTINEL:
                    ok = False
                    break
                c += ex
            if ok and c < best:
                best = c
        return best

    cdef int _expand(self, int64_t i, int64_t cost) except -1:
        """Try every child of the current partial map at step ``i``; 1 when the deadline passed."""
        cdef StepC* step = &self.steps[i]
        cdef TableC* table
        cdef const int64_t* indptr = self.g.indptr
        cdef const int32_t* nb32 = self.g.neighbors.narrow
        cdef const int64_t* nb64 = self.g.neighbors.wide
        cdef const int32_t* rl32 = self.g.relations.narrow
        cdef const int64_t* rl64 = self.g.relations.wide
        cdef const int32_t* ed32 = self.g.edge_ids.narrow
        cdef const int64_t* ed64 = self.g.edge_ids.wide
        cdef const int64_t* rel_cost = &self.relation_cost[i * self.g.n_relations] if step.relation_set >= 0 else NULL
        cdef const int64_t* node_cost = step.node_cost
        cdef const unsigned char* out = self.g.outgoing
        cdef int64_t want = step.want, flip = 0
        cdef vector[KChild]* kids = &self.kids[i]
        cdef vector[int64_t*]* ahead = &self.ahead_dense
        cdef KChild child
        cdef KChild* rows
        cdef int64_t limit, x, start, stop, other, look, p, n, c, d, e, y, j, q, t, count, bound, base
        cdef int64_t first_ahead
        cdef bint ok, closing = step.closing
        cdef int rc
        self.expansions += 1
        if self.has_deadline and _now() > self.deadline:
            return 1
        if i == 0:
            cost -= self.root_sub
        x = self.node_map[step.source]
        if step.payback >= 0 and self.tables[step.payback].valid:
            cost -= self.tables[step.payback].dense[x]
        first_ahead = ahead.size()
        for t in self.ahead[i]:
            if not self.tables[t].built:
                self._build_table(t)
            if self.tables[t].valid:
                ahead.push_back(self.tables[t].dense)
        limit = SENTINEL - 1
        if self.prune and not self.has_hook and self.kth_gsd - cost - step.rem_next < limit:
            limit = self.kth_gsd - cost - step.rem_next
        start, stop = indptr[x], indptr[x + 1]
        kids.clear()
        if closing:
            y = self.node_map[step.target]
            look = y
            if indptr[y + 1] - indptr[y] < stop - start:  # scan the smaller slice
                look, start, stop, flip = x, indptr[y], indptr[y + 1], 1
            for p in range(start, stop):
                # directed: an entry of x's slice must be outgoing when want is 1 (of y's: the reverse); a KG
                # self-loop (x == y) runs both ways
                if want >= 0 and x != y and (out[p] ^ flip) != want:
                    continue
                if _get(nb32, nb64, p) == look:
                    c = 0 if rel_cost == NULL else rel_cost[_get(rl32, rl64, p)]
                    if c <= limit:
                        child.cost, child.eid, child.target = c, _get(ed32, ed64, p), y
                        kids.push_back(child)
        elif step.payback >= 0 and self.tables[step.payback].valid and stop - start > self.reverse_min:
            # a step into a known node from a long slice: its children are the table's entries at x
            t = step.payback
            table = &self.tables[t]
            if not table.reversed:
                self._build_reverse(t)
            q = table.head[x]
            while q != SENTINEL:
                p = self.rev_entry[t][q]
                n = self.rev_owner[t][q]
                if want >= 0 and n != x and (out[p] ^ 1) != want:  # an entry of n's slice: x's view is reversed
                    q = self.rev_next[t][q]
                    continue
                c = node_cost[n] + (0 if rel_cost == NULL else rel_cost[_get(rl32, rl64, p)])
                ok = True
                for j in range(first_ahead, <int64_t>ahead.size()):
                    d = ahead[0][j][n]
                    if d >= SENTINEL:
                        ok = False
                        break
                    c += d
                if ok and c <= limit:
                    child.cost, child.eid, child.target = c, _get(ed32, ed64, p), n
                    kids.push_back(child)
                q = self.rev_next[t][q]
        else:
            for p in range(start, stop):
                c = 0
                if rel_cost != NULL:
                    c = rel_cost[_get(rl32, rl64, p)]
                    if c >= SENTINEL:
                        continue
                n = _get(nb32, nb64, p)
                if want >= 0 and n != x and out[p] != want:
                    continue
                if node_cost != NULL:
                    d = node_cost[n]
                    if d >= SENTINEL:
                        continue
                    c += d
                ok = True
                for j in range(first_ahead, <int64_t>ahead.size()):
                    d = ahead[0][j][n]
                    if d >= SENTINEL:
                        ok = False
                        break
                    c += d
                if ok and c <= limit:
                    child.cost, child.eid, child.target = c, _get(ed32, ed64, p), n
                    kids.push_back(child)
        ahead.resize(first_ahead)
        count = kids.size()
        rows = kids.data()
        if count > 1:
            std_sort(rows, rows + count)
        if self.has_hook:
            self._report_children(i, cost, rows, count)
        base = cost + step.rem_next
        for q in range(count):
            c, e, y = rows[q].cost, rows[q].eid, rows[q].target
            bound = base + c
            if self.prune and self.full:
                if bound > self.kth_gsd:
                    break
                if bound == self.kth_gsd and self._prefix_after_kth(i, e):
                    break
            if not self.triple_reuse:
                ok = True
                for j in range(i):
                    if self.eids[j] == e:  # a triple serves one pattern edge only
                        ok = False
                        break
                if not ok:
                    continue
            if not closing:
                if not self.reuse and self._used(y):
                    continue
                self.node_map[step.target] = y
            self.eids[i] = e
            if i == self.last:
                rc = self._offer(bound)
                if not closing:
                    self.node_map[step.target] = -1
                if rc == 2 and self.prune:
                    break
                continue
            rc = self._expand(i + 1, cost + c)
            if not closing:
                self.node_map[step.target] = -1
            if rc:
                return rc
        return 0

    cdef int _report_children(self, int64_t i, int64_t cost, KChild* rows, int64_t count) except -1:
        """Call the test hook with every valid child of the current partial map."""
        cdef StepC* step = &self.steps[i]
        cdef int64_t q, j, v
        cdef bint dup
        edge_map = {self.steps[j].edge: self.eids[j] for j in range(i)}
        for q in range(count):
            dup = False
            for j in range(i):
                dup = dup or (not self.triple_reuse and self.eids[j] == rows[q].eid)
            if dup or (not step.closing and not self.reuse and self._used(rows[q].target)):
                continue
            nodes = {v: self.node_map[v] for v in range(self.n) if self.node_map[v] >= 0}
            nodes[step.target] = rows[q].target
            self.hook(nodes, {**edge_map, step.edge: rows[q].eid}, cost + rows[q].cost + step.rem_next)
        return 0

    # -- results -------------------------------------------------------------------------------------------------

    cdef double _distance(self, int64_t set_index, int64_t kg_id) noexcept:
        cdef SetC s = self.sets[set_index]
        cdef int64_t j
        for j in range(s.size):
            if s.ids[j] == kg_id:
                return s.distances[j]
        return -1.0

    def matches(self) -> tuple:
        """The held subgraphs as :class:`Match` records, ascending by key."""
        cdef int64_t q, j, e, v, h, r, t, r_set
        cdef int64_t* key
        cdef Graph g = self.g
        cdef list out = []
        answer = self.pattern.answer
        for q in range(<int64_t>self.order.size()):
            key = &self.slots[self.order[q] * self.width]
            by_edge = [0] * self.m
            for j in range(self.m):
                by_edge[self.steps[j].edge] = key[1 + j]
            triples = []
            relation_distances = []
            for j in range(self.m):
                e = by_edge[j]
                h = _get(g.heads.narrow, g.heads.wide, e)
                r = _get(g.triple_relations.narrow, g.triple_relations.wide, e)
                t = _get(g.tails.narrow, g.tails.wide, e)
                triples.append((h, r, t))
                r_set = self.relation_set_of[j]
                relation_distances.append(None if r_set < 0 else self._distance(r_set, r))
            node_map = tuple([key[1 + self.m + v] for v in range(self.n)])
            node_distances = tuple(
                [None if self.node_set_of[v] < 0 else self._distance(self.node_set_of[v], node_map[v])
                 for v in range(self.n)]
            )
            out.append(
                Match(
                    key[0] / _SCALE,
                    node_map,
                    tuple(by_edge),
                    tuple(triples),
                    node_distances,
                    tuple(relation_distances),
                    None if answer is None else node_map[answer],
                )
            )
        return tuple(out)
