"""``kgsvc serve``: the SPARQL endpoint, Graph Store Protocol and JSON API over HTTP (uvicorn).

One process owns the data dir (RocksDB allows one writer), so there is no ``--workers``: queries run in
the app's own pool of query worker processes (:mod:`kgsvc.api.executor`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgsvc.cli._app import DataDir, app, console

__all__ = ["serve"]


@app.command()
def serve(
    data_dir: DataDir = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind; 0.0.0.0 exposes the server.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="TCP port.")] = 8000,
    access_log: Annotated[bool, typer.Option("--access-log/--no-access-log", help="Log every request.")] = True,
    log_level: Annotated[str, typer.Option("--log-level", help="uvicorn log level.")] = "info",
) -> None:
    """Serve the data dir: /sparql, /datasets/NAME/sparql, /datasets/NAME/store, the JSON API and /docs."""
    import uvicorn

    from kgsvc.api import create_app
    from kgsvc.settings import Settings

    settings = Settings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": Path(data_dir).expanduser().resolve()})
    console.print(f"kgsvc serving {settings.data_dir} at http://{host}:{port} (docs: /docs)", highlight=False)
    uvicorn.run(create_app(settings=settings), host=host, port=port, access_log=access_log, log_level=log_level)
