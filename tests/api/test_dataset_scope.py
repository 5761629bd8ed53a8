"""A dataset endpoint reads and writes its own dataset's graphs only (403 otherwise), on a real server: its
default graph and the named graphs it owns, which an update there may create and a TriG load brings.

And a write into the graph of a dataset that does not exist is refused everywhere (404, nothing written).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kgsvc.errors import DatasetError
from tests.api.conftest import AUTH, Served

EX = "http://example.org/"


@pytest.fixture
def neighbour(server: Served) -> Iterator[str]:
    """Another dataset, with one triple in its graph and one in its named graph ``<EX of-NAME>``; beside it a graph of
    no dataset, ``<EX nobodys-NAME>``. All dropped afterwards."""
    name = f"n{uuid.uuid4().hex[:10]}"
    server.kg.catalog.create(name)
    server.kg.catalog.claim_graphs(name, [f"{EX}of-{name}"])
    server.kg.update(
        f"INSERT DATA {{ GRAPH <urn:kgsvc:dataset:{name}> {{ <{EX}s> <{EX}p> 0 }} "
        f"GRAPH <{EX}of-{name}> {{ <{EX}s> <{EX}p> 0 }} GRAPH <{EX}nobodys-{name}> {{ <{EX}s> <{EX}p> 0 }} }}"
    )
    yield name
    server.kg.drop(name)
    server.kg.store.drop(f"{EX}nobodys-{name}")


def _counts(server: Served, *names: str) -> tuple[int, ...]:
    return tuple(server.kg.store.count(g) for name in names for g in (f"urn:kgsvc:dataset:{name}", f"{EX}of-{name}"))


def _update(http: httpx.Client, path: str, text: str) -> httpx.Response:
    return http.post(path, content=text, headers={**AUTH, "Content-Type": "application/sparql-update"})


@pytest.mark.parametrize(
    "update",
    [
        "INSERT DATA {{ GRAPH <{dataset}> {{ <{ex}s> <{ex}p> 1 }} }}",
        "CLEAR GRAPH <{dataset}>",
        "DROP GRAPH <{dataset}>",
        "WITH <{dataset}> DELETE {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }}",
        "INSERT {{ ?s ?p ?o }} WHERE {{ GRAPH <{dataset}> {{ ?s ?p ?o }} }}",
        "INSERT {{ ?s ?p ?o }} USING <{dataset}> WHERE {{ ?s ?p ?o }}",
        "COPY <{dataset}> TO DEFAULT",
        "INSERT DATA {{ GRAPH <urn:kgsvc:staging:x> {{ <{ex}s> <{ex}p> 1 }} }}",
        "INSERT DATA {{ GRAPH <{named}> {{ <{ex}s> <{ex}p> 1 }} }}",
        "DROP GRAPH <{named}>",
        "INSERT {{ ?s ?p ?o }} WHERE {{ GRAPH <{named}> {{ ?s ?p ?o }} }}",
    ],
)
def test_dataset_endpoint_update_cannot_reach_another_graph(
    http: httpx.Client, server: Served, scratch: str, neighbour: str, update: str
) -> None:
    before = _counts(server, neighbour, scratch)
    text = update.format(ex=EX, dataset=f"urn:kgsvc:dataset:{neighbour}", named=f"{EX}of-{neighbour}")
    response = _update(http, f"/datasets/{scratch}/sparql", text)
    assert response.status_code == 403, response.text
    assert f"reads and writes the graphs of dataset {scratch!r} only" in response.json()["message"]
    assert _counts(server, neighbour, scratch) == before
    assert server.kg.catalog.named_graphs(scratch) == []


def test_graph_variables_and_all_reach_only_the_dataset_graphs(
    http: httpx.Client, server: Served, scratch: str, neighbour: str
) -> None:
    """``GRAPH ?g`` bound to another dataset's graph by ``VALUES`` or ``BIND`` writes nothing there, ``GRAPH ?g``
    in ``WHERE`` sees the dataset's named graphs only, and ``DROP ALL`` drops the dataset's graphs only."""
    endpoint, mine = f"/datasets/{scratch}/sparql", f"{EX}mine-{scratch}"
    assert _update(http, endpoint, f"INSERT DATA {{ GRAPH <{mine}> {{ <{EX}s> <{EX}p> 1 }} }}").status_code == 200
    assert server.kg.catalog.named_graphs(scratch) == [mine]
    others = (*_counts(server, neighbour), server.kg.store.count(f"{EX}nobodys-{neighbour}"))
    for update in (
        f"INSERT {{ GRAPH ?g {{ <{EX}s> <{EX}p> 2 }} }} "
        f"WHERE {{ VALUES ?g {{ <urn:kgsvc:dataset:{neighbour}> <{mine}> }} }}",
        f"INSERT {{ GRAPH ?g {{ <{EX}s> <{EX}p> 3 }} }} WHERE {{ BIND(<{EX}of-{neighbour}> AS ?g) }}",
        f"INSERT {{ <{EX}seen> <{EX}graph> ?g }} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}",
    ):
        assert _update(http, endpoint, update).status_code == 200
    assert server.kg.store.count(mine) == 2  # the VALUES row of its own graph
    seen = server.kg.sparql(f"SELECT ?g {{ <{EX}seen> <{EX}graph> ?g }}", dataset=scratch).rows
    assert [row["g"].value for row in seen] == [mine]
    assert _update(http, endpoint, "DROP ALL").status_code == 200
    assert server.count(scratch) == 0 and mine not in server.kg.store.graphs()
    assert server.kg.catalog.named_graphs(scratch) == []  # dropped: no longer its graph
    assert (*_counts(server, neighbour), server.kg.store.count(f"{EX}nobodys-{neighbour}")) == others


def test_a_trig_load_keeps_its_named_graphs_in_the_dataset(
    http: httpx.Client, server: Served, scratch: str, tmp_path: Path
) -> None:
    trig, g1, g2 = tmp_path / "data.trig", f"{EX}g1-{scratch}", f"{EX}g2-{scratch}"
    trig.write_text(f"<{EX}a> <{EX}p> 1 . <{g1}> {{ <{EX}a> <{EX}p> 2 }} <{g2}> {{ <{EX}b> <{EX}p> 3 }}\n")
    name = f"{scratch}q"
    server.kg.load(trig, dataset=name)
    try:
        assert server.kg.catalog.named_graphs(name) == [g1, g2]
        assert server.count(name) == 1  # the default graph's triple
        response = http.get(
            f"/datasets/{name}/sparql",
            params={"query": "SELECT ?g (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g"},
            headers={"Accept": "application/sparql-results+json"},
        )
        rows = [(b["g"]["value"], b["n"]["value"]) for b in response.json()["results"]["bindings"]]
        assert rows == [(g1, "1"), (g2, "1")]
        with pytest.raises(DatasetError, match="belongs to dataset"):  # another dataset cannot load into them
            server.kg.load(trig, dataset=scratch)
        assert server.kg.catalog.named_graphs(scratch) == []
        forbidden = _update(http, f"/datasets/{scratch}/sparql", f"CLEAR GRAPH <{g1}>")
        assert forbidden.status_code == 403 and repr(name) in forbidden.json()["message"]
        before = len(server.events)
        server.kg.update(f"INSERT DATA {{ GRAPH <{g1}> {{ <{EX}c> <{EX}p> 4 }} }}")  # at /sparql: still an event
        assert [e.dataset for e in server.events[before:]] == [name]
    finally:
        server.kg.drop(name)
    assert {g1, g2}.isdisjoint(server.kg.store.graphs())  # dropped with the dataset


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
        ("SELECT * FROM <{nobodys}> { ?s ?p ?o } LIMIT 1", {}),
        ("SELECT * FROM NAMED <{named}> { GRAPH ?g { ?s ?p ?o } } LIMIT 1", {}),
        ("SELECT * { GRAPH ?g { ?s ?p ?o } } LIMIT 1", {"named-graph-uri": "{named}"}),
    ],
)
def test_dataset_endpoint_query_cannot_read_another_graph(
    http: httpx.Client, scratch: str, neighbour: str, query: str, params: dict[str, str]
) -> None:
    graphs = {"nobodys": f"{EX}nobodys-{neighbour}", "named": f"{EX}of-{neighbour}"}
    query = query.replace("{nobodys}", graphs["nobodys"]).replace("{named}", graphs["named"])
    params = {key: value.format(**graphs) for key, value in params.items()}
    response = http.get(f"/datasets/{scratch}/sparql", params={"query": query, **params})
    assert response.status_code == 403, response.text


def test_dataset_endpoint_query_may_name_its_graphs_and_graphs_no_one_holds(http: httpx.Client, scratch: str) -> None:
    endpoint, mine = f"/datasets/{scratch}/sparql", f"{EX}mine-{scratch}"
    assert _update(http, endpoint, f"INSERT DATA {{ GRAPH <{mine}> {{ <{EX}s> <{EX}p> 1 }} }}").status_code == 200
    for query, params, expected in (
        (f"SELECT ?o FROM <{mine}> {{ ?s ?p ?o }}", {}, ["1"]),
        ("SELECT ?o { ?s ?p ?o }", {"default-graph-uri": mine}, ["1"]),
        (f"SELECT ?o FROM <{EX}nothing-here> {{ ?s ?p ?o }}", {}, []),
    ):
        response = http.get(
            endpoint, params={"query": query, **params}, headers={"Accept": "application/sparql-results+json"}
        )
        assert response.status_code == 200, response.text
        assert [b["o"]["value"] for b in response.json()["results"]["bindings"]] == expected


def test_dataset_endpoint_graph_patterns_see_only_its_named_graphs(http: httpx.Client, scratch: str) -> None:
    query = {"query": "SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } }"}
    accept = {"Accept": "application/sparql-results+json"}
    response = http.get(f"/datasets/{scratch}/sparql", params=query, headers=accept)
    assert response.status_code == 200
    assert response.json()["results"]["bindings"] == []  # the default graph is not a named graph
    mine = f"{EX}mine-{scratch}"
    assert _update(http, f"/datasets/{scratch}/sparql", f"INSERT DATA {{ GRAPH <{mine}> {{ <{EX}s> <{EX}p> 1 }} }}")
    response = http.get(f"/datasets/{scratch}/sparql", params=query, headers=accept)
    assert [b["g"]["value"] for b in response.json()["results"]["bindings"]] == [mine]


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
