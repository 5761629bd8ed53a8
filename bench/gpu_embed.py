"""The label embedder on a GPU beside the CPU (issue 23: a build's chunks embedded by "a GPU worker if one is
present"; ``KGSVC_EMBEDDING_DEVICE``, docs/scale.md "A GPU worker").

    python bench/gpu_embed.py --texts texts.json [--model DIR] [--repeat 16] [--json out.json]

``--texts``: a JSON list of texts (e.g. an index version's distinct node texts); ``--model``: a sentence-transformers
folder (default: the bundled all-MiniLM-L6-v2). In one process:

1. :class:`~kgsvc.index.embed.Embedder` on ``cpu`` and on ``cuda`` (batches of 128 and 1,024) embed the texts: texts
   per second, and how far the GPU's rows are from the CPU's (largest absolute difference, smallest cosine, and the
   share of 200 rows whose 10 nearest rows are the same set);
2. ``--repeat K``: the texts K times over (each copy made distinct), on ``cuda`` only (a large graph's embedding);
3. a plan of chunks (:mod:`kgsvc.index.chunks`) worked by a CPU and a GPU "worker" at once (two threads, each
   :func:`~kgsvc.index.chunks.work_on_plan` with its own device, as two Celery workers would): how many chunks each
   took, and the assembled rows against the CPU's.

It prints a table (and ``--json``). Without a GPU it says so and stops after the CPU row.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from kgsvc.index.chunks import plan_folder, work_on_plan, write_plan
from kgsvc.index.embed import Embedder


def _timed(embedder: Embedder, texts: list[str]) -> tuple[np.ndarray, float]:
    import torch

    embedder.encode(texts[:256], cache=False)  # the model loads and warms outside the clock
    if embedder.device != "cpu":
        torch.cuda.synchronize()
    started = time.perf_counter()
    rows = embedder.encode(texts, cache=False)
    if embedder.device != "cpu":
        torch.cuda.synchronize()
    return rows, time.perf_counter() - started


def _agreement(reference: np.ndarray, rows: np.ndarray, sample: int = 200, k: int = 10) -> dict[str, float]:
    """How far ``rows`` are from ``reference`` (same texts, unit rows)."""
    picked = np.linspace(0, reference.shape[0] - 1, min(sample, reference.shape[0])).astype(np.int64)
    same = 0
    for i in picked.tolist():
        a = set(np.argsort(-(reference @ reference[i]), kind="stable")[:k].tolist())
        b = set(np.argsort(-(rows @ rows[i]), kind="stable")[:k].tolist())
        same += a == b
    return {
        "max_abs_diff": float(np.abs(reference - rows).max()),
        "min_cosine": float(np.min(np.sum(reference * rows, axis=1))),
        "same_top10": same / len(picked),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=Path, required=True)
    parser.add_argument("--model", type=Path)
    parser.add_argument("--repeat", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=4096)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    import torch

    texts: list[str] = json.loads(args.texts.read_text(encoding="utf-8"))
    result: dict[str, Any] = {
        "texts": len(texts),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
    }
    rows = {}
    table = [("device", "batch", "texts", "s", "texts/s", "max |Δ| vs cpu", "min cosine", "same top-10")]
    cpu, seconds = _timed(Embedder(args.model, device="cpu"), texts)
    table.append(("cpu", 128, len(texts), f"{seconds:.2f}", f"{len(texts) / seconds:,.0f}", "", "", ""))
    if torch.cuda.is_available():
        for batch in (128, 1024):
            rows[batch], seconds = _timed(Embedder(args.model, device="cuda", batch_size=batch), texts)
            far = _agreement(cpu, rows[batch])
            table.append(
                (
                    "cuda",
                    batch,
                    len(texts),
                    f"{seconds:.2f}",
                    f"{len(texts) / seconds:,.0f}",
                    f"{far['max_abs_diff']:.2e}",
                    f"{far['min_cosine']:.6f}",
                    f"{far['same_top10']:.3f}",
                )
            )
            result[f"cuda_{batch}"] = {"seconds": seconds, **far}
        if args.repeat > 1:
            many = [f"{t} ~{r}" for r in range(args.repeat) for t in texts]
            _, seconds = _timed(Embedder(args.model, device="cuda", batch_size=1024), many)
            table.append(("cuda", 1024, len(many), f"{seconds:.2f}", f"{len(many) / seconds:,.0f}", "", "", ""))
            result["cuda_repeat"] = {"texts": len(many), "seconds": seconds}
        with tempfile.TemporaryDirectory() as tmp:
            workers = {"cpu": Embedder(args.model, device="cpu"), "cuda": Embedder(args.model, device="cuda")}
            folder = plan_folder(Path(tmp), workers["cpu"].model_path, texts)
            write_plan(folder, workers["cpu"].model_path, texts, args.chunk)
            done: dict[str, int] = {}

            def work(device: str) -> None:
                done[device] = work_on_plan(folder, workers[device], wait=True)

            threads = [threading.Thread(target=work, args=(device,)) for device in workers]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            chunks = (len(texts) + args.chunk - 1) // args.chunk
            planned = np.concatenate([np.load(folder / f"{i}.npy") for i in range(chunks)])
            far = _agreement(cpu, planned)
            result["plan"] = {"chunks": chunks, "by_device": done, **far}
            table.append(
                (
                    f"plan: cpu {done['cpu']} + cuda {done['cuda']} chunks",
                    128,
                    len(texts),
                    "",
                    "",
                    f"{far['max_abs_diff']:.2e}",
                    f"{far['min_cosine']:.6f}",
                    f"{far['same_top10']:.3f}",
                )
            )
    else:
        print("torch sees no GPU here: only the CPU row")
    for line in table:
        print(" | ".join(str(cell) for cell in line))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
