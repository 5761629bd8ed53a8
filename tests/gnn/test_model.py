from __future__ import annotations

import pytest
import torch
from torch_geometric.nn import RGCNConv

from kgsvc.gnn.model import BasisRGCNConv, GNNConfig, RGCNDistMult, message_graph


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_basis_layer_equals_torch_geometric_rgcnconv(seed: int) -> None:
    """Oracle: the same weights in torch-geometric's RGCNConv (mean aggregation per relation) give the same output."""
    gen = torch.Generator().manual_seed(seed)
    n, relations, edges = 30, 5, 120
    edge_index = torch.randint(n, (2, edges), generator=gen)
    edge_type = torch.randint(relations, (edges,), generator=gen)
    x = torch.randn(n, 8, generator=gen)
    reference = RGCNConv(8, 6, relations, num_bases=3)
    ours = BasisRGCNConv(8, 6, relations, 3)
    with torch.no_grad():
        ours.basis.copy_(reference.weight)
        ours.comp.copy_(reference.comp)
        ours.root.weight.copy_(reference.root.T)
        ours.root.bias.copy_(reference.bias)
    torch.testing.assert_close(ours(x, edge_index, edge_type), reference(x, edge_index, edge_type))


def test_distmult_scores_agree_across_entry_points() -> None:
    torch.manual_seed(0)
    model = RGCNDistMult(10, 3, GNNConfig(dim=8, layers=1, bases=2, dropout=0.0)).eval()
    h, r, t = torch.tensor([0, 1, 2, 3]), torch.tensor([0, 1, 2, 0]), torch.tensor([4, 5, 6, 7])
    edge_index, edge_type = message_graph(h, r, t, 3)
    assert edge_index.shape == (2, 8) and edge_type.tolist() == [0, 1, 2, 0, 3, 4, 5, 3]
    z = model.encode(edge_index, edge_type)
    direct = model.score(z, h, r, t)
    torch.testing.assert_close(model.score_tails(z, h, r)[torch.arange(4), t], direct)
    torch.testing.assert_close(model.score_heads(z, r, t)[torch.arange(4), h], direct)


def test_config_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="GNNConfig.dim must be an integer >= 1, got 0"):
        GNNConfig(dim=0)
    with pytest.raises(ValueError, match="valid_fraction"):
        GNNConfig(valid_fraction=0.3, test_fraction=0.3)
    with pytest.raises(ValueError, match=r"unknown GNN options \['width'\]"):
        GNNConfig.from_dict({"width": 3})
    with pytest.raises(ValueError, match="at least one node"):
        RGCNDistMult(0, 1, GNNConfig())
