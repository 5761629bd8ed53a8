"""Name rules: missing edges read off namesakes, with confidences counted on the training graph.

Knowledge graphs built from strings often hold one name as several nodes: MetaQA's tag ``"vincente minnelli"`` and
the director ``Vincente Minnelli``, a writer who is also the director. A fact missing from one node is then often
stated about its namesake. :class:`NameRules` learns, for every query relation ``r`` and body relation ``b`` (both
in ``[0, 2R)``, ``≥ R`` the inverse direction, as in :mod:`kgsvc.gnn.model`), how often

    r(a, c)  ⇐  a ≈ a′  ∧  b(a′, j)  ∧  j ≈ c

holds in the training graph, where ``x ≈ y`` means that the nodes' labels are equal after case folding (a node is
its own namesake). The rule's **confidence** is its standard confidence in the sense of rule miners (AMIE, Galárraga
et al. 2013, §4.1): among the body's instances ``(a, c)`` with ``c`` a known answer type of ``r`` (the type
constraint of :func:`kgsvc.gnn.model.answer_ranges`), the share where ``r(a, c)`` is stored. The instance that is
the fact itself (``a = a′``, ``c = j``, ``r = b``) is not counted, nor ``c = a`` (a node is never proposed as its
own neighbour). Rules with fewer than ``min_support`` body
instances get confidence 0.

A query ``(a, r, ?)`` then proposes every candidate ``c`` some rule reaches, with probability the noisy-or of the
confidences of the rule instances that reach it: ``1 − Π (1 − conf(r, b))`` (Galárraga §5.1 uses the same
combination for predictions). On MetaQA-half the rules fire for few queries but are right more often than the
R-GCN's proposals (docs/benchmarks-history.md); :class:`kgsvc.gnn.predict.LinkPredictor`
takes, per candidate, the larger of the two probabilities.

References
----------
.. [1] L. Galárraga, C. Teflioudi, K. Hose, F. Suchanek. "AMIE: Association Rule Mining under Incomplete Evidence
   in Ontological Knowledge Bases." WWW 2013. https://doi.org/10.1145/2488388.2488425
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kgsvc.index.snapshot import GraphSnapshot

__all__ = ["MAX_GROUP", "NAME_GROUPS", "NAME_RULES", "NameRules", "name_groups"]

NAME_GROUPS = "name_groups.npy"
NAME_RULES = "name_rules.npy"
#: Labels shared by more nodes than this are not read as names of one thing (:func:`name_groups`).
MAX_GROUP = 32


def name_groups(labels: Sequence[str], *, max_group: int = MAX_GROUP) -> npt.NDArray[np.int64]:
    """Group id per node: equal ids for labels equal after ``str.casefold`` and trimming. An empty label, or one
    shared by more than ``max_group`` nodes (a generic name says nothing, and would multiply the rule instances by
    the group size squared), leaves its nodes in groups of their own. O(n log n).

    >>> name_groups(["Kismet", "kismet ", "Paprika", "", ""]).tolist()
    [0, 0, 1, 2, 3]
    >>> name_groups(["x", "X", "x"], max_group=2).tolist()
    [0, 1, 2]
    """
    folded = np.array([label.strip().casefold() for label in labels], dtype=object)
    _, groups, counts = np.unique(folded, return_inverse=True, return_counts=True)
    groups = groups.astype(np.int64).reshape(-1)
    alone = (folded == "") | (counts[groups] > max_group)
    groups[alone] = groups.max(initial=-1) + 1 + np.arange(int(alone.sum()))
    _, dense = np.unique(groups, return_inverse=True)  # ids 0 .. groups - 1
    return dense.astype(np.int64).reshape(-1)


class NameRules:
    """Rule confidences ``conf`` (2R × 2R: query relation × body relation) over the name groups of a snapshot.

    Build with :meth:`learn`; :meth:`save` / :meth:`load` keep them in a model folder (:data:`NAME_GROUPS`,
    :data:`NAME_RULES`).
    """

    def __init__(self, snapshot: GraphSnapshot, groups: npt.NDArray[np.int64], confidence: npt.NDArray[np.float64]):
        r2 = 2 * snapshot.n_relations
        if groups.shape != (snapshot.n_nodes,) or confidence.shape != (r2, r2):
            raise ValueError(
                f"name rules do not fit the snapshot: groups {groups.shape}, confidences {confidence.shape} for "
                f"{snapshot.n_nodes} nodes and 2 × {snapshot.n_relations} relations"
            )
        self.snapshot, self.groups, self.confidence = snapshot, groups, confidence
        order = np.argsort(groups, kind="stable")
        self._members = order
        self._starts = np.searchsorted(groups[order], np.arange(int(groups.max(initial=-1)) + 2))

    def namesakes(self, node: int) -> npt.NDArray[np.int64]:
        """The nodes whose label folds to ``node``'s (``node`` included), ascending."""
        group = int(self.groups[node])
        members: npt.NDArray[np.int64] = self._members[self._starts[group] : self._starts[group + 1]]
        return members

    @classmethod
    def learn(
        cls,
        snapshot: GraphSnapshot,
        labels: Sequence[str],
        triples: npt.NDArray[np.int64],
        ranges: npt.NDArray[np.bool_],
        *,
        min_support: int = 20,
    ) -> NameRules:
        """Count the rules' confidences on ``triples`` (m × 3, the training graph) for the nodes of ``snapshot``.

        ``labels`` are the node labels (snapshot ids), ``ranges`` the type constraint (2R × n). Time
        O(I · 2R · log m) for the I body instances (each edge times the sizes of its two name groups).
        """
        n, r = snapshot.n_nodes, snapshot.n_relations
        if len(labels) != n:
            raise ValueError(f"need one label per node: {len(labels)} labels for {n} nodes")
        rules = cls(snapshot, name_groups(labels), np.zeros((2 * r, 2 * r)))
        h, rel, t = (np.asarray(triples[:, i], dtype=np.int64) for i in range(3))
        src, body, dst = np.concatenate([h, t]), np.concatenate([rel, rel + r]), np.concatenate([t, h])
        anchors, bodies, answers, origin = rules._expand(src, body, dst)
        stored = np.unique((src * (2 * r) + body) * n + dst)  # every stored fact, both directions
        confidence = np.zeros((2 * r, 2 * r))
        for query in range(2 * r):
            typed = ranges[query, answers] & ~((bodies == query) & origin) & (anchors != answers)
            keys = (anchors[typed] * (2 * r) + query) * n + answers[typed]
            hit = np.isin(keys, stored, assume_unique=False)
            total = np.bincount(bodies[typed], minlength=2 * r)
            right = np.bincount(bodies[typed][hit], minlength=2 * r)
            confidence[query] = np.where(total >= min_support, right / np.maximum(total, 1), 0.0)
        rules.confidence = confidence
        return rules

    def _expand(
        self, src: npt.NDArray[np.int64], body: npt.NDArray[np.int64], dst: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """Every body instance ``(a, b, c)`` of the edges ``b(src, dst)``: ``a ≈ src``, ``c ≈ dst``; the last array
        marks the instance that is the edge itself."""
        sizes = np.diff(self._starts)
        left, right = sizes[self.groups[src]], sizes[self.groups[dst]]
        per_edge = left * right
        edge = np.repeat(np.arange(src.shape[0]), per_edge)
        offset = np.arange(edge.shape[0]) - np.repeat(np.cumsum(per_edge) - per_edge, per_edge)
        i, j = offset // right[edge], offset % right[edge]
        anchors = self._members[self._starts[self.groups[src[edge]]] + i]
        answers = self._members[self._starts[self.groups[dst[edge]]] + j]
        return anchors, body[edge], answers, (anchors == src[edge]) & (answers == dst[edge])

    def propose(self, anchor: int, query: int) -> dict[int, float]:
        """Candidates ``c`` for ``(anchor, query, ?)`` (query ≥ R: inverse) with their noisy-or probability; stored
        answers and ``anchor`` itself are left out, the type constraint is the caller's. O(Σ over the anchor's
        namesakes of degree × group size)."""
        s, r = self.snapshot, self.snapshot.n_relations
        rates = self.confidence[query]
        miss: dict[int, float] = {}  # Π (1 − conf) per candidate
        for a in self.namesakes(anchor).tolist():
            start, stop = int(s.indptr[a]), int(s.indptr[a + 1])
            bodies = np.asarray(s.relations[start:stop], dtype=np.int64) + r * ~np.asarray(s.outgoing[start:stop])
            useful = rates[bodies] > 0
            for b, j in zip(bodies[useful].tolist(), np.asarray(s.neighbors[start:stop])[useful].tolist(), strict=True):
                for c in self.namesakes(int(j)).tolist():
                    if not (b == query and a == anchor and c == j):  # not the stored fact itself
                        miss[c] = miss.get(c, 1.0) * (1.0 - float(rates[b]))
        if not miss:
            return {}
        stored = set(s.neighbors_via(anchor, query % r, outgoing=query < r).tolist()) | {anchor}
        return {c: 1.0 - m for c, m in miss.items() if c not in stored}

    def save(self, folder: Path) -> None:
        """Write :data:`NAME_GROUPS` and :data:`NAME_RULES` into ``folder``."""
        np.save(Path(folder) / NAME_GROUPS, self.groups, allow_pickle=False)
        np.save(Path(folder) / NAME_RULES, self.confidence, allow_pickle=False)

    @classmethod
    def load(cls, folder: Path, snapshot: GraphSnapshot) -> NameRules | None:
        """The rules saved in ``folder``, or ``None`` when it has none (a model trained without labels)."""
        if not (Path(folder) / NAME_RULES).is_file():
            return None
        groups = np.load(Path(folder) / NAME_GROUPS, allow_pickle=False)
        return cls(snapshot, groups, np.load(Path(folder) / NAME_RULES, allow_pickle=False))
