"""Single-pattern lookups answered inline (kgsvc.api.lookup): what is recognised, and that the inline answers are
the query workers' answers, limits included, on the real server."""

from __future__ import annotations

import csv
import io

import httpx
import pytest

from kgsvc.api import lookup
from tests.api.conftest import Served

S = "https://kgsvc.local/sample/"
LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"  # 224 triples in the sample KG
STARRING = f"<{S}starring>"  # 96 triples


@pytest.mark.parametrize(
    "query",
    [
        f"SELECT ?o WHERE {{ <{S}film_Alien> {STARRING} ?o }}",
        f"select ?s ?o {{ ?s {STARRING} ?o . }} limit 5",
        f"PREFIX s: <{S}> BASE <{S}> SELECT * WHERE {{ <film_Alien> s:starring ?who }}",
        f'ASK {{ ?s {LABEL} "Alien"@en }}',
        f'SELECT ?s {{ ?s <{S}releaseYear> "1979"^^<http://www.w3.org/2001/XMLSchema#gYear> }}',
        "PREFIX : <urn:x:> SELECT ?c WHERE { ?x a ?c }",
        "SELECT $o WHERE { <urn:a> <urn:b> $o } LIMIT 0",
    ],
)
def test_lookups_are_recognised(query: str) -> None:
    assert lookup.is_lookup(query)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * WHERE { ?s ?p ?o }",  # no constant: a scan of the whole store
        "SELECT ?x WHERE { ?x <urn:p> ?x }",  # a repeated variable scans without writing rows
        "SELECT DISTINCT ?p WHERE { <urn:s> ?p ?o }",  # DISTINCT can scan without writing rows
        "SELECT ?o WHERE { <urn:s> <urn:p> ?o . <urn:s> <urn:q> ?o }",  # a join
        "SELECT ?o WHERE { <urn:s> <urn:p> ?o FILTER(?o > 1) }",
        "SELECT ?o WHERE { <urn:s> <urn:p> ?o } ORDER BY ?o",
        "SELECT ?o FROM <urn:g> WHERE { <urn:s> <urn:p> ?o }",
        "SELECT ?o WHERE { <urn:s> <urn:p>/<urn:q> ?o }",
        "SELECT ?o WHERE { <urn:s> <urn:p> ?o } # a comment",
        "PREFIX service: <urn:x:> SELECT ?o WHERE { <urn:s> service:p ?o }",
        "CONSTRUCT WHERE { <urn:s> <urn:p> ?o }",
        "INSERT DATA { <urn:s> <urn:p> <urn:o> }",
    ],
)
def test_everything_else_goes_to_the_workers(query: str) -> None:
    assert not lookup.is_lookup(query)


def test_recognising_is_linear_and_bounded() -> None:
    """The text is matched on the event loop: no backtracking blow-up, and long texts are not looked at."""
    spaces = " " * (lookup.MAX_LOOKUP_CHARS - 40)
    assert not lookup.is_lookup("SELECT ?o { <a:b> <c:d> ?o" + spaces + "x")
    assert lookup.is_lookup("SELECT ?o { <a:b> <c:d> ?o" + spaces + "}")
    assert not lookup.is_lookup("SELECT ?o { <a:b> <c:d> ?o }" + " " * lookup.MAX_LOOKUP_CHARS)
    assert not lookup.is_lookup("SELECT ?o { <a:b> <c:d> ?o } l\u0131m\u0131t 5")  # ASCII keywords only


def _worker_twin(query: str) -> str:
    """The same query, no longer a lookup (a comment), so that a query worker answers it."""
    assert lookup.is_lookup(query)
    twin = query + " # answered by a query worker"
    assert not lookup.is_lookup(twin)
    return twin


@pytest.mark.parametrize(
    "accept",
    ["application/sparql-results+json", "application/sparql-results+xml", "text/csv", "text/tab-separated-values"],
)
@pytest.mark.parametrize(
    "query",
    [
        f"SELECT ?o WHERE {{ <{S}film_Alien> {STARRING} ?o }}",
        f"SELECT * WHERE {{ ?film {STARRING} ?actor }}",
        f'SELECT ?s WHERE {{ ?s {LABEL} "Alien" }}',
        f'ASK {{ ?s {LABEL} "Alien" }}',
        f"SELECT ?o WHERE {{ <{S}film_Alien> <{S}nothing> ?o }}",
    ],
)
def test_inline_answers_are_the_workers_answers(http: httpx.Client, query: str, accept: str) -> None:
    inline = http.get("/datasets/sample/sparql", params={"query": query}, headers={"Accept": accept})
    worker = http.get("/datasets/sample/sparql", params={"query": _worker_twin(query)}, headers={"Accept": accept})
    assert inline.status_code == worker.status_code == 200, (inline.text, worker.text)
    assert inline.headers["content-type"] == worker.headers["content-type"]
    assert _rows(inline, accept) == _rows(worker, accept)


def _rows(response: httpx.Response, accept: str) -> object:
    if accept.endswith("json"):
        data = response.json()
        return data.get("boolean"), sorted(str(sorted(b.items())) for b in data.get("results", {}).get("bindings", []))
    if accept.endswith("xml"):
        return sorted(response.text.split("<result>"))
    reader = csv.reader(io.StringIO(response.text), delimiter="," if accept == "text/csv" else "\t")
    rows = list(reader)
    return rows[:1], sorted(map(tuple, rows[1:]))


def test_inline_answers_see_writes_at_once(http: httpx.Client, scratch: str, server: Served) -> None:
    query = "SELECT ?o WHERE { <urn:x:new> <urn:x:p> ?o }"
    assert http.get(f"/datasets/{scratch}/sparql", params={"query": query}).json()["results"]["bindings"] == []
    server.kg.update(f"INSERT DATA {{ GRAPH <urn:kgsvc:dataset:{scratch}> {{ <urn:x:new> <urn:x:p> 7 }} }}")
    rows = http.get(f"/datasets/{scratch}/sparql", params={"query": query}).json()["results"]["bindings"]
    assert [row["o"]["value"] for row in rows] == ["7"]


def test_a_lookup_past_the_row_limit_is_a_413(http: httpx.Client) -> None:
    query = f"SELECT ?s ?o WHERE {{ ?s {LABEL} ?o }}"  # 224 rows; the test server allows 200
    for text in (query, _worker_twin(query)):
        response = http.get("/datasets/sample/sparql", params={"query": text})
        assert response.status_code == 413, response.text
        assert response.json()["message"] == "the result has more than 200 rows"
    exactly = http.get(
        "/datasets/sample/sparql", params={"query": query + " LIMIT 200"}, headers={"Accept": "text/csv"}
    )
    assert exactly.status_code == 200 and exactly.text.count("\n") == 201


def test_a_lookup_larger_than_the_inline_budget_is_answered_by_a_worker(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past INLINE_MAX_BYTES a lookup is handed to a query worker, which answers it in full."""
    monkeypatch.setattr(lookup, "INLINE_MAX_BYTES", 100)  # the test server runs in this process
    query = f"SELECT ?film ?actor WHERE {{ ?film {STARRING} ?actor }}"
    calls: list[object] = []
    original = lookup.answer

    def answer(*args: object) -> object:
        result = original(*args)  # type: ignore[arg-type]
        calls.append(result)
        return result

    monkeypatch.setattr(lookup, "answer", answer)
    response = http.get("/datasets/sample/sparql", params={"query": query}, headers={"Accept": "text/csv"})
    assert response.status_code == 200 and response.text.count("\n") == 97
    assert calls == [None]  # tried inline, handed on


def test_a_lookup_with_a_syntax_error_gets_the_parsers_message(http: httpx.Client) -> None:
    response = http.get("/datasets/sample/sparql", params={"query": "SELECT ?o WHERE { <urn:s> undeclared:p ?o }"})
    assert response.status_code == 400
    assert "Prefix not found" in response.json()["message"]
