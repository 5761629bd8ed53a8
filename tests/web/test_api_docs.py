"""The API docs page (/docs) in a real Chromium: Swagger UI renders the OpenAPI document from assets the server
serves itself, so it works offline: every request the page makes stays on the server's 127.0.0.1 address."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.api.conftest import Served


def test_api_docs_render_offline(browser: Browser, web_server: Served) -> None:
    context = browser.new_context(base_url=web_server.url)
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        page.goto("/docs")
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("kgsvc")
        expect(page.locator(".swagger-ui .opblock-summary-path", has_text="/ask").first).to_be_visible()
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    assert any(url.endswith("/static/swagger/swagger-ui-bundle.js") for url in requested)
    assert any(url.endswith("/openapi.json") for url in requested)
    elsewhere = [url for url in requested if not url.startswith(web_server.url + "/")]
    assert not elsewhere, elsewhere


def test_the_page_has_a_favicon(browser: Browser, web_server: Served) -> None:
    context = browser.new_context(base_url=web_server.url)
    try:
        icon = context.request.get("/favicon.ico")
        assert icon.status == 200 and icon.headers["content-type"].startswith("image/svg+xml")
        linked = context.request.get("/static/favicon.svg")
        assert linked.status == 200 and b"<svg" in linked.body()
    finally:
        context.close()
