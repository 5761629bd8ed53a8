"""Shared fixtures: real on-disk stores, the real PostgreSQL and Redis on localhost, the sample KG."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

import kgsvc

# One conversion of the bundled LLM for every data dir the tests make (and for the servers they start).
os.environ.setdefault("KGSVC_MODEL_CACHE_DIR", str(Path(tempfile.gettempdir()) / "kgsvc-test-models"))

# Index builds embed every label: tests that want them on every change ask for Settings(auto_index=True).
os.environ.setdefault("KGSVC_AUTO_INDEX", "false")

POSTGRES_ADMIN_URL = os.environ.get("KGSVC_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture
def kg(tmp_path: Path) -> Iterator[kgsvc.KG]:
    """An empty embedded KG in a temporary data dir."""
    with kgsvc.KG.open(tmp_path / "data") as handle:
        yield handle


@pytest.fixture
def sample_kg(kg: kgsvc.KG) -> kgsvc.KG:
    """The embedded KG with the bundled sample loaded as dataset ``sample``."""
    kg.load(kgsvc.sample_path(), dataset="sample")
    return kg


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database on the local server, dropped afterwards. Fails (never skips) if absent."""
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"kgsvc_test_{uuid.uuid4().hex[:8]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    yield url
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def oxigraph_server(tmp_path: Path) -> Iterator[str]:
    """A real ``oxigraph serve`` subprocess on a free localhost port; yields its base URL."""
    # the venv's bin/ first: CI runs .venv/bin/python without activating the venv
    binary = shutil.which(
        "oxigraph", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    assert binary, "the `oxigraph` server binary (PyPI package oxigraph) is not installed"
    port = free_port()
    log = tmp_path / "oxigraph.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [binary, "serve", "--location", str(tmp_path / "oxigraph"), "--bind", f"127.0.0.1:{port}"],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            assert process.poll() is None, log.read_text()
            time.sleep(0.05)
    else:
        process.kill()
        raise RuntimeError("oxigraph serve did not start in 30 s")
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)
