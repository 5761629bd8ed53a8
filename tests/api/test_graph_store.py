"""The Graph Store HTTP Protocol on a dataset: round trip, replace, add, clear, errors that change nothing."""

from __future__ import annotations

import uuid

import httpx
import rdflib
import rdflib.compare

from tests.api.conftest import AUTH, Served

TURTLE = """@prefix ex: <http://example.org/> .
ex:alice ex:knows ex:bob , ex:carol ;
    ex:name "Alice"@en .
"""


def _graph(response: httpx.Response) -> rdflib.Graph:
    media = response.headers["content-type"].split(";")[0]
    fmt = {
        "text/turtle": "turtle",
        "application/n-triples": "nt",
        "application/rdf+xml": "xml",
        "application/ld+json": "json-ld",
    }[media]
    return rdflib.Graph().parse(data=response.content, format=fmt)


def test_round_trip_put_get_post_delete(http: httpx.Client, server: Served) -> None:
    name = f"g{uuid.uuid4().hex[:8]}"
    path = f"/datasets/{name}/store"
    assert http.get(path).status_code == 404
    created = http.put(path, content=TURTLE, headers={**AUTH, "Content-Type": "text/turtle"})
    assert created.status_code == 201, created.text
    expected = rdflib.Graph().parse(data=TURTLE, format="turtle")
    for accept in ("text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json"):
        got = http.get(path, params={"default": ""}, headers={"Accept": accept})
        assert got.status_code == 200
        assert rdflib.compare.isomorphic(_graph(got), expected), accept
    assert http.get(path, params={"graph": f"urn:kgsvc:dataset:{name}"}).status_code == 200
    added = http.post(
        path,
        content='<http://example.org/dan> <http://example.org/name> "Dan" .',
        headers={**AUTH, "Content-Type": "application/n-triples"},
    )
    assert added.status_code == 204 and server.count(name) == 4
    replaced = http.put(
        path,
        content='<http://example.org/x> <http://example.org/y> "1" .',
        headers={**AUTH, "Content-Type": "application/n-triples"},
    )
    assert replaced.status_code == 204 and server.count(name) == 1
    causes = [e.cause for e in server.events if e.dataset == name]
    assert causes == ["replace", "load", "replace"]
    assert (
        http.get(f"/datasets/{name}/sparql", params={"query": "ASK { <http://example.org/alice> ?p ?o }"}).json()[
            "boolean"
        ]
        is False
    )
    cleared = http.delete(path, headers=AUTH)
    assert cleared.status_code == 204 and server.count(name) == 0
    assert http.delete(f"/datasets/{name}", headers=AUTH).status_code == 204


def test_a_malformed_body_is_a_400_and_changes_nothing(http: httpx.Client, server: Served, scratch: str) -> None:
    path = f"/datasets/{scratch}/store"
    before = server.count(scratch)
    for method in ("PUT", "POST"):
        response = http.request(
            method,
            path,
            content="@prefix ex: <http://e/> .\nex:a ex:b .\n",
            headers={**AUTH, "Content-Type": "text/turtle"},
        )
        assert response.status_code == 400, response.text
        body = response.json()
        assert body["error"] == "IngestError" and body["line"] == 2 and body["message"].startswith("request body:2:")
    assert server.count(scratch) == before
    fresh = f"g{uuid.uuid4().hex[:8]}"
    rejected = http.put(
        f"/datasets/{fresh}/store", content="not turtle at all <", headers={**AUTH, "Content-Type": "text/turtle"}
    )
    assert rejected.status_code == 400 and not server.kg.catalog.exists(fresh)


def test_wrong_content_type_and_graph_parameters(http: httpx.Client, scratch: str) -> None:
    path = f"/datasets/{scratch}/store"
    wrong = http.put(path, content="{}", headers={**AUTH, "Content-Type": "application/pdf"})
    assert wrong.status_code == 415 and "application/pdf" in wrong.json()["message"]
    missing = http.post(path, content=b"x", headers={**AUTH, "Content-Type": ""})
    assert missing.status_code == 415
    other = http.get(path, params={"graph": "http://example.org/other"})
    assert other.status_code == 404 and "not a named graph of dataset" in other.json()["message"]
    both = http.get(path, params={"graph": f"urn:kgsvc:dataset:{scratch}", "default": ""})
    assert both.status_code == 400
    assert http.get(path, headers={"Accept": "text/csv"}).status_code == 406
    assert http.head(path).status_code == 200


def test_an_empty_body_is_the_empty_graph(http: httpx.Client, server: Served, scratch: str) -> None:
    """GSP §5.3/§5.5: PUT with an empty body empties the graph; POST with one adds nothing; a new name is created."""
    ntriples = {**AUTH, "Content-Type": "application/n-triples"}
    before = server.count(scratch)
    assert before > 0
    assert http.post(f"/datasets/{scratch}/store", content=b"", headers=ntriples).status_code == 204
    assert server.count(scratch) == before
    assert http.put(f"/datasets/{scratch}/store", content=b"", headers=ntriples).status_code == 204
    assert server.count(scratch) == 0
    fresh = f"{scratch}x"
    try:
        assert http.put(f"/datasets/{fresh}/store", content=b"", headers=ntriples).status_code == 201
        assert server.kg.catalog.exists(fresh) and server.count(fresh) == 0
    finally:
        server.kg.drop(fresh)


def test_named_graphs_of_a_dataset(http: httpx.Client, server: Served, scratch: str) -> None:
    """``?graph=IRI``: PUT creates a named graph of the dataset, GET reads it, POST adds, PUT replaces, DELETE
    drops it; another dataset's named graph is a 409, and the dataset's default graph is untouched throughout."""
    path, graph = f"/datasets/{scratch}/store", "http://example.org/named"
    turtle = {**AUTH, "Content-Type": "text/turtle"}
    before = server.count(scratch)
    put = http.put(path, params={"graph": graph}, content=TURTLE, headers=turtle)
    assert put.status_code == 201, put.text
    assert server.kg.catalog.named_graphs(scratch) == [graph]
    assert len(_graph(http.get(path, params={"graph": graph}))) == len(rdflib.Graph().parse(data=TURTLE))
    added = http.post(
        path, params={"graph": graph}, content="<http://example.org/x> <http://example.org/y> 1 .", headers=turtle
    )
    assert added.status_code == 204
    assert server.kg.store.count(graph) == len(rdflib.Graph().parse(data=TURTLE)) + 1
    replaced = http.put(
        path, params={"graph": graph}, content="<http://example.org/x> <http://example.org/y> 2 .", headers=turtle
    )
    assert replaced.status_code == 204 and server.kg.store.count(graph) == 1
    other = f"{scratch}o"
    try:
        conflict = http.put(f"/datasets/{other}/store", params={"graph": graph}, content=TURTLE, headers=turtle)
        assert conflict.status_code == 409 and repr(scratch) in conflict.json()["message"]
        assert server.kg.store.count(graph) == 1
    finally:
        if server.kg.catalog.exists(other):
            server.kg.drop(other)
    assert http.delete(path, params={"graph": graph}, headers=AUTH).status_code == 204
    assert graph not in server.kg.store.graphs() and server.kg.catalog.named_graphs(scratch) == []
    assert http.delete(path, params={"graph": graph}, headers=AUTH).status_code == 404
    assert server.count(scratch) == before
