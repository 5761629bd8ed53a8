"""``Client`` end to end against a real server: the same typed results and exceptions as the embedded ``KG``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import kgsvc
from kgsvc.api.scrub import public_job
from kgsvc.sdk.client import Client
from tests.api.conftest import TOKEN, Served, scratch, server  # noqa: F401
from tests.conftest import free_port

EX = "https://kgsvc.local/sample/"
QUERIES = [
    f"SELECT ?film ?year WHERE {{ ?film <{EX}directedBy> <{EX}person_Satoshi_Kon> ; <{EX}releaseYear> ?year }} "
    "ORDER BY ?year",
    f"SELECT ?name (COUNT(?film) AS ?n) WHERE {{ ?film <{EX}directedBy> ?d . "
    "?d <http://www.w3.org/2000/01/rdf-schema#label> ?name } GROUP BY ?name ORDER BY DESC(?n) ?name LIMIT 5",
    f"ASK {{ <{EX}film_Paprika> ?p ?o }}",
    f"CONSTRUCT {{ <{EX}film_Paprika> ?p ?o }} WHERE {{ <{EX}film_Paprika> ?p ?o }}",
]


@pytest.fixture
def client(server: Served) -> Iterator[Client]:  # noqa: F811
    with Client(server.url, token=TOKEN, timeout=30) as handle:
        yield handle


@pytest.mark.parametrize("query", QUERIES)
def test_sparql_returns_what_the_embedded_kg_returns(client: Client, server: Served, query: str) -> None:  # noqa: F811
    remote = client.sparql(query, dataset="sample")
    local = server.kg.sparql(query, dataset="sample")
    if remote.kind == "graph":  # blank-node free, so compare as sets
        assert sorted(map(repr, remote.triples)) == sorted(map(repr, local.triples))
    else:
        assert remote == local


def test_catalog_methods(client: Client, server: Served) -> None:  # noqa: F811
    assert client.health()["status"] == "ok"
    assert "sample" in [d.name for d in client.datasets()]
    assert client.stats("sample") == server.kg.stats("sample")
    with pytest.raises(kgsvc.DatasetError, match="unknown dataset 'nope'"):
        client.stats("nope")
    with pytest.raises(kgsvc.DatasetError, match="unknown dataset"):
        client.sparql("ASK {}", dataset="nope")


def test_load_update_dump_jobs_drop(client: Client, server: Served, tmp_path: Path) -> None:  # noqa: F811
    name = f"c{uuid.uuid4().hex[:8]}"
    created = client.create(name, description="from the client")
    assert created.name == name and created.triples == 0
    with pytest.raises(kgsvc.DatasetError, match="already exists"):
        client.create(name)
    result = client.load(kgsvc.sample_path(), dataset=name)
    assert isinstance(result, kgsvc.LoadResult) and result.triples_added == 615
    assert client.job(result.job_id) == public_job(server.kg.job(result.job_id))  # no server paths over HTTP
    assert client.job(result.job_id).params["file"] == kgsvc.sample_path().name
    assert result.job_id in [j.id for j in client.jobs(dataset=name)]
    with pytest.raises(KeyError):
        client.job("nope")
    assert client.update("INSERT DATA { <http://x/a> <http://x/b> 1 }", dataset=name) == [name]
    assert client.update(f"DELETE DATA {{ GRAPH <urn:kgsvc:dataset:{name}> {{ <http://x/a> <http://x/b> 1 }} }}") == [
        name
    ]
    assert client.dump(name).count(b"\n") == 615
    assert client.dump(name, format="ttl").startswith(b"<https://kgsvc.local/sample/")
    assert client.update("INSERT DATA { GRAPH <http://x/g> { <http://x/a> <http://x/b> 2 } }", dataset=name) == [name]
    assert (
        client.dump(name, graph="http://x/g").strip()
        == b'<http://x/a> <http://x/b> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .'
    )
    client.drop(name)
    with pytest.raises(kgsvc.DatasetError):
        client.drop(name)
    bad = tmp_path / "broken.ttl"
    bad.write_text("@prefix ex: <http://e/> .\nex:a ex:b ex:c .\nex:a ex:b .\n")
    with pytest.raises(kgsvc.IngestError) as caught:
        client.load(bad, dataset=name)
    assert (caught.value.file, caught.value.line) == ("broken.ttl", 3) and str(caught.value).startswith("broken.ttl:3:")
    assert name not in [d.name for d in client.datasets()]


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("SELECT * WHERE { ?s ?p }", "syntax"),
        ("SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }", "forbidden"),
        ("SELECT * WHERE { ?s ?p ?o }", "too_large"),
        ("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", "timeout"),
    ],
)
def test_query_errors_keep_their_kind(client: Client, query: str, kind: str) -> None:
    with pytest.raises(kgsvc.QueryError) as caught:
        client.sparql(query, dataset="sample")
    assert caught.value.kind == kind
    assert caught.value.status == {"syntax": 400, "forbidden": 403, "too_large": 413, "timeout": 503}[kind]  # type: ignore[attr-defined]


def test_refused_writes_and_unreachable_servers_are_store_errors(server: Served) -> None:  # noqa: F811
    with Client(server.url) as anonymous, pytest.raises(kgsvc.StoreError, match="401.*Bearer"):
        anonymous.update("INSERT DATA { <http://x/a> <http://x/b> 1 }", dataset="sample")
    with Client(server.url, token="wrong") as wrong, pytest.raises(kgsvc.StoreError, match="403.*wrong"):
        wrong.drop("sample")
    assert server.count() == 615
    with (
        Client(f"http://127.0.0.1:{free_port()}", timeout=2) as nobody,
        pytest.raises(kgsvc.StoreError, match="cannot reach"),
    ):
        nobody.datasets()


def test_ask_without_a_question_path(client: Client, server: Served) -> None:  # noqa: F811
    if hasattr(server.kg, "ask"):  # the question path exists: its own tests cover answers
        return
    with pytest.raises(kgsvc.KgsvcError, match="not available"):
        client.ask("who directed Paprika?", dataset="sample")


def test_constructing_a_client_does_no_io() -> None:
    client = Client("http://127.0.0.1:1", token="t")
    assert repr(client) == "Client('http://127.0.0.1:1')"
    client.close()


def test_similar_over_http_matches_the_embedded_kg(client: Client, server: Served, scratch: str) -> None:  # noqa: F811
    from kgsvc.gnn.model import GNNConfig
    from kgsvc.gnn.train import train_gnn
    from kgsvc.index.build import GNN_FOLDER

    paprika = f"{EX}film_Paprika"
    server.kg.build_index(scratch)
    with pytest.raises(kgsvc.IndexError_, match="has no trained GNN"):  # 409 before training
        client.similar(paprika, dataset=scratch)
    index = server.kg.index(scratch)
    config = GNNConfig(dim=16, epochs=4, batch_size=512, valid_fraction=0.1, test_fraction=0.1)
    train_gnn(index.snapshot, index.path / GNN_FOLDER, config=config, threads=1)

    remote = client.similar(paprika, dataset=scratch, k=3)
    assert len(remote) == 3 and all(isinstance(s, kgsvc.SimilarNode) for s in remote)
    assert remote == server.kg.similar(paprika, dataset=scratch, k=3)
    with pytest.raises(kgsvc.LinkError, match="is not a node"):  # 422
        client.similar(f"{EX}film_Nope", dataset=scratch)
    with pytest.raises(kgsvc.KgsvcError, match="k >= 1"):  # 400
        client.similar(paprika, dataset=scratch, k=0)
    with pytest.raises(kgsvc.DatasetError, match="unknown dataset"):  # 404
        client.similar(paprika, dataset="nope")
