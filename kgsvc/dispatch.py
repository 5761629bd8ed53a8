"""Running kgsvc's jobs asynchronously: in-process threads (embedded) or Celery over Redis (distributed).

A job is named (``kgsvc.ingest``, ``kgsvc.build_index``, ``kgsvc.ask_batch``) and takes only JSON-able ids
and options. The job functions themselves live in :mod:`kgsvc.jobs`; the Celery tasks in ``workers/`` are thin
wrappers with the same names, so both modes run the same code. kgsvc never imports ``workers``: the Celery
dispatcher sends tasks by name.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol

from kgsvc import interrupt
from kgsvc.errors import Interrupted

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

    def stop(self, timeout: float | None = None) -> bool:
        """Drop the queued jobs and ask the running ones to stop (:mod:`kgsvc.interrupt`); wait up to ``timeout``
        seconds for them and return whether they stopped (in-process only; Celery workers stop themselves: True).
        """
        ...

    def close(self, *, wait: bool = True) -> None:
        """Release the dispatcher; ``wait=False``: do not wait for a job that did not stop."""
        ...


class InProcessDispatcher:
    """Runs jobs on one background thread, in submission order (so changes to a dataset are serialised).

    The thread is a daemon, so a job that ignores :meth:`stop` (stuck in code with no stop check, such as loading a
    model) does not keep the process alive once :meth:`close` gave up on it; the next open of the data dir
    recovers what it left (:mod:`kgsvc.recovery`). Unless :meth:`stop` was called, the queued jobs still run to
    the end when the interpreter exits without :meth:`close` (an ``atexit`` hook waits for them).

    Parameters
    ----------
    registry
        Job name → function taking the keyword arguments.
    stop_event
        Set by :meth:`stop`; the running job sees it through :func:`kgsvc.interrupt.check`.
    """

    def __init__(self, registry: dict[str, Callable[..., Any]], *, stop_event: threading.Event | None = None) -> None:
        self._registry = registry
        self._stop = stop_event or threading.Event()
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._futures: list[Future[Any]] = []
        self._lock = threading.Lock()
        atexit.register(self._finish_at_exit)

    def _finish_at_exit(self) -> None:
        if not self._stop.is_set():
            self.wait()

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            future, run = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(run())
            except BaseException as exc:  # kept on the future; wait() reads it
                future.set_exception(exc)

    def submit(self, name: str, /, **kwargs: Any) -> str:
        function = self._registry[name]
        task_id = str(uuid.uuid4())

        def run() -> Any:
            if self._stop.is_set():
                log.info("job %s %s not started: stopping", name, kwargs)
                return None
            try:
                with interrupt.bound(self._stop):
                    return function(**kwargs)
            except Interrupted as exc:
                log.info("job %s %s interrupted: %s", name, kwargs, exc)
                raise
            except Exception:
                log.exception("job %s %s failed", name, kwargs)
                raise

        future: Future[Any] = Future()
        with self._lock:
            self._futures = [f for f in self._futures if not f.done()]
            self._futures.append(future)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="kgsvc-job", daemon=True)
                self._thread.start()
            self._queue.put((future, run))
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

    def stop(self, timeout: float | None = None) -> bool:
        """Drop the queued jobs and ask the running one to stop; return whether it stopped within ``timeout``."""
        self._stop.set()
        with self._lock:
            running = [f for f in self._futures if not f.cancel() and not f.done()]
        try:
            for future in running:
                future.exception(timeout=timeout)
        except TimeoutError:
            log.warning("a job is still running %s s after it was asked to stop", timeout)
            return False
        return True

    def close(self, *, wait: bool = True) -> None:
        """End the job thread after the queued jobs; ``wait=False``: do not wait for it (a job that ignored
        :meth:`stop`)."""
        atexit.unregister(self._finish_at_exit)
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            if wait:
                thread.join()


class CeleryDispatcher:
    """Sends jobs by name to Celery workers through the broker (``workers/`` registers the tasks)."""

    def __init__(self, broker_url: str, result_backend: str | None = None) -> None:
        from celery import Celery

        self._app = Celery("kgsvc-client", broker=broker_url, backend=result_backend or broker_url)

    def submit(self, name: str, /, **kwargs: Any) -> str:
        return str(self._app.send_task(name, kwargs=kwargs).id)

    def wait(self, timeout: float | None = None) -> None:
        return None

    def stop(self, timeout: float | None = None) -> bool:
        return True

    def close(self, *, wait: bool = True) -> None:
        self._app.close()
