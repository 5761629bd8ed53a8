"""Issue 16, 2026-11-26 (onehop): a verb whose object is the linked entity is not read in the noun's phrase (a small
film graph of our own built from triples as the benchmarks' are, the bundled MiniLM, no exemplars; answers checked
against the triples).

The phrase reading of ``GraphLexicon.context`` ("what is the … of something") is for relational nouns: "job" ↔
*profession*. Read there, the verb "described" of "which films can be described by X" came out closest to *in
language* (0.45 in the phrase against 0.36 for the next label), by more than the margin, and paid for a second step
from X's films to their languages. A word right before the entity, or before a preposition other than "of" before it,
takes the entity as its object (:func:`kgsvc.qa.zeroshot.predicates`, :data:`~kgsvc.qa.zeroshot.OF_PREDICATE`) and
keeps its bare reading only. (The graph has a rating relation: without one, "films" alone reads as *starred actors*
and adds a step. Written in Turtle, the graph's ``rdfs:label`` is a relation too, and "described by eerie" reads it,
on main and here alike: the tag's own label, one step; hence triples.)
"""

from __future__ import annotations

import pytest

from kgsvc.qa.align import question_tokens
from kgsvc.qa.pipeline import QuestionAnswerer
from kgsvc.qa.zeroshot import predicates
from tests.qa.conftest import top_signature, zero_shot_answerer

FILMS = [
    *[("Night Harbour", r, o) for r, o in [("written_by", "Ada Vell"), ("directed_by", "Tom Reis")]],
    *[("Night Harbour", r, o) for r, o in [("starred_actors", "Ivy Lund"), ("has_genre", "Noir")]],
    *[("Night Harbour", r, o) for r, o in [("in_language", "Danish"), ("release_year", "1961")]],
    *[("Night Harbour", r, o) for r, o in [("has_tags", "eerie"), ("has_tags", "rain"), ("has_imdb_rating", "good")]],
    *[("Salt Road", r, o) for r, o in [("written_by", "Eva Dorn"), ("directed_by", "Ben Kraft")]],
    *[("Salt Road", r, o) for r, o in [("starred_actors", "Rob Tan"), ("has_genre", "Western")]],
    *[("Salt Road", r, o) for r, o in [("in_language", "Polish"), ("release_year", "1964")]],
    *[("Salt Road", r, o) for r, o in [("has_tags", "eerie"), ("has_imdb_rating", "bad")]],
    *[("Glass Tide", r, o) for r, o in [("written_by", "Cy Moor"), ("directed_by", "Tom Reis")]],
    *[("Glass Tide", r, o) for r, o in [("starred_actors", "Ivy Lund"), ("has_genre", "Noir")]],
    *[("Glass Tide", r, o) for r, o in [("in_language", "Danish"), ("release_year", "1966")]],
    *[("Glass Tide", r, o) for r, o in [("has_tags", "rain"), ("has_imdb_rating", "good")]],
]


@pytest.fixture(scope="module")
def films() -> QuestionAnswerer:
    return zero_shot_answerer(FILMS, "reels")


def _top(qa: QuestionAnswerer, question: str) -> set[str]:
    answer = qa.ask(question)
    assert answer.grounded
    best = answer.answers[0].gsd
    return {a.label for a in answer.answers if a.gsd == best}


def test_a_verb_before_the_entity_adds_no_step(films: QuestionAnswerer) -> None:
    """The films tagged "eerie" (has tags, walked back), not the languages of those films: on main the path
    *has tags* ← then *in language* → won, "described" read as *in language*."""
    expected = {h for h, r, t in FILMS if r == "has_tags" and t == "eerie"}
    assert expected == {"Night Harbour", "Salt Road"}
    assert top_signature(films, "which films can be described by eerie") == ((("has tags", False),),)
    assert _top(films, "which films can be described by eerie") == expected


def test_a_relation_verb_keeps_its_step(films: QuestionAnswerer) -> None:
    """A guard: a verb that names its relation bare ("directed") still reads it."""
    expected = {h for h, r, t in FILMS if r == "directed_by" and t == "Tom Reis"}
    assert _top(films, "which films were directed by Tom Reis") == expected


@pytest.mark.parametrize(
    ("masked", "word", "tagged"),
    [
        ("which films can be described by X", "described", True),
        ("describe X in a few words", "describe", True),
        ("what is the job of X", "job", False),
        ("what is X 's job", "job", False),
    ],
)
def test_the_word_whose_object_is_the_entity(masked: str, word: str, tagged: bool) -> None:
    tokens, masks = question_tokens(masked)
    assert (tokens.index(word) in predicates(tokens, masks)) is tagged
