"""Exemplars through the JSON API: writes need the token, a running server uses them from the next question."""

from __future__ import annotations

import httpx

from kgsvc.qa.options import QAOptions
from kgsvc.qa.service import answerer_for
from tests.api.conftest import AUTH, Served

EXEMPLAR = {
    "question": "who made the film Paprika",
    "entities": ["Paprika"],
    "triples": [["Paprika", "directed by", "?x"]],
    "answer": "?x",
}


def test_exemplars_are_added_listed_and_removed(http: httpx.Client, server: Served, scratch: str) -> None:
    url = f"/datasets/{scratch}/exemplars"
    assert http.get(url).json() == []
    refused = http.post(url, json={"exemplars": [EXEMPLAR]})
    assert refused.status_code == 401, refused.text
    assert http.get(url).json() == []
    server.kg.build_index(scratch)
    before = answerer_for(server.kg, scratch, QAOptions())
    assert before.exemplars is None
    added = http.post(url, json={"exemplars": [EXEMPLAR]}, headers=AUTH)
    assert added.status_code == 200 and added.json() == {"added": 1, "count": 1}, added.text
    assert [row["question"] for row in http.get(url).json()] == [EXEMPLAR["question"]]
    after = answerer_for(server.kg, scratch, QAOptions())  # no restart: the next question reads the new file
    assert after is not before and after.exemplars is not None and len(after.exemplars) == 1
    bad = http.post(url, json={"exemplars": [{"question": "x", "triples": [["a", "b"]], "answer": "?x"}]}, headers=AUTH)
    assert bad.status_code == 400 and "exemplar 1 is not valid" in bad.json()["message"], bad.text
    assert len(http.get(url).json()) == 1  # nothing added by the rejected request
    assert http.request("DELETE", url, json={"questions": [EXEMPLAR["question"]]}).status_code == 401
    removed = http.request("DELETE", url, json={"questions": [EXEMPLAR["question"]]}, headers=AUTH)
    assert removed.status_code == 200 and removed.json() == {"removed": 1}
    assert http.get(url).json() == []
    assert answerer_for(server.kg, scratch, QAOptions()).exemplars is None
    assert http.get("/datasets/nope/exemplars").status_code == 404


def test_the_client_sdk_manages_exemplars(server: Served, scratch: str) -> None:
    from kgsvc.sdk.client import Client
    from tests.api.conftest import TOKEN

    with Client(server.url, token=TOKEN, timeout=30) as client:
        assert client.exemplars(scratch) == []
        assert client.add_exemplars(scratch, [EXEMPLAR]) == 1
        assert [row["question"] for row in client.exemplars(scratch)] == [EXEMPLAR["question"]]
        assert client.remove_exemplars(scratch, [str(EXEMPLAR["question"])]) == 1
        assert client.exemplars(scratch) == []
