"""Score triples and propose missing edges from a trained model folder (numpy only; no torch at query time).

Entry point: :class:`LinkPredictor`, opened on the folder written by :func:`kgsvc.gnn.train.train_gnn`.

* :meth:`LinkPredictor.score` — logits ``f(h, r, t) = Σ_k (z_h[k] · w_r[k] + u_r[k]) · z_t[k]`` (DistMult,
  R-GCN eq. 6, with the relation prior ``u_r`` of :mod:`kgsvc.gnn.model`) of given triples, with their
  calibrated probabilities (``-inf`` / 0 for a node outside the relation's type-constrained candidates);
* :meth:`LinkPredictor.top_tails` / :meth:`LinkPredictor.top_heads` — the best candidates for ``(h, r, ?)`` /
  ``(?, r, t)`` that are **not** stored triples of the graph, with calibrated probability ``≥ threshold``; a head
  query is the tail query ``(t, r + R, ?)`` of the inverse relation. When the model folder has name rules
  (:mod:`kgsvc.gnn.rules`), a candidate's probability is the larger of the model's and the rules';
* :meth:`LinkPredictor.similar` — the nodes nearest to a node by its GNN embedding (cosine), from the model's
  Qdrant collection (:func:`kgsvc.gnn.artifacts.write_node_vectors`).

The probability is Platt-scaled on held-out edges (:mod:`kgsvc.gnn.calibration`) from the logit's log-softmax over
the query's non-stored candidates: it estimates the precision of such a proposal, counting only held-out edges
as true. The default threshold is the one chosen on held-out queries at training time
(:func:`kgsvc.gnn.calibration.choose_threshold`); 0.5 keeps proposals estimated more likely right than wrong.
This is what the matcher's
inferred edges read (issue 7): ``Prediction.probability`` is the calibrated score, for a GSD penalty there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kgsvc.errors import IndexError_
from kgsvc.gnn import artifacts
from kgsvc.gnn.calibration import Calibration, logsumexp
from kgsvc.gnn.rules import NameRules
from kgsvc.index.exact import exact_search, searched_exactly, unit_rows
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.index.vectors import GNN_NODES, GNN_VECTOR, EdgeVectorIndex

__all__ = ["ROLE_LIFT", "LinkPredictor", "Prediction"]

#: How much more often than nodes at large a role's nodes must anchor a relation (:meth:`LinkPredictor.can_anchor`).
ROLE_LIFT = 1.5


@dataclass(frozen=True)
class Prediction:
    """One proposed edge ``(head, relation, tail)`` with its raw logit and calibrated probability."""

    head: int
    relation: int
    tail: int
    logit: float
    probability: float


class LinkPredictor:
    """Trained embeddings plus calibration, and the snapshot whose stored triples are never proposed.

    Parameters
    ----------
    node_embeddings : (n_nodes × d) array
    relation_embeddings, relation_priors : (2 · n_relations × d) arrays
        ``w_r`` and ``u_r``; rows ``n_relations + r`` are the inverse relations (head queries).
    relation_ranges : (2 · n_relations × n_nodes) bool array
        The candidate answers of each relation (:func:`kgsvc.gnn.model.answer_ranges`); others are never proposed.
    calibration : Calibration
    snapshot : GraphSnapshot
        The graph the model was trained on (its stored triples are excluded from proposals).
    vectors : EdgeVectorIndex, optional
        The Qdrant index holding the node embeddings (:meth:`load` opens the model folder's); needed by
        :meth:`similar` only when the collection is too large to scan exactly.
    rules : NameRules, optional
        Name rules learned with the model (:mod:`kgsvc.gnn.rules`); a candidate they reach gets the larger of its
        GNN probability and theirs.
    """

    def __init__(
        self,
        node_embeddings: npt.NDArray[np.floating],
        relation_embeddings: npt.NDArray[np.floating],
        relation_priors: npt.NDArray[np.floating],
        relation_ranges: npt.NDArray[np.bool_],
        calibration: Calibration,
        snapshot: GraphSnapshot,
        vectors: EdgeVectorIndex | None = None,
        rules: NameRules | None = None,
    ) -> None:
        if node_embeddings.ndim != 2 or relation_embeddings.ndim != 2:
            raise ValueError("embeddings must be 2-D arrays")
        if relation_priors.shape != relation_embeddings.shape:
            raise ValueError(
                f"relation priors {relation_priors.shape} differ from relations {relation_embeddings.shape}"
            )
        if relation_ranges.shape != (relation_embeddings.shape[0], node_embeddings.shape[0]):
            raise ValueError(f"relation ranges {relation_ranges.shape} do not fit the embeddings")
        if node_embeddings.shape[1] != relation_embeddings.shape[1]:
            raise ValueError(
                f"node and relation embeddings differ in width: {node_embeddings.shape[1]} vs "
                f"{relation_embeddings.shape[1]}"
            )
        if node_embeddings.shape[0] != snapshot.n_nodes or relation_embeddings.shape[0] != 2 * snapshot.n_relations:
            raise ValueError(
                f"embeddings cover {node_embeddings.shape[0]} nodes / {relation_embeddings.shape[0]} relations and "
                f"inverses, the snapshot has {snapshot.n_nodes} / 2 × {snapshot.n_relations}"
            )
        self.z = np.asarray(node_embeddings, dtype=np.float32)
        self.w = np.asarray(relation_embeddings, dtype=np.float32)
        self.u = np.asarray(relation_priors, dtype=np.float32)
        self.ranges = np.asarray(relation_ranges, dtype=bool)
        self.calibration = calibration
        self.snapshot = snapshot
        self.vectors = vectors
        self.rules = rules
        self._unit: npt.NDArray[np.float32] | None = None
        self._lift: npt.NDArray[np.float32] | None = None  # 2R × 2R, see can_anchor

    @classmethod
    def load(cls, folder: Path, snapshot: GraphSnapshot) -> LinkPredictor:
        """Open a model folder written by :func:`kgsvc.gnn.train.train_gnn` for ``snapshot``.

        Raises
        ------
        IndexError_
            When the folder is missing, incomplete, has no calibration, or does not fit the snapshot.
        """
        try:
            folder = artifacts.resolve_output(Path(folder))
            metrics = artifacts.read_metrics(folder)
            z = np.load(folder / artifacts.NODE_EMBEDDINGS, mmap_mode="r", allow_pickle=False)
            w = np.load(folder / artifacts.RELATION_EMBEDDINGS, allow_pickle=False)
            u = np.load(folder / artifacts.RELATION_PRIORS, allow_pickle=False)
            ranges = np.load(folder / artifacts.RELATION_RANGES, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise IndexError_(f"GNN model folder {folder} cannot be read: {exc}") from exc
        if metrics.get("calibration") is None:
            raise IndexError_(f"GNN model folder {folder} has no calibration (too few held-out edges to fit it)")
        try:
            vectors = folder / artifacts.NODE_VECTORS
            index = EdgeVectorIndex(vectors) if vectors.is_dir() else None
            rules = NameRules.load(folder, snapshot)
            return cls(z, w, u, ranges, Calibration(**metrics["calibration"]), snapshot, index, rules)
        except ValueError as exc:
            raise IndexError_(f"GNN model folder {folder} does not fit the snapshot: {exc}") from exc

    def _check(self, name: str, ids: npt.NDArray[np.int64], limit: int) -> None:
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= limit):
            raise ValueError(f"{name} must lie in [0, {limit}), got values in [{int(ids.min())}, {int(ids.max())}]")

    def score(
        self, heads: npt.ArrayLike, relations: npt.ArrayLike, tails: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64]]:
        """Logits and calibrated probabilities of the triples ``(heads[i], relations[i], tails[i])``.

        The probability is that of ``t`` as a proposal for the tail query ``(h, r, ?)`` (its log-softmax over the
        non-stored tails, calibrated); O(n · d) per triple.

        Raises
        ------
        ValueError
            When an id is out of range or the arrays differ in shape.
        """
        h, r, t = (np.asarray(a, dtype=np.int64) for a in (heads, relations, tails))
        if not h.shape == r.shape == t.shape:
            raise ValueError(f"heads, relations, tails must have one shape, got {h.shape}, {r.shape}, {t.shape}")
        self._check("heads", h, self.snapshot.n_nodes)
        self._check("tails", t, self.snapshot.n_nodes)
        self._check("relations", r, self.snapshot.n_relations)
        logits = np.where(self.ranges[r, t], ((self.z[h] * self.w[r] + self.u[r]) * self.z[t]).sum(axis=-1), -np.inf)
        normalised = np.empty(logits.shape, dtype=np.float64)
        for i, (head, relation) in enumerate(zip(h.ravel(), r.ravel(), strict=True)):
            row = self._logits(int(head), int(relation))
            row[self.snapshot.neighbors_via(int(head), int(relation), outgoing=True)] = -np.inf
            normalised.flat[i] = logits.flat[i] - logsumexp(row)
        return logits, self.calibration.probability(normalised)

    def _logits(self, anchor: int, query: int) -> npt.NDArray[np.float32]:
        """Logits of every node as the answer of ``(anchor, query, ?)`` (query ≥ R: inverse), ``-inf`` off range."""
        logits: npt.NDArray[np.float32] = self.z @ (self.z[anchor] * self.w[query] + self.u[query])
        logits[~self.ranges[query]] = -np.inf
        return logits

    def can_anchor(self, node: int, query: int) -> bool:
        """Whether ``node`` may be the anchor of ``(node, query, ?)`` (query ≥ R: inverse) for the model's proposals:
        it plays a role ``ρ`` in the training graph (is an answer of some query relation ``ρ``) whose nodes anchor
        ``query`` at least ``ROLE_LIFT`` times as often as nodes at large do — its own anchor role included. A film
        that lost its only genre is still a film (films anchor ``has genre`` far above the base rate, even with
        half the facts missing); a node with no stored edge plays no role, so it gets no model proposal: the
        relation priors would otherwise give a person an IMDb rating (docs/benchmarks.md, 2026-11-24 night).
        """
        if self._lift is None:  # per role ρ, over its nodes only: no float copy of the (2R × n) ranges
            sizes = np.maximum(self.ranges.sum(axis=1), 1).astype(np.float32)
            both = np.stack([self.ranges[:, row].sum(axis=1) for row in self.ranges]).astype(np.float32)
            share = both / sizes[:, None]  # share of role ρ's nodes that play role σ
            self._lift = share / (sizes / self.ranges.shape[1])[None, :]
        inverse = (query + self.snapshot.n_relations) % (2 * self.snapshot.n_relations)
        played = self.ranges[:, node]
        return bool(played.any() and self._lift[played, inverse].max() >= ROLE_LIFT)

    def _top(self, anchor: int, relation: int, k: int, threshold: float | None, *, tails: bool) -> list[Prediction]:
        self._check("node", np.array([anchor]), self.snapshot.n_nodes)
        self._check("relation", np.array([relation]), self.snapshot.n_relations)
        threshold = self.calibration.threshold if threshold is None else threshold
        if k < 1 or not 0.0 <= threshold < 1.0:
            raise ValueError(f"need k >= 1 and 0 <= threshold < 1, got k={k}, threshold={threshold}")
        query = relation if tails else relation + self.snapshot.n_relations
        logits = self._logits(anchor, query)
        logits[self.snapshot.neighbors_via(anchor, relation, outgoing=tails)] = -np.inf
        if self.can_anchor(anchor, query):
            probabilities = self.calibration.probability(logits - logsumexp(logits))
        else:  # the model's proposals need an anchor of the relation's domain; the rules' carry their own evidence
            probabilities = np.zeros(logits.shape[0])
        if self.rules is not None:
            for c, p in self.rules.propose(anchor, query).items():
                if np.isfinite(logits[c]) and p > probabilities[c]:  # in the relation's range, not stored
                    probabilities[c] = p
        k = min(k, logits.shape[0])
        top = np.argpartition(-probabilities, k - 1)[:k]
        top = top[np.lexsort((top, -logits[top], -probabilities[top]))]  # by probability, logit, node id
        return [
            Prediction(anchor if tails else int(c), relation, int(c) if tails else anchor, float(s), float(p))
            for c, s, p in zip(top, logits[top], probabilities[top], strict=True)
            if np.isfinite(s) and p >= threshold and p > 0.0
        ]

    def top_tails(self, head: int, relation: int, *, k: int = 10, threshold: float | None = None) -> list[Prediction]:
        """The ≤ ``k`` best tails ``t`` with ``(head, relation, t)`` not stored and probability ≥ ``threshold``
        (default: the calibrated proposal threshold, ``calibration.threshold``).

        Sorted by probability descending, then logit, then node id. O(n · d) time for n nodes, plus the rules'
        O(degree · namesakes).

        Raises
        ------
        ValueError
            When an id is out of range, ``k < 1`` or ``threshold`` is outside [0, 1).
        """
        return self._top(head, relation, k, threshold, tails=True)

    def top_heads(self, relation: int, tail: int, *, k: int = 10, threshold: float | None = None) -> list[Prediction]:
        """The ≤ ``k`` best heads ``h`` with ``(h, relation, tail)`` not stored and probability ≥ ``threshold``.

        Same contract as :meth:`top_tails`.
        """
        return self._top(tail, relation, k, threshold, tails=False)

    def similar(self, node: int, *, k: int = 10) -> list[tuple[int, float]]:
        """The ``k`` nodes nearest to ``node`` by GNN embedding, ``node`` itself left out: ``(node id, distance)``
        nearest first, ties by id, where distance is the L2 between unit vectors (``sqrt(2 − 2 cos)``).

        Searched in the model's Qdrant collection :data:`~kgsvc.index.vectors.GNN_NODES`; a collection small
        enough to scan (:func:`kgsvc.index.exact.searched_exactly`, as for label vectors) is scanned exactly with
        numpy instead: O(n · d).

        Raises
        ------
        ValueError
            When ``node`` is out of range or ``k < 1``.
        IndexError_
            When the collection must be searched in Qdrant and the model folder has none (trained before the
            node vectors were stored: retrain).
        """
        self._check("node", np.array([node]), self.snapshot.n_nodes)
        if k < 1:
            raise ValueError(f"need k >= 1, got {k}")
        if self._unit is None:
            self._unit = unit_rows(self.z)
        query, wanted = self._unit[node : node + 1], min(k + 1, self.z.shape[0])
        if searched_exactly(self.z.shape[0], self.z.shape[1], wanted):
            hits = exact_search(self._unit, query, wanted)[0]
        elif self.vectors is None:
            raise IndexError_("this GNN model has no node vectors in Qdrant; train it again to search by similarity")
        else:
            hits = self.vectors.search(GNN_NODES, query, wanted, vector=GNN_VECTOR)[0]
        return [(n, d) for n, d in hits if n != node][:k]

    def close(self) -> None:
        """Close the Qdrant index (the numpy arrays need no closing)."""
        if self.vectors is not None:
            self.vectors.close()
