"""``KGSVC_TORCH_THREADS`` reaches torch: real subprocesses (the count is process-wide), the real embedding model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kgsvc import torch_threads
from kgsvc.settings import Settings

SCRIPT = """
import json, sys, threading
import kgsvc
from kgsvc.index.embed import Embedder

with kgsvc.KG.open(sys.argv[1]) as kg:
    imported_at_open = "torch" in sys.modules
    Embedder(kg.settings.embedding_model).encode(["a label"])
    import torch

    seen = []
    worker = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))  # as a server's request thread
    worker.start()
    worker.join()
    print(json.dumps({"imported_at_open": imported_at_open, "main": torch.get_num_threads(), "thread": seen[0]}))
"""


def _run(script: str, tmp_path: Path, threads: str | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("KGSVC_TORCH_THREADS", "OMP_NUM_THREADS")}
    if threads is not None:
        env["KGSVC_TORCH_THREADS"] = threads
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "data")], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("threads", [1, 3])
def test_the_setting_reaches_torch_after_open_without_importing_it_early(tmp_path: Path, threads: int) -> None:
    seen = _run(SCRIPT, tmp_path, str(threads))
    assert seen == {"imported_at_open": False, "main": threads, "thread": threads}


def test_unset_is_half_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    cores = len(os.sched_getaffinity(0))
    assert torch_threads.auto_threads() == max(1, cores // 2)
    assert Settings.model_fields["torch_threads"].default is None


@pytest.mark.parametrize("omp", ["1", "3"])
def test_unset_follows_an_explicit_omp_num_threads(monkeypatch: pytest.MonkeyPatch, omp: str) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", omp)
    assert torch_threads.auto_threads() == int(omp)
    monkeypatch.setenv("OMP_NUM_THREADS", "not a count")
    assert torch_threads.auto_threads() == max(1, len(os.sched_getaffinity(0)) // 2)


def test_unset_reaches_torch_as_auto(tmp_path: Path) -> None:
    assert _run(SCRIPT, tmp_path, None)["main"] == torch_threads.auto_threads()


def test_bad_counts_are_rejected() -> None:
    with pytest.raises(ValueError, match=">= 1"):
        torch_threads.configure(0)
    with pytest.raises(ValueError, match="torch_threads"):
        Settings(torch_threads=0)
