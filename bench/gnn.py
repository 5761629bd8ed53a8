"""GNN link prediction on MetaQA-half: R-GCN + DistMult trained on a seeded 50% of MetaQA's KB.

The link-prediction part of the MetaQA-half setting (EmbedKGQA, Saxena et al. 2020): 50% of the KB triples are
removed (``numpy.random.default_rng(seed)``), the model is trained on the remaining half (kgsvc.gnn.train, with
its own held-out split for early stopping and filtered MRR / Hits@10), and then asked the removed 1-hop edges:
for each query ``(h, r, ?)`` that lost at least one tail, Hits@1 is the share of queries whose best non-stored
candidate is one of the removed tails. Reported with training time and peak RSS.

Usage: ``python bench/gnn.py --epochs 20 --threads 1``
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
from kgsvc.gnn.metrics import KnownTriples
from kgsvc.gnn.model import GNNConfig
from kgsvc.gnn.predict import LinkPredictor
from kgsvc.gnn.train import train_gnn
from kgsvc.index.snapshot import GraphSnapshot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-queries", type=int, default=5000, help="removed (h, r) queries scored for Hits@1")
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
    keep[np.random.default_rng(args.seed).permutation(len(ids))[: len(ids) // 2]] = True
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
    )
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        result = train_gnn(
            snapshot,
            Path(tmp) / "model",
            config=config,
            threads=args.threads,
            progress=lambda p: print(
                f"epoch {p.epoch}/{p.epochs} loss {p.loss:.4f} valid MRR {p.valid_mrr}", file=sys.stderr, flush=True
            ),
        )
        seconds = time.perf_counter() - started
        predictor = LinkPredictor.load(Path(tmp) / "model", snapshot)
        gold = KnownTriples(removed, len(relations))
        queries = np.unique(removed[:, :2], axis=0)
        queries = queries[np.random.default_rng(args.seed).permutation(len(queries))[: args.max_queries]]
        # baseline: the relation's most frequent kept tail that is not already stored for (h, r)
        popular = {
            r: np.argsort(-np.bincount(kept[kept[:, 1] == r, 2], minlength=len(nodes)), kind="stable")[:50]
            for r in range(len(relations))
        }
        stored = KnownTriples(kept, len(relations))
        hits = popular_hits = confident = confident_hits = 0
        for h, r in queries:
            answers = set(gold.tails(int(h), int(r)).tolist())
            best = predictor.top_tails(int(h), int(r), k=1, threshold=0.0)
            hits += bool(best) and best[0].tail in answers
            if best and best[0].probability >= 0.5:
                confident += 1
                confident_hits += best[0].tail in answers
            have = set(stored.tails(int(h), int(r)).tolist())
            guess = next((int(c) for c in popular[int(r)] if int(c) not in have), -1)
            popular_hits += guess in answers
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    metrics = result.metrics
    row = {
        "kept_triples": int(len(kept)),
        "removed_triples": int(len(removed)),
        "nodes": len(nodes),
        "epochs": metrics["epochs"],
        "train_s": round(metrics["train_seconds"], 1),
        "total_s": round(seconds, 1),
        "peak_rss_mb": round(rss_mb),
        "held_out": metrics["held_out"],
        "random_baseline": metrics["random_baseline"],
        "removed_queries": int(len(queries)),
        "removed_hits@1": hits / len(queries),
        "calibration": metrics["calibration"],
    }
    print(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
