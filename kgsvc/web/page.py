"""The web page (issue 8): ``GET /`` serves ``static/index.html``; ``/static/*`` its built assets.

The assets are built from ``web/`` at the repository root (``npm ci && npm run build``: TypeScript, CodeMirror 6,
cytoscape, bundled by esbuild) and committed here, so a Python install needs no npm and the page works offline
(no CDN). The page speaks only to the public HTTP API: ``/datasets``, ``/jobs``, ``/ask`` and the SPARQL
protocol at ``/datasets/{name}/sparql``.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.staticfiles import StaticFiles

__all__ = ["STATIC_DIR", "mount_page"]

STATIC_DIR = Path(__file__).resolve().parent / "static"


def mount_page(app: Starlette, *, directory: Path = STATIC_DIR) -> None:
    """Add ``GET /`` (the page) and ``/static`` (its assets, read from ``directory``) to ``app``.

    Raises
    ------
    FileNotFoundError
        When the built assets are missing (``static/index.html``): run ``npm ci && npm run build`` in ``web/``.
    """
    index = directory / "index.html"
    if not index.is_file():
        raise FileNotFoundError(
            f"the web page is not built: {index} is missing (run `npm ci && npm run build` in web/)"
        )

    async def page(request: Request) -> FileResponse:
        return FileResponse(index, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})

    app.add_route("/", page, methods=["GET", "HEAD"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=directory), name="static")
