"""Resumable, shareable embedding chunks (kgsvc.index.chunks): a build killed mid-embedding resumes from the chunks
it persisted and publishes the same version as an uninterrupted build; two workers share one plan."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import kgsvc
from kgsvc import jobs
from kgsvc.index import chunks
from kgsvc.index.build import EMBEDDING_FOLDER
from kgsvc.index.embed import Embedder
from kgsvc.index.vectors import NODE_LABELS
from kgsvc.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
CHUNK_FILE = re.compile(r"^\d+\.npy$")

# Builds the sample's index with 4 texts a chunk and kills itself (SIGKILL) once 3 chunks are on disk: a real kill
# in the middle of the embedding stage.
KILLED_BUILD = """
import os, re, signal, sys, threading, time
from pathlib import Path
import kgsvc
from kgsvc import jobs
from kgsvc.index import chunks
from kgsvc.index.build import build_index
from kgsvc.settings import Settings

chunks.CHUNK_TEXTS = 4
kg = kgsvc.KG.open(settings=Settings(data_dir=Path(sys.argv[1]), auto_index=False))

def helpers(plan):
    def watch():
        while sum(1 for p in plan.iterdir() if re.match(r"^\\d+\\.npy$", p.name)) < 3:
            time.sleep(0.001)
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=watch, daemon=True).start()

build_index(kg.store, kg.catalog, kg.settings, "sample", helpers=helpers)
print("not killed")
"""


def _load_sample(data: Path) -> None:
    with kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=False)) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")


def test_killed_build_resumes_from_its_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    _load_sample(data)
    run = subprocess.run(
        [sys.executable, "-c", KILLED_BUILD, str(data)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == -9, run.stdout + run.stderr
    (plan,) = (data / "indexes" / "sample" / EMBEDDING_FOLDER).iterdir()
    done = sum(1 for p in plan.iterdir() if CHUNK_FILE.match(p.name))
    assert done >= 3

    monkeypatch.setattr(chunks, "CHUNK_TEXTS", 4)  # the uninterrupted reference chunks the same way
    with kgsvc.KG.open(settings=Settings(data_dir=data, auto_index=False)) as kg:
        version = kg.build_index("sample")
        assert version is not None
        rows = {v.version: v for v in kg.catalog.index_versions("sample")}
        metrics = rows[version].metrics
        assert metrics["reused_chunks"] >= done and metrics["embedded_chunks"] > 0
        assert metrics["reused_chunks"] + metrics["embedded_chunks"] == metrics["chunks"]
        assert not (data / "indexes" / "sample" / EMBEDDING_FOLDER).exists()  # plans go once the version is done
        with kgsvc.KG.open(settings=Settings(data_dir=tmp_path / "fresh", auto_index=False)) as fresh:
            fresh.load(kgsvc.sample_path(), dataset="sample")
            fresh.build_index("sample")
            resumed, reference = kg.index("sample"), fresh.index("sample")
            assert list(resumed.node_texts) == list(reference.node_texts)
            np.testing.assert_allclose(
                resumed.text_vectors(NODE_LABELS), reference.text_vectors(NODE_LABELS), atol=1e-6
            )
            for name in ("indptr", "neighbors", "relations", "triple_heads", "triple_tails"):
                np.testing.assert_array_equal(getattr(resumed.snapshot, name), getattr(reference.snapshot, name))
            assert resumed.vectors.count(NODE_LABELS) == len(resumed.node_texts)


def test_two_workers_share_a_plan_and_embed_each_chunk_once(tmp_path: Path) -> None:
    embedder = Embedder()
    texts = [f"film number {i}" for i in range(40)]
    folder = chunks.plan_folder(tmp_path, embedder.model_path, texts)
    chunks.write_plan(folder, embedder.model_path, texts, 3)
    counts: list[int] = []
    workers = [
        threading.Thread(target=lambda: counts.append(chunks.work_on_plan(folder, embedder, wait=True)))
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sum(counts) == 14  # ceil(40 / 3) chunks, each embedded by exactly one worker
    rows, report = chunks.embed_planned(embedder, texts, tmp_path)
    assert report == {"chunks": 14, "reused_chunks": 14, "embedded_chunks": 0}
    np.testing.assert_allclose(rows, embedder.encode(texts), atol=1e-6)
    with pytest.raises(FileNotFoundError):
        chunks.work_on_plan(tmp_path / "no-such-plan")


def test_the_build_job_reports_progress_by_stage_and_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``build_index`` job row moves from 0 to 1 through the stages and the embedded chunks, never back."""
    monkeypatch.setattr(chunks, "CHUNK_TEXTS", 8)
    seen: list[float] = []
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path / "data", auto_index=False)) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        update_job = kg.catalog.update_job

        def spy(job_id: str, **fields: object) -> None:
            if "progress" in fields and kg.catalog.job(job_id).kind == "build_index":
                seen.append(float(fields["progress"]))  # type: ignore[arg-type]
            update_job(job_id, **fields)

        monkeypatch.setattr(kg.catalog, "update_job", spy)
        version = jobs.build_index(kg, dataset="sample")
        assert version is not None
        (job,) = [j for j in kg.jobs(dataset="sample") if j.kind == "build_index"]
        assert job.state == "succeeded" and job.progress == 1.0
    chunk_steps = [p for p in seen if 0.1 < p < 0.9]
    assert len(chunk_steps) >= 3, seen  # inside the embedding stage: one step per chunk of 8 texts
    assert seen == sorted(seen) and seen[0] <= 0.1 and seen[-1] == 1.0, seen


def test_chunks_are_written_one_by_one_into_a_row_file_equal_to_the_rows_in_memory(tmp_path: Path) -> None:
    """The build's path (kgsvc.index.rows): each chunk's rows go to a file as they come, never all in memory."""
    from kgsvc.index.rows import create_rows, iter_rows, write_rows

    embedder = Embedder()
    texts = [f"actor number {i}" for i in range(23)]
    target = tmp_path / "vectors.npy"
    create_rows(target, 30, embedder.dimension)
    at = np.arange(30)[::-1][: len(texts)]  # scattered, descending positions: rows land where they are told
    calls: list[tuple[int, int]] = []

    def into(start: int, rows: np.ndarray) -> None:
        calls.append((start, rows.shape[0]))
        write_rows(target, at[start : start + rows.shape[0]], rows)

    report = chunks.embed_planned_into(embedder, texts, tmp_path / "plans", into, chunk=5)
    assert report == {"chunks": 5, "reused_chunks": 0, "embedded_chunks": 5}
    assert calls == [(0, 5), (5, 5), (10, 5), (15, 5), (20, 3)]  # one call per chunk, in order
    written = np.concatenate([rows for _, rows in iter_rows(target, batch=7)])
    in_memory, _ = chunks.embed_planned(embedder, texts, tmp_path / "plans", chunk=5)  # same plan: reused
    np.testing.assert_array_equal(written[at], in_memory)
    np.testing.assert_array_equal(np.delete(written, at, axis=0), 0)  # the rest stays zero
    np.testing.assert_allclose(in_memory, embedder.encode(texts), atol=1e-6)


def test_a_helper_job_embeds_on_its_worker_s_device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kgsvc.embed_chunks`` (a build's helper, in any worker) loads the plan's model on the worker's
    ``embedding_device`` (``KGSVC_EMBEDDING_DEVICE``): a GPU worker embeds there; here ``auto`` is the CPU, and a
    device this machine lacks fails the helper with what to set instead, leaving the plan to the others."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: auto would not be the CPU")
    texts = [f"director number {i}" for i in range(10)]
    embedder = Embedder()
    plan = chunks.plan_folder(tmp_path / "plans", embedder.model_path, texts)
    chunks.write_plan(plan, embedder.model_path, texts, 4)
    devices: list[str] = []
    real = Embedder

    def spy(model: str, *, device: str = "cpu") -> Embedder:
        devices.append(device)
        return real(model, device=device)

    monkeypatch.setattr(chunks, "Embedder", spy)
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path / "gpu", auto_index=False, embedding_device="cuda")) as kg:
        with pytest.raises(kgsvc.IndexError_, match="KGSVC_EMBEDDING_DEVICE"):
            jobs.embed_chunks(kg, plan=str(plan))
    assert not any(p.suffix == ".npy" for p in plan.iterdir())  # nothing written, no lock left behind
    assert not any(p.suffix == ".lock" for p in plan.iterdir())
    with kgsvc.KG.open(settings=Settings(data_dir=tmp_path / "auto", auto_index=False, embedding_device="auto")) as kg:
        assert jobs.embed_chunks(kg, plan=str(plan)) == 3
    assert devices == ["cuda", "auto"]
    rows, report = chunks.embed_planned(embedder, texts, tmp_path / "plans")
    assert report == {"chunks": 3, "reused_chunks": 3, "embedded_chunks": 0}
    np.testing.assert_array_equal(rows, embedder.encode(texts, cache=False))
