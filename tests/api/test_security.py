"""Writes need the token, read-only mode refuses them, and nothing reaches other hosts (SERVICE, LOAD)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from tests.api.conftest import AUTH, Served

INSERT = "INSERT DATA { GRAPH <urn:kgsvc:dataset:sample> { <http://x/intruder> <http://x/p> 1 } }"


class _Recorder(BaseHTTPRequestHandler):
    hits: list[str] = []

    def _answer(self) -> None:
        type(self).hits.append(self.path)
        body = b"<http://x/fetched> <http://x/p> <http://x/o> .\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/n-triples")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server that records every request it gets (it must get none)."""
    hits: list[str] = []
    handler = type("Recorder", (_Recorder,), {"hits": hits})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({}, 401, "Authorization: Bearer"),
        ({"Authorization": "Basic c2VjcmV0"}, 401, "Authorization: Bearer"),
        ({"Authorization": "Bearer wrong"}, 403, "token is wrong"),
    ],
)
def test_writes_need_the_token(
    http: httpx.Client, server: Served, headers: dict[str, str], status: int, message: str
) -> None:
    before = server.count()
    attempts = [
        http.post("/sparql", data={"update": INSERT}, headers=headers),
        http.post("/sparql", content=INSERT, headers={**headers, "Content-Type": "application/sparql-update"}),
        http.put(
            "/datasets/sample/store",
            content='<http://x/a> <http://x/b> "1" .',
            headers={**headers, "Content-Type": "application/n-triples"},
        ),
        http.post(
            "/datasets/sample/store",
            content='<http://x/a> <http://x/b> "1" .',
            headers={**headers, "Content-Type": "application/n-triples"},
        ),
        http.delete("/datasets/sample/store", headers=headers),
        http.post("/datasets", json={"name": "new"}, headers=headers),
        http.post(
            "/datasets",
            data={"name": "sample"},
            files={"file": ("a.nt", b'<http://x/a> <http://x/b> "1" .')},
            headers=headers,
        ),
        http.delete("/datasets/sample", headers=headers),
    ]
    for response in attempts:
        assert response.status_code == status, (response.request.method, response.request.url, response.text)
        assert message in response.json()["message"]
        if status == 401:
            assert response.headers["www-authenticate"].startswith("Bearer")
    assert server.count() == before == 615
    assert [d.name for d in server.kg.datasets() if d.name == "new"] == []


def test_queries_need_no_token(http: httpx.Client) -> None:
    assert http.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}).json()["boolean"] is True


def test_read_only_refuses_every_write(read_only_server: Served) -> None:
    before = read_only_server.count()
    with read_only_server.http() as http:
        attempts = [
            http.post("/sparql", data={"update": INSERT}, headers=AUTH),
            http.put(
                "/datasets/sample/store",
                content='<http://x/a> <http://x/b> "1" .',
                headers={**AUTH, "Content-Type": "application/n-triples"},
            ),
            http.delete("/datasets/sample/store", headers=AUTH),
            http.post(
                "/datasets",
                files={"file": ("a.nt", b'<http://x/a> <http://x/b> "1" .')},
                data={"name": "x"},
                headers=AUTH,
            ),
            http.delete("/datasets/sample", headers=AUTH),
        ]
        for response in attempts:
            assert response.status_code == 403, response.text
            assert "read-only" in response.json()["message"]
        assert http.get("/datasets/sample/sparql", params={"query": "ASK { ?s ?p ?o }"}).json()["boolean"] is True
        assert http.get("/health").json()["read_only"] is True
    assert read_only_server.count() == before == 615


@pytest.mark.parametrize(
    "template",
    [
        "SELECT * WHERE {{ SERVICE <{url}/sparql> {{ ?s ?p ?o }} }}",
        "SELECT * WHERE {{ ?a ?b ?c SERVICE SILENT <{url}/sparql> {{ ?s ?p ?o }} }}",
        "SELECT * WHERE {{ ?a ?b 1SERVICE <{url}/sparql> {{ ?s ?p ?o }} }}",  # pyoxigraph reads this as SERVICE
        "PREFIX : <{url}/> SELECT * WHERE {{ ?a ?b ?c SERVICE:sparql {{ ?s ?p ?o }} }}",  # and this
        "SELECT * WHERE {{ ?a ?b ?c FILTER(true)service<{url}/sparql>{{ ?s ?p ?o }} }}",
    ],
)
def test_service_is_refused_and_nothing_is_fetched(
    http: httpx.Client, listener: tuple[str, list[str]], template: str
) -> None:
    url, hits = listener
    response = http.get("/sparql", params={"query": template.format(url=url)})
    assert response.status_code == 403, response.text
    assert response.json()["kind"] == "forbidden" and "SERVICE is not allowed" in response.json()["message"]
    assert hits == []


def test_load_is_refused_and_nothing_is_fetched(
    http: httpx.Client, server: Served, listener: tuple[str, list[str]]
) -> None:
    url, hits = listener
    before = server.count()
    for update in (
        f"LOAD <{url}/data.nt> INTO GRAPH <urn:kgsvc:dataset:sample>",
        "LOAD <file:///etc/passwd>",
        f"INSERT DATA {{ <http://x/a> <http://x/b> 1 }} ; load silent <{url}/x>",
        f"PREFIX u: <{url}/>\nBASE <{url}/>\nLOAD u:x INTO GRAPH <urn:kgsvc:dataset:sample> ; LOAD <y>",
    ):
        response = http.post("/sparql", data={"update": update}, headers=AUTH)
        assert response.status_code == 403 and "LOAD is not allowed" in response.json()["message"]
    service_in_update = f"INSERT {{ ?s ?p ?o }} WHERE {{ SERVICE <{url}/sparql> {{ ?s ?p ?o }} }}"
    assert http.post("/sparql", data={"update": service_in_update}, headers=AUTH).status_code == 403
    assert hits == [] and server.count() == before


@pytest.mark.parametrize(
    ("path", "form", "text", "position"),
    [
        ("/sparql", "update", "LOAD ;", "1:7"),
        ("/sparql", "update", "INSERT DATA { <http://x/a> <http://x/b> 1 } ;\nLOAD <{url}/x> INTO", "2:"),
        ("/datasets/sample/sparql", "update", "LOAD <{url}/x> INTO GRAPH", "1:"),
        ("/sparql", "update", "PREFIX u: <{url}/> LOAD u:x ;\nLOAD", "2:5"),
        ("/sparql", "query", "SELECT * WHERE { SERVICE <{url}/sparql> { ?s ?p ?o }", "1:"),
        ("/datasets/sample/sparql", "query", "SELECT * WHERE { ?a ?b ?c SERVICE <{url}/> }", "1:"),
    ],
)
def test_invalid_load_or_service_is_a_syntax_error_first(
    http: httpx.Client, listener: tuple[str, list[str]], path: str, form: str, text: str, position: str
) -> None:
    url, hits = listener
    response = http.post(path, data={form: text.replace("{url}", url)}, headers=AUTH)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["kind"] == "syntax" and body["message"].startswith(f"error at {position}"), body
    assert hits == []


def test_names_that_contain_the_words_are_fine(http: httpx.Client) -> None:
    query = (
        "PREFIX sd: <http://www.w3.org/ns/sparql-service-description#> "
        "SELECT ?service ?download WHERE { ?service a sd:Service ; <http://x/service> 'SERVICE' . } # SERVICE"
    )
    response = http.get("/sparql", params={"query": query})
    assert response.status_code == 200, response.text
