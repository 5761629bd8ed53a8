"""``kgsvc serve``: the SPARQL endpoint, Graph Store Protocol and JSON API over HTTP.

Two servers run the same ASGI app (:func:`kgsvc.api.create_app`):

* **granian** (default): a Rust HTTP server. Requests are parsed and answered in Rust threads outside the GIL,
  so the one Python thread is left to the app; single-pattern lookups, which the endpoint answers inline
  (:mod:`kgsvc.api.lookup`), then run at 1.2–1.5× uvicorn's rate from 8 clients on (``bench/endpoint.py``,
  ``docs/benchmarks.md``); a single client waits a little longer than under uvicorn.
  HTTP/1.1 only, no websockets (kgsvc serves neither HTTP/2 nor websockets).
* **uvicorn**: the reference ASGI server, for deployments that standardise on it.

One process owns the data dir (RocksDB allows one writer), so there is no ``--workers``: queries that are not
lookups run in the app's own pool of query worker processes (:mod:`kgsvc.api.executor`).
"""

from __future__ import annotations

import enum
import ipaddress
import os
from pathlib import Path
from typing import Annotated

import typer

from kgsvc.cli._app import DataDir, app, console, err_console

__all__ = ["serve"]


class ServerName(enum.StrEnum):
    granian = "granian"
    uvicorn = "uvicorn"


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
    port: Annotated[int, typer.Option("--port", "-p", help="TCP port.")] = 8000,
    server: Annotated[ServerName, typer.Option("--server", help="HTTP server.")] = ServerName.granian,
    access_log: Annotated[bool, typer.Option("--access-log/--no-access-log", help="Log every request.")] = True,
    log_level: Annotated[str, typer.Option("--log-level", help="Server log level.")] = "info",
    insecure: Annotated[
        bool,
        typer.Option("--insecure", help="Serve a non-loopback address with no KGSVC_API_TOKEN (anyone may write)."),
    ] = False,
) -> None:
    """Serve the data dir: /sparql, /datasets/NAME/sparql, /datasets/NAME/store, the JSON API and /docs.

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
    console.print(
        f"kgsvc serving {settings.data_dir} at http://{host}:{port} with {server.value} (docs: /docs)", highlight=False
    )
    if server is ServerName.uvicorn:
        import uvicorn

        from kgsvc.api import create_app

        uvicorn.run(create_app(settings=settings), host=host, port=port, access_log=access_log, log_level=log_level)
        return
    from granian import Granian
    from granian.constants import HTTPModes, Interfaces
    from granian.log import LogLevels

    # granian imports the app in its worker process, which reads the settings from the environment
    os.environ["KGSVC_DATA_DIR"] = str(settings.data_dir)
    Granian(
        "kgsvc.api.app:create_app",
        factory=True,
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        http=HTTPModes.http1,
        websockets=False,
        log_access=access_log,
        log_level=LogLevels({"trace": "debug"}.get(log_level.lower(), log_level.lower())),  # uvicorn's names
        respawn_failed_workers=True,  # a worker that dies anyway (a native crash) is replaced, not the end
    ).serve()
