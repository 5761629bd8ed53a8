"""The remote backend against a real `oxigraph serve` on localhost."""

from __future__ import annotations

import io

import pytest

from kgsvc.errors import IngestError, QueryError, StoreError
from kgsvc.store import RdfFormat, RemoteStore, dataset_graph, to_result

TTL = b'@prefix ex: <http://ex/> .\nex:a ex:p ex:b ; ex:q "hello"@en .\nex:b ex:p ex:c .\n'


def test_remote_store_round_trip(oxigraph_server: str) -> None:
    store = RemoteStore(oxigraph_server)
    graph = dataset_graph("remote").value
    store.load(io.BytesIO(TTL), RdfFormat.TURTLE, graph=graph)
    assert store.count(graph) == 3
    assert graph in store.graphs()
    rows = to_result(store.query("SELECT ?o WHERE { <http://ex/a> <http://ex/q> ?o }", default_graph=[graph])).rows
    assert rows[0]["o"].value == "hello" and rows[0]["o"].lang == "en"
    assert bool(store.query("ASK { <http://ex/a> ?p ?o }", default_graph=[graph]))
    triples = list(store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", default_graph=[graph]))  # type: ignore[arg-type]
    assert len(triples) == 3
    assert store.dump(graph, RdfFormat.N_TRIPLES).count(b"\n") == 3
    store.update(f"INSERT DATA {{ GRAPH <{graph}> {{ <http://ex/x> <http://ex/p> <http://ex/y> }} }}")
    assert store.count(graph) == 4
    # relative IRIs resolve against the base given, not the remote server's URL
    store.update(f"INSERT DATA {{ GRAPH <{graph}> {{ <x2> <p> 1 }} }}", base_iri="http://ex/")
    assert bool(store.query("ASK { <http://ex/x2> <http://ex/p> 1 }", default_graph=[graph]))
    assert bool(store.query("ASK { <x2> <p> 1 }", default_graph=[graph], base_iri="http://ex/"))
    store.update(f"DELETE DATA {{ GRAPH <{graph}> {{ <http://ex/x2> <http://ex/p> 1 }} }}")
    store.bulk_insert([])
    store.drop(graph)
    assert store.count(graph) == 0
    store.close()


def test_remote_store_errors(oxigraph_server: str) -> None:
    with RemoteStore(oxigraph_server) as store, RemoteStore("http://127.0.0.1:9", timeout_s=2) as unreachable:
        assert isinstance(store, RemoteStore) and isinstance(unreachable, RemoteStore)
        _check_errors(store, unreachable)


def _check_errors(store: RemoteStore, unreachable: RemoteStore) -> None:
    graph = dataset_graph("remote").value
    store.load(io.BytesIO(TTL), RdfFormat.TURTLE, graph=graph)
    with pytest.raises(QueryError):
        store.query("SELECT ?s WHERE { ?s ?p }")
    with pytest.raises(IngestError, match=":2:"):
        store.load(
            io.BytesIO(b"<http://ex/a> <http://ex/p> <http://ex/b> .\n<http://ex/a> <p> ."),
            RdfFormat.N_TRIPLES,
            graph=graph,
            file="bad.nt",
        )
    assert store.count(graph) == 3
    with pytest.raises(StoreError):
        unreachable.count(graph)
