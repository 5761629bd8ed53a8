"""GNN link prediction on MetaQA-half: R-GCN + DistMult (1-N, type-constrained) on a seeded 50% of MetaQA's KB.

The link-prediction part of the MetaQA-half setting (EmbedKGQA, Saxena et al. 2020): 50% of the KB triples are
removed (``numpy.random.default_rng(seed)``), the model is trained on the remaining half (kgsvc.gnn.train, with
its own held-out split for early stopping and filtered MRR / Hits@10), and then asked the removed 1-hop edges:
for each query that lost at least one answer — tail queries ``(h, r, ?)`` and head queries ``(?, r, t)`` — Hits@1
is the share of queries whose best non-stored candidate is one of the removed answers, beside a
relation-popularity baseline (the relation's most frequent kept answer not stored for the query), per relation
and direction, and for queries whose anchor kept no triple at all. Reported with training time and peak RSS.
``--features`` gives the model the MiniLM embeddings of the entity names as node inputs; the entity names also give
the name rules (:mod:`kgsvc.gnn.rules`; ``--no-rules`` leaves them out); ``--mask-targets`` and
``--no-node-embeddings`` are the ablations of :class:`kgsvc.gnn.model.GNNConfig`; ``--model`` scores a folder
trained elsewhere on the same split (``kgsvc eval --drop 0.5 --infer`` keeps one) instead of training.
Fine-tuning (:mod:`kgsvc.gnn.warm`): ``--save A`` keeps a model; ``--add-back 0.01 --warm A`` then puts 1 % of the KB
back (a small change) and trains from A for at most ``finetune_epochs``.

Usage: ``python bench/gnn.py --epochs 20 --threads 1 [--features | --model FOLDER]``
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from kgsvc.eval.data import metaqa_kb
from kgsvc.gnn.artifacts import read_metrics
from kgsvc.gnn.metrics import KnownTriples
from kgsvc.gnn.model import GNNConfig
from kgsvc.gnn.predict import LinkPredictor
from kgsvc.gnn.train import train_gnn
from kgsvc.index.snapshot import GraphSnapshot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-queries", type=int, default=5000, help="removed (h, r) queries scored for Hits@1")
    parser.add_argument("--features", action="store_true", help="MiniLM name embeddings as node input features")
    parser.add_argument("--mask-targets", action="store_true", help="ablation: queries do not see their own edge")
    parser.add_argument("--no-rules", action="store_true", help="ablation: no name rules (labels not given)")
    parser.add_argument("--no-node-embeddings", action="store_true", help="features only (inductive encoder)")
    parser.add_argument("--save", type=Path, help="keep the trained model folder here")
    parser.add_argument("--add-back", type=float, default=0.0, help="share of the KB's removed triples put back")
    parser.add_argument("--warm", type=Path, help="fine-tune from this model folder (same node and relation ids)")
    parser.add_argument("--model", type=Path, help="score an already trained model folder (for this split) instead")
    args = parser.parse_args()

    triples = metaqa_kb()
    nodes: dict[str, int] = {}
    relations: dict[str, int] = {}
    ids = np.array(
        [
            (nodes.setdefault(h, len(nodes)), relations.setdefault(r, len(relations)), nodes.setdefault(t, len(nodes)))
            for h, r, t in triples
        ],
        dtype=np.int64,
    )
    keep = np.zeros(len(ids), dtype=bool)
    order = np.random.default_rng(args.seed).permutation(len(ids))
    keep[order[: len(ids) // 2]] = True
    keep[order[len(ids) // 2 : len(ids) // 2 + round(args.add_back * len(ids))]] = True  # a small change
    kept, removed = ids[keep], ids[~keep]
    snapshot = GraphSnapshot.from_triples(
        kept[:, 0], kept[:, 1], kept[:, 2], n_nodes=len(nodes), n_relations=len(relations)
    )
    config = GNNConfig(
        dim=args.dim,
        layers=args.layers,
        epochs=args.epochs,
        batch_size=args.batch_size,
        eval_every=2,
        patience=3,
        seed=args.seed,
        valid_fraction=0.02,
        test_fraction=0.02,
        max_eval=1000,
        mask_targets=args.mask_targets,
        node_embeddings=not args.no_node_embeddings,
    )
    features = None
    if args.features and args.model is None:
        from kgsvc.qa.graph import load_embedder

        features = load_embedder()(list(nodes))
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.model or args.save or Path(tmp) / "model"
        warm = None
        if args.warm is not None:
            from kgsvc.gnn.warm import WarmStart

            warm = WarmStart.from_maps(args.warm, np.arange(len(nodes)), np.arange(len(relations)))
        started = time.perf_counter()
        if args.model is None:
            train_gnn(
                snapshot,
                folder,
                config=config,
                threads=args.threads,
                features=features,
                labels=None if args.no_rules else list(nodes),
                warm=warm,
                progress=lambda p: print(
                    f"epoch {p.epoch}/{p.epochs} loss {p.loss:.4f} valid MRR {p.valid_mrr}", file=sys.stderr, flush=True
                ),
            )
        seconds = time.perf_counter() - started
        predictor = LinkPredictor.load(folder, snapshot)
        metrics = read_metrics(folder)
        removed_queries = _removed_queries(predictor, kept, removed, len(nodes), relations, args)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row = {
        "kept_triples": int(len(kept)),
        "removed_triples": int(len(removed)),
        "nodes": len(nodes),
        "features": metrics.get("features"),
        "epochs": metrics["epochs"],
        "train_s": round(metrics["train_seconds"], 1),
        "total_s": round(seconds, 1),
        "peak_rss_mb": round(rss_mb),
        "held_out": metrics["held_out"],
        "random_baseline": metrics["random_baseline"],
        "calibration": metrics["calibration"],
        "warm_start": metrics.get("warm_start"),
        **removed_queries,
    }
    print(json.dumps(row, indent=2))


def _removed_queries(
    predictor: LinkPredictor,
    kept: np.ndarray,
    removed: np.ndarray,
    n_nodes: int,
    relations: dict[str, int],
    args: argparse.Namespace,
) -> dict[str, object]:
    """Hits@1 of the best non-stored proposal on queries that lost an answer, both directions, beside the
    relation-popularity baseline; per (relation, direction) and for queries whose anchor kept no triple."""
    rng = np.random.default_rng(args.seed)
    gold = KnownTriples(removed, len(relations))
    stored = KnownTriples(kept, len(relations))
    degree = np.bincount(np.concatenate([kept[:, 0], kept[:, 2]]), minlength=n_nodes)
    names = {r: name for name, r in relations.items()}
    totals: dict[str, list[int]] = {}
    for tails in (True, False):
        anchor, answer = (0, 2) if tails else (2, 0)
        queries = np.unique(removed[:, [anchor, 1]], axis=0)
        queries = queries[rng.permutation(len(queries))[: args.max_queries]]
        popular = {  # the relation's most frequent kept answer in this direction
            r: np.argsort(-np.bincount(kept[kept[:, 1] == r, answer], minlength=n_nodes), kind="stable")[:50]
            for r in range(len(relations))
        }
        for a, r in queries.tolist():
            truth = set((gold.tails(a, r) if tails else gold.heads(r, a)).tolist())
            have = set((stored.tails(a, r) if tails else stored.heads(r, a)).tolist())
            best = (
                predictor.top_tails(a, r, k=1, threshold=0.0)
                if tails
                else predictor.top_heads(r, a, k=1, threshold=0.0)
            )
            end = (best[0].tail if tails else best[0].head) if best else -1
            guess = next((int(c) for c in popular[r] if int(c) not in have), -1)
            accepted = bool(best) and best[0].probability >= predictor.calibration.threshold
            row = [
                1,
                end in truth,
                guess in truth,
                int(degree[a] == 0),
                int(degree[a] == 0 and end in truth),
                accepted,
                accepted and end in truth,
            ]
            for key in ("all", f"{names[r]} ({'tail' if tails else 'head'})"):
                totals[key] = [x + int(y) for x, y in zip(totals.get(key, [0] * 7), row, strict=True)]
    out: dict[str, object] = {}
    for key, (n, hit, pop, iso, iso_hit, acc, acc_hit) in sorted(totals.items()):
        out[key] = {
            "queries": n,
            "hits@1": round(hit / n, 4),
            "popular_hits@1": round(pop / n, 4),
            "isolated_anchor": iso,
            "isolated_hits@1": round(iso_hit / max(iso, 1), 4),
            "accepted": acc,
            "accepted_precision": round(acc_hit / max(acc, 1), 4),
        }
    return {"removed_queries": out}


if __name__ == "__main__":
    main()
