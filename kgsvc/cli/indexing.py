"""Waiting for a dataset's index after a change, with a live progress line (``kgsvc load``, ``kgsvc index``).

Embedded, the index build runs on this process's job thread (:class:`kgsvc.dispatch.InProcessDispatcher`);
beside a server, the server builds it and the command polls ``GET /datasets/NAME`` and ``GET /jobs``. Either way
the line shows the running job (``build_index``, then ``train_gnn`` when ``KGSVC_GNN_TRAIN`` is on), its progress
and the time spent.
"""

from __future__ import annotations

import time

from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TimeElapsedColumn

from kgsvc.cli._app import Service, console, fail
from kgsvc.db.models import JobState
from kgsvc.schemas import IndexVersionInfo, JobInfo
from kgsvc.sdk import KG

__all__ = ["POLL_S", "wait_for_index"]

#: Seconds between two looks at the jobs.
POLL_S = 0.25

_WHAT = {"build_index": "indexing", "train_gnn": "training the GNN of", "ingest": "loading"}


def _running(jobs: list[JobInfo]) -> JobInfo | None:
    """The oldest unfinished index or GNN job of the list (newest first, as ``jobs`` answers)."""
    for job in reversed(jobs):
        if job.kind in ("build_index", "train_gnn") and job.state not in JobState.FINISHED:
            return job
    return None


def _covering(versions: list[IndexVersionInfo], store_version: int) -> IndexVersionInfo | None:
    """The newest version built for ``store_version`` or later that is complete or failed (``None``: none yet)."""
    done = [v for v in versions if v.store_version >= store_version and v.state in ("complete", "failed")]
    return max(done, key=lambda v: v.version) if done else None


def wait_for_index(service: Service, dataset: str, store_version: int) -> None:
    """Wait until ``dataset`` has an index version for ``store_version`` (or later), showing a progress line.

    Prints ``indexed DATASET: index vN (S s)``; a failed build ends the command with its error (exit code 1).
    """
    started = time.monotonic()
    with Progress(
        SpinnerColumn(),
        "[progress.description]{task.description}",
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task(f"indexing {dataset}", total=1.0)
        while True:
            if isinstance(service, KG):
                try:
                    service.wait(POLL_S)  # the job thread: the index build and the jobs it queues
                    finished = True
                except TimeoutError:
                    finished = False
            else:
                version = _covering(service.stats(dataset).index_versions, store_version)
                finished = version is not None and _running(service.jobs(dataset=dataset)) is None
                if not finished:
                    time.sleep(POLL_S)
            if finished:
                break
            job = _running(service.jobs(dataset=dataset))
            if job is not None:
                bar.update(task, description=f"{_WHAT.get(job.kind, job.kind)} {dataset}", completed=job.progress)
    version = _covering(service.stats(dataset).index_versions, store_version)
    if version is None:
        raise fail(f"dataset {dataset!r} has no index for its data yet (`kgsvc jobs` shows why)")
    if version.state == "failed":
        raise fail(f"the index build of {dataset!r} failed: {version.error}")
    console.print(
        f"indexed [bold]{dataset}[/]: index v{version.version} ({time.monotonic() - started:.1f} s)", highlight=False
    )
