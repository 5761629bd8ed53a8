"""The real bundled SmolLM2-135M writes the answer text, constrained to name only evidence entities."""

from __future__ import annotations

import pytest

import kgsvc


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("which films did Satoshi Kon direct", {"Tokyo Godfathers", "Perfect Blue", "Paprika"}),
    ],
)
def test_real_llm_names_only_evidence_entities(indexed_kg: kgsvc.KG, question: str, expected: set[str]) -> None:
    answer = indexed_kg.ask(question, dataset="sample", verbalise=True)
    assert answer.grounded and answer.text.endswith(".")
    named = [part.strip() for part in answer.text.rstrip(".").split(",")]
    assert named and set(named) <= expected
    assert {a.label for a in answer.answers if a.gsd == answer.answers[0].gsd} == expected
