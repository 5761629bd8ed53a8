"""Label vectors on real MetaQA labels: embedding throughput, and HNSW recall against exact search, in one run each.

``python bench/vectors.py embed [--texts 3000] [--busy 0]`` embeds ``--texts`` distinct MetaQA entity names
(``kgsvc.eval.data.metaqa_kb``, a fixed random sample) with

* **before**: the previous Embedder call (batch 256, ``max_seq_length`` 256, torch's default threads);
* **after**: the current :class:`Embedder` defaults (batch 128, ``MAX_SEQ_LENGTH``);
* both again with ``torch.set_num_threads(1)``;

alternating, ``--rounds`` times each (best shown), the process cache cleared before every run. ``--busy N`` runs
N busy-loop processes meanwhile, to show a shared machine (load average is printed).

``python bench/vectors.py recall [--texts N] [--queries 300] [--ks 16,512,16384]`` measures HNSW recall (issue 3,
item 5c). All distinct MetaQA entity names (~43k; ``--texts N`` takes a fixed random sample) are embedded with
:class:`Embedder` (cached under ``bench/out/``) and put into the product's index,
:class:`kgsvc.index.vectors.EdgeVectorIndex` (Qdrant Edge HNSW, ``create_collection`` / ``add`` / ``finish``).
Queries are embeddings of the topic-entity mentions of real MetaQA 1-hop dev questions (``--queries`` distinct
ones, fixed seed), in two forms:

* ``mention``: the bracketed text as written in the question (what exact/vector linking embeds);
* ``typo``: the same mention lower-cased with one character dropped from its longest word (a misspelt mention,
  so that the query is not itself an indexed point).

For every k in ``--ks`` the index's :meth:`~kgsvc.index.vectors.VectorIndex.search` (one query per call, the
product's path, ``hnsw_ef = max(HNSW_EF_SEARCH, k)``) is compared with exact top-k by a numpy dot product on the
normalised vectors (one query per call, ``argpartition``, one BLAS thread via ``threadpoolctl``, which
scikit-learn installs). recall@k is the share of the k exact places filled by hits whose dot product with the
query is at least the exact k-th one's minus 1e-5, so that ties at the k-th place do not count as misses.
The default ``HNSW_EF_SEARCH`` and other values (``--efs``, set on the module for the run) are shown side by
side, with p50 / p95 latency of both searches, plus Qdrant's own full scan (``SearchParams(exact=True)`` on the
same shard, a knob the index does not expose). The table is printed for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch
from threadpoolctl import threadpool_limits

from kgsvc.eval.data import metaqa_kb, metaqa_questions
from kgsvc.index import embed, vectors
from kgsvc.index.embed import Embedder

OUT = Path(__file__).resolve().parent / "out"


def _run(texts: list[str], *, batch: int, max_seq: int, threads: int) -> float:
    embedder = Embedder(batch_size=batch)
    model = embed._load(embedder.model_path)
    model.max_seq_length = max_seq
    torch.set_num_threads(threads)
    embed._CACHES.clear()
    started = time.perf_counter()
    embedder.encode(texts)
    return len(texts) / (time.perf_counter() - started)


def bench_embed(count: int, busy: int, rounds: int) -> None:
    kb = metaqa_kb()
    names = sorted({h for h, _, _ in kb} | {t for _, _, t in kb})
    texts = random.Random(0).sample(names, count)
    default_threads = torch.get_num_threads()
    Embedder().encode(["warm up"])
    configs = {
        f"before (batch 256, max_seq 256, {default_threads} threads)": (256, 256, default_threads),
        f"after (batch 128, max_seq {embed.MAX_SEQ_LENGTH}, {default_threads} threads)": (
            128,
            embed.MAX_SEQ_LENGTH,
            default_threads,
        ),
        "before, 1 thread": (256, 256, 1),
        f"after, 1 thread (max_seq {embed.MAX_SEQ_LENGTH})": (128, embed.MAX_SEQ_LENGTH, 1),
    }
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that the busy loops are killed below
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        best: dict[str, float] = {}
        for _ in range(rounds):
            for name, (batch, max_seq, threads) in configs.items():
                rate = _run(texts, batch=batch, max_seq=max_seq, threads=threads)
                best[name] = max(best.get(name, 0.0), rate)
                print(f"  {name}: {rate:,.0f} texts/s (load {os.getloadavg()[0]:.2f})", flush=True)
        load = os.getloadavg()
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    torch.set_num_threads(default_threads)
    print(f"{count} MetaQA labels, {os.cpu_count()} CPUs, {busy} busy loops, load average {load[0]:.2f}")
    print("| configuration | texts/s |\n|---|---:|")
    for name, rate in best.items():
        print(f"| {name} | {rate:,.0f} |")


# -- recall -------------------------------------------------------------------------------------------------------


def label_vectors(count: int | None) -> tuple[list[str], npt.NDArray[np.float32]]:
    """All distinct MetaQA entity names (or a seeded sample of ``count``) and their unit vectors, cached in OUT."""
    kb = metaqa_kb()
    names = sorted({h for h, _, _ in kb} | {t for _, _, t in kb})
    if count is not None and count < len(names):
        names = sorted(random.Random(0).sample(names, count))
    cache = OUT / f"metaqa_label_vectors_{len(names)}_seq{embed.MAX_SEQ_LENGTH}.npz"
    if cache.exists():
        stored = np.load(cache)
        if stored["texts"].tolist() == names:
            return names, stored["vectors"]
    started = time.perf_counter()
    rows = Embedder().encode(names)
    print(f"embedded {len(names):,} labels in {time.perf_counter() - started:.0f} s", flush=True)
    OUT.mkdir(exist_ok=True)
    np.savez(cache, texts=np.array(names), vectors=rows)
    return names, rows


def _typo(mention: str, rng: random.Random) -> str:
    """``mention`` lower-cased with one character dropped from its longest word."""
    words = mention.lower().split(" ")
    i = max(range(len(words)), key=lambda j: len(words[j]))
    word = words[i]
    if len(word) > 1:
        cut = rng.randrange(len(word))
        words[i] = word[:cut] + word[cut + 1 :]
    return " ".join(words)


def query_texts(count: int) -> dict[str, list[str]]:
    """Query sets: ``count`` distinct topic mentions of MetaQA 1-hop dev questions, as written and misspelt."""
    mentions = sorted({m for q in metaqa_questions(1) for m in q.topic})
    rng = random.Random(1)
    chosen = rng.sample(mentions, min(count, len(mentions)))
    return {"mention": chosen, "typo": [_typo(m, rng) for m in chosen]}


def exact_top(points: npt.NDArray[np.float32], query: npt.NDArray[np.float32], k: int) -> npt.NDArray[np.int64]:
    """Brute-force oracle: ids of the ``k`` largest dot products (= smallest L2 on unit vectors), best first."""
    scores = points @ query
    k = min(k, scores.shape[0])
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top], kind="stable")].astype(np.int64)


def _recall(
    points: npt.NDArray[np.float32], query: npt.NDArray[np.float32], hits: list[int], exact: npt.NDArray[np.int64]
) -> float:
    """Share of the k exact places filled by HNSW hits at least as close as the exact k-th (ties count as hits)."""
    kth = float(points[exact[-1]] @ query)
    scores = points[np.asarray(hits, dtype=np.int64)] @ query if hits else np.zeros(0)
    return float(np.count_nonzero(scores >= kth - 1e-5)) / len(exact)


def _ms(samples: list[float]) -> str:
    p50, p95 = np.percentile(np.asarray(samples) * 1e3, [50, 95])
    return f"{p50:.2f} / {p95:.2f}"


Search = Callable[[npt.NDArray[np.float32], int], list[int]]


def _product_search(index: vectors.EdgeVectorIndex) -> Search:
    """The product's path: :meth:`EdgeVectorIndex.search`, one query row per call (``hnsw_ef`` from the module)."""
    return lambda query, k: [i for i, _ in index.search(vectors.NODE_LABELS, query[None, :], k)[0]]


def _qdrant_exact(index: vectors.EdgeVectorIndex) -> Search:
    """Qdrant's own full scan (``SearchParams(exact=True)``) on the same shard: a knob the index does not expose."""
    from qdrant_edge import Query, QueryBatchRequest, QueryRequest, SearchParams

    def search(query: npt.NDArray[np.float32], k: int) -> list[int]:
        nearest = Query.Nearest(query.tolist(), using=vectors.LABEL_VECTOR)
        request = QueryRequest(limit=k, query=nearest, params=SearchParams(exact=True))
        points = index._shard(vectors.NODE_LABELS).query_batch(QueryBatchRequest([request]))[0]
        return [int(p.id) for p in sorted(points, key=lambda p: (p.score, p.id))]

    return search


def _measure(
    search: Search,
    points: npt.NDArray[np.float32],
    queries: npt.NDArray[np.float32],
    exact: list[npt.NDArray[np.int64]],
) -> tuple[list[float], list[float]]:
    """recall@k and seconds of ``search`` for every query row (k = the length of its exact answer)."""
    recalls, seconds = [], []
    for query, ids in zip(queries, exact, strict=True):
        started = time.perf_counter()
        hits = search(query, len(ids))
        seconds.append(time.perf_counter() - started)
        recalls.append(_recall(points, query, hits, ids))
    return recalls, seconds


def bench_recall(count: int | None, n_queries: int, ks: list[int], efs: list[int]) -> None:
    names, points = label_vectors(count)
    queries = {name: Embedder().encode(texts) for name, texts in query_texts(n_queries).items()}
    default_ef = vectors.HNSW_EF_SEARCH
    rows = []
    with tempfile.TemporaryDirectory(prefix="kgsvc-recall-") as folder:
        index = vectors.EdgeVectorIndex(Path(folder))
        started = time.perf_counter()
        index.create_collection(vectors.NODE_LABELS, points.shape[1])
        index.add(vectors.NODE_LABELS, points)
        index.finish(vectors.NODE_LABELS)
        build = time.perf_counter() - started
        print(
            f"HNSW build ({len(names):,} points, m={vectors.HNSW_M}, ef_construct={vectors.HNSW_EF_CONSTRUCT}): "
            f"{build:.1f} s",
            flush=True,
        )
        try:
            for k in ks:
                for set_name, rows_q in queries.items():
                    exact_ids, exact_t = [], []
                    with threadpool_limits(1, user_api="blas"):  # 2 BLAS threads on a shared 2-core box: ~3x slower
                        for q in rows_q:
                            started = time.perf_counter()
                            exact_ids.append(exact_top(points, q, k))
                            exact_t.append(time.perf_counter() - started)
                    runs: dict[str, Search] = {}
                    for ef in sorted({default_ef, *efs}):
                        mark = " (default)" if max(ef, k) == max(default_ef, k) else ""
                        runs.setdefault(f"{max(ef, k)}{mark}", _with_ef(_product_search(index), ef))
                    runs["Qdrant exact=True"] = _qdrant_exact(index)
                    for label, search in runs.items():
                        recalls, seconds = _measure(search, points, rows_q, exact_ids)
                        share = float(np.mean(np.asarray(recalls) >= 0.99))
                        row = (
                            set_name,
                            k,
                            label,
                            float(np.mean(recalls)),
                            min(recalls),
                            share,
                            _ms(seconds),
                            _ms(exact_t),
                        )
                        rows.append(row)
                        print(f"  {row} (load {os.getloadavg()[0]:.2f})", flush=True)
        finally:
            vectors.HNSW_EF_SEARCH = default_ef
            index.close()
    with threadpool_limits(1, user_api="blas"):
        started = time.perf_counter()
        stacked = np.concatenate(list(queries.values()))
        np.argpartition(-(stacked @ points.T), 15, axis=1)
        batched = (time.perf_counter() - started) / stacked.shape[0]
    print(
        f"exact numpy, all {stacked.shape[0]} queries in one matrix product (top 16): {batched * 1e3:.2f} ms per query"
    )
    load = os.getloadavg()
    print(
        f"{len(names):,} MetaQA entity labels (dim {points.shape[1]}), {n_queries} queries per set, "
        f"{os.cpu_count()} CPUs, load average {load[0]:.2f}; HNSW build {build:.1f} s"
    )
    print("| queries | k | hnsw_ef | recall@k (mean) | min | ≥ 0.99 | search p50 / p95 ms | exact numpy p50 / p95 ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for set_name, k, ef, mean, low, share, hnsw_ms, exact_ms in rows:
        print(f"| {set_name} | {k:,} | {ef} | {mean:.4f} | {low:.3f} | {share:.2f} | {hnsw_ms} | {exact_ms} |")


def _with_ef(search: Search, ef: int) -> Search:
    """``search`` run with :data:`kgsvc.index.vectors.HNSW_EF_SEARCH` set to ``ef`` (restored by the caller)."""

    def run(query: npt.NDArray[np.float32], k: int) -> list[int]:
        vectors.HNSW_EF_SEARCH = ef
        return search(query, k)

    return run


def _ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("embed", help="label embedding throughput, before/after")
    p.add_argument("--texts", type=int, default=3000)
    p.add_argument("--rounds", type=int, default=2, help="runs per configuration (best shown)")
    p.add_argument("--busy", type=int, default=0, help="busy-loop processes to run meanwhile")
    p = sub.add_parser("recall", help="HNSW recall@k and latency against exact numpy search")
    p.add_argument("--texts", type=int, default=None, help="cap the labels (default: all distinct entity names)")
    p.add_argument("--queries", type=int, default=300, help="distinct question mentions per query set")
    p.add_argument("--ks", type=_ints, default=[16, 512, 16384])
    p.add_argument("--efs", type=_ints, default=[16, 64, 256, 1024, 2048], help="hnsw_ef values besides the default")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.command == "embed":
        bench_embed(args.texts, args.busy, args.rounds)
    else:
        bench_recall(args.texts, args.queries, args.ks, args.efs)


if __name__ == "__main__":
    main()
