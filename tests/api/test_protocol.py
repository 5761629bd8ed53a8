"""The SPARQL 1.1 Protocol over a real server: query and update forms, datasets, formats, service description."""

from __future__ import annotations

import csv
import io
import json
import xml.dom.minidom

import httpx
import pytest
import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLStore, SPARQLUpdateStore
from rdflib.query import ResultRow
from SPARQLWrapper import CSV, GET, JSON, JSONLD, N3, POST, RDFXML, TSV, TURTLE, XML, SPARQLWrapper

import kgsvc
from tests.api.conftest import AUTH, TOKEN, Served

EX = "https://kgsvc.local/sample/"
DIRECTORS = (
    f"SELECT DISTINCT ?name WHERE {{ <{EX}film_Paprika> <{EX}directedBy> ?d . "
    "?d <http://www.w3.org/2000/01/rdf-schema#label> ?name }"
)
CONSTRUCT = f"CONSTRUCT {{ <{EX}film_Paprika> ?p ?o }} WHERE {{ <{EX}film_Paprika> ?p ?o }}"
PAPRIKA_TRIPLES = 9  # film_Paprika's outgoing edges in the sample KG


def _names(body: dict[str, object]) -> list[str]:
    bindings = body["results"]["bindings"]  # type: ignore[index]
    return sorted(b["name"]["value"] for b in bindings)


def test_query_by_get_post_form_and_post_direct_agree(http: httpx.Client) -> None:
    by_get = http.get("/sparql", params={"query": DIRECTORS})
    by_form = http.post("/sparql", data={"query": DIRECTORS})
    direct = http.post("/sparql", content=DIRECTORS, headers={"Content-Type": "application/sparql-query"})
    for response in (by_get, by_form, direct):
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/sparql-results+json"
        assert _names(response.json()) == ["Satoshi Kon"]


@pytest.mark.parametrize("method", [GET, POST])
def test_sparqlwrapper_every_select_and_ask_format(server: Served, method: str) -> None:
    wrapper = SPARQLWrapper(server.url + "/sparql")
    wrapper.setMethod(method)
    wrapper.setQuery(DIRECTORS)
    wrapper.setReturnFormat(JSON)
    results = wrapper.query().convert()
    assert isinstance(results, dict)
    assert [b["name"]["value"] for b in results["results"]["bindings"]] == ["Satoshi Kon"]
    wrapper.setReturnFormat(XML)
    document = wrapper.query().convert()
    assert isinstance(document, xml.dom.minidom.Document)
    texts = [n.firstChild for n in document.getElementsByTagName("literal")]
    assert [t.data for t in texts if isinstance(t, xml.dom.minidom.Text)] == ["Satoshi Kon"]
    wrapper.setReturnFormat(CSV)
    table = wrapper.query().convert()
    assert isinstance(table, bytes)
    assert list(csv.reader(io.StringIO(table.decode()))) == [["name"], ["Satoshi Kon"]]
    wrapper.setReturnFormat(TSV)
    table = wrapper.query().convert()
    assert isinstance(table, bytes)
    assert table.decode().splitlines() == ["?name", '"Satoshi Kon"']
    wrapper.setQuery(f"ASK {{ <{EX}film_Paprika> ?p ?o }}")
    wrapper.setReturnFormat(JSON)
    answer = wrapper.query().convert()
    assert isinstance(answer, dict) and answer["boolean"] is True
    wrapper.setReturnFormat(XML)
    answer_xml = wrapper.query().convert()
    assert isinstance(answer_xml, xml.dom.minidom.Document) and "true" in answer_xml.toxml()


@pytest.mark.parametrize("fmt", [TURTLE, N3, RDFXML, JSONLD])
def test_sparqlwrapper_every_graph_format(server: Served, fmt: str) -> None:
    wrapper = SPARQLWrapper(server.url + "/datasets/sample/sparql")
    wrapper.setQuery(CONSTRUCT)
    wrapper.setReturnFormat(fmt)
    converted = wrapper.query().convert()
    if isinstance(converted, rdflib.Graph):
        graph = converted
    else:
        assert isinstance(converted, str | bytes), type(converted)
        graph = rdflib.Graph().parse(data=converted, format="turtle" if fmt in (TURTLE, N3) else fmt)
    assert len(graph) == PAPRIKA_TRIPLES


@pytest.mark.parametrize(
    ("accept", "media_type"),
    [
        ("text/turtle", "text/turtle"),
        ("application/n-triples", "application/n-triples"),
        ("application/rdf+xml", "application/rdf+xml"),
        ("application/ld+json", "application/ld+json"),
        ("application/sparql-results+json, application/n-triples;q=0.5", "application/n-triples"),
        ("*/*", "text/turtle"),
    ],
)
def test_construct_content_negotiation(http: httpx.Client, accept: str, media_type: str) -> None:
    response = http.get("/sparql", params={"query": CONSTRUCT}, headers={"Accept": accept})
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == media_type
    rdflib_format = {
        "text/turtle": "turtle",
        "application/n-triples": "nt",
        "application/rdf+xml": "xml",
        "application/ld+json": "json-ld",
    }[media_type]
    assert len(rdflib.Graph().parse(data=response.content, format=rdflib_format)) == PAPRIKA_TRIPLES


def test_rdflib_sparqlstore_queries_and_sparqlupdatestore_writes(server: Served, scratch: str) -> None:
    store = SPARQLStore(server.url + "/sparql")
    graph = rdflib.Graph(store=store)
    rows = [row for row in graph.query(DIRECTORS) if isinstance(row, ResultRow)]
    assert sorted(str(row[0]) for row in rows) == ["Satoshi Kon"]
    assert len(graph.query(CONSTRUCT)) == PAPRIKA_TRIPLES
    before = server.count(scratch)
    update_store = SPARQLUpdateStore(
        server.url + f"/datasets/{scratch}/sparql", server.url + "/sparql", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    named = rdflib.Graph(store=update_store, identifier=rdflib.URIRef(f"urn:kgsvc:dataset:{scratch}"))
    named.add((rdflib.URIRef("http://x/s"), rdflib.URIRef("http://x/p"), rdflib.Literal("added")))
    assert server.count(scratch) == before + 1
    assert server.events[-1].dataset == scratch and server.events[-1].cause == "update"
    update_store.close()


def test_default_graph_is_the_union_at_sparql_and_the_dataset_at_its_endpoint(
    http: httpx.Client, server: Served, scratch: str
) -> None:
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"

    def n(path: str, **params: str | list[str]) -> int:
        response = http.get(path, params={"query": count, **params})
        assert response.status_code == 200, response.text
        return int(response.json()["results"]["bindings"][0]["n"]["value"])

    sample, union = n("/datasets/sample/sparql"), n("/sparql")
    assert sample == server.count("sample") and union >= sample + server.count(scratch)
    assert n("/sparql", **{"default-graph-uri": "urn:kgsvc:dataset:sample"}) == sample
    assert n("/sparql", **{"default-graph-uri": ["urn:kgsvc:dataset:sample", f"urn:kgsvc:dataset:{scratch}"]}) == (
        sample + server.count(scratch)
    )
    # the query's FROM wins over the endpoint's default dataset; protocol parameters win over FROM
    from_sample = f"SELECT (COUNT(*) AS ?n) FROM <urn:kgsvc:dataset:{scratch}> WHERE {{ ?s ?p ?o }}"
    body = http.get("/sparql", params={"query": from_sample}).json()
    assert int(body["results"]["bindings"][0]["n"]["value"]) == server.count(scratch)
    graphs = http.get("/datasets/sample/sparql", params={"query": "SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } }"})
    assert graphs.json()["results"]["bindings"] == []  # its named graphs are the ones it owns: none
    named = http.get(
        "/sparql",
        params={
            "query": "SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } }",
            "named-graph-uri": f"urn:kgsvc:dataset:{scratch}",
        },
    )
    assert [b["g"]["value"] for b in named.json()["results"]["bindings"]] == [f"urn:kgsvc:dataset:{scratch}"]


def test_update_by_form_and_direct_post_at_a_dataset_endpoint(http: httpx.Client, server: Served, scratch: str) -> None:
    before = server.count(scratch)
    path = f"/datasets/{scratch}/sparql"
    direct = http.post(
        path,
        content="INSERT DATA { <http://x/a> <http://x/p> 1 }",
        headers={**AUTH, "Content-Type": "application/sparql-update"},
    )
    assert direct.status_code == 200 and direct.json() == {"changed": [scratch]}
    form = http.post(path, data={"update": "INSERT DATA { <http://x/a> <http://x/p> 2 }"}, headers=AUTH)
    assert form.status_code == 200 and form.json() == {"changed": [scratch]}
    assert server.count(scratch) == before + 2 and server.count("sample") == 615
    deleted = http.post(path, data={"update": "DELETE WHERE { <http://x/a> ?p ?o }"}, headers=AUTH)
    assert deleted.json() == {"changed": [scratch]} and server.count(scratch) == before
    # the next query sees the write at once (a new store snapshot)
    ask = http.get(path, params={"query": "ASK { <http://x/a> ?p ?o }"})
    assert ask.json()["boolean"] is False


def test_using_graph_uri_scopes_the_where_clause(http: httpx.Client, server: Served, scratch: str) -> None:
    graph = f"urn:kgsvc:dataset:{scratch}"
    update = f"INSERT {{ GRAPH <{graph}> {{ ?f <http://x/seen> true }} }} WHERE {{ ?f <{EX}directedBy> ?d }}"
    response = http.post(
        "/sparql", data={"update": update, "using-graph-uri": "urn:kgsvc:dataset:sample"}, headers=AUTH
    )
    assert response.status_code == 200, response.text
    films = server.kg.sparql("SELECT (COUNT(*) AS ?n) { ?f <http://x/seen> true }", dataset=scratch)
    assert int(films.rows[0]["n"].value) > 10
    conflict = http.post(
        "/sparql",
        data={"update": f"WITH <{graph}> DELETE {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }}", "using-graph-uri": graph},
        headers=AUTH,
    )
    assert conflict.status_code == 400 and "USING or WITH" in conflict.json()["message"]


def test_relative_iris_resolve_against_the_endpoint_url(http: httpx.Client, server: Served, scratch: str) -> None:
    """As ``oxigraph serve``: the base IRI is the URL the request was sent to, without its query string."""
    for path in ("/sparql", f"/datasets/{scratch}/sparql"):
        base = str(http.base_url.join(path))
        query = "CONSTRUCT { <s> <p> 1 } WHERE {}"
        for response in (
            http.get(path, params={"query": query}, headers={"Accept": "application/n-triples"}),
            http.post(path, data={"query": query}, headers={"Accept": "application/n-triples"}),
        ):
            assert response.status_code == 200, response.text
            assert response.text.strip() == f'<{base.rsplit("/", 1)[0]}/s> <{base.rsplit("/", 1)[0]}/p> "1"^^' + (
                "<http://www.w3.org/2001/XMLSchema#integer> ."
            )
        own = http.get(path, params={"query": "BASE <http://x/> ASK { FILTER(<s> = <http://x/s>) }"})
        assert own.json()["boolean"] is True  # the text's BASE wins
    path = f"/datasets/{scratch}/sparql"
    before = server.count(scratch)
    inserted = http.post(path, data={"update": "INSERT DATA { <rel> <http://x/p> 1 }"}, headers=AUTH)
    assert inserted.status_code == 200 and inserted.json() == {"changed": [scratch]}, inserted.text
    assert server.count(scratch) == before + 1
    ask = http.get(path, params={"query": f"ASK {{ <{http.base_url.join('/datasets/' + scratch + '/rel')}> ?p 1 }}"})
    assert ask.json()["boolean"] is True
    # a relative graph IRI resolves too, and names a graph of the dataset's own (never its default graph)
    named = http.post(path, data={"update": "INSERT DATA { GRAPH <g> { <a:s> <a:p> 1 } }"}, headers=AUTH)
    assert named.status_code == 200, named.text
    assert server.kg.catalog.named_graphs(scratch) == [str(http.base_url.join(f"/datasets/{scratch}/g"))]
    assert server.count(scratch) == before + 1


def test_a_public_url_pins_the_base_whatever_the_host_header(http: httpx.Client, server: Served) -> None:
    query = {"query": "CONSTRUCT { <s> <p> 1 } WHERE {}"}
    headers = {"Accept": "application/n-triples", "Host": "attacker.example"}
    assert "<http://attacker.example/s>" in http.get("/sparql", params=query, headers=headers).text  # as Starlette
    state = server.app.state.kgsvc
    state.settings = server.settings.model_copy(update={"public_url": "https://kg.example.org"})
    try:
        for path in ("/sparql", "/datasets/sample/sparql"):
            text = http.get(path, params=query, headers=headers).text
            assert text.startswith(f"<https://kg.example.org{path.rsplit('/', 1)[0]}/s>"), text
    finally:
        state.settings = server.settings
    with pytest.raises(ValueError, match="public_url"):
        kgsvc.Settings(public_url="kg.example.org")


@pytest.mark.parametrize(
    ("request_args", "status", "message"),
    [
        ({"method": "GET", "params": {"query": "SELECT * WHERE { ?s ?p }"}}, 400, "error at 1:"),
        ({"method": "GET", "params": {"update": "CLEAR ALL"}}, 400, "must be sent with POST"),
        ({"method": "GET", "params": {"query": ["ASK {}", "ASK {}"]}}, 400, "given 2 times"),
        ({"method": "POST", "data": {"query": "ASK {}", "update": "CLEAR ALL"}}, 400, "not both"),
        ({"method": "POST", "data": {"other": "x"}}, 400, "neither a 'query' nor an 'update'"),
        ({"method": "POST", "content": "ASK {}", "headers": {"Content-Type": "text/plain"}}, 415, "text/plain"),
        ({"method": "POST", "content": "ASK {}"}, 415, "(none)"),
        ({"method": "GET", "params": {"query": "ASK {}"}, "headers": {"Accept": "image/png"}}, 406, "image/png"),
        ({"method": "GET", "params": {"query": CONSTRUCT}, "headers": {"Accept": "text/csv"}}, 406, "offered"),
        ({"method": "GET", "params": {"query": "ASK {}", "default-graph-uri": "not an iri"}}, 400, "absolute IRI"),
        (
            {"method": "POST", "content": b"ASK {\xff}", "headers": {"Content-Type": "application/sparql-query"}},
            400,
            "not UTF-8",
        ),
    ],
)
def test_protocol_errors(http: httpx.Client, request_args: dict[str, object], status: int, message: str) -> None:
    args = dict(request_args)
    method = str(args.pop("method"))
    response = http.request(method, "/sparql", **args)  # type: ignore[arg-type]
    assert response.status_code == status, response.text
    body = response.json()
    assert message in body["message"] and body["status"] == status


def test_malformed_update_is_a_400_and_changes_nothing(http: httpx.Client, server: Served, scratch: str) -> None:
    before = server.count(scratch)
    response = http.post(
        f"/datasets/{scratch}/sparql",
        data={"update": "INSERT DATA { <http://x/a> <http://x/p> 1 } ; DELETE WHERE { ?s ?p }"},
        headers=AUTH,
    )
    assert response.status_code == 400
    assert response.json()["kind"] == "syntax" and "error at" in response.json()["message"]
    assert server.count(scratch) == before


def test_drop_all_at_a_dataset_endpoint_drops_that_dataset_only(
    http: httpx.Client, server: Served, scratch: str
) -> None:
    response = http.post(f"/datasets/{scratch}/sparql", data={"update": "DROP ALL"}, headers=AUTH)
    assert response.status_code == 200 and response.json() == {"changed": [scratch]}
    assert server.count(scratch) == 0 and server.count("sample") == 615


def test_unknown_dataset_is_a_404(http: httpx.Client) -> None:
    response = http.get("/datasets/nope/sparql", params={"query": "ASK {}"})
    assert response.status_code == 404
    assert response.json()["error"] == "DatasetError" and "unknown dataset 'nope'" in response.json()["message"]
    assert http.get("/datasets/bad name!/sparql", params={"query": "ASK {}"}).status_code == 400


def test_service_description(http: httpx.Client, server: Served) -> None:
    response = http.get("/sparql")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/turtle")
    graph = rdflib.Graph().parse(data=response.text, format="turtle")
    sd = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
    service = graph.value(predicate=rdflib.RDF.type, object=sd.Service)
    assert graph.value(service, sd.endpoint) == rdflib.URIRef(server.url + "/sparql")
    assert (service, sd.supportedLanguage, sd.SPARQL11Update) in graph
    assert (service, sd.feature, sd.UnionDefaultGraph) in graph
    assert (service, sd.feature, sd.BasicFederatedQuery) not in graph
    assert rdflib.URIRef("urn:kgsvc:dataset:sample") in set(graph.objects(None, sd.name))
    as_json = http.get("/datasets/sample/sparql", headers={"Accept": "application/ld+json"})
    assert as_json.status_code == 200 and json.loads(as_json.content)
