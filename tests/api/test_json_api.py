"""The JSON API: health, datasets, uploads, stats, drop, jobs, /ask and the OpenAPI docs."""

from __future__ import annotations

import uuid

import httpx

import kgsvc
from tests.api.conftest import AUTH, Served


def test_health_and_docs(http: httpx.Client) -> None:
    health = http.get("/health").json()
    assert health == {
        "status": "ok",
        "version": kgsvc.__version__,
        "read_only": False,
        "auto_index": False,
        "store": "EmbeddedStore",
        "executor": "process",
    }
    assert http.get("/docs").status_code == 200
    paths = http.get("/openapi.json").json()["paths"]
    for path in ("/sparql", "/datasets/{name}/sparql", "/datasets/{name}/store", "/datasets", "/jobs/{job_id}", "/ask"):
        assert path in paths


def test_create_list_stats_drop(http: httpx.Client, server: Served) -> None:
    name = f"d{uuid.uuid4().hex[:8]}"
    created = http.post("/datasets", json={"name": name, "description": "empty"}, headers=AUTH)
    assert created.status_code == 201 and created.json()["name"] == name and created.json()["triples"] == 0
    again = http.post("/datasets", json={"name": name}, headers=AUTH)
    assert again.status_code == 409 and again.json()["error"] == "DatasetError"
    bad = http.post("/datasets", json={"name": "no spaces"}, headers=AUTH)
    assert bad.status_code == 400 and "invalid dataset name" in bad.json()["message"]
    assert name in [d["name"] for d in http.get("/datasets").json()]
    stats = http.get("/datasets/sample").json()
    assert stats["triples"] == 615 and stats["relations"] == 9
    assert http.get("/datasets/nope").status_code == 404
    assert http.delete(f"/datasets/{name}", headers=AUTH).status_code == 204
    assert http.delete(f"/datasets/{name}", headers=AUTH).status_code == 404
    assert not server.kg.catalog.exists(name)


def test_upload_loads_a_file_and_records_a_job(http: httpx.Client, server: Served) -> None:
    name = f"u{uuid.uuid4().hex[:8]}"
    tsv = "Paprika\tdirected_by\tSatoshi Kon\nPaprika\trelease_year\t2006\n"
    response = http.post("/datasets", data={"name": name}, files={"file": ("kb.tsv", tsv.encode())}, headers=AUTH)
    assert response.status_code == 201, response.text
    result = kgsvc.LoadResult.model_validate(response.json())
    assert result.dataset == name and result.triples_added > 2 and result.format == "tsv"
    job = http.get(f"/jobs/{result.job_id}").json()
    assert job["state"] == "succeeded" and job["dataset"] == name
    assert result.job_id in [j["id"] for j in http.get("/jobs", params={"dataset": name}).json()]
    assert http.get("/jobs/nope").status_code == 404
    more = http.post(
        "/datasets",
        data={"name": name},
        files={"file": ("more.nt", b'<http://x/a> <http://x/b> "1" .\n')},
        headers=AUTH,
    )
    assert more.status_code == 200 and more.json()["triples_total"] == result.triples_total + 1
    assert [e.cause for e in server.events if e.dataset == name] == ["load", "load"]
    server.kg.drop(name)


def test_a_rejected_upload_changes_nothing(http: httpx.Client, server: Served) -> None:
    name = f"u{uuid.uuid4().hex[:8]}"
    bad = b"@prefix ex: <http://e/> .\nex:a ex:b ex:c .\nex:d ex:e .\n"
    response = http.post("/datasets", data={"name": name}, files={"file": ("bad.ttl", bad)}, headers=AUTH)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "IngestError" and body["message"].startswith("bad.ttl:3:") and body["line"] == 3
    assert not server.kg.catalog.exists(name)
    unsupported = http.post("/datasets", content=b"name=x", headers={**AUTH, "Content-Type": "text/plain"})
    assert unsupported.status_code == 415
    incomplete = http.post("/datasets", data={"name": name}, files={"other": ("a.nt", b"")}, headers=AUTH)
    assert incomplete.status_code == 400


def test_ask_needs_an_index_then_answers_with_evidence(http: httpx.Client, server: Served, scratch: str) -> None:
    question = {"question": "who directed Tokyo Godfathers", "dataset": scratch}
    refused = http.post("/ask", json=question)
    assert refused.status_code == 409 and refused.json()["error"] == "IndexError", refused.text
    server.kg.build_index(scratch)
    answer = http.post("/ask", json=question)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["answers"][0]["label"] == "Satoshi Kon"  # best GSD first; weaker readings follow
    assert body["evidence"] and body["evidence"][0]["triples"] and "SELECT" in body["sparql"]
    assert http.post("/ask", json={"question": "   ", "dataset": scratch}).status_code == 400
    assert http.post("/ask", json={**question, "options": {"bogus": 1}}).status_code == 400
    several = http.post("/ask", json={"question": question["question"]})  # two datasets now: name one
    assert several.status_code == 400 and "name the dataset" in several.json()["message"]
    assert http.post("/ask", json={"question": "x", "dataset": "nope"}).status_code == 404
    assert http.post("/ask", json={"dataset": scratch}).status_code == 422


def test_updates_through_the_api_emit_the_dataset_changed_event(
    http: httpx.Client, server: Served, scratch: str
) -> None:
    seen = len(server.events)
    update = f"INSERT DATA {{ GRAPH <urn:kgsvc:dataset:{scratch}> {{ <http://x/a> <http://x/b> 1 }} }}"
    assert http.post("/sparql", data={"update": update}, headers=AUTH).json() == {"changed": [scratch]}
    event = server.events[seen]
    assert (event.dataset, event.cause, event.triples_added) == (scratch, "update", 1)
