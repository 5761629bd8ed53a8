"""A distributed kgsvc on localhost: `oxigraph serve` as the store, PostgreSQL, Redis, and real Celery workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

import kgsvc

REDIS = "redis://127.0.0.1:6379"


@pytest.fixture
def distributed_env(tmp_path: Path, oxigraph_server: str, postgres_url: str) -> Iterator[dict[str, str]]:
    """KGSVC_* settings of one distributed deployment, on a Redis db of its own (flushed before and after)."""
    db = 8 + uuid.uuid4().int % 7
    client = redis.Redis.from_url(f"{REDIS}/{db}")
    client.flushdb()
    schema = f"t{uuid.uuid4().hex[:8]}"
    env = {
        "KGSVC_DATA_DIR": str(tmp_path / "shared"),
        "KGSVC_STORE_URL": oxigraph_server,
        "KGSVC_DATABASE_URL": postgres_url + f"?options=-csearch_path%3D{schema}",
        "KGSVC_BROKER_URL": f"{REDIS}/{db}",
        "KGSVC_TASK_VISIBILITY_TIMEOUT_S": "3",
        "KGSVC_BULK_THRESHOLD_BYTES": "0",
    }
    from sqlalchemy import create_engine, text

    engine = create_engine(postgres_url)
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    yield env
    client.flushdb()
    client.close()
    with engine.begin() as connection:
        connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    engine.dispose()


class Worker:
    """A real `celery worker` subprocess (solo pool) with the deployment's environment."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = {**os.environ, **env}
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        sink = self.log.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "workers.app",
                "worker",
                "--pool",
                "solo",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            env=self.env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            cwd=Path(__file__).resolve().parents[2],
        )
        sink.close()

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def running_worker(env: dict[str, str], log: Path) -> Iterator[Worker]:
    """A started worker with ``env``, stopped afterwards (the body of the worker fixtures)."""
    handle = Worker(env, log)
    handle.start()
    yield handle
    handle.stop()


def client_for(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[kgsvc.KG]:
    """The submitting side of the deployment ``env``: a KG opened from the same ``KGSVC_*`` settings."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with kgsvc.KG.open() as kg:
        yield kg


@pytest.fixture
def worker(distributed_env: dict[str, str], tmp_path: Path) -> Iterator[Worker]:
    yield from running_worker(distributed_env, tmp_path / "worker.log")


@pytest.fixture
def client_kg(distributed_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[kgsvc.KG]:
    """The submitting side: a KG with the same settings (remote store, PostgreSQL, Celery dispatcher)."""
    yield from client_for(distributed_env, monkeypatch)


def wait_for(predicate: Callable[[], bool], *, timeout: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    detail = log.read_text()[-3000:] if log and log.exists() else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{detail}")
