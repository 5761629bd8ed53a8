"""``kgsvc serve``: the SPARQL endpoint, Graph Store Protocol and JSON API over HTTP.

Two servers run the same ASGI app (:func:`kgsvc.api.create_app`):

* **granian** (default): a Rust HTTP server. Requests are parsed and answered in Rust threads outside the GIL,
  so the one Python thread is left to the app; single-pattern lookups, which the endpoint answers inline
  (:mod:`kgsvc.api.lookup`), then run faster than under uvicorn from 8 clients on; a single client waits a
  little longer (``bench/endpoint.py``; figures in ``docs/benchmarks.md``, "Endpoint").
  HTTP/1.1 only, no websockets (kgsvc serves neither HTTP/2 nor websockets).
* **uvicorn**: the reference ASGI server, for deployments that standardise on it.

One process owns the data dir (RocksDB allows one writer), so there is no ``--workers``: queries that are not
lookups run in the app's own pool of query worker processes (:mod:`kgsvc.api.executor`).
"""

from __future__ import annotations

import enum
import http.client
import ipaddress
import os
import socket
import threading
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgsvc.cli._app import DataDir, app, console, err_console, fail
from kgsvc.cli.server_record import ServerRecord, client_url, read_record, remove_record, store_locked, write_record

if TYPE_CHECKING:
    from kgsvc.settings import Settings

__all__ = ["serve"]


class ServerName(enum.StrEnum):
    granian = "granian"
    uvicorn = "uvicorn"


class LogLevel(enum.StrEnum):
    critical = "critical"
    error = "error"
    warning = "warning"
    info = "info"
    debug = "debug"
    trace = "trace"


def _port_free(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def _publish_when_ready(folder: Path, url: str, token: str | None, stop: threading.Event) -> None:
    """Write the server record (:mod:`kgsvc.cli.server_record`) once ``/health`` answers, i.e. once the app has
    started and preloaded its indexes."""
    while not stop.is_set():
        if _healthy(url):
            write_record(folder, ServerRecord(url=url, pid=os.getpid(), token=token))
            err_console.print(f"ready at {url}", highlight=False)
            return
        stop.wait(0.2)


def _healthy(url: str) -> bool:
    """Whether ``GET <url>/health`` answers 200, asked over plain HTTP with the standard library.

    This thread runs while granian forks its worker processes, and a lock OpenSSL holds at that moment stays held in
    the worker for good: an HTTP client that makes a TLS context (httpx does, for every client, even for
    ``http://``) left a worker's first SHA-256 (an index build's chunk plan) waiting forever, a hung server.
    """
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=2.0)
    try:
        connection.request("GET", "/health")
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def _loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


@app.command()
def serve(
    data_dir: DataDir = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind; 0.0.0.0 exposes the server.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="TCP port.", min=1, max=65535, envvar="KGSVC_PORT")] = 8000,
    server: Annotated[ServerName, typer.Option("--server", help="HTTP server.")] = ServerName.granian,
    access_log: Annotated[bool, typer.Option("--access-log/--no-access-log", help="Log every request.")] = True,
    log_level: Annotated[LogLevel, typer.Option("--log-level", help="Server log level.")] = LogLevel.info,
    insecure: Annotated[
        bool,
        typer.Option("--insecure", help="Serve a non-loopback address with no KGSVC_API_TOKEN (anyone may write)."),
    ] = False,
) -> None:
    """Serve the data dir: /sparql, /datasets/NAME/sparql, /datasets/NAME/store, the JSON API and /docs.

    The embedding model and the current indexes are loaded before the server reports ready (``/health``). While
    it runs, the other ``kgsvc`` commands on the same data dir go through it (``<data dir>/server.json``).
    On an address other than loopback the server refuses to start without a write token (``KGSVC_API_TOKEN``),
    unless ``--insecure`` says that anyone who reaches it may write.
    """
    from kgsvc.settings import Settings

    settings = Settings()
    if not (settings.api_token or settings.read_only or insecure or _loopback(host)):
        err_console.print(
            f"[bold red]error:[/] refusing to serve {host} without a write token: anyone who reaches it could change "
            "or drop the data. Set KGSVC_API_TOKEN (or KGSVC_READ_ONLY=true), bind 127.0.0.1, or pass --insecure.",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(2)
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": Path(data_dir).expanduser().resolve()})
    folder = settings.data_dir
    running = read_record(folder) if folder.is_dir() else None
    if running is not None:
        raise fail(
            f"the data dir {folder} is already served by the kgsvc server at {running.url} (pid {running.pid}); "
            "stop it first or use another --data-dir"
        )
    if settings.store_url is None and store_locked(folder):
        raise fail(f"the data dir {folder} is in use by another process (its store is locked); stop it first")
    if not _port_free(host, port):
        raise fail(f"cannot listen on {host}:{port}: the port is in use (choose another with --port)")
    url = client_url(host, port)
    console.print(f"kgsvc serving {folder} at {url} with {server.value} (docs: /docs)", highlight=False)
    stop = threading.Event()
    threading.Thread(
        target=_publish_when_ready, args=(folder, url, settings.api_token, stop), name="kgsvc-record", daemon=True
    ).start()
    try:
        _run(settings, host, port, server, access_log, log_level.value)
    finally:
        stop.set()
        remove_record(folder, os.getpid())


def _run(settings: Settings, host: str, port: int, server: ServerName, access_log: bool, log_level: str) -> None:
    if server is ServerName.uvicorn:
        import uvicorn

        from kgsvc.api import create_app

        app = create_app(settings=settings, preload=True)
        uvicorn.run(app, host=host, port=port, access_log=access_log, log_level=log_level)
        return
    from granian import Granian
    from granian.constants import HTTPModes, Interfaces
    from granian.log import LogLevels

    # granian imports the app in its worker process, which reads the settings from the environment
    os.environ["KGSVC_DATA_DIR"] = str(settings.data_dir)
    Granian(
        "kgsvc.api.app:create_served_app",
        factory=True,
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        http=HTTPModes.http1,
        websockets=False,
        log_access=access_log,
        log_level=LogLevels({"trace": "debug"}.get(log_level, log_level)),  # uvicorn's names
        respawn_failed_workers=True,  # a worker that dies anyway (a native crash) is replaced, not the end
    ).serve()
