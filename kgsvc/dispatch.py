"""Running kgsvc's jobs asynchronously: in-process threads (embedded) or Celery over Redis (distributed).

A job is named (``kgsvc.ingest``, ``kgsvc.build_index``, ``kgsvc.ask_batch``) and takes only JSON-able ids
and options. The job functions themselves live in :mod:`kgsvc.jobs`; the Celery tasks in ``workers/`` are thin
wrappers with the same names, so both modes run the same code. kgsvc never imports ``workers``: the Celery
dispatcher sends tasks by name.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

__all__ = ["CeleryDispatcher", "Dispatcher", "InProcessDispatcher"]

log = logging.getLogger(__name__)


class Dispatcher(Protocol):
    """Where jobs run."""

    def submit(self, name: str, /, **kwargs: Any) -> str:
        """Queue job ``name`` with ``kwargs``; return a task id."""
        ...

    def wait(self, timeout: float | None = None) -> None:
        """Block until every job submitted so far, and every job they submit, has finished (in-process only; a
        no-op for Celery)."""
        ...

    def close(self) -> None: ...


class InProcessDispatcher:
    """Runs jobs on one background thread, in submission order (so changes to a dataset are serialised).

    Parameters
    ----------
    registry
        Job name → function taking the keyword arguments.
    """

    def __init__(self, registry: dict[str, Callable[..., Any]]) -> None:
        self._registry = registry
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgsvc-job")
        self._futures: list[Future[Any]] = []
        self._lock = threading.Lock()

    def submit(self, name: str, /, **kwargs: Any) -> str:
        function = self._registry[name]
        task_id = str(uuid.uuid4())

        def run() -> Any:
            try:
                return function(**kwargs)
            except Exception:
                log.exception("job %s %s failed", name, kwargs)
                raise

        with self._lock:
            self._futures = [f for f in self._futures if not f.done()]
            self._futures.append(self._pool.submit(run))
        return task_id

    def wait(self, timeout: float | None = None) -> None:
        """Block until the queue is empty: the jobs submitted so far and the jobs they submit (an ingest's
        event queues an index build). Raises ``TimeoutError`` after ``timeout`` seconds in all."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                pending = [f for f in self._futures if not f.done()]
            if not pending:
                return
            for future in pending:  # errors were logged and are on the job rows
                future.exception(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=False)


class CeleryDispatcher:
    """Sends jobs by name to Celery workers through the broker (``workers/`` registers the tasks)."""

    def __init__(self, broker_url: str, result_backend: str | None = None) -> None:
        from celery import Celery

        self._app = Celery("kgsvc-client", broker=broker_url, backend=result_backend or broker_url)

    def submit(self, name: str, /, **kwargs: Any) -> str:
        return str(self._app.send_task(name, kwargs=kwargs).id)

    def wait(self, timeout: float | None = None) -> None:
        return None

    def close(self) -> None:
        self._app.close()
