"""A page on another origin (another localhost port) tries to write to kgsvc through a visitor's real Chromium.

The kgsvc here has no token (the default), so only the same-origin guard (:mod:`kgsvc.api.guard`) stands between
the page and the data: a form ``POST`` of ``update=…`` and ``fetch`` calls to the update, upload and Graph Store
routes are all refused, and the data is unchanged.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.api.conftest import Served, _serve

DROP = "DROP ALL"
INSERT = "INSERT DATA { GRAPH <urn:kgsvc:dataset:sample> { <http://evil/s> <http://evil/p> 1 } }"

PAGE = """<!doctype html><html><body>
<form id="drop" method="post" action="{kgsvc}/sparql"><input type="hidden" name="update" value="{drop}"></form>
<script>
async function attack() {{
  const results = {{}};
  const attempts = {{
    update: () => fetch("{kgsvc}/sparql", {{method: "POST", mode: "no-cors",
      body: new URLSearchParams({{update: "{insert}"}})}}),
    upload: () => {{ const form = new FormData(); form.append("name", "evil");
      form.append("file", new Blob(["<http://evil/s> <http://evil/p> 2 ."]), "evil.nt");
      return fetch("{kgsvc}/datasets", {{method: "POST", mode: "no-cors", body: form}}); }},
    store_post: () => fetch("{kgsvc}/datasets/sample/store", {{method: "POST", mode: "no-cors",
      headers: {{"Content-Type": "text/plain"}}, body: "<http://evil/s> <http://evil/p> 3 ."}}),
    store_put: () => fetch("{kgsvc}/datasets/sample/store", {{method: "PUT",
      headers: {{"Content-Type": "text/turtle"}}, body: "<http://evil/s> <http://evil/p> 4 ."}}),
    store_delete: () => fetch("{kgsvc}/datasets/sample/store", {{method: "DELETE"}}),
  }};
  for (const [name, attempt] of Object.entries(attempts)) {{
    try {{ const r = await attempt(); results[name] = r.type + " " + r.status; }}
    catch (e) {{ results[name] = "blocked " + e.name; }}
  }}
  return results;
}}
</script></body></html>"""


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """kgsvc with no token: anyone who reaches it may write, except from another site's page."""
    yield from _serve(tmp_path_factory.mktemp("web-open") / "data", api_token=None)


@pytest.fixture(scope="module")
def evil_origin(open_server: Served) -> Iterator[str]:
    """The attacker's page, served from another localhost port."""
    html = PAGE.format(kgsvc=open_server.url, drop=DROP, insert=INSERT.replace('"', '\\"')).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(html)))
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_another_origin_cannot_write(browser: Browser, open_server: Served, evil_origin: str, tmp_path: Path) -> None:
    before = open_server.count()
    assert before > 0
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(evil_origin + "/")
        results = page.evaluate("attack()")
        with page.expect_navigation() as navigation:
            page.evaluate("document.getElementById('drop').submit()")
        response = navigation.value
        assert response is not None and response.status == 403, response and response.text()
        assert "cross-site request refused" in page.content()
    finally:
        context.close()
    # no-cors answers are opaque to the page; the requests that did reach kgsvc were refused, the rest never left
    assert set(results) == {"update", "upload", "store_post", "store_put", "store_delete"}, results
    assert open_server.count() == before
    assert open_server.kg.catalog.exists("sample") and not open_server.kg.catalog.exists("evil")
    # the same form, sent by a client that is not a browser, is accepted: the guard is about browsers only
    import httpx

    assert httpx.post(open_server.url + "/sparql", data={"update": INSERT}).status_code == 200
    assert open_server.count() == before + 1
