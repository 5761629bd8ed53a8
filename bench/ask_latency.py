"""Warm ``KG.ask`` latency on the MetaQA KB (issues 16 and 23), and the answers, for comparing two checkouts.

Builds the MetaQA ×1 index once into ``--workdir`` (reused by later runs; ``--stand-in`` gives the node rows
seeded random unit vectors instead of MiniLM ones, as a build costs minutes: questions still use the real model),
then asks 60 "who directed <film>" and 20 other questions (actor → films, film → genre, writer → films →
directors, director → films → actors) over a seeded sample, and prints p50 / p95 per group as JSON; ``--answers``
writes every question's answer labels (compare two checkouts' files), ``--profile`` prints cProfile's top items.

    PYTHONPATH=/path/to/checkout .venv/bin/python bench/ask_latency.py --workdir /tmp/asklat [--stand-in]
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import json
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any


def _scale() -> Any:
    """bench/scale.py of this file's checkout (not of PYTHONPATH's): its KB writer, stand-in rows and percentile."""
    spec = importlib.util.spec_from_file_location("_scale", Path(__file__).with_name("scale.py"))
    assert spec is not None and spec.loader is not None
    scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scale)
    return scale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--stand-in", action="store_true", help="stand-in node rows for the first build")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--answers", type=Path, help="write the answer labels of every question here (JSON)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    import kgsvc
    from kgsvc.index.embed import Embedder
    from kgsvc.settings import Settings

    scale = _scale()
    if args.stand_in:
        scale._stand_in_rows()
    args.workdir.mkdir(parents=True, exist_ok=True)
    kb: list[tuple[str, str, str]] = scale.write_kb(args.workdir / "metaqa_x1.tsv", 1)
    Embedder().encode(["warm-up"])
    rng = random.Random(args.seed)
    films = sorted({h for h, r, _ in kb if r == "directed_by"})

    def tails(relation: str) -> list[str]:
        return sorted({t for _, r, t in kb if r == relation})

    groups = {
        "who directed": [f"who directed {f}" for f in rng.sample(films, 60)],
        "others": [f"what movies did {a} star in" for a in rng.sample(tails("starred_actors"), 5)]
        + [f"what genre is {f}" for f in rng.sample(films, 5)]
        + [f"who directed the movies written by {w}" for w in rng.sample(tails("written_by"), 5)]
        + [f"which actors starred in the films directed by {d}" for d in rng.sample(tails("directed_by"), 5)],
    }
    data = args.workdir / "data"
    fresh = not (data / "kgsvc.db").exists()
    with kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=False)) as kg:
        if fresh:
            kg.load(args.workdir / "metaqa_x1.tsv", dataset="kb")
            kg.build_index("kb")
        kg.ask("who directed Inception", dataset="kb")  # the label index and lexicon, outside the measurement
        profile = cProfile.Profile() if args.profile else None
        result: dict[str, Any] = {"kgsvc": str(Path(kgsvc.__file__).parents[1])}
        answers: dict[str, list[str]] = {}
        for name, questions in groups.items():
            seconds = []
            for question in questions:
                if profile is not None:
                    profile.enable()
                started = time.perf_counter()
                answer = kg.ask(question, dataset="kb")
                seconds.append(time.perf_counter() - started)
                if profile is not None:
                    profile.disable()
                answers[question] = [a.label for a in answer.answers]
            result[name] = {
                "p50_ms": round(1000 * scale._p(seconds, 0.5), 1),
                "p95_ms": round(1000 * scale._p(seconds, 0.95), 1),
            }
    if profile is not None:
        pstats.Stats(profile, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    if args.answers is not None:
        args.answers.write_text(json.dumps(answers, indent=1), encoding="utf-8")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
