from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyoxigraph import QuerySolutions

from kgsvc.errors import DatasetError, QueryError, StoreError
from kgsvc.store import (
    EmbeddedStore,
    RdfFormat,
    check_dataset_name,
    check_query_syntax,
    check_update_syntax,
    dataset_graph,
    dataset_of_graph,
)

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


@pytest.fixture
def accepting_socket() -> Iterator[tuple[str, list[int]]]:
    """A local port that counts the connections made to it (there must be none)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.05)
    hits: list[int] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            hits.append(1)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/", hits
    stop.set()
    thread.join()
    server.close()


def test_syntax_checks_parse_without_running(accepting_socket: tuple[str, list[int]]) -> None:
    url, hits = accepting_socket
    for query in (
        f"SELECT * {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
        f"ASK {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}",
        f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
        f"SELECT ?kgsvc {{ FILTER EXISTS {{ SERVICE <{url}> {{ ?kgsvc ?p ?o }} }} }}",
        f"DESCRIBE * {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
    ):
        check_query_syntax(query)
    for update in (
        f"LOAD <{url}>",
        f"PREFIX a: <{url}>\nBASE <{url}> LOAD a:x ; LOAD <y>",
        f"# LOAD\nPREFIX a: <{url}> # LOAD\n INSERT {{ ?s ?p ?o }} WHERE {{ SERVICE a: {{ ?s ?p ?o }} }}",
    ):
        check_update_syntax(update)
    time.sleep(0.2)
    assert hits == []


@pytest.mark.parametrize(
    ("update", "position"),
    [
        ("LOAD ;", "1:7"),
        ("PREFIX a: <u:> LOAD a:x INTO", "1:29"),
        ("PREFIX a: <u:>\nLOAD a:x INTO", "2:14"),
        ("PREFIX a: <u:> LOAD a:x ;\nLOAD", "2:5"),
    ],
)
def test_update_syntax_errors_keep_the_clients_positions(update: str, position: str) -> None:
    with pytest.raises(QueryError, match=f"^error at {position}:"):
        check_update_syntax(update)
    with pytest.raises(QueryError, match=f"^error at {position}:"):
        check_update_syntax(update, guarded=False)  # invalid: nothing runs; pyoxigraph's own position
