"""End to end on the bundled sample KG: real store, real MiniLM, real snapshot, real GSD matcher, real SPARQL."""

from __future__ import annotations

import pytest

import kgsvc
from kgsvc.qa.result import Answer
from kgsvc.samples import sample_questions

QUESTIONS = sample_questions()


def _best(answer: Answer) -> set[str]:
    best = answer.answers[0].gsd
    return {a.label for a in answer.answers if a.gsd <= best}


@pytest.mark.parametrize(("question", "expected"), QUESTIONS, ids=[q for q, _ in QUESTIONS])
def test_sample_questions_are_answered_with_evidence(indexed_kg: kgsvc.KG, question: str, expected: list[str]) -> None:
    answer = indexed_kg.ask(question, dataset="sample")
    assert answer.grounded, answer.reason
    assert answer.strategy == "grounded"
    assert _best(answer) == set(expected)
    assert all(label in answer.text for label in expected)
    assert set(answer.timings) >= {"link", "pattern", "match", "answer", "total"}
    # every evidence subgraph: its SPARQL runs on the store and returns exactly its answer binding
    for evidence in answer.evidence:
        assert evidence.triples and evidence.answer is not None
        rows = indexed_kg.sparql(evidence.sparql, dataset="sample").rows
        assert [row["answer"].value for row in rows] == [evidence.answer.value]
    # the pattern's SPARQL returns every best answer
    assert answer.sparql is not None
    values = {row["answer"].value for row in indexed_kg.sparql(answer.sparql, dataset="sample").rows}
    assert {a.value for a in answer.answers if a.gsd == answer.answers[0].gsd} <= values


def test_evidence_keeps_stored_direction_and_distances(indexed_kg: kgsvc.KG) -> None:
    answer = indexed_kg.ask("who directed Tokyo Godfathers", dataset="sample")
    top = answer.evidence[0]
    assert top.gsd == pytest.approx(0.0, abs=1e-4)
    (triple,) = top.triples
    assert triple.head.label == "Tokyo Godfathers" and triple.relation.label == "directed by"
    assert triple.tail.label == "Satoshi Kon" and triple.relation_distance == pytest.approx(0.0, abs=1e-4)
    assert answer.answers[0].iri == "https://kgsvc.local/sample/person_Satoshi_Kon"
    assert [ev.gsd for ev in answer.evidence] == sorted(ev.gsd for ev in answer.evidence)


@pytest.mark.parametrize(
    ("question", "stage", "fragment"),
    [
        (
            "who directed Star Wars Episode Nine",
            "linking",
            "no node name or alias of the dataset matches 'Star Wars Episode Nine'",
        ),
        ("what is the meaning of life", "linking", "no mention of an entity"),
    ],
)
def test_no_grounded_answer_says_why(indexed_kg: kgsvc.KG, question: str, stage: str, fragment: str) -> None:
    answer = indexed_kg.ask(question, dataset="sample")
    assert not answer.grounded and answer.failed_stage == stage
    assert answer.reason is not None and fragment in answer.reason
    assert answer.answers == [] and answer.evidence == []
    assert answer.text.startswith("No grounded answer")


def test_bad_input_is_rejected(indexed_kg: kgsvc.KG) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        indexed_kg.ask("  ", dataset="sample")
    with pytest.raises(TypeError, match="unknown ask option"):
        indexed_kg.ask("who directed Paprika", dataset="sample", colour="red")
    with pytest.raises(ValueError, match="strategy must be"):
        indexed_kg.ask("who directed Paprika", dataset="sample", strategy="magic")
