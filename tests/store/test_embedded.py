from __future__ import annotations

import io
from pathlib import Path

import pytest
from pyoxigraph import QuerySolutions

from kgsvc.errors import DatasetError, QueryError, StoreError
from kgsvc.store import EmbeddedStore, RdfFormat, check_dataset_name, dataset_graph, dataset_of_graph

NT = b'<http://ex/a> <http://ex/p> <http://ex/b> .\n<http://ex/b> <http://ex/p> "x" .\n'


def test_dataset_graph_names_round_trip() -> None:
    assert dataset_of_graph(dataset_graph("movies").value) == "movies"
    assert dataset_of_graph("http://ex/g") is None
    for bad in ("", "has space", "-lead", "x" * 65, "a/b"):
        with pytest.raises(DatasetError):
            check_dataset_name(bad)


def test_load_count_dump_drop_on_disk(tmp_path: Path) -> None:
    graph = dataset_graph("d").value
    store = EmbeddedStore(tmp_path / "s")
    store.load(io.BytesIO(NT), RdfFormat.N_TRIPLES, graph=graph)
    assert store.count(graph) == 2
    assert store.graphs() == [graph]
    assert store.dump(graph, RdfFormat.N_TRIPLES).count(b"\n") == 2
    store.close()
    reopened = EmbeddedStore(tmp_path / "s")  # data survives a reopen
    assert reopened.count(graph) == 2
    reopened.drop(graph)
    assert reopened.count(graph) == 0 and reopened.graphs() == []
    reopened.close()


def test_second_writer_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    first = EmbeddedStore(tmp_path / "s")
    with pytest.raises(StoreError, match="cannot open the store"):
        EmbeddedStore(tmp_path / "s")
    first.close()


def test_query_scoping_and_errors() -> None:
    store = EmbeddedStore()
    store.load(io.BytesIO(NT), RdfFormat.N_TRIPLES, graph=dataset_graph("a").value)
    store.load(
        io.BytesIO(b"<http://ex/c> <http://ex/p> <http://ex/d> ."), RdfFormat.N_TRIPLES, graph=dataset_graph("b").value
    )
    one = store.query("SELECT ?s WHERE { ?s ?p ?o }", default_graph=[dataset_graph("b").value])
    assert isinstance(one, QuerySolutions)
    assert [row["s"].value for row in one] == ["http://ex/c"]
    solutions = store.query("SELECT ?s WHERE { ?s ?p ?o }", union_default_graph=True)
    assert isinstance(solutions, QuerySolutions)
    union = list(solutions)
    assert len(union) == 3
    with pytest.raises(QueryError) as info:
        store.query("SELECT ?s WHERE { ?s ?p }")
    assert info.value.kind == "syntax"
    with pytest.raises(QueryError):
        store.update("INSERT DATA { <a> }")
    assert store.count(dataset_graph("a").value) == 2
