"""Content negotiation and the native serialisation under limits (no server needed)."""

from __future__ import annotations

import json

import pytest
from pyoxigraph import QueryResultsFormat, QuerySolutions

from kgsvc.api.negotiation import NotAcceptable, negotiate, rdf_format_for_media_type
from kgsvc.api.results import QueryJob, run_query
from kgsvc.errors import QueryError
from kgsvc.store import EmbeddedStore, RdfFormat


@pytest.mark.parametrize(
    ("accept", "kind", "media_type"),
    [
        (None, "results", "application/sparql-results+json"),
        ("*/*", "graph", "text/turtle"),
        (
            "application/sparql-results+json,application/json,text/javascript",
            "results",
            "application/sparql-results+json",
        ),
        ("application/sparql-results+xml", "results", "application/sparql-results+xml"),
        ("text/*;q=0.5, application/sparql-results+xml;q=0.4", "results", "text/csv"),
        ("text/tab-separated-values, text/csv", "results", "text/tab-separated-values"),
        ("application/rdf+xml, */*;q=0.1", "graph", "application/rdf+xml"),
        ("application/sparql-results+xml, application/rdf+xml", "graph", "application/rdf+xml"),
        ("text/turtle;q=0.1, application/n-triples;q=0.9", "graph", "application/n-triples"),
        ("application/ld+json", "graph", "application/ld+json"),
        ("text/csv;q=0, */*", "results", "application/sparql-results+json"),
    ],
)
def test_accept(accept: str | None, kind: str, media_type: str) -> None:
    assert negotiate(accept, kind).media_type == media_type


def test_format_parameter_wins_when_it_fits_the_result() -> None:
    assert negotiate("text/csv", "results", "json").media_type == "application/sparql-results+json"
    assert negotiate(None, "graph", "xml").media_type == "application/rdf+xml"
    assert negotiate("text/turtle", "graph", "csv").media_type == "text/turtle"  # ignored: not a graph format


def test_nothing_acceptable() -> None:
    with pytest.raises(NotAcceptable, match="offered: application/sparql-results"):
        negotiate("image/png, text/csv;q=0", "results")


def test_request_body_formats() -> None:
    assert rdf_format_for_media_type("application/n-triples") == RdfFormat.N_TRIPLES
    assert rdf_format_for_media_type("application/trig") == RdfFormat.TRIG
    assert rdf_format_for_media_type("application/xml") == RdfFormat.RDF_XML
    assert rdf_format_for_media_type("application/pdf") is None
    assert rdf_format_for_media_type(None) is None


@pytest.fixture
def store() -> EmbeddedStore:
    store = EmbeddedStore()
    store.update(
        'INSERT DATA { GRAPH <urn:g> { <http://e/a> <http://e/p> "x\\ty\\nz", "é"@fr, 1, _:b .'
        " <http://e/b> <http://e/p> <<( <http://e/a> <http://e/p> 1 )>> } }"
    )
    return store


def _job(query: str, media_type: str, *, max_rows: int = 100) -> QueryJob:
    return QueryJob(query=query, media_type=media_type, max_rows=max_rows, timeout_s=10, default_graph=("urn:g",))


@pytest.mark.parametrize(
    "media_type",
    ["application/sparql-results+json", "application/sparql-results+xml", "text/csv", "text/tab-separated-values"],
)
def test_select_through_tsv_is_lossless(store: EmbeddedStore, media_type: str) -> None:
    query = "SELECT ?s ?o ?unbound WHERE { ?s ?p ?o } ORDER BY ?o"
    _, body = run_query(store, _job(query, media_type))
    solutions, fmt = store.query(query, default_graph=["urn:g"]), negotiate(media_type, "results").native
    assert isinstance(solutions, QuerySolutions) and isinstance(fmt, QueryResultsFormat)
    direct = solutions.serialize(format=fmt)
    assert body == direct


def test_json_results_round_trip(store: EmbeddedStore) -> None:
    _, body = run_query(store, _job("SELECT * WHERE { ?s ?p ?o }", "application/sparql-results+json"))
    rows = json.loads(body)["results"]["bindings"]
    assert {"type": "literal", "value": "x\ty\nz"} in [r["o"] for r in rows]
    assert {"type": "literal", "value": "é", "xml:lang": "fr"} in [r["o"] for r in rows]


def test_row_and_triple_limits(store: EmbeddedStore) -> None:
    with pytest.raises(QueryError, match="more than 4 rows") as caught:
        run_query(store, _job("SELECT * WHERE { ?s ?p ?o }", "text/csv", max_rows=4))
    assert caught.value.kind == "too_large"
    _, body = run_query(store, _job("SELECT * WHERE { ?s ?p ?o }", "text/csv", max_rows=5))
    assert body.count(b"\r\n") == 6  # CSV rows end in CRLF; a value holds a raw newline
    with pytest.raises(QueryError, match="more than 2 triples"):
        run_query(store, _job("CONSTRUCT WHERE { ?s ?p ?o }", "text/turtle", max_rows=2))


def test_ask_and_wrong_kinds(store: EmbeddedStore) -> None:
    assert run_query(store, _job("ASK { ?s ?p ?o }", "text/csv"))[1] == b"true"
    with pytest.raises(QueryError, match="results format"):
        run_query(store, _job("SELECT * {}", "text/turtle"))


def test_a_deadline_stops_a_query_that_is_writing_rows() -> None:
    store = EmbeddedStore()
    store.update("INSERT DATA { " + " ".join(f"<http://e/{i}> <http://e/p> {i} ." for i in range(300)) + " }")
    job = QueryJob(
        query="SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", media_type="text/csv", max_rows=10**9, timeout_s=0.2
    )
    with pytest.raises(QueryError, match="time limit of 0.2 s") as caught:
        run_query(store, job)
    assert caught.value.kind == "timeout"
