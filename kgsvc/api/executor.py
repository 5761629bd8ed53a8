"""Running endpoint queries so that one past ``query_timeout_s`` is really stopped.

pyoxigraph cannot cancel a query. Two executors:

:class:`ProcessExecutor` (an on-disk embedded store, the default)
    A pool of worker processes (:mod:`kgsvc.api.worker`, one per CPU, at least 2) answers queries from a
    read-only **snapshot** of the store: a RocksDB checkpoint (hard links, ~30 ms) in
    ``<data_dir>/endpoint-snapshots/``. A query past its deadline is stopped by killing its worker
    (``SIGKILL``); a fresh worker takes its place. This stops everything, including ``ORDER BY``/``COUNT``
    over a huge join. Snapshots follow the data: every write made through the API, and every dataset-changed
    event (:meth:`KG.on_change`), marks the snapshot stale, and the next query takes a new one, so a query sent
    after a write's response sees the write. Writes that bypass both (code that writes ``kg.store``
    directly) are seen after the next change.

:class:`ThreadExecutor` (in-memory or remote stores, which cannot be snapshotted)
    Queries run in a bounded thread pool. The deadline is checked every ~8 KiB of output
    (:mod:`kgsvc.api.results`): a query that is producing rows is stopped there. A query stuck in a blocking
    operator cannot be stopped: the client gets its 503 at the deadline, but the thread runs on to the end,
    holding one of the pool's threads (a remote store's own timeout, e.g. ``oxigraph serve --timeout-s``,
    stops it there).

In both, waiting for a free worker counts against the query's deadline.

Single-pattern lookups (``SELECT ?o WHERE { <e> <r> ?o }``) do not come here when the store is embedded: their
cost is bounded by the bytes they write, so the endpoint answers them inline from :attr:`Executor.inline`
(:mod:`kgsvc.api.lookup`), reading the live store, and saves the round trip to a worker.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kgsvc.api.frames import HEADER
from kgsvc.api.results import QueryJob, run_query
from kgsvc.errors import QueryError, StoreError
from kgsvc.store import EmbeddedStore, Store

__all__ = ["Executor", "ProcessExecutor", "ThreadExecutor", "make_executor"]

log = logging.getLogger(__name__)

#: Extra time a worker gets past the deadline to report the timeout itself before it is killed.
GRACE_S = 0.25


def _timeout(job: QueryJob, why: str) -> QueryError:
    return QueryError(f"the query ran past the time limit of {job.timeout_s:g} s and was stopped{why}", kind="timeout")


class Executor(abc.ABC):
    """Runs :class:`QueryJob` s; :meth:`invalidate` tells it the data changed."""

    name: str
    #: The store single-pattern lookups may read inline, in the event loop's thread (:mod:`kgsvc.api.lookup`);
    #: ``None`` (a remote store, whose every read is a network round trip): every query goes to :meth:`run`.
    inline: Store | None = None

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Get ready (start workers)."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Stop workers and remove temporary files."""

    def invalidate(self) -> None:  # noqa: B027 - optional hook
        """The store's data changed (called from any thread)."""

    @abc.abstractmethod
    async def run(self, job: QueryJob) -> tuple[str, bytes]:
        """The media type and body answering ``job``; raises ``QueryError`` / ``StoreError``."""


class ThreadExecutor(Executor):
    """Queries in a thread pool of ``threads`` threads; see the module docstring for what is stopped."""

    name = "thread"

    def __init__(self, store: Store, *, threads: int = 8) -> None:
        self.store = store
        self.inline = store if isinstance(store, EmbeddedStore) else None
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None
        self._slots: asyncio.Semaphore | None = None

    async def start(self) -> None:
        self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="kgsvc-query")
        self._slots = asyncio.Semaphore(self.threads)

    async def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    async def run(self, job: QueryJob) -> tuple[str, bytes]:
        assert self._pool is not None and self._slots is not None, "start() the executor first"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + job.timeout_s
        try:
            await asyncio.wait_for(self._slots.acquire(), timeout=job.timeout_s)
        except TimeoutError:
            raise _timeout(job, " (every query thread was busy)") from None
        future = loop.run_in_executor(self._pool, run_query, self.store, _remaining(job, deadline - loop.time()))
        # The slot is freed when the thread really ends, not when the client gives up on it.
        future.add_done_callback(lambda _f: self._slots.release())  # type: ignore[union-attr]
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout=max(0.0, deadline - loop.time()) + GRACE_S)
        except TimeoutError:
            raise _timeout(job, " (it keeps running in a background thread until its current step ends)") from None


def _remaining(job: QueryJob, seconds: float) -> QueryJob:
    return dataclasses.replace(job, timeout_s=max(seconds, 0.001))


class _Worker:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.snapshot: Path | None = None

    async def send(self, header: dict[str, object]) -> None:
        assert self.process.stdin is not None
        encoded = json.dumps(header).encode()
        self.process.stdin.write(HEADER.pack(len(encoded), 0) + encoded)
        await self.process.stdin.drain()

    async def receive(self) -> tuple[dict[str, object], bytes]:
        assert self.process.stdout is not None
        header_size, body_size = HEADER.unpack(await self.process.stdout.readexactly(HEADER.size))
        header = json.loads(await self.process.stdout.readexactly(header_size))
        body = await self.process.stdout.readexactly(body_size) if body_size else b""
        return header, body

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()


class ProcessExecutor(Executor):
    """Queries in killable worker processes over store snapshots; see the module docstring.

    Parameters
    ----------
    store
        The on-disk embedded store.
    snapshot_dir
        Folder for the snapshots (same file system as the store, so checkpoints are hard links).
    workers
        Number of worker processes (default: one per CPU, at least 2).
    """

    name = "process"

    def __init__(self, store: EmbeddedStore, snapshot_dir: Path, *, workers: int | None = None) -> None:
        self.store = self.inline = store
        self.snapshot_dir = snapshot_dir
        self.size = workers or max(2, os.cpu_count() or 2)
        self._generation = 0
        self._snapshot: tuple[int, Path] | None = None
        self._making: Path | None = None
        self._counter = 0
        self._snapshot_lock: asyncio.Lock | None = None
        self._idle: asyncio.Queue[_Worker] | None = None
        self._workers: set[_Worker] = set()
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        shutil.rmtree(self.snapshot_dir, ignore_errors=True)
        self.snapshot_dir.mkdir(parents=True)
        self._snapshot_lock = asyncio.Lock()
        self._idle = asyncio.Queue()
        workers = await asyncio.gather(*(self._spawn() for _ in range(self.size)))
        await asyncio.gather(*(self._ping(w) for w in workers))
        for worker in workers:
            self._idle.put_nowait(worker)
        await self._current_snapshot()

    async def close(self) -> None:
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        for worker in list(self._workers):
            worker.kill()
            with contextlib.suppress(Exception):
                await worker.process.wait()
        self._workers.clear()
        shutil.rmtree(self.snapshot_dir, ignore_errors=True)

    def invalidate(self) -> None:
        self._generation += 1

    async def _spawn(self) -> _Worker:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "kgsvc.api.worker", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        worker = _Worker(process)
        self._workers.add(worker)
        return worker

    async def _ping(self, worker: _Worker) -> None:
        await worker.send({"ping": True})
        await worker.receive()

    async def _replace(self, dead: _Worker) -> None:
        with contextlib.suppress(Exception):
            await dead.process.wait()
        for attempt in range(3):
            if self._closing:
                return
            worker = None
            try:
                worker = await self._spawn()
                await self._ping(worker)  # only a worker that has started takes queries
            except (OSError, asyncio.IncompleteReadError, ConnectionError):
                log.exception("cannot start a query worker (attempt %d of 3)", attempt + 1)
                if worker is not None:
                    worker.kill()
                    self._workers.discard(worker)
                await asyncio.sleep(1.0)
                continue
            assert self._idle is not None
            self._idle.put_nowait(worker)
            self._collect()
            return

    def _replace_later(self, dead: _Worker) -> None:
        """Kill ``dead`` now; reap it and start its replacement in the background."""
        dead.kill()
        self._workers.discard(dead)
        task = asyncio.get_running_loop().create_task(self._replace(dead))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _current_snapshot(self) -> Path:
        current = self._snapshot
        if current is not None and current[0] == self._generation:
            return current[1]
        assert self._snapshot_lock is not None
        async with self._snapshot_lock:
            if self._snapshot is not None and self._snapshot[0] == self._generation:
                return self._snapshot[1]
            generation = self._generation
            started = time.perf_counter()
            path = await self._take_snapshot()
            log.debug("store snapshot %s taken in %.3f s", path.name, time.perf_counter() - started)
            self._snapshot = (generation, path)
            self._collect()
            return path

    async def _take_snapshot(self, attempts: int = 3) -> Path:
        """A new snapshot folder; retried when RocksDB's checkpoint fails, as it can when a file it is linking is
        deleted by a compaction that finished meanwhile (``IO error: No such file or directory``)."""
        for attempt in range(1, attempts + 1):
            self._counter += 1
            path = self.snapshot_dir / f"snapshot-{self._counter}"
            self._making = path
            try:
                await asyncio.get_running_loop().run_in_executor(None, self.store.snapshot, path)
                return path
            except StoreError:
                shutil.rmtree(path, ignore_errors=True)
                if attempt == attempts:
                    raise
                log.warning("store snapshot %s failed (attempt %d of %d); retrying", path.name, attempt, attempts)
            finally:
                self._making = None
        raise AssertionError("unreachable")

    def _collect(self) -> None:
        """Remove snapshots that are neither current nor open in a worker."""
        keep = {w.snapshot for w in self._workers} | {self._making} | ({self._snapshot[1]} if self._snapshot else set())
        for path in self.snapshot_dir.iterdir():
            if path not in keep:
                shutil.rmtree(path, ignore_errors=True)

    async def run(self, job: QueryJob) -> tuple[str, bytes]:
        assert self._idle is not None, "start() the executor first"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + job.timeout_s
        try:
            worker = self._idle.get_nowait()
        except asyncio.QueueEmpty:
            try:
                async with asyncio.timeout_at(deadline):
                    worker = await self._idle.get()
            except TimeoutError:
                raise _timeout(job, " (every query worker was busy)") from None
        healthy = False
        try:
            snapshot = await self._current_snapshot()
            worker.snapshot = snapshot  # before any await: protects it from _collect()
            remaining = _remaining(job, deadline - loop.time())
            await worker.send({"snapshot": str(snapshot), "job": remaining.to_dict()})
            try:
                async with asyncio.timeout_at(deadline + GRACE_S):  # no extra task, unlike wait_for
                    header, body = await worker.receive()
            except TimeoutError:
                raise _timeout(job, " (its worker process was killed)") from None
            except (asyncio.IncompleteReadError, ConnectionError) as exc:
                raise StoreError(f"the query worker died while running the query: {exc!r}") from exc
            healthy = True
        finally:
            if healthy:
                self._idle.put_nowait(worker)
            else:  # timed out, died, or the request was cancelled mid-answer: start afresh
                self._replace_later(worker)
        if header.get("ok"):
            return str(header["media_type"]), body
        message = str(header.get("message", "the query failed"))
        if header.get("error") == "QueryError":
            kind = str(header.get("kind", "syntax"))
            if kind == "timeout":
                raise _timeout(job, "")
            raise QueryError(message, kind=kind, query=job.query)
        raise StoreError(message)


def make_executor(store: Store, data_dir: Path) -> Executor:
    """A :class:`ProcessExecutor` for an on-disk embedded store, else a :class:`ThreadExecutor`."""
    if isinstance(store, EmbeddedStore) and store.path is not None:
        return ProcessExecutor(store, data_dir / "endpoint-snapshots")
    return ThreadExecutor(store)
