"""Seeded train / validation / test split of a graph snapshot's triples for link prediction.

Held-out triples are drawn uniformly at random (``numpy.random.default_rng(seed)``), then every held-out triple
whose head, tail or relation no longer occurs in the training triples is moved back to training: a transductive
model has no embedding for a node it never saw, so such a triple could not be ranked fairly (the usual FB15k-237
protocol, Toutanova & Chen 2015). One pass suffices: moving triples back only adds coverage.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kgsvc.index.snapshot import GraphSnapshot

__all__ = ["EdgeSplit", "split_edges", "split_held_out"]

Triples = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class EdgeSplit:
    """Triples as (m × 3) int64 arrays of ``(head, relation, tail)`` rows; ``train`` is the message-passing graph."""

    train: Triples
    valid: Triples
    test: Triples

    @property
    def all(self) -> Triples:
        """Every triple of the snapshot (train, then valid, then test)."""
        return np.concatenate([self.train, self.valid, self.test])


def _triples(snapshot: GraphSnapshot) -> Triples:
    """The snapshot's stored triples as an (m × 3) int64 array."""
    heads, relations, tails = snapshot.triple_heads, snapshot.triple_relations, snapshot.triple_tails
    return np.stack([np.asarray(heads), np.asarray(relations), np.asarray(tails)], axis=1).astype(np.int64)


def _covered(snapshot: GraphSnapshot, triples: Triples, train_mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Whether each triple's head, tail and relation occur in the training triples (``triples[train_mask]``)."""
    train = triples[train_mask]
    seen_nodes = np.zeros(snapshot.n_nodes, dtype=bool)
    seen_nodes[train[:, 0]] = True
    seen_nodes[train[:, 2]] = True
    seen_relations = np.zeros(snapshot.n_relations, dtype=bool)
    seen_relations[train[:, 1]] = True
    covered: npt.NDArray[np.bool_] = (
        seen_nodes[triples[:, 0]] & seen_nodes[triples[:, 2]] & seen_relations[triples[:, 1]]
    )
    return covered


def split_edges(snapshot: GraphSnapshot, *, valid_fraction: float, test_fraction: float, seed: int) -> EdgeSplit:
    """Split ``snapshot``'s stored triples into train / valid / test, reproducibly for a given ``seed``.

    Parameters
    ----------
    snapshot : GraphSnapshot
        The graph; its ``triple_heads/relations/tails`` are split (duplicates stay duplicates).
    valid_fraction, test_fraction : float
        Target shares of held-out triples (before moving uncovered ones back to training).
    seed : int
        Seed of the permutation.

    Returns
    -------
    EdgeSplit

    Raises
    ------
    ValueError
        When the fractions are out of range or the snapshot has fewer than 10 triples.

    Notes
    -----
    O(m log m) time (one permutation, ``np.isin`` coverage checks), O(m) memory.
    """
    if not (0.0 < valid_fraction and 0.0 <= test_fraction and valid_fraction + test_fraction < 0.5):
        raise ValueError(f"need 0< valid_fraction, 0<=test_fraction, sum<0.5; got {valid_fraction}, {test_fraction}")
    m = snapshot.n_edges
    if m < 10:
        raise ValueError(f"link prediction needs at least 10 triples, the snapshot has {m}")
    triples = _triples(snapshot)
    order = np.random.default_rng(seed).permutation(m)
    n_valid = max(1, int(round(valid_fraction * m)))
    n_test = int(round(test_fraction * m))
    held = order[: n_valid + n_test]
    train_mask = np.ones(m, dtype=bool)
    train_mask[held] = False
    train_mask[held[~_covered(snapshot, triples, train_mask)[held]]] = True
    valid_ids, test_ids = held[:n_valid], held[n_valid:]
    return EdgeSplit(
        train=triples[train_mask],
        valid=triples[valid_ids[~train_mask[valid_ids]]],
        test=triples[test_ids[~train_mask[test_ids]]],
    )


def split_held_out(snapshot: GraphSnapshot, held_out: Triples) -> EdgeSplit:
    """Split ``snapshot``'s triples with a given held-out set: ``held_out`` rows ``(head, relation, tail, flag)``
    (flag 0 = valid, 1 = test) that are stored triples of the snapshot are held out, every other triple trains.

    What a fine-tuned model needs (:mod:`kgsvc.gnn.warm`): the previous model's held-out edges, so that neither
    model has trained on the edges it is validated and calibrated on. Held-out triples whose node or relation no
    training triple has go back to training, as in :func:`split_edges`. O((m + k) log m) time.
    """
    triples = _triples(snapshot)
    r, n = snapshot.n_relations, snapshot.n_nodes
    keys = (triples[:, 0] * r + triples[:, 1]) * n + triples[:, 2]
    held = np.asarray(held_out, dtype=np.int64).reshape(-1, 4)
    held_keys = (held[:, 0] * r + held[:, 1]) * n + held[:, 2]
    flag = np.full(len(triples), -1, dtype=np.int64)
    order = np.argsort(held_keys, kind="stable")
    position = np.searchsorted(held_keys[order], keys)
    found = position < len(held_keys)
    found[found] = held_keys[order][position[found]] == keys[found]
    flag[found] = held[order[position[found]], 3]
    train_mask = flag < 0
    train_mask |= ~_covered(snapshot, triples, train_mask)
    return EdgeSplit(
        train=triples[train_mask],
        valid=triples[~train_mask & (flag == 0)],
        test=triples[~train_mask & (flag == 1)],
    )
