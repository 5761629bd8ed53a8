"""Name predicates through the JSON API: ``POST /datasets`` (JSON body and upload form) keeps them on the dataset."""

from __future__ import annotations

import uuid

import httpx

from tests.api.conftest import AUTH, Served

TTL = b'@prefix ex: <http://example.org/> .\nex:a ex:called "Alpha" .\n'
CALLED = "http://example.org/called"


def test_create_and_upload_keep_the_name_predicates(http: httpx.Client, server: Served) -> None:
    name = f"n{uuid.uuid4().hex[:8]}"
    created = http.post("/datasets", json={"name": name, "name_predicates": [CALLED]}, headers=AUTH)
    assert created.status_code == 201, created.text
    assert created.json()["name_predicates"] == [CALLED]
    bad = http.post("/datasets", json={"name": f"{name}x", "name_predicates": ["called"]}, headers=AUTH)
    assert bad.status_code == 400 and "'called' is not an absolute IRI" in bad.json()["message"]
    upload = f"u{uuid.uuid4().hex[:8]}"
    form = {"name": upload, "name_predicate": [CALLED, "http://example.org/other"]}
    response = http.post("/datasets", data=form, files={"file": ("a.ttl", TTL)}, headers=AUTH)
    assert response.status_code == 201, response.text
    assert server.kg.catalog.get(upload).name_predicates == [CALLED, "http://example.org/other"]
    for dataset in (name, upload):
        assert http.delete(f"/datasets/{dataset}", headers=AUTH).status_code == 204
