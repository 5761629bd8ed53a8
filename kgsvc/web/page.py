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
from starlette.responses import FileResponse, HTMLResponse
from starlette.staticfiles import StaticFiles

__all__ = ["STATIC_DIR", "api_docs_html", "mount_page"]

STATIC_DIR = Path(__file__).resolve().parent / "static"


def api_docs_html(openapi_url: str) -> str:
    """The API docs page: Swagger UI from ``/static/swagger`` (the ``swagger-ui-dist`` npm package, copied there by
    ``web/build.mjs``) over the OpenAPI document at ``openapi_url``; it loads nothing from another host."""
    from fastapi.openapi.docs import get_swagger_ui_html

    return bytes(
        get_swagger_ui_html(
            openapi_url=openapi_url,
            title="kgsvc API",
            swagger_js_url="/static/swagger/swagger-ui-bundle.js",
            swagger_css_url="/static/swagger/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
            swagger_ui_parameters={"validatorUrl": None},  # the public validator badge would call another host
        ).body
    ).decode()


def mount_page(app: Starlette, *, directory: Path = STATIC_DIR) -> None:
    """Add ``GET /`` (the page), ``/docs`` (the API docs), ``/favicon.ico`` and ``/static`` (the assets, read from
    ``directory``) to ``app``.

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

    async def docs(request: Request) -> HTMLResponse:
        return HTMLResponse(api_docs_html(getattr(app, "openapi_url", None) or "/openapi.json"))

    async def favicon(request: Request) -> FileResponse:
        return FileResponse(directory / "favicon.svg", media_type="image/svg+xml")

    app.add_route("/", page, methods=["GET", "HEAD"], include_in_schema=False)
    app.add_route("/docs", docs, methods=["GET", "HEAD"], include_in_schema=False)
    app.add_route("/favicon.ico", favicon, methods=["GET", "HEAD"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=directory), name="static")
