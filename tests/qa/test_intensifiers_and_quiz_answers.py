"""Issue 16, 2026-11-29 (sixth session): two English forms read from the MetaQA 1-hop misses, tried on a film graph of
our own. "who *in the world* wrote X" is "who wrote X": main linked "the world" to the films whose titles hold it and
answered their genre; "X is a film written by *this person*" (a quiz's answer slot) asks for the writer: main walked
on from the writer to the films that star them (:func:`kgsvc.qa.question_form.as_question`)."""

from __future__ import annotations

import pytest

from kgsvc.qa.pipeline import MAX_MENTIONS, MAX_QUESTION_CHARS, QuestionAnswerer, _main_spans
from kgsvc.qa.question_form import as_question
from tests.qa.conftest import zero_shot_answerer

FILMS = [
    ("Harbour Lights", "written by", "Ada Brennan"),
    ("Harbour Lights", "directed by", "Tom Keller"),
    ("Harbour Lights", "starred actors", "Ada Brennan"),
    ("Harbour Lights", "starred actors", "Lena Sauer"),
    ("Harbour Lights", "has genre", "Drama"),
    ("Night Ferry", "written by", "Ada Brennan"),
    ("Night Ferry", "starred actors", "Ada Brennan"),
    ("Night Ferry", "has genre", "Thriller"),
    ("Copper Town", "written by", "Paul Marsh"),
    ("Copper Town", "directed by", "Paul Marsh"),
    ("Copper Town", "starred actors", "Lena Sauer"),
    ("Copper Town", "has genre", "Western"),
    ("The World", "written by", "Iris Vance"),
    ("The World", "has genre", "Drama"),
    ("The Lost World", "written by", "Oskar Lind"),
    ("The Lost World", "has genre", "Adventure"),
    ("The New World", "directed by", "Tom Keller"),
    ("The New World", "has genre", "Drama"),
    ("Earth", "written by", "Iris Vance"),
    ("Earth", "has genre", "Documentary"),
]


@pytest.fixture(scope="module")
def qa() -> QuestionAnswerer:
    return zero_shot_answerer(FILMS, "quizfilms")


def _labels(qa: QuestionAnswerer, question: str) -> list[str]:
    answer = qa.ask(question)
    assert answer.grounded, answer.text
    return sorted(a.label or a.value for a in answer.answers)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("who in the world wrote Copper Town", ["Paul Marsh"]),
        ("who in the world wrote Night Ferry?", ["Ada Brennan"]),
        ("Night Ferry is a film written by this person", ["Ada Brennan"]),
        ("Harbour Lights is a film written by this person.", ["Ada Brennan"]),
    ],
)
def test_the_intensifier_and_the_quiz_answer_are_read_as_plain_questions(
    qa: QuestionAnswerer, question: str, expected: list[str]
) -> None:
    assert _labels(qa, question) == expected


def test_titles_and_other_forms_are_left_alone(qa: QuestionAnswerer) -> None:
    """Guards (these pass on main too): "the world" as a title, "this person" after a question word, a title holding
    "Who", and forms main already read."""
    assert _labels(qa, "who wrote The World") == ["Iris Vance"]
    assert _labels(qa, "what on earth is the genre of Copper Town") == ["Western"]
    assert _labels(qa, "Harbour Lights is a film directed by this person") == ["Tom Keller"]
    assert as_question("In the world of X, who won?").text == "In the world of X, who won?"
    assert as_question("who directed this person's film").text == "who directed this person's film"


def test_a_title_s_capitalised_question_word_is_no_question_word() -> None:
    assert as_question("He Who Gets Slapped is a film written by this person").text.rstrip() == (
        "He Who Gets Slapped is a film written by whom"
    )


def test_a_name_repeated_to_the_length_limit_is_read_with_a_bounded_number_of_mentions(qa: QuestionAnswerer) -> None:
    """Found fuzzing 1,000-character questions: "earth earth …" linked the film *Earth* 166 times, and ranking read a
    view and an alignment per mention (11 s); the question is now read with its best :data:`MAX_MENTIONS`."""
    question = ("earth " * 170)[:MAX_QUESTION_CHARS]
    spans = qa.linker.link(question)
    assert len(spans) > MAX_MENTIONS
    kept = _main_spans(spans, 0.0)
    assert len(kept) == MAX_MENTIONS and kept == sorted(kept, key=lambda s: s.start)
    answer = qa.ask(question)  # answered or refused, with no error
    assert len(answer.mentions) <= MAX_MENTIONS
