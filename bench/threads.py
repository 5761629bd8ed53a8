"""Torch CPU threads: one versus torch's default (one per core), for questions and for index builds, in one run.

``python bench/threads.py [--rounds 2] [--repeat 3] [--askers 1,3] [--texts 5000]``

The bundled sample (``kgsvc.sample_path()``) is loaded and indexed once into a temporary data dir. Then every
configuration runs in a fresh subprocess (the thread count is set before torch does any work, through the product's
setting ``KGSVC_TORCH_THREADS``: ``--threads`` values, default 1 and the core count, which is torch's own default;
``auto`` leaves it unset, half the cores), the configurations alternating ``--rounds`` times so that they share the
machine's noise:

* **ask**: ``KG.open`` + ``KG.preload``, then the bundled sample questions (``kgsvc/samples/questions.txt``), each
  ``--repeat`` times, asked by N concurrent threads (``--askers``) as ``kgsvc serve`` would answer concurrent
  requests; latency of every ask (p50 / p95). Two question paths: the default (``grounded``: MiniLM embeds the
  question, no LLM) and ``llm_choice=True`` (the bundled SmolLM2 picks among the top 3 candidates by constrained
  choice, ``kgsvc.qa.pipeline``; an ask with one candidate skips it). The LLM is warmed with one ask first. The
  process's embedding cache is cleared before every ask, so that each embeds its question and candidates as a new
  question does (a repeated question would find them cached).
* **embed**: ``Embedder().encode`` of ``--texts`` distinct labels (MetaQA entity names when ``KGSVC_EVAL_DATA``
  holds MetaQA, else the sample's labels with a counter), what an index build does, as texts per second.

The load average is printed per run and at the end; the table is for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import kgsvc
from kgsvc.samples import sample_questions

__all__ = ["main"]

DEFAULT_MODELS = Path(tempfile.gettempdir()) / "kgsvc-test-models"  # the tests' converted LLM, reused if there


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _child_ask(data_dir: Path, askers: int, repeat: int, llm: bool) -> dict[str, Any]:
    import torch

    from kgsvc.index import embed

    options: dict[str, Any] = {"llm_choice": True} if llm else {}
    questions = [q for q, _ in sample_questions()] * repeat
    with kgsvc.KG.open(data_dir) as kg:
        kg.preload()
        kg.ask(questions[0], dataset="sample", **options)  # loads the LLM with llm_choice

        def one(question: str) -> float:
            with embed._LOCK:  # every ask embeds its question and candidates, as a new question does
                embed._CACHES.clear()
            started = time.perf_counter()
            kg.ask(question, dataset="sample", **options)
            return time.perf_counter() - started

        started = time.perf_counter()
        with ThreadPoolExecutor(askers) as pool:
            seconds = list(pool.map(one, questions))
        wall = time.perf_counter() - started
    return {"threads": torch.get_num_threads(), "seconds": seconds, "wall": wall}


def _labels(count: int) -> list[str]:
    try:
        from kgsvc.eval.data import metaqa_kb

        kb = metaqa_kb()
        names = sorted({h for h, _, _ in kb} | {t for _, _, t in kb})
        return random.Random(0).sample(names, count)
    except (OSError, KeyError, ValueError):  # no MetaQA data here
        text = kgsvc.sample_path().read_text(encoding="utf-8")
        base = sorted({line.split('"')[1] for line in text.splitlines() if line.count('"') >= 2})
        return [f"{base[i % len(base)]} {i}" for i in range(count)]


def _child_embed(count: int) -> dict[str, Any]:
    import torch

    from kgsvc import torch_threads
    from kgsvc.index.embed import Embedder
    from kgsvc.settings import Settings

    torch_threads.configure(Settings().torch_threads)  # what KG.open does
    texts = _labels(count)
    Embedder().encode(["warm up"])
    started = time.perf_counter()
    Embedder().encode(texts)
    seconds = time.perf_counter() - started
    return {"threads": torch.get_num_threads(), "rate": len(texts) / seconds}


def _run_child(args: list[str], threads: str) -> dict[str, Any]:
    env = {**os.environ, "KGSVC_AUTO_INDEX": "false"}
    env.pop("KGSVC_TORCH_THREADS", None)
    if threads != "auto":
        env["KGSVC_TORCH_THREADS"] = threads
    env.setdefault("KGSVC_MODEL_CACHE_DIR", str(DEFAULT_MODELS))
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="times each sample question is asked per run")
    parser.add_argument("--askers", default="1,3", help="concurrent askers, comma-separated")
    parser.add_argument("--texts", type=int, default=5000)
    parser.add_argument(
        "--threads", default=f"1,{os.cpu_count()}", help="KGSVC_TORCH_THREADS values; auto: unset (half the cores)"
    )
    parser.add_argument("--only", default="", help="run only the workloads whose name contains this")
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        kind, *rest = args.child
        if kind == "ask":
            out = _child_ask(Path(rest[0]), int(rest[1]), int(rest[2]), rest[3] == "llm")
        else:
            out = _child_embed(int(rest[0]))
        print(json.dumps(out))
        return

    askers = [int(a) for a in args.askers.split(",")]
    thread_values = args.threads.split(",")
    with tempfile.TemporaryDirectory(prefix="kgsvc-threads-") as tmp:
        data_dir = Path(tmp) / "data"
        with kgsvc.KG.open(data_dir) as kg:
            kg.load(kgsvc.sample_path(), dataset="sample")
            kg.build_index("sample")
        workloads: list[tuple[str, list[str]]] = []
        for path in ("grounded", "llm"):
            for n in askers:
                workloads.append(
                    (
                        f"ask {path}, {n} asker{'s' if n > 1 else ''}",
                        ["ask", str(data_dir), str(n), str(args.repeat), path],
                    )
                )
        workloads.append((f"embed {args.texts} labels", ["embed", str(args.texts)]))
        workloads = [w for w in workloads if args.only in w[0]]
        seconds: dict[tuple[str, str], list[float]] = {}
        rates: dict[tuple[str, str], list[float]] = {}
        actual: dict[str, int] = {}
        loads = []
        for round_ in range(args.rounds):
            for name, child in workloads:
                for threads in thread_values if round_ % 2 == 0 else thread_values[::-1]:
                    out = _run_child(child, threads)
                    actual[threads] = out["threads"]
                    loads.append(os.getloadavg()[0])
                    if "rate" in out:
                        rates.setdefault((name, threads), []).append(out["rate"])
                        shown = f"{out['rate']:,.0f} texts/s"
                    else:
                        seconds.setdefault((name, threads), []).extend(out["seconds"])
                        rates.setdefault((name, threads), []).append(len(out["seconds"]) / out["wall"])
                        shown = f"p50 {statistics.median(out['seconds']):.3f} s, {rates[name, threads][-1]:.1f} asks/s"
                    print(
                        f"  round {round_ + 1} {name}, torch threads {out['threads']}: {shown} (load {loads[-1]:.2f})"
                    )

    print(f"\n{os.cpu_count()} CPUs; load average during the run {min(loads):.2f}–{max(loads):.2f}")
    labels = {t: f"{actual[t]} ({'unset: auto' if t == 'auto' else 'KGSVC_TORCH_THREADS=' + t})" for t in thread_values}
    print("| workload | torch threads | p50 s | p95 s | asks/s or texts/s (each run) |\n|---|---|---:|---:|---|")
    for name, _ in workloads:
        for threads in thread_values:
            each = ", ".join(f"{r:,.1f}" if r < 100 else f"{r:,.0f}" for r in rates[name, threads])
            values = seconds.get((name, threads))
            p50 = f"{_percentile(values, 0.5):.3f}" if values else ""
            p95 = f"{_percentile(values, 0.95):.3f}" if values else ""
            print(f"| {name} | {labels[threads]} | {p50} | {p95} | {each} |")


if __name__ == "__main__":
    main()
