"""The question path with no exemplars: hops, relations and their order come from the question and the graph's own
relation labels (:mod:`kgsvc.qa.zeroshot`), on a small film graph of our own (real MiniLM embeddings)."""

from __future__ import annotations

import pytest

from kgsvc.qa.align import question_tokens, reading_order
from kgsvc.qa.graph import load_embedder
from kgsvc.qa.pipeline import QuestionAnswerer
from kgsvc.qa.zeroshot import RETURN, GraphLexicon, mark_returns, phrasings
from tests.qa.conftest import top_signature, zero_shot_answerer

KB = [
    ("Night Train", "directed_by", "Ada Brook"),
    ("Night Train", "starred_actors", "Tom Vale"),
    ("Night Train", "starred_actors", "Lia Moss"),
    ("Night Train", "written_by", "Sam Reed"),
    ("Night Train", "in_language", "French"),
    ("Blue Harbour", "directed_by", "Ben Cole"),
    ("Blue Harbour", "starred_actors", "Tom Vale"),
    ("Blue Harbour", "written_by", "Sam Reed"),
    ("Blue Harbour", "release_year", "1999"),
    ("Blue Harbour", "in_language", "German"),
    ("Cold Summer", "directed_by", "Ada Brook"),
    ("Cold Summer", "starred_actors", "Ivo Pike"),
    ("Cold Summer", "written_by", "Una Hale"),
    ("Cold Summer", "release_year", "2004"),
    ("Cold Summer", "has_genre", "Drama"),
    ("Red Field", "directed_by", "Cy Dunn"),
    ("Red Field", "written_by", "Una Hale"),
    ("Red Field", "starred_actors", "Lia Moss"),
    ("Red Field", "has_genre", "Comedy"),
]


@pytest.fixture(scope="module")
def qa() -> QuestionAnswerer:
    return zero_shot_answerer(KB, "films")


@pytest.mark.parametrize(
    ("question", "steps"),
    [
        ("who directed Night Train", [("directed by", True)]),
        ("which films did Tom Vale act in", [("starred actors", False)]),
        # the second relation's words are what a one-hop path leaves unexplained
        ("who directed the movies starring Tom Vale", [("starred actors", False), ("directed by", True)]),
        ("what languages are the films written by Sam Reed in", [("written by", False), ("in language", True)]),
        ("when were the films directed by Ada Brook released", [("directed by", False), ("release year", True)]),
        # "X 's R" and a relation walked there and back for "same" / "also"
        ("which films share the director of Cold Summer", [("directed by", True), ("directed by", False)]),
        (
            "what genres are the films written by the writer of Cold Summer",
            [("written by", True), ("written by", False), ("has genre", True)],
        ),
    ],
)
def test_no_exemplars_reads_hops_and_order_from_the_question(
    qa: QuestionAnswerer, question: str, steps: list[tuple[str, bool]]
) -> None:
    assert top_signature(qa, question) == (tuple(steps),)


def test_the_answer_of_a_two_hop_question_without_exemplars(qa: QuestionAnswerer) -> None:
    answer = qa.ask("who directed the movies starring Tom Vale")
    assert answer.grounded
    best = answer.answers[0].gsd
    assert {a.label for a in answer.answers if a.gsd == best} == {"Ada Brook", "Ben Cole"}


def test_without_the_zero_shot_terms_the_two_hop_question_is_read_as_one_hop(qa: QuestionAnswerer) -> None:
    """The measured failure of issue 16: similarity and a hop penalty alone stop at the first relation."""
    assert len(top_signature(qa, "who directed the movies starring Tom Vale", w_zero=0.0)[0]) == 1


def test_graph_lexicon_prefers_the_relation_a_word_names() -> None:
    labels = ["directed by", "starred actors", "written by", "release year"]
    lexicon = GraphLexicon(embed=load_embedder(), labels=labels)
    assert lexicon.prob("director", ("directed by", True)) > lexicon.prob("director", ("written by", True))
    assert lexicon.prob("wrote", ("written by", True)) > lexicon.prob("wrote", ("starred actors", True))
    # a word close to every relation of a film graph names none of them
    assert lexicon.prob("films", ("starred actors", False)) < lexicon.prob("actors", ("starred actors", False))
    assert lexicon.prob("the", ("directed by", True)) < 1e-6 < lexicon.prob("the", ("", False))
    # a share cue explains only a step that walks its neighbour's relation back
    assert lexicon.prob("same", ("directed by" + RETURN, False)) > 1 > lexicon.prob("same", ("directed by", False))


def test_mark_returns_and_phrasings() -> None:
    marked = mark_returns([("written by", True), ("written by", False), ("has genre", True)])
    assert [k.endswith(RETURN) for k, _ in marked] == [True, True, False]
    texts = phrasings([("written by", True), ("has genre", True)])
    assert texts[0] == "the has genre of the written by of X" and all("X" in t for t in texts)


def test_trailing_words_after_the_entity_read_first() -> None:
    tokens, masks = question_tokens("who directed the films of X actors")
    plain = [tokens[i] for i, _ in reading_order(tokens, masks)]
    trailing = [tokens[i] for i, _ in reading_order(tokens, masks, trailing=True)]
    assert plain[0] == "films" and trailing[0] == "actors"
