"""The SPARQL tab in a real Chromium against the real server: tables, Turtle, errors, a 10,000-row result."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.api.conftest import TOKEN, Served
from tests.web.conftest import open_tab

FILMS_BY_KON = """PREFIX ex: <https://kgsvc.local/sample/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?film ?label WHERE { ?film ex:directedBy ?d ; rdfs:label ?label . ?d rdfs:label "Satoshi Kon" }
ORDER BY ?label"""


def run(page: Page, query: str) -> None:
    page.locator("#editor .cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(query)
    page.click("#run")


def test_page_and_assets_are_served(web_server: Served) -> None:
    with web_server.http() as http:
        index = http.get("/")
        assert index.status_code == 200 and index.headers["content-type"].startswith("text/html")
        assert 'src="static/app.js"' in index.text
        script = http.get("/static/app.js")
        assert script.status_code == 200 and len(script.content) > 100_000
        assert "javascript" in script.headers["content-type"]
        assert http.get("/static/nope.js").status_code == 404


def test_select_shows_table(page: Page, web_server: Served, shots: Path) -> None:
    expected = [row["label"].value for row in web_server.kg.sparql(FILMS_BY_KON, dataset="sample").rows]
    assert len(expected) >= 2
    open_tab(page, "sparql")
    expect(page.locator("#dataset")).to_have_value("sample")
    run(page, FILMS_BY_KON)
    rows = page.locator("#sparql-results table.results tbody tr")
    expect(rows).to_have_count(len(expected))
    assert rows.locator("td.literal").all_inner_texts() == expected
    expect(page.locator("#sparql-results table.results thead")).to_contain_text("?film")
    assert rows.first.locator("td.iri").inner_text().startswith("ex:film_")  # abbreviated with the query's prefix
    page.screenshot(path=str(shots / "sparql.png"), full_page=True)


def test_bad_query_shows_readable_error(page: Page) -> None:
    open_tab(page, "sparql")
    run(page, "SELECT ?x WHERE { ?x ")
    error = page.locator("#sparql-results .error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("HTTP 400")
    expect(error).to_contain_text("Syntax error at line 1, column 22")
    text = error.inner_text()
    assert "\\u{" not in text and len(text) < 400, text  # no dump of the parser's Unicode classes
    cursor = page.evaluate("() => window.kgsvc.cursor()")
    assert cursor == len("SELECT ?x WHERE { ?x "), cursor  # the editor's cursor is put on the error


def test_construct_shows_turtle(page: Page) -> None:
    open_tab(page, "sparql")
    run(
        page,
        "PREFIX ex: <https://kgsvc.local/sample/>\n"
        "CONSTRUCT { ?f ex:directedBy ?d } WHERE { ?f ex:directedBy ?d } LIMIT 5",
    )
    viewer = page.locator("#sparql-results .turtle .cm-content")
    expect(viewer).to_contain_text("directedBy")
    expect(page.locator("#sparql-results .summary")).to_contain_text("Turtle (text/turtle)")


def test_ten_thousand_rows_stay_usable(page: Page, shots: Path) -> None:
    open_tab(page, "sparql")
    started = time.monotonic()
    run(page, "SELECT ?s ?p ?o ?s2 WHERE { ?s ?p ?o . ?s2 ?p2 ?o2 } LIMIT 10000")
    expect(page.locator("#sparql-results .summary")).to_contain_text("10000 rows", timeout=30_000)
    shown = time.monotonic() - started
    body = page.locator("#sparql-results table.results tbody tr")
    expect(body).to_have_count(100)  # one page in the DOM, not 10,000 rows
    status = page.locator("#sparql-results .page-status")
    expect(status).to_have_text("rows 1–100 of 10000 · page 1 of 100")
    started = time.monotonic()
    page.click("#sparql-results .page-next")
    expect(status).to_have_text("rows 101–200 of 10000 · page 2 of 100")
    flip = time.monotonic() - started
    expect(body.first.locator("td.rownum")).to_have_text("101")
    for _ in range(2):
        page.click("#sparql-results .page-next")
    expect(status).to_contain_text("page 4 of 100")
    for _ in range(3):
        page.click("#sparql-results .page-prev")
    expect(status).to_contain_text("page 1 of 100")
    expect(page.locator("#sparql-results .page-prev")).to_be_disabled()
    print(f"10,000 rows: query+render {shown:.2f} s, page flip {flip * 1000:.0f} ms")
    page.screenshot(path=str(shots / "sparql-10000-rows.png"))


def test_update_uses_token(page: Page, web_server: Served, tmp_path: Path) -> None:
    name = f"u{uuid.uuid4().hex[:8]}"
    seed = tmp_path / "seed.ttl"
    seed.write_text("<https://example.org/a> <https://example.org/p> <https://example.org/b> .\n", encoding="utf-8")
    web_server.kg.load(seed, dataset=name)
    try:
        open_tab(page, "sparql")
        page.select_option("#dataset", name)
        update = 'PREFIX ex: <https://example.org/>\nINSERT DATA { ex:a ex:p "new" }'
        run(page, update)
        expect(page.locator("#sparql-results .error")).to_contain_text("HTTP 401")
        assert web_server.count(name) == 1
        page.evaluate(f"() => sessionStorage.setItem('kgsvc-token', '{TOKEN}')")
        run(page, update)
        expect(page.locator("#sparql-results .ok")).to_contain_text(f"changed: {name}")
        assert web_server.count(name) == 2
    finally:
        web_server.kg.drop(name)
