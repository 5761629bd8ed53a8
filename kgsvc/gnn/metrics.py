"""Filtered ranking metrics for link prediction (Bordes et al. 2013, "filtered" setting).

For a held-out triple ``(h, r, t)`` the tail query ``(h, r, ?)`` scores every node; every *other* known true tail
of ``(h, r)`` is removed from the candidates, and the rank of ``t`` is ``1 + #{c : s(c) > s(t)} + #{c ≠ t :
s(c) = s(t)} / 2`` (ties share the mean rank, so a constant scorer is not rewarded). The head query ``(?, r, t)``
is ranked the same way. MRR is the mean of ``1 / rank`` over both queries of every triple; Hits@k the share of
ranks ``≤ k``.

References
----------
.. [1] A. Bordes, N. Usunier, A. García-Durán, J. Weston, O. Yakhnenko. "Translating Embeddings for Modeling
   Multi-relational Data." NeurIPS 2013 (§4.2, filtered setting).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

__all__ = ["KnownTriples", "ScoreFn", "ranking_metrics"]

Triples = npt.NDArray[np.int64]
#: ``score(anchors, relations)`` → (batch × n_nodes) scores of every candidate for each query.
ScoreFn = Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], npt.NDArray[np.floating]]


class KnownTriples:
    """Lookup of known tails per ``(head, relation)`` and heads per ``(tail, relation)``, in sorted numpy arrays.

    Build: O(m log m); lookup: O(log m + answers).
    """

    def __init__(self, triples: Triples, n_relations: int) -> None:
        triples = np.asarray(triples, dtype=np.int64).reshape(-1, 3)
        self.n_relations = n_relations
        self._tail_keys, self._tails = self._index(triples[:, 0] * n_relations + triples[:, 1], triples[:, 2])
        self._head_keys, self._heads = self._index(triples[:, 2] * n_relations + triples[:, 1], triples[:, 0])

    @staticmethod
    def _index(keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], ...]:
        order = np.lexsort((values, keys))
        return keys[order], values[order]

    @staticmethod
    def _lookup(keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64], key: int) -> npt.NDArray[np.int64]:
        lo, hi = np.searchsorted(keys, [key, key + 1])
        return values[lo:hi]

    def tails(self, head: int, relation: int) -> npt.NDArray[np.int64]:
        """Known tails of ``(head, relation, ?)`` (sorted, duplicates kept)."""
        return self._lookup(self._tail_keys, self._tails, head * self.n_relations + relation)

    def heads(self, relation: int, tail: int) -> npt.NDArray[np.int64]:
        """Known heads of ``(?, relation, tail)`` (sorted, duplicates kept)."""
        return self._lookup(self._head_keys, self._heads, tail * self.n_relations + relation)


def _ranks(
    scores: npt.NDArray[np.floating], targets: npt.NDArray[np.int64], filters: list[npt.NDArray[np.int64]]
) -> npt.NDArray[np.float64]:
    scores = np.array(scores, dtype=np.float64)  # a copy: filtered entries are overwritten
    rows = np.arange(scores.shape[0])
    target_scores = scores[rows, targets].copy()
    for i, known in enumerate(filters):
        scores[i, known] = -np.inf
    scores[rows, targets] = -np.inf
    higher = (scores > target_scores[:, None]).sum(axis=1)
    ties = (scores == target_scores[:, None]).sum(axis=1)
    ranks: npt.NDArray[np.float64] = 1.0 + higher + ties / 2.0
    return ranks


def ranking_metrics(
    score_tails: ScoreFn,
    score_heads: ScoreFn,
    triples: Triples,
    known: KnownTriples,
    *,
    batch_size: int = 256,
) -> dict[str, float]:
    """Filtered MRR and Hits@{1,3,10} of ``triples`` under the two scoring functions.

    Parameters
    ----------
    score_tails, score_heads : ScoreFn
        ``score_tails(heads, relations)`` and ``score_heads(tails, relations)`` return (batch × n_nodes) scores.
    triples : (m × 3) int array
        The held-out ``(head, relation, tail)`` rows to rank.
    known : KnownTriples
        Every true triple to filter out (train + valid + test).
    batch_size : int
        Queries scored per call.

    Returns
    -------
    dict
        ``mrr``, ``hits@1``, ``hits@3``, ``hits@10`` and ``queries`` (= 2 m).

    Raises
    ------
    ValueError
        When ``triples`` is empty.

    Notes
    -----
    O(m · n) time and O(batch_size · n) memory for n nodes.
    """
    triples = np.asarray(triples, dtype=np.int64).reshape(-1, 3)
    if triples.shape[0] == 0:
        raise ValueError("ranking_metrics needs at least one held-out triple, got none")
    ranks = []
    for start in range(0, triples.shape[0], batch_size):
        h, r, t = triples[start : start + batch_size].T
        ranks.append(_ranks(score_tails(h, r), t, [known.tails(int(a), int(b)) for a, b in zip(h, r, strict=True)]))
        ranks.append(_ranks(score_heads(t, r), h, [known.heads(int(b), int(a)) for a, b in zip(t, r, strict=True)]))
    rank = np.concatenate(ranks)
    return {
        "mrr": float(np.mean(1.0 / rank)),
        "hits@1": float(np.mean(rank <= 1)),
        "hits@3": float(np.mean(rank <= 3)),
        "hits@10": float(np.mean(rank <= 10)),
        "queries": int(rank.shape[0]),
    }
