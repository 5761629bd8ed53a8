"""R-GCN encoder with a DistMult decoder for link prediction (Schlichtkrull et al. 2018, Yang et al. 2015).

What is computed
----------------
Node ``i`` starts from ``h_i^0 = e_i + P f_i``: a learned vector ``e_i`` plus, when the graph has node features
``f_i`` (the MiniLM label embeddings of the index), their learned projection ``P`` — so even a node with no
stored triple starts from a meaningful input. Each layer ``l`` is the R-GCN update with basis decomposition
(Schlichtkrull et al., eq. 2 and eq. 3):

    h_i^{l+1} = σ( W_0^l h_i^l + Σ_r Σ_{j ∈ N_i^r} (1 / |N_i^r|) W_r^l h_j^l ),   W_r^l = Σ_b a_{rb}^l V_b^l

computed by :class:`BasisRGCNConv`, a torch-geometric ``MessagePassing`` layer with the same math as
:class:`torch_geometric.nn.RGCNConv` (``aggr="mean"``, ``root_weight``): that class aggregates one relation at a
time (2R scatters per layer; forward + backward 1.5–1.8 s versus 1.1 s for one 64-wide layer on MetaQA-half,
one CPU thread), whereas this layer projects every node once
per basis (``x V_b``), mixes the bases per edge with ``a_{r_e b}`` and sums messages scaled by ``1 / |N_i^r|`` in
one scatter. Message passing runs over every stored triple in both
directions: triple ``(h, r, t)`` sends ``h → t`` with relation ``r`` and ``t → h`` with relation ``r + R``
(the inverse relations of the paper's §2.1), so the encoder sees ``2R`` relation types.

The decoder is DistMult (Yang et al., eq. 3; R-GCN eq. 6) over the same ``2R`` relations, with a
relation-specific prior over the answer: a query ``(a, r, ?)`` scores candidate ``c`` by

    f(a, r, c) = Σ_k (z_a[k] · w_r[k] + u_r[k]) · z_c[k]

where ``w_r`` is the DistMult diagonal and ``u_r`` a learned vector whose product with ``z_c`` is the prior of
``c`` as an answer of ``r`` whatever the anchor (e.g. "English" for ``in_language``). A tail query ``(h, r, ?)``
uses relation ``r``; a head query ``(?, r, t)`` is the tail query ``(t, r + R, ?)`` of the inverse relation, as
in ConvE/CompGCN training (Dettmers et al. 2018 §4; Vashishth et al. 2020). The query vector ``z_a ⊙ w_r + u_r``
is scored against every candidate at once (1-N scoring) — see :mod:`kgsvc.gnn.train`. Candidates are
**type-constrained** (Krompaß et al. 2015): the answers of relation ``r`` (of ``r + R``) are the nodes that are a
tail (a head) of ``r`` in the training graph, the boolean ``ranges`` (2R × n); other nodes score ``-inf``. On
MetaQA-half a query scores a small share of the nodes (a release year is never scored as a director), and it removes
type-violating proposals.

Notation: the paper's ``e_s`` / ``e_o`` are rows of the encoder output ``z``; ``R_r`` is ``diag(relation[r])``.

References
----------
.. [1] M. Schlichtkrull, T. N. Kipf, P. Bloem, R. van den Berg, I. Titov, M. Welling. "Modeling Relational Data
   with Graph Convolutional Networks." ESWC 2018. https://doi.org/10.1007/978-3-319-93417-4_38
.. [2] B. Yang, W. Yih, X. He, J. Gao, L. Deng. "Embedding Entities and Relations for Learning and Inference in
   Knowledge Bases." ICLR 2015. https://arxiv.org/abs/1412.6575
.. [3] T. Dettmers, P. Minervini, P. Stenetorp, S. Riedel. "Convolutional 2D Knowledge Graph Embeddings."
   AAAI 2018 (1-N scoring, inverse relations). https://arxiv.org/abs/1707.01476
.. [4] D. Krompaß, S. Baier, V. Tresp. "Type-Constrained Representation Learning in Knowledge Graphs." ISWC 2015.
   https://arxiv.org/abs/1508.02593
.. [5] S. Vashishth, S. Sanyal, V. Nitin, P. Talukdar. "Composition-based Multi-Relational Graph Convolutional
   Networks." ICLR 2020. https://arxiv.org/abs/1911.03082
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn
from torch_geometric.nn import MessagePassing

__all__ = ["BasisRGCNConv", "GNNConfig", "RGCNDistMult", "answer_ranges", "message_graph"]


@dataclass(frozen=True)
class GNNConfig:
    """Model and training options; stored with every checkpoint so a resume can check it trains the same model.

    ``dim`` is the embedding width, ``layers`` the number of R-GCN layers, ``bases`` the number of basis
    matrices ``V_b`` (eq. 3), ``dropout`` the dropout on hidden states. Training options: ``epochs`` (cap),
    ``lr``, ``batch_size`` (queries per optimiser step, each scored against every node), ``label_smoothing`` (of
    the 1-N cross-entropy), ``reg`` (L2 weight on the decoder's relation vectors, R-GCN §4), ``eval_every``
    (epochs between held-out evaluations),
    ``patience`` (evaluations without improvement before early stopping), ``valid_fraction`` /
    ``test_fraction`` (held-out shares of the triples), ``max_eval`` (held-out triples used per evaluation),
    ``seed``, ``mask_targets`` (drop each step's query triples from the message graph, so the model learns to
    predict an edge it cannot see — the situation of a missing fact; off, it can copy the answer from the message),
    ``node_embeddings`` (the learned per-node vectors ``e_i``; off, a model with features sees only the features,
    which makes the encoder inductive; ignored without features). Both are ablations, measured on MetaQA-half in
    docs/benchmarks.md ("2026-11-24 (night)"): neither helps there, so the defaults keep the measured model.
    ``finetune_epochs`` caps training when it starts from the previous version's model (:mod:`kgsvc.gnn.warm`).
    """

    dim: int = 64
    layers: int = 1
    bases: int = 4
    dropout: float = 0.1
    epochs: int = 100
    lr: float = 0.01
    batch_size: int = 8192
    label_smoothing: float = 0.1
    reg: float = 0.01
    eval_every: int = 2
    patience: int = 3
    valid_fraction: float = 0.05
    test_fraction: float = 0.05
    max_eval: int = 2000
    seed: int = 0
    mask_targets: bool = False
    node_embeddings: bool = True
    finetune_epochs: int = 4

    def __post_init__(self) -> None:
        positive = (
            "dim",
            "layers",
            "bases",
            "epochs",
            "batch_size",
            "eval_every",
            "patience",
            "max_eval",
            "finetune_epochs",
        )
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"GNNConfig.{name} must be an integer >= 1, got {value!r}")
        for name in ("dropout", "label_smoothing", "valid_fraction", "test_fraction"):
            value = getattr(self, name)
            if not 0.0 <= value < 1.0:
                raise ValueError(f"GNNConfig.{name} must lie in [0, 1), got {value!r}")
        if self.valid_fraction <= 0.0:
            raise ValueError(f"GNNConfig.valid_fraction must be > 0 (early stopping), got {self.valid_fraction}")
        if self.valid_fraction + self.test_fraction >= 0.5:
            raise ValueError(
                f"valid_fraction + test_fraction must be < 0.5, got {self.valid_fraction} + {self.test_fraction}"
            )
        if self.lr <= 0 or self.reg < 0:
            raise ValueError(f"GNNConfig.lr must be > 0 and reg >= 0, got lr={self.lr} reg={self.reg}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-able dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> GNNConfig:
        """Options from a dict; unknown keys raise ``ValueError`` naming them."""
        unknown = sorted(set(values) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"unknown GNN options {unknown}; expected some of {sorted(cls.__dataclass_fields__)}")
        return cls(**values)


def message_graph(
    heads: torch.Tensor, relations: torch.Tensor, tails: torch.Tensor, n_relations: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The encoder's message edges: each triple ``h → t`` with type ``r`` and ``t → h`` with type ``r + n_relations``.

    Returns ``edge_index`` (2 × 2m, source row first, as torch-geometric expects) and ``edge_type`` (2m).
    """
    edge_index = torch.stack([torch.cat([heads, tails]), torch.cat([tails, heads])])
    edge_type = torch.cat([relations, relations + n_relations])
    return edge_index, edge_type


class BasisRGCNConv(MessagePassing):  # type: ignore[misc]
    """One R-GCN layer with basis decomposition (Schlichtkrull et al., eq. 2 with eq. 3).

    ``out_i = W_0 x_i + b + Σ_r Σ_{j ∈ N_i^r} (1 / |N_i^r|) Σ_b a_{rb} V_b x_j``, edges ``j → i`` given as
    ``edge_index = [sources; targets]`` with types ``edge_type``.

    Notes
    -----
    O(n · B · d_in · d_out + |E| · B · d_out) time, O((n + |E|) · B · d_out) memory for B bases.
    """

    def __init__(self, in_channels: int, out_channels: int, num_relations: int, num_bases: int) -> None:
        super().__init__(aggr="sum", node_dim=0)
        self.num_relations, self.num_bases, self.out_channels = num_relations, num_bases, out_channels
        self.basis = nn.Parameter(torch.empty(num_bases, in_channels, out_channels))
        self.comp = nn.Parameter(torch.empty(num_relations, num_bases))
        self.root = nn.Linear(in_channels, out_channels)
        nn.init.xavier_uniform_(self.basis)
        nn.init.xavier_uniform_(self.comp)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, edge_type: torch.Tensor) -> torch.Tensor:
        """Apply the layer to node states ``x`` (n × d_in); returns (n × d_out)."""
        projected = torch.einsum("ni,bio->nbo", x, self.basis)  # x V_b for every node and basis
        key = edge_index[1] * self.num_relations + edge_type
        _, inverse, counts = torch.unique(key, return_inverse=True, return_counts=True)
        norm = 1.0 / counts[inverse].to(x.dtype)  # 1 / |N_i^r|
        out: torch.Tensor = self.propagate(
            edge_index, projected=projected, edge_type=edge_type, norm=norm, size=(x.shape[0], x.shape[0])
        )
        root: torch.Tensor = self.root(x)
        return out + root

    def message(self, projected_j: torch.Tensor, edge_type: torch.Tensor, norm: torch.Tensor) -> torch.Tensor:
        """``(1 / |N_i^r|) Σ_b a_{rb} (V_b x_j)`` for every edge."""
        return torch.einsum("eb,ebo->eo", self.comp[edge_type], projected_j) * norm[:, None]


class RGCNDistMult(nn.Module):
    """R-GCN encoder (basis decomposition) + DistMult decoder with relation priors (module docstring).

    Parameters
    ----------
    n_nodes, n_relations : int
        Sizes of the snapshot's id spaces (encoder and decoder use ``2 * n_relations`` relation types).
    config : GNNConfig
        ``dim``, ``layers``, ``bases`` and ``dropout`` are used here.
    features : (n_nodes × f) tensor, optional
        Fixed node input features (not trained, not saved in the state dict); projected to ``dim``.
    ranges : (2 · n_relations × n_nodes) bool tensor, optional
        Candidate answers per relation (module docstring; :func:`answer_ranges`); default every node.
    """

    def __init__(
        self,
        n_nodes: int,
        n_relations: int,
        config: GNNConfig,
        features: torch.Tensor | None = None,
        ranges: torch.Tensor | None = None,
    ) -> None:
        super().__init__()
        if n_nodes < 1 or n_relations < 1:
            raise ValueError(f"need at least one node and one relation, got {n_nodes} nodes, {n_relations} relations")
        if features is not None and (features.ndim != 2 or features.shape[0] != n_nodes):
            raise ValueError(f"features must be (n_nodes={n_nodes} × f), got {tuple(features.shape)}")
        if ranges is None:
            ranges = torch.ones(2 * n_relations, n_nodes, dtype=torch.bool)
        if ranges.shape != (2 * n_relations, n_nodes):
            raise ValueError(f"ranges must be (2·{n_relations} × {n_nodes}), got {tuple(ranges.shape)}")
        self.n_nodes, self.n_relations = n_nodes, n_relations
        self.ranges: torch.Tensor
        self.register_buffer("ranges", ranges.bool())
        self.node = nn.Embedding(n_nodes, config.dim)
        self.free = config.node_embeddings or features is None
        self.features: torch.Tensor | None
        self.register_buffer("features", None if features is None else features.float(), persistent=False)
        self.project = None if features is None else nn.Linear(features.shape[1], config.dim, bias=False)
        bases = min(config.bases, 2 * n_relations)
        self.convs = nn.ModuleList(
            BasisRGCNConv(config.dim, config.dim, 2 * n_relations, bases) for _ in range(config.layers)
        )
        self.relation = nn.Parameter(torch.empty(2 * n_relations, config.dim))
        self.prior = nn.Parameter(torch.zeros(2 * n_relations, config.dim))
        self.dropout = nn.Dropout(config.dropout)
        nn.init.xavier_uniform_(self.node.weight)
        nn.init.xavier_uniform_(self.relation)

    def encode(self, edge_index: torch.Tensor, edge_type: torch.Tensor) -> torch.Tensor:
        """Node embeddings ``z`` (n_nodes × dim) after the R-GCN layers (eq. 2); ReLU between layers, none after
        the last (the decoder needs signed coordinates).

        Notes
        -----
        Full-batch: O(L · (|E| · d + n · d²)) time per call, O(L · (|E| + n) · d) activation memory.
        """
        z = self.node.weight * float(self.free)
        if self.project is not None and self.features is not None:
            z = z + self.project(self.features)
        for i, conv in enumerate(self.convs):
            z = conv(self.dropout(z), edge_index, edge_type)
            if i < len(self.convs) - 1:
                z = torch.relu(z)
        return z

    def queries(self, z: torch.Tensor, anchors: torch.Tensor, relations: torch.Tensor) -> torch.Tensor:
        """Query vectors ``z_a ⊙ w_r + u_r`` of ``(anchor, relation, ?)``; relations in ``[0, 2R)`` (≥ R: inverse)."""
        return z[anchors] * self.relation[relations] + self.prior[relations]

    def score(self, z: torch.Tensor, heads: torch.Tensor, relations: torch.Tensor, tails: torch.Tensor) -> torch.Tensor:
        """Logits ``f(h, r, t)`` of the triples as tail queries (one value per triple)."""
        return (self.queries(z, heads, relations) * z[tails]).sum(dim=-1)

    def score_tails(self, z: torch.Tensor, heads: torch.Tensor, relations: torch.Tensor) -> torch.Tensor:
        """Logits of ``(h, r, t)`` for every node ``t`` (``-inf`` outside the range of ``r``): (batch × n_nodes)."""
        return (self.queries(z, heads, relations) @ z.T).masked_fill(~self.ranges[relations], float("-inf"))

    def score_heads(self, z: torch.Tensor, relations: torch.Tensor, tails: torch.Tensor) -> torch.Tensor:
        """Logits of ``(h, r, t)`` for every node ``h``, as the tail query ``(t, r + R, ?)``: (batch × n_nodes)."""
        return self.score_tails(z, tails, relations + self.n_relations)


def answer_ranges(triples: torch.Tensor, n_nodes: int, n_relations: int) -> torch.Tensor:
    """The type constraint of :class:`RGCNDistMult`: row ``r`` marks the tails of ``r`` in ``triples`` (m × 3),
    row ``r + n_relations`` its heads. O(m + R · n)."""
    ranges = torch.zeros(2 * n_relations, n_nodes, dtype=torch.bool, device=triples.device)
    ranges[triples[:, 1], triples[:, 2]] = True
    ranges[triples[:, 1] + n_relations, triples[:, 0]] = True
    return ranges
