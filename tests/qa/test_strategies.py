"""The LLM-driven parts with a scripted LLM (validated like a real backend) on the real indexed sample KG."""

from __future__ import annotations

import json

import pytest

import kgsvc
from kgsvc.llm.base import ScriptedLLM
from kgsvc.qa.exemplars import Exemplar, ExemplarSet
from kgsvc.qa.graph import QAGraph
from kgsvc.qa.pipeline import QuestionAnswerer


@pytest.fixture(scope="module")
def graph(indexed_kg: kgsvc.KG) -> QAGraph:
    return QAGraph.from_index(indexed_kg.index("sample"), name="sample")


def _pattern(*triples: tuple[str, str, str]) -> str:
    return json.dumps({"triples": [{"head": h, "relation": r, "tail": t} for h, r, t in triples]})


def test_llm_pattern_strategy_uses_the_schema_and_matches(graph: QAGraph) -> None:
    llm = ScriptedLLM([_pattern(("?x1", "directed by", "Satoshi Kon"), ("?x1", "in language", "?answer"))])
    qa = QuestionAnswerer(graph, llm=llm)
    answer = qa.ask("what language are the films of Satoshi Kon in", strategy="pattern")
    assert answer.strategy == "pattern" and answer.pattern is not None and answer.pattern.source == "llm"
    assert [a.label for a in answer.answers][:1] == ["Japanese"]
    assert [m for m, _ in llm.calls] == ["generate_json"]


def test_pattern_schema_allows_only_vocabulary_and_linked_constants(graph: QAGraph) -> None:
    qa = QuestionAnswerer(graph)
    spans = qa.linker.link("who directed Paprika")
    schema = qa.pattern_schema(spans)
    triple = schema["properties"]["triples"]["items"]["properties"]
    assert set(triple["relation"]["enum"]) == set(graph.relation_labels)
    assert set(triple["head"]["enum"]) == {"Paprika", "?answer", "?x1", "?x2", "?x3"}
    # a model writing a relation outside the vocabulary is rejected by validation, and the grounded strategy answers
    llm = ScriptedLLM([_pattern(("Paprika", "made by", "?answer"))])
    answer = QuestionAnswerer(graph, llm=llm).ask("who directed Paprika", strategy="pattern")
    assert answer.strategy == "pattern+fallback" and answer.pattern is not None
    assert answer.pattern.source == "baseline" and answer.answers[0].label == "Satoshi Kon"


def test_pattern_without_answer_variable_falls_back(graph: QAGraph) -> None:
    llm = ScriptedLLM([_pattern(("Paprika", "directed by", "?x1"))])
    answer = QuestionAnswerer(graph, llm=llm).ask("who directed Paprika", strategy="pattern")
    assert answer.strategy == "pattern+fallback" and answer.answers[0].label == "Satoshi Kon"


def test_llm_choice_picks_among_top_candidates(graph: QAGraph) -> None:
    qa = QuestionAnswerer(graph)
    question = "who directed Paprika"
    spans = qa.linker.link(question)
    from kgsvc.qa.pipeline import QAOptions

    ranked = qa.ranker.rank(question, spans, QAOptions())
    assert ranked[0].text == "directed by →"
    second = "Paprika " + ranked[1].text
    llm = ScriptedLLM([second])
    answer = QuestionAnswerer(graph, llm=llm).ask(question, llm_choice=True)
    assert llm.calls[0][0] == "choose"
    assert [t.relation for t in answer.pattern.triples] != ["directed by"]  # type: ignore[union-attr]


def test_exemplars_vote_for_their_signature(graph: QAGraph) -> None:
    exemplars = [
        Exemplar("who wrote Perfect Blue", ("Perfect Blue",), (("Perfect Blue", "written by", "?x"),), "?x"),
        Exemplar("who wrote Inception", ("Inception",), (("Inception", "written by", "?x"),), "?x"),
    ]
    qa = QuestionAnswerer(graph, exemplars=ExemplarSet.build(exemplars, graph.embed))
    answer = qa.ask("who wrote Tokyo Godfathers")
    assert answer.pattern is not None and answer.pattern.source == "candidate"
    assert {a.label for a in answer.answers if a.gsd == answer.answers[0].gsd} == {"Keiko Nobumoto", "Satoshi Kon"}
