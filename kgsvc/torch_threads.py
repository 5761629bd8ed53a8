"""The CPU threads torch uses in this process (``Settings.torch_threads``, ``KGSVC_TORCH_THREADS``).

:func:`configure` records the wanted count (``KG.open`` calls it) and applies it at once if torch is already imported;
otherwise the model loaders (:mod:`kgsvc.index.embed`, :mod:`kgsvc.llm.local`) call :func:`apply` after they import
torch, so that opening a KG does not import torch. The count is process-wide (the last ``configure`` wins), like
``torch.set_num_threads`` itself.

``None`` (the default) is :func:`auto_threads`: ``OMP_NUM_THREADS`` where the environment sets it (a count asked for
explicitly, which torch itself would honour), else half the cores this process may use, at least 1. torch's own default
is one thread per core, and its OpenMP threads spin-wait for cores that other processes hold: on the shared 2-core
development machine one thread embedded labels 3× faster and ran the LLM's choice 1.4× faster than two, while on an
idle 16-core machine 8 threads kept 80–100 % of 16 threads' speed and 1 thread lost 5× (``python bench/threads.py``,
docs/benchmarks.md, "Threads"). Half also leaves cores to the store, the HTTP server and concurrent requests.
Several kgsvc processes on one machine (Celery workers) each take half: set the count to cores / processes there.
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["apply", "auto_threads", "configure", "wanted"]

_LOCK = threading.Lock()
_wanted: int | None = None


def auto_threads() -> int:
    """``OMP_NUM_THREADS`` when it is a positive integer; else half the cores this process may run on
    (``os.sched_getaffinity``, else ``os.cpu_count``), at least 1."""
    omp = os.environ.get("OMP_NUM_THREADS", "").strip()
    if omp.isdigit() and int(omp) >= 1:
        return int(omp)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores // 2)


def wanted() -> int | None:
    """The configured count (``None`` until :func:`configure` is called)."""
    return _wanted


def configure(threads: int | None) -> None:
    """Use ``threads`` torch CPU threads in this process from now on (``None``: :func:`auto_threads`)."""
    global _wanted
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be >= 1 or None, got {threads}")
    with _LOCK:
        _wanted = auto_threads() if threads is None else threads
    if "torch" in sys.modules:
        apply()


def apply() -> None:
    """Set torch's intra-op threads to the configured count, if one is configured (imports torch)."""
    with _LOCK:
        threads = _wanted
        if threads is not None:
            import torch

            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)
