"""Real kgsvc servers on free localhost ports, in a thread of the test process (as httpx's own test suite does).

``server``: the sample KG as dataset ``sample`` over an on-disk store, writes need the token ``secret``,
``query_timeout_s=1``, ``max_result_rows=200``; every test that uses it runs under both HTTP servers
``kgsvc serve`` offers, granian (its embedded server) and uvicorn. ``read_only_server``: the same data with
``read_only=True``, under uvicorn.
Both live for the whole session (starting one takes a few seconds: the query worker processes import kgsvc).
Tests that write use their own dataset (``scratch``), so tests stay independent.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from starlette.types import ASGIApp

import kgsvc
from kgsvc.api import create_app
from kgsvc.catalog import DatasetChanged
from tests.conftest import free_port

TOKEN = "secret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class _ThreadedServer(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # not the main thread
        pass


class _Granian:
    """granian's embedded server in a thread, with uvicorn.Server's ``run``/``started``/``should_exit`` surface."""

    def __init__(self, app: ASGIApp, port: int) -> None:
        from granian.constants import HTTPModes, Interfaces
        from granian.server.embed import Server

        self.server = Server(
            app, port=port, interface=Interfaces.ASGI, http=HTTPModes.http1, websockets=False, log_enabled=False
        )
        self.port = port
        self.loop: asyncio.AbstractEventLoop | None = None

    def run(self) -> None:
        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            await self.server.serve()

        asyncio.run(serve())

    @property
    def started(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    @property
    def should_exit(self) -> bool:
        return bool(self.server.interrupt_signal)

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        assert value and self.loop is not None
        self.loop.call_soon_threadsafe(self.server.stop)  # its stop event belongs to the server's loop


@dataclass
class Served:
    """A running server: its base URL, the KG it serves, and the dataset-changed events seen."""

    url: str
    kg: kgsvc.KG
    settings: kgsvc.Settings
    app: FastAPI
    events: list[DatasetChanged] = field(default_factory=list)

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30)

    def count(self, dataset: str = "sample") -> int:
        """Triples in a dataset, read in-process (not through the server under test)."""
        return int(self.kg.sparql("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", dataset=dataset).rows[0]["n"].value)


def _serve(
    data_dir: Path,
    *,
    wrap: Callable[[FastAPI], ASGIApp] | None = None,
    http_server: str = "uvicorn",
    **overrides: object,
) -> Iterator[Served]:
    """Serve the sample KG from ``data_dir``; ``wrap`` puts an ASGI app of the test's around kgsvc's app."""
    settings = kgsvc.Settings(data_dir=data_dir, **overrides)  # type: ignore[arg-type]
    with kgsvc.KG.open(settings=settings) as kg:
        kg.load(kgsvc.sample_path(), dataset="sample")
        served = Served(url="", kg=kg, settings=settings, app=create_app(kg, settings))
        kg.on_change(served.events.append)
        port = free_port()
        app = wrap(served.app) if wrap else served.app
        server: _ThreadedServer | _Granian
        if http_server == "granian":
            server = _Granian(app, port)
        else:
            server = _ThreadedServer(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True, name="kgsvc-test-server")
        thread.start()
        deadline = time.monotonic() + 60
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the kgsvc server did not start"
            time.sleep(0.02)
        served.url = f"http://127.0.0.1:{port}"
        try:
            yield served
        finally:
            server.should_exit = True
            thread.join(timeout=30)


@pytest.fixture(scope="session", params=["granian", "uvicorn"])
def server(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Served]:
    yield from _serve(
        tmp_path_factory.mktemp("api") / "data",
        http_server=request.param,
        api_token=TOKEN,
        query_timeout_s=1.0,
        max_result_rows=200,
    )


@pytest.fixture(scope="session")
def read_only_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(tmp_path_factory.mktemp("api-ro") / "data", api_token=TOKEN, read_only=True)


@pytest.fixture
def http(server: Served) -> Iterator[httpx.Client]:
    with server.http() as client:
        yield client


@pytest.fixture
def scratch(server: Served) -> Iterator[str]:
    """A fresh dataset holding the sample KG, for tests that write; dropped afterwards."""
    name = f"t{uuid.uuid4().hex[:10]}"
    server.kg.load(kgsvc.sample_path(), dataset=name)
    yield name
    if server.kg.catalog.exists(name):
        server.kg.drop(name)
