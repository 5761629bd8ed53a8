"""The Datasets tab in a real Chromium: counts and jobs of the real server, and loading a file by upload."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.api.conftest import TOKEN, Served, _serve
from tests.web.conftest import open_tab

TURTLE = """@prefix ex: <https://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:a ex:knows ex:b . ex:b ex:knows ex:c . ex:a rdfs:label "A" .
"""


def test_counts_and_jobs(page: Page, web_server: Served, shots: Path) -> None:
    stats = web_server.kg.stats("sample")
    open_tab(page, "datasets")
    table = page.locator("#datasets-view table.stats tbody tr")
    expect(table).to_have_count(1)
    cells = table.locator("td").all_inner_texts()
    expected = [stats.triples, stats.nodes, stats.literals, stats.relations, stats.store_version]
    assert cells == [f"{n:,}" for n in expected]
    jobs = web_server.kg.jobs(dataset="sample")
    assert jobs
    rows = page.locator("#datasets-view table.jobs tbody tr")
    expect(rows).to_have_count(min(len(jobs), 50))
    expect(rows.first.locator("progress")).to_be_attached()
    expect(rows.first).to_contain_text(jobs[0].kind)
    page.screenshot(path=str(shots / "datasets.png"), full_page=True)


def test_upload_needs_token_then_loads(page: Page, web_server: Served, tmp_path: Path) -> None:
    name = f"w{uuid.uuid4().hex[:8]}"
    source = tmp_path / "small.ttl"
    source.write_text(TURTLE, encoding="utf-8")
    open_tab(page, "datasets")
    page.fill("#upload-name", name)
    page.set_input_files("#upload-file", str(source))
    page.fill("#token", "")
    page.click("#upload")
    expect(page.locator("#upload-status .error")).to_contain_text("HTTP 401")
    assert not web_server.kg.catalog.exists(name)
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    page.click("#upload")
    expect(page.locator("#upload-status .ok")).to_contain_text(f"Loaded 3 triples into {name}")
    try:
        assert web_server.kg.stats(name).triples == 3
        expect(page.locator("#dataset")).to_have_value(name)
        expect(page.locator("#datasets-view table.stats")).to_contain_text("3")
    finally:
        web_server.kg.drop(name)


def test_upload_of_bad_file_is_readable(page: Page, web_server: Served, tmp_path: Path) -> None:
    source = tmp_path / "broken.ttl"
    source.write_text("@prefix ex: <https://example.org/> .\nex:a ex:b .\n", encoding="utf-8")
    name = f"w{uuid.uuid4().hex[:8]}"
    open_tab(page, "datasets")
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    page.fill("#upload-name", name)
    page.set_input_files("#upload-file", str(source))
    page.click("#upload")
    error = page.locator("#upload-status .error")
    expect(error).to_contain_text("Upload failed")
    expect(error).to_contain_text("HTTP 400")
    assert not web_server.kg.catalog.exists(name)


@pytest.fixture(scope="module")
def indexing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A server that builds indexes after every change (``KGSVC_AUTO_INDEX``), writes with the token."""
    for served in _serve(tmp_path_factory.mktemp("web-live") / "data", api_token=TOKEN, auto_index=True):
        served.kg.wait(600)  # the sample's own index build
        yield served


def test_the_tab_follows_an_upload_until_its_index_is_built(
    browser: Browser, indexing_server: Served, tmp_path: Path
) -> None:
    name = f"w{uuid.uuid4().hex[:8]}"
    source = tmp_path / "small.ttl"
    source.write_text(TURTLE, encoding="utf-8")
    context = browser.new_context(base_url=indexing_server.url)
    page = context.new_page()
    try:
        open_tab(page, "datasets")
        page.fill("#token", TOKEN)
        page.dispatch_event("#token", "change")
        page.fill("#upload-name", name)
        page.set_input_files("#upload-file", str(source))
        page.click("#upload")
        expect(page.locator("#upload-status .ok")).to_contain_text(f"Loaded 3 triples into {name}")
        # no reselecting: the tab polls until the index version for the upload is complete
        expect(page.locator("#datasets-view h2", has_text=f"Dataset {name}")).to_be_visible()
        versions = page.locator("#datasets-view table.index-versions tbody tr")
        expect(versions.first).to_contain_text("complete", timeout=120_000)
        jobs = page.locator("#datasets-view table.jobs")
        expect(jobs).to_contain_text("build_index")
        expect(jobs).not_to_contain_text("running")
        expect(page.locator("#datasets-view")).to_contain_text(f"Dataset {name}")
        assert indexing_server.kg.catalog.current_index_version(name) is not None
    finally:
        context.close()
        indexing_server.kg.drop(name)


def test_ask_is_disabled_while_a_question_runs(page: Page) -> None:
    open_tab(page, "ask")
    held: list[Route] = []
    page.route("**/ask", lambda route: held.append(route))  # the request waits until the test lets it go
    page.fill("#question", "who directed Tokyo Godfathers")
    page.click("#ask")
    expect(page.locator("#ask")).to_be_disabled()
    while not held:
        page.wait_for_timeout(50)
    held[0].continue_()
    expect(page.locator("#ask-results .answer-text")).to_contain_text("Satoshi Kon", timeout=120_000)
    expect(page.locator("#ask")).to_be_enabled()
