"""Grounded-candidate ranking with the order-aware alignment, on a small family graph (real MiniLM embeddings)."""

from __future__ import annotations

import numpy as np
import pytest

from kgsvc.qa.exemplars import Exemplar, ExemplarSet, mask_question
from kgsvc.qa.graph import QAGraph, load_embedder
from kgsvc.qa.pipeline import QuestionAnswerer
from tests.qa.conftest import top_signature

KB = [
    ("anna", "parents", "bert"),
    ("bert", "children", "anna"),
    ("bert", "children", "fred"),
    ("fred", "parents", "bert"),
    ("bert", "parents", "carl"),
    ("carl", "children", "bert"),
    ("anna", "children", "dora"),
    ("dora", "parents", "anna"),
    ("dora", "parents", "erik"),
    ("erik", "children", "dora"),
]


def _exemplar(question: str, *relations: str) -> Exemplar:
    nodes = ["zed", *[f"?x{i}" for i in range(1, len(relations))], "?a"]
    triples = tuple((nodes[i], r, nodes[i + 1]) for i, r in enumerate(relations))
    return Exemplar(question, ("zed",), triples, "?a")


EXEMPLARS = [
    _exemplar("who is the dad of zed", "parents"),
    _exemplar("who is zed 's mom", "parents"),
    _exemplar("who is the kid of zed", "children"),
    _exemplar("what is zed 's son", "children"),
    _exemplar("who is the mom of zed 's kid", "children", "parents"),
    _exemplar("who is the kid of zed 's dad", "parents", "children"),
    _exemplar("who is the dad of zed 's mom", "parents", "parents"),
    _exemplar("who is the son of zed 's son", "children", "children"),
]


@pytest.fixture(scope="module")
def qa() -> QuestionAnswerer:
    embed = load_embedder()
    graph = QAGraph.from_triples(KB, base_iri="https://kgsvc.local/family/", embed=embed, name="family")
    return QuestionAnswerer(graph, exemplars=ExemplarSet.build(EXEMPLARS, embed))


def _top(qa: QuestionAnswerer, question: str, **options: float) -> tuple[tuple[tuple[str, bool], ...], ...]:
    # a curated set that covers the questions' wording: its lexicon and votes count fully whatever its size
    return top_signature(qa, question, **{"align_full_at": 0, "vote_full_at": 0, **options})


@pytest.mark.parametrize(
    ("question", "steps"),
    [
        # a strict xfail until 2026-11-26 (mqpq): the 3-step walk anna → bert → anna → dora aligned "the" with a
        # third step (docs/benchmarks.md, walks before/after); "son" now reads as *children* in the zero-shot
        # lexicon (a relational noun read in a phrase, kgsvc.qa.zeroshot), so the 2-step path explains more
        ("the son of anna 's mom", [("parents", True), ("children", True)]),
        ("anna 's mom 's son", [("parents", True), ("children", True)]),
        ("who is the mom of anna 's son", [("children", True), ("parents", True)]),
        ("who is the mom of anna 's mom", [("parents", True), ("parents", True)]),
    ],
)
def test_the_relation_order_follows_the_question(
    qa: QuestionAnswerer, question: str, steps: list[tuple[str, bool]]
) -> None:
    assert _top(qa, question) == (tuple(steps),)


def test_alignment_posterior_prefers_the_question_order(qa: QuestionAnswerer) -> None:
    question = "who is the mom of anna 's son"
    spans = qa.linker.link(question)
    masked = mask_question(question, [(s.start, s.end) for s in spans])
    right = ((("children", True), ("parents", True)),)
    wrong = ((("parents", True), ("children", True)),)
    scores = qa.ranker.alignment_scores(masked, [right, wrong])
    assert scores[0] - scores[1] > np.log(9)  # a posterior above 0.9 for the question's order


def test_without_exemplars_there_is_no_lexicon(qa: QuestionAnswerer) -> None:
    bare = QuestionAnswerer(qa.graph)
    assert bare.ranker.lexicon is None
    assert bare.ranker.alignment_scores("who is the mom of X 's son", [((("parents", True),),)]).tolist() == [0.0]
