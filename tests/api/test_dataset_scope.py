"""A dataset endpoint reads and writes its own dataset's graph only (403 otherwise), on a real server.

And a write into the graph of a dataset that does not exist is refused everywhere (404, nothing written).
"""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import AUTH, Served

EX = "http://example.org/"


def _update(http: httpx.Client, path: str, text: str) -> httpx.Response:
    return http.post(path, content=text, headers={**AUTH, "Content-Type": "application/sparql-update"})


@pytest.mark.parametrize(
    "update",
    [
        "INSERT DATA {{ GRAPH <urn:kgsvc:dataset:sample> {{ <{ex}s> <{ex}p> 1 }} }}",
        "CLEAR GRAPH <urn:kgsvc:dataset:sample>",
        "DROP GRAPH <urn:kgsvc:dataset:sample>",
        "WITH <urn:kgsvc:dataset:sample> DELETE {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }}",
        "INSERT {{ GRAPH ?g {{ <{ex}s> <{ex}p> 1 }} }} WHERE {{ VALUES ?g {{ <urn:kgsvc:dataset:sample> }} }}",
        "INSERT {{ ?s ?p ?o }} WHERE {{ GRAPH <urn:kgsvc:dataset:sample> {{ ?s ?p ?o }} }}",
        "INSERT {{ ?s ?p ?o }} USING <urn:kgsvc:dataset:sample> WHERE {{ ?s ?p ?o }}",
        "COPY <urn:kgsvc:dataset:sample> TO DEFAULT",
        "INSERT DATA {{ GRAPH <{ex}elsewhere> {{ <{ex}s> <{ex}p> 1 }} }}",
    ],
)
def test_dataset_endpoint_update_cannot_reach_another_graph(
    http: httpx.Client, server: Served, scratch: str, update: str
) -> None:
    before = (server.count("sample"), server.count(scratch))
    response = _update(http, f"/datasets/{scratch}/sparql", update.format(ex=EX))
    assert response.status_code == 403, response.text
    assert "reads and writes its dataset's graph" in response.json()["message"]
    assert (server.count("sample"), server.count(scratch)) == before


def test_dataset_endpoint_update_of_its_own_graph_still_works(http: httpx.Client, server: Served, scratch: str) -> None:
    before = server.count(scratch)
    own = f"urn:kgsvc:dataset:{scratch}"
    for update in (
        f"INSERT DATA {{ <{EX}s> <{EX}p> 1 }}",
        f"INSERT DATA {{ GRAPH <{own}> {{ <{EX}s> <{EX}p> 2 }} }}",
        f"DELETE {{ ?s <{EX}p> 2 }} USING <{own}> WHERE {{ ?s <{EX}p> 2 }}",
    ):
        assert _update(http, f"/datasets/{scratch}/sparql", update).status_code == 200
    assert server.count(scratch) == before + 1


@pytest.mark.parametrize(
    ("query", "params"),
    [
        ("SELECT * FROM <urn:kgsvc:dataset:sample> { ?s ?p ?o } LIMIT 1", {}),
        ("SELECT * FROM NAMED <urn:kgsvc:dataset:sample> { GRAPH ?g { ?s ?p ?o } } LIMIT 1", {}),
        ("PREFIX d: <urn:kgsvc:dataset:> SELECT * FROM d:sample { ?s ?p ?o } LIMIT 1", {}),
        ("SELECT * { ?s ?p ?o } LIMIT 1", {"default-graph-uri": "urn:kgsvc:dataset:sample"}),
        ("SELECT * { GRAPH ?g { ?s ?p ?o } } LIMIT 1", {"named-graph-uri": "urn:kgsvc:dataset:sample"}),
    ],
)
def test_dataset_endpoint_query_cannot_read_another_graph(
    http: httpx.Client, scratch: str, query: str, params: dict[str, str]
) -> None:
    response = http.get(f"/datasets/{scratch}/sparql", params={"query": query, **params})
    assert response.status_code == 403, response.text


def test_dataset_endpoint_graph_patterns_see_only_its_graph(http: httpx.Client, scratch: str) -> None:
    response = http.get(
        f"/datasets/{scratch}/sparql",
        params={"query": "SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } }"},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert response.status_code == 200
    assert [b["g"]["value"] for b in response.json()["results"]["bindings"]] == [f"urn:kgsvc:dataset:{scratch}"]


@pytest.mark.parametrize("path", ["/sparql", "/datasets/{scratch}/sparql"])
def test_write_into_the_graph_of_a_missing_dataset_is_refused(
    http: httpx.Client, server: Served, scratch: str, path: str
) -> None:
    ghost = "urn:kgsvc:dataset:ghost0"
    response = _update(http, path.format(scratch=scratch), f"INSERT DATA {{ GRAPH <{ghost}> {{ <{EX}s> <{EX}p> 1 }} }}")
    assert response.status_code in (403, 404), response.text
    assert ghost not in server.kg.store.graphs()
    if path == "/sparql":
        assert response.status_code == 404 and "unknown dataset 'ghost0'" in response.json()["message"]
