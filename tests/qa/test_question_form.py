"""Issue 16, 2026-11-27: a request written as a command read as the question it asks, and "who" wherever it is the
question's own word (:mod:`kgsvc.qa.question_form`). The third held-out Nobel batch asked in commands ("Name
everyone who …", "Tell me where …", "Tell me the cities of …"): main read "Name" as the relation *family name*,
asked no class for "Tell me the cities …", and answered prizes to "With whom did X share …" and "Of the winners
born in Rome, who …"."""

from __future__ import annotations

import pytest

from kgsvc.qa.question_form import as_question, asks_who


@pytest.mark.parametrize(
    ("request_", "question"),
    [
        ("Name everyone who received the 1945 Nobel in literature.", "who received the 1945 Nobel in literature."),
        ("Tell me where George Hitchings was born.", "where George Hitchings was born."),
        ("Tell me which Nobel laureates died in Russia.", "which Nobel laureates died in Russia."),
        ("Name the prize winners who were at X.", "which prize winners who were at X."),
        ("Tell me the cities of the institutions in X.", "what are the cities of the institutions in X."),
        ("Name the birthplaces of the laureates of X.", "what are the birthplaces of the laureates of X."),
        ("Please list all films by X", "which films by X"),
        ("Give me all of the films X starred in", "which films X starred in"),
        ("Tell me the number of films by X", "the number of films by X"),
        ("Show me those who won in 1950", "who won in 1950"),
        ("I'd like to know the country that Arequipa belongs to.", "which country that Arequipa belongs to."),
        ("Could you tell me Edward Purcell's affiliation?", "what is Edward Purcell's affiliation?"),
        ("I want to know when X was born", "when X was born"),
        ("Tell me Émile Zola's birthplace", "what is Émile Zola's birthplace"),
        ("Find out who won the prize", "who won the prize"),
    ],
)
def test_a_command_is_read_as_its_question(request_: str, question: str) -> None:
    assert as_question(request_).text == question


@pytest.mark.parametrize(
    "question",
    [
        "Who won the 2011 economics prize?",
        "Name of the director of X?",  # "name" as a noun
        "Count the laureates born in X.",  # a count: kgsvc.qa.kinds reads it
        "Tell me about X",
        "name a soccer club that has a player from Mexico ?",  # an example asked for: "name a *club*" is read
        "can you name a film directed by Mel Stuart",
        "Show Boat was directed by whom?",  # titles that open with a command word
        "Find Me Guilty starred which actors",
        "Tell No One was directed by who",
        "NAME THE WINNERS",
        "I wonder if X won",
        "Tell me everything about X",
        "What films did X direct?",
    ],
)
def test_a_question_is_left_as_written(question: str) -> None:
    form = as_question(question)
    assert form.text == question and form.original_span(4, 9) == (4, 9)


def test_spans_map_back_to_the_request_as_written() -> None:
    request_ = "Name the prize winners born in Tarn."
    form = as_question(request_)
    start = form.text.index("Tarn")
    assert form.original_span(start, start + 4) == (request_.index("Tarn"), request_.index("Tarn") + 4)
    assert form.original_span(0, 5) == (9, 9)  # the "which" written in place of "Name the"


@pytest.mark.parametrize(
    ("question", "who"),
    [
        ("Who won the 2011 economics prize?", True),
        ("whom did X marry", True),
        ("With whom did Hans Jensen share the Nobel Prize?", True),
        ("Of the Nobel winners born in Rome, who received their prize earliest?", True),
        ("X was directed by who?", True),
        ("Which films of people who acted in X?", False),
        ("What did Marie Curie, who was born in Warsaw, discover?", False),
        ("Among the laureates born in X, whom did Y marry?", True),
        ("What did the director who made X write?", False),
    ],
)
def test_who_asks_for_a_person_where_it_is_the_question_word(question: str, who: bool) -> None:
    assert asks_who(question) is who
