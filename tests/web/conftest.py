"""Browser fixtures: a real kgsvc server on localhost and a real headless Chromium driven by Playwright.

Chromium is the Debian package (``/usr/bin/chromium``, installed by ``scripts/install``); Playwright never
downloads a browser. If Chromium is missing the tests fail (never skip). Screenshots go to ``tmp_path``, or to
``$KGSVC_WEB_SCREENSHOTS`` when set (``docs/screenshots`` is refreshed that way).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.api.conftest import TOKEN, Served, _serve

CHROMIUM = os.environ.get("KGSVC_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The sample KG as dataset ``sample``, indexed (so /ask answers); writes need the token ``secret``; default
    row limit (100,000)."""
    for served in _serve(tmp_path_factory.mktemp("web") / "data", api_token=TOKEN, query_timeout_s=20.0):
        served.kg.build_index("sample")
        yield served


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).is_file(), f"{CHROMIUM} is missing: run scripts/install (apt-get install chromium)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: Browser, web_server: Served) -> Iterator[Page]:
    context = browser.new_context(base_url=web_server.url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where screenshots go."""
    folder = Path(os.environ.get("KGSVC_WEB_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_tab(page: Page, tab: str) -> None:
    """Load the page on ``tab`` and wait until the dataset list has loaded."""
    page.goto(f"/#{tab}")
    page.wait_for_selector("body[data-ready=true]")
