"""Measure the local backend: first load (conversion) and later load, choose() over 10 options, a small JSON.

Run: ``.venv/bin/python -m tests.llm.bench_llm`` (converts into a fresh temporary cache, so it is slow).
Not collected by pytest (no ``test_`` prefix).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, Field

from kgsvc.errors import LLMError
from kgsvc.llm.local import TransformersLLM
from kgsvc.settings import Settings

CITIES = ["Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Vienna", "Warsaw", "Prague", "Oslo", "Dublin"]


class Verdict(BaseModel):
    answer: str = Field(max_length=12)
    confident: bool


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", model_cache_dir=Path(tmp) / "models")
        started = time.perf_counter()
        TransformersLLM.open(settings)
        print(f"first open (GGUF -> safetensors conversion + load): {time.perf_counter() - started:.2f} s")
        loads = []
        for _ in range(3):
            started = time.perf_counter()
            llm = TransformersLLM.open(settings)
            loads.append(time.perf_counter() - started)
        print(f"later open: median {statistics.median(loads):.2f} s of {[round(x, 2) for x in loads]}")
        started = time.perf_counter()
        llm.choose("warm-up", ["a", "b"])
        print(f"first constrained call (builds llguidance's token trie): {time.perf_counter() - started:.2f} s")
        times = []
        for country in ["France", "Italy", "Norway", "Ireland", "Spain"]:
            started = time.perf_counter()
            index = llm.choose(f"What is the capital of {country}? Answer with one of: {', '.join(CITIES)}", CITIES)
            times.append(time.perf_counter() - started)
            print(f"  {country}: {CITIES[index]}")
        print(f"choose over 10 options: median {statistics.median(times):.2f} s of {[round(x, 2) for x in times]}")
        times = []
        for question in ["Is Paris in France?", "Is the sea salty?", "Is Oslo in Spain?"]:
            started = time.perf_counter()
            try:
                value = llm.generate_json(question + " Answer as JSON.", Verdict, max_tokens=48)
            except LLMError as error:  # counted: a weak model may run out of tokens inside a string
                value = f"LLMError: {error} raw={error.raw!r}"
            times.append(time.perf_counter() - started)
            print(f"  {value!r}")
        print(f"generate_json (2 fields): median {statistics.median(times):.2f} s of {[round(x, 2) for x in times]}")
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
