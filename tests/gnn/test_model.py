from __future__ import annotations

import pytest
import torch
from torch_geometric.nn import RGCNConv

from kgsvc.gnn.model import BasisRGCNConv, GNNConfig, RGCNDistMult, answer_ranges, message_graph


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


def test_scores_agree_across_entry_points_and_respect_the_type_constraint() -> None:
    torch.manual_seed(0)
    h, r, t = torch.tensor([0, 1, 2, 3]), torch.tensor([0, 1, 2, 0]), torch.tensor([4, 5, 6, 7])
    ranges = answer_ranges(torch.stack([h, r, t], dim=1), 10, 3)
    assert ranges[0].nonzero().squeeze(1).tolist() == [4, 7] and ranges[3].nonzero().squeeze(1).tolist() == [0, 3]
    model = RGCNDistMult(10, 3, GNNConfig(dim=8, layers=1, bases=2, dropout=0.0), ranges=ranges).eval()
    with torch.no_grad():
        model.prior.normal_()  # a non-zero relation prior takes part in every entry point
    edge_index, edge_type = message_graph(h, r, t, 3)
    assert edge_index.shape == (2, 8) and edge_type.tolist() == [0, 1, 2, 0, 3, 4, 5, 3]
    z = model.encode(edge_index, edge_type)
    direct = ((z[h] * model.relation[r] + model.prior[r]) * z[t]).sum(-1)
    torch.testing.assert_close(model.score(z, h, r, t), direct)
    tails = model.score_tails(z, h, r)
    torch.testing.assert_close(tails[torch.arange(4), t], direct)
    assert torch.isneginf(tails[0, [0, 1, 2, 3, 5, 6, 8, 9]]).all() and torch.isfinite(tails[0, [4, 7]]).all()
    inverse = ((z[t] * model.relation[r + 3] + model.prior[r + 3]) * z[h]).sum(-1)  # head query = inverse relation
    torch.testing.assert_close(model.score_heads(z, r, t)[torch.arange(4), h], inverse)
    with pytest.raises(ValueError, match="ranges must be"):
        RGCNDistMult(10, 3, GNNConfig(), ranges=ranges[:, :5])


def test_ablation_options_mask_target_edges_and_drop_free_embeddings() -> None:
    from kgsvc.gnn.train import _messages

    h, r, t = torch.tensor([0, 1, 2]), torch.tensor([0, 1, 0]), torch.tensor([3, 4, 5])
    edge_index, edge_type = message_graph(h, r, t, 2)
    # queries 0..2 ask triples 0..2 by tail, queries 3..5 the same triples by head: query 4 is triple 1
    edges, types = _messages(edge_index, edge_type, torch.tensor([4, 0]), 3)
    assert edges.T.tolist() == [[2, 5], [5, 2]] and types.tolist() == [0, 2]

    features = torch.randn(6, 4)
    config = GNNConfig(dim=8, dropout=0.0, node_embeddings=False)
    inductive = RGCNDistMult(6, 2, config, features=features).eval()
    before = inductive.encode(edge_index, edge_type)
    with torch.no_grad():
        inductive.node.weight.normal_()  # unused: only the features enter the encoder
    torch.testing.assert_close(inductive.encode(edge_index, edge_type), before)
    assert RGCNDistMult(6, 2, config).free  # without features the free embeddings are the only input


def test_config_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="GNNConfig.dim must be an integer >= 1, got 0"):
        GNNConfig(dim=0)
    with pytest.raises(ValueError, match="valid_fraction"):
        GNNConfig(valid_fraction=0.3, test_fraction=0.3)
    with pytest.raises(ValueError, match=r"unknown GNN options \['width'\]"):
        GNNConfig.from_dict({"width": 3})
    with pytest.raises(ValueError, match="at least one node"):
        RGCNDistMult(0, 1, GNNConfig())
