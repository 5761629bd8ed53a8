"""A full index build spread over Celery workers (issue 23): 1 worker against 2, same data, same run.

Distributed mode as deployed: ``oxigraph serve`` as the store, a SQLite catalog and the index folder in a shared
data folder, Redis db ``--redis-db`` as the broker, real ``celery worker --pool solo`` processes (one torch thread
each: ``OMP_NUM_THREADS=1``, so n workers use n cores). The MetaQA KB ×``--scale`` (``bench/scale.py``'s replicas)
is loaded twice, as datasets ``w1`` and ``w2`` (auto-index off); then, per worker count n, n workers are started,
each warmed up (the embedding model loaded), and the clock runs from the submission of ``kgsvc.build_index`` for
``wn`` until its version is complete. The build's own worker embeds chunks of its plan and queues
``kgsvc.embed_chunks`` helpers that any idle worker takes (:mod:`kgsvc.index.chunks`).

Reported per worker count: wall seconds, speed-up against 1 worker, the build's stages (from the version's
metrics) and each worker process's peak RSS (``VmHWM`` read from ``/proc`` before it stops, model included). Then a
check that the builds published the same thing: the node labels and their embeddings (max |Δ|), and the snapshot
folder's files byte for byte.

Run: ``python bench/build_workers.py [--scale 1] [--redis-db 14]`` with ``KGSVC_EVAL_DATA=../shared/data``; on a
machine with at least 2 free cores (the ratio is meaningless when other jobs share them: the load average is
printed at start and end).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import redis
from freshness import _free_port, _process, _reachable, _wait_until, _worker_command, distributed_env, oxigraph_binary
from scale import STAGES, write_kb

import kgsvc
from kgsvc.index.build import node_label_vectors, node_labels


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _build_with(kg: kgsvc.KG, env: dict[str, str], workdir: Path, dataset: str, workers: int) -> dict[str, Any]:
    """Start ``workers`` solo workers, warm them, and time one full build of ``dataset`` on them."""
    processes = []
    try:
        for i in range(workers):
            log = workdir / f"worker-{dataset}-{i}.log"
            command = _worker_command() + ["-n", f"build{workers}-{i}@%h"]
            context = _process(command, env, log)
            processes.append((context, context.__enter__()))
        # every worker loads the embedding model before the clock starts: warm-up asks on a tiny dataset
        warm = [kg.submit_ask_batch(["who directed Quiet Harbour"], dataset="warm") for _ in range(2 * workers)]
        _wait_until(lambda: all(kg.job(j.id).state in {"succeeded", "failed"} for j in warm), 600, "warm-up", 0.2)
        time.sleep(1.0)
        started = time.perf_counter()
        kg.dispatcher.submit("kgsvc.build_index", dataset=dataset, store_version=None)
        _wait_until(lambda: kg.catalog.current_index_version(dataset) is not None, 7200, f"the {dataset} build", 0.2)
        seconds = time.perf_counter() - started
        rss = [_peak_rss_mb(p.pid) for _, p in processes]
    finally:
        for context, _ in reversed(processes):
            context.__exit__(None, None, None)
    row = kg.catalog.current_index_version(dataset)
    assert row is not None
    return {"workers": workers, "seconds": seconds, "metrics": dict(row.metrics), "worker_rss_mb": rss}


def _folder(kg: kgsvc.KG, dataset: str) -> Path:
    row = kg.catalog.current_index_version(dataset)
    assert row is not None and kg.catalog.index_dir is not None
    return kg.catalog.index_dir / dataset / f"v{row.version}"


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| workers | build s | vs 1 worker | labels / embedding / vectors / snapshot s | worker peak RSS (MB) |",
        "|---:|---:|---:|---|---|",
    ]
    for r in results:
        stages = " / ".join(f"{float(r['metrics'].get(f'{s}_s', 0)):.1f}" for s in STAGES)
        rss = ", ".join(f"{v:.0f}" for v in r["worker_rss_mb"])
        speedup = results[0]["seconds"] / r["seconds"]
        lines.append(f"| {r['workers']} | {r['seconds']:.1f} | {speedup:.2f}× | {stages} | {rss} |")
    return "\n".join(lines)


def same_output(first: Path, other: Path) -> str:
    """Whether two index versions hold the same node labels, embeddings and snapshot files."""
    same_labels = node_labels(other) == node_labels(first)
    delta = float(np.abs(node_label_vectors(other) - node_label_vectors(first)).max())
    differ = sorted(
        f.name for f in (first / "snapshot").iterdir() if f.read_bytes() != (other / "snapshot" / f.name).read_bytes()
    )
    differing = ", ".join(differ) or "none"
    return f"same node labels {same_labels}, embeddings max |Δ| {delta:.2e}, snapshot files that differ: {differing}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=int, default=1, help="MetaQA KB replicas")
    parser.add_argument("--source", type=Path, help="an RDF or triple file to build instead of the MetaQA replicas")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}, cpus: {os.cpu_count()}")
    binary = oxigraph_binary()
    with tempfile.TemporaryDirectory(prefix="kgsvc-workers-", dir=args.workdir) as tmp:
        workdir = Path(tmp)
        source = args.source or workdir / f"metaqa_x{args.scale}.tsv"
        if args.source is None:
            write_kb(source, args.scale)
        port = _free_port()
        broker = f"redis://127.0.0.1:6379/{args.redis_db}"
        env = {**distributed_env(workdir, port, broker), "MKL_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
        redis.Redis.from_url(broker).flushdb()
        oxigraph = [binary, "serve", "--location", str(workdir / "oxigraph"), "--bind", f"127.0.0.1:{port}"]
        with _process(oxigraph, env, workdir / "oxigraph.log"):
            _wait_until(lambda: _reachable(port), 30, "oxigraph serve")
            os.environ.update({k: v for k, v in env.items() if k.startswith("KGSVC_")})
            try:
                with kgsvc.KG.open() as kg:
                    kg.load(kgsvc.sample_path(), dataset="warm")
                    kg.build_index("warm")
                    for n in args.workers:
                        kg.load(source, dataset=f"w{n}")
                    triples = kg.stats(f"w{args.workers[0]}").triples
                    results = [_build_with(kg, env, workdir, f"w{n}", n) for n in args.workers]
                    print(f"\n{args.source or f'MetaQA KB ×{args.scale}'}: {triples:,} triples")
                    print(table(results))
                    folders = [_folder(kg, f"w{n}") for n in args.workers]
                    for n, other in zip(args.workers[1:], folders[1:], strict=True):
                        print(f"{n} workers vs {args.workers[0]}: {same_output(folders[0], other)}")
            finally:
                redis.Redis.from_url(broker).flushdb()
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
