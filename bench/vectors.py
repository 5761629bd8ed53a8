"""Label embedding throughput of :class:`kgsvc.index.embed.Embedder` on real MetaQA labels, before/after, one run.

``python bench/vectors.py embed [--texts 3000] [--busy 0]`` embeds ``--texts`` distinct MetaQA entity names
(``kgsvc.eval.data.metaqa_kb``, a fixed random sample) with

* **before**: the previous Embedder call (batch 256, ``max_seq_length`` 256, torch's default threads);
* **after**: the current :class:`Embedder` defaults (batch 128, ``MAX_SEQ_LENGTH``);
* both again with ``torch.set_num_threads(1)``;

alternating, ``--rounds`` times each (best shown), the process cache cleared before every run. ``--busy N`` runs
N busy-loop processes meanwhile, to show a shared machine (load average is printed). HNSW recall (issue 3,
item 5c) is not measured here yet.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time

import torch

from kgsvc.eval.data import metaqa_kb
from kgsvc.index import embed
from kgsvc.index.embed import Embedder


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("embed", help="label embedding throughput, before/after")
    p.add_argument("--texts", type=int, default=3000)
    p.add_argument("--rounds", type=int, default=2, help="runs per configuration (best shown)")
    p.add_argument("--busy", type=int, default=0, help="busy-loop processes to run meanwhile")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    bench_embed(args.texts, args.busy, args.rounds)


if __name__ == "__main__":
    main()
