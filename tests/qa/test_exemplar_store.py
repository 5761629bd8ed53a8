"""User exemplars in the data directory through the embedded KG (:mod:`kgsvc.qa.exemplar_store`)."""

from __future__ import annotations

from pathlib import Path

import pytest

import kgsvc
from kgsvc.errors import DatasetError
from kgsvc.qa.exemplar_store import add_exemplars, list_exemplars, parse_exemplars, remove_exemplars

ROW = {
    "question": "who made the film Paprika",
    "entities": ["Paprika"],
    "triples": [["Paprika", "directed by", "?x"]],
    "answer": "?x",
}


def test_the_store_adds_replaces_and_removes(tmp_path: Path) -> None:
    path = tmp_path / "exemplars" / "d.jsonl"
    assert list_exemplars(path) == []
    add_exemplars(path, parse_exemplars([ROW]))
    again = add_exemplars(path, parse_exemplars([{**ROW, "question": "Who made the film Paprika?"}]))
    assert len(again) == 1 and again[0].question == "Who made the film Paprika?"  # same question: replaced
    assert remove_exemplars(path, ["nothing like it"]) == 0
    assert remove_exemplars(path, ["who made the film paprika"]) == 1
    assert not path.exists()
    with pytest.raises(ValueError, match="exemplar 2 is not valid: missing triples"):
        parse_exemplars([ROW, {"question": "q", "answer": "?x"}])
    with pytest.raises(ValueError, match="exemplar 1 is not valid"):
        parse_exemplars([{**ROW, "answer": "Paprika"}])


def test_an_open_kg_uses_added_exemplars_from_the_next_question(indexed_kg: kgsvc.KG) -> None:
    from kgsvc.qa.options import QAOptions
    from kgsvc.qa.service import answerer_for

    assert indexed_kg.exemplars("sample") == []
    assert answerer_for(indexed_kg, "sample", QAOptions()).exemplars is None
    assert indexed_kg.add_exemplars("sample", [ROW]) == 1
    assert indexed_kg.exemplars("sample")[0]["question"] == ROW["question"]
    answerer = answerer_for(indexed_kg, "sample", QAOptions())
    assert answerer.exemplars is not None and len(answerer.exemplars) == 1
    assert indexed_kg.ask("who directed Paprika", dataset="sample").answers[0].label == "Satoshi Kon"
    assert indexed_kg.remove_exemplars("sample", [str(ROW["question"])]) == 1
    assert answerer_for(indexed_kg, "sample", QAOptions()).exemplars is None
    with pytest.raises(ValueError, match="not valid"):
        indexed_kg.add_exemplars("sample", [{"question": "q"}])
    assert indexed_kg.exemplars("sample") == []
    with pytest.raises(DatasetError):
        indexed_kg.exemplars("nope")
