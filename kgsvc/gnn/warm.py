"""Fine-tuning after a change: start a new index version's model from the previous version's.

Node and relation ids are dense per index version, so the previous model's rows are carried over by RDF term:
:meth:`WarmStart.from_terms` maps every new node (relation) to its old id, or ``-1`` when it is new.
:func:`warm_start` then copies into a freshly built :class:`kgsvc.gnn.model.RGCNDistMult` the old free node
vectors of kept nodes, the old decoder rows (``w_r``, ``u_r``, both directions) and basis coefficients of kept
relations, and the shared weights (bases, root, feature projection). New nodes and relations keep their random
initialisation; the type constraint (``ranges``) is always the new graph's. Training then runs at most
``GNNConfig.finetune_epochs`` epochs, with the usual early stopping. The previous model's held-out triples stay
held out (:func:`kgsvc.gnn.split.split_held_out`): a random split of the new graph would validate — and calibrate —
the fine-tuned model on edges its starting point was trained on (measured on MetaQA-half: a validation MRR
several times too high; docs/benchmarks-history.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch

from kgsvc.gnn import artifacts
from kgsvc.gnn.model import GNNConfig, RGCNDistMult

__all__ = ["WarmStart", "warm_start"]

_SHAPE_KEYS = ("dim", "layers", "bases")


@dataclass(frozen=True)
class WarmStart:
    """The previous model folder, the id maps new → old (``-1``: not in the previous graph), and the previous
    model's held-out triples in new ids (``None`` when its folder has none), which stay held out."""

    model: Path
    nodes: npt.NDArray[np.int64]
    relations: npt.NDArray[np.int64]
    held_out: npt.NDArray[np.int64] | None = None

    @classmethod
    def from_maps(cls, model: Path, nodes: npt.NDArray[np.int64], relations: npt.NDArray[np.int64]) -> WarmStart:
        """With the previous model's held-out triples (``held_out.npy``) carried over to new ids; O(n + k)."""
        model = artifacts.resolve_output(Path(model))
        path = model / artifacts.HELD_OUT
        if not path.is_file():
            return cls(model, nodes, relations)
        held = np.load(path, allow_pickle=False)
        node_map = _inverse(nodes, int(held[:, [0, 2]].max(initial=-1)) + 1)
        relation_map = _inverse(relations, int(held[:, 1].max(initial=-1)) + 1)
        mapped = np.stack([node_map[held[:, 0]], relation_map[held[:, 1]], node_map[held[:, 2]], held[:, 3]], axis=1)
        return cls(model, nodes, relations, mapped[(mapped[:, :3] >= 0).all(axis=1)])

    @classmethod
    def from_terms(
        cls,
        model: Path,
        old_nodes: Sequence[str],
        new_nodes: Sequence[str],
        old_relations: Sequence[str],
        new_relations: Sequence[str],
    ) -> WarmStart:
        """Maps by term text (N-Triples), then :meth:`from_maps`. O(n + m + k)."""

        def index(old: Sequence[str], new: Sequence[str]) -> npt.NDArray[np.int64]:
            ids = {term: i for i, term in enumerate(old)}
            return np.array([ids.get(term, -1) for term in new], dtype=np.int64)

        return cls.from_maps(Path(model), index(old_nodes, new_nodes), index(old_relations, new_relations))

    @property
    def kept_share(self) -> float:
        """Share of the new nodes that the previous graph had."""
        return float((self.nodes >= 0).mean()) if self.nodes.size else 0.0


def _inverse(mapping: npt.NDArray[np.int64], size: int) -> npt.NDArray[np.int64]:
    """The old → new map of the new → old ``mapping``, over at least ``size`` old ids (``-1``: gone)."""
    inverse = np.full(max(size, int(mapping.max(initial=-1)) + 1), -1, dtype=np.int64)
    kept = mapping >= 0
    inverse[mapping[kept]] = np.flatnonzero(kept)
    return inverse


def warm_start(model: RGCNDistMult, warm: WarmStart, config: GNNConfig) -> int:
    """Copy the previous model's parameters into ``model`` (module docstring); returns the node rows copied.

    Raises
    ------
    ValueError
        When the previous model has another shape (``dim``, ``layers``, ``bases``) or the maps do not fit.
    """
    saved = torch.load(artifacts.resolve_output(warm.model) / artifacts.MODEL, map_location="cpu", weights_only=True)
    old_config = saved["config"]
    if any(old_config.get(key) != getattr(config, key) for key in _SHAPE_KEYS):
        raise ValueError(
            f"the previous GNN has {[old_config.get(k) for k in _SHAPE_KEYS]} as {_SHAPE_KEYS}, this one "
            f"{[getattr(config, k) for k in _SHAPE_KEYS]}: cannot start from it"
        )
    if warm.nodes.shape != (model.n_nodes,) or warm.relations.shape != (model.n_relations,):
        raise ValueError("the warm-start maps do not fit the model's nodes and relations")
    old = saved["model"]
    old_relations = old["relation"].shape[0] // 2
    state = model.state_dict()
    with torch.no_grad():
        kept = torch.as_tensor(np.flatnonzero(warm.nodes >= 0))
        state["node.weight"][kept] = old["node.weight"][torch.as_tensor(warm.nodes[warm.nodes >= 0])]
        new_rel = np.flatnonzero(warm.relations >= 0)
        both_new = torch.as_tensor(np.concatenate([new_rel, new_rel + model.n_relations]))
        old_rel = warm.relations[new_rel]
        both_old = torch.as_tensor(np.concatenate([old_rel, old_rel + old_relations]))
        for key in ("relation", "prior"):
            state[key][both_new] = old[key][both_old]
        for key, value in old.items():
            if key.endswith(".comp"):
                state[key][both_new] = value[both_old]
            elif key.startswith(("convs.", "project.")) and key in state and state[key].shape == value.shape:
                state[key].copy_(value)
    model.load_state_dict(state)
    return int(kept.numel())
