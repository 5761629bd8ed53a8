"""Questions beyond lookups (issue 17): each kind's answer, evidence and SPARQL agree with a hand-written SPARQL
query on the same real store — on the bundled sample graph and on a small graph of typed literals written here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from kgsvc.llm.base import ScriptedLLM
from kgsvc.qa.aggregate import sort_key, value_kind
from kgsvc.qa.kinds import classify
from kgsvc.qa.options import QAOptions
from kgsvc.qa.result import Answer
from kgsvc.qa.service import answerer_for
from tests.qa.conftest import indexed_turtle

EX = "https://kgsvc.local/sample/"
NS = "https://kgsvc.local/kinds/"


def _values(kg: kgsvc.KG, query: str, dataset: str, var: str) -> list[str]:
    return [row[var].value for row in kg.sparql(query, dataset=dataset).rows]


def _ask(kg: kgsvc.KG, query: str, dataset: str) -> bool | None:
    return kg.sparql(query, dataset=dataset).boolean


# -- classification and values (no store) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "spans", "kind"),
    [
        ("How many films did Satoshi Kon direct?", [(19, 30)], "count"),
        ("Number of films directed by Satoshi Kon?", [(28, 39)], "count"),
        ("Did Satoshi Kon direct Paprika?", [(4, 15), (23, 30)], "ask"),
        ("Was Paprika released before Spirited Away?", [(4, 11), (29, 42)], "comparison"),
        ("Was Paprika released after 2000?", [(4, 11)], "comparison"),
        ("Which film by Akira Kurosawa was released first?", [(14, 28)], "ordering"),
        ("Who was born first, Satoshi Kon or Hayao Miyazaki?", [(20, 31), (35, 49)], "ordering"),
        ("Between Satoshi Kon and Hayao Miyazaki, who was born more recently?", [(8, 19), (24, 38)], "ordering"),
        ("Did Satoshi Kon work between Paprika and Perfect Blue?", [(4, 15), (29, 36), (41, 53)], "ask"),
        ("What is the average release year of films by Satoshi Kon?", [(45, 56)], "unsupported"),
        ("who acted in The Last of the Mohicans", [(13, 37)], "lookup"),  # a cue word inside a mention
        ("is X 's husband a man or a woman ?", [(3, 4)], "lookup"),  # an alternative question
        ("can you name a film directed by Mel Stuart", [(32, 42)], "lookup"),  # a request
        ("what is the first name of Satoshi Kon", [(26, 37)], "lookup"),
    ],
)
def test_classify(question: str, spans: list[tuple[int, int]], kind: str) -> None:
    assert classify(question, spans).kind == kind


def test_literals_compare_by_value_with_a_fallback() -> None:
    assert value_kind("1942-10-21", "http://www.w3.org/2001/XMLSchema#dateTimes") == "date"
    assert value_kind("2003", "http://www.w3.org/2001/XMLSchema#gYear") == "year"
    assert value_kind("4.5", "http://www.w3.org/2001/XMLSchema#decimal") == "number"
    assert sort_key("9.5", "number") < sort_key("10.25", "number")  # type: ignore[operator]  # not as text
    assert sort_key("1900-00-00", "date") is None and sort_key("c. 1850", "number") is None


# -- the sample graph ---------------------------------------------------------------------------------------------


def test_lookup_lists_the_chosen_patterns_answers_only(indexed_kg: kgsvc.KG) -> None:
    answer = indexed_kg.ask("who directed Tokyo Godfathers", dataset="sample")
    assert [a.label for a in answer.answers] == ["Satoshi Kon"]
    assert all(t.relation.label == "directed by" for ev in answer.evidence for t in ev.triples)


def test_count(indexed_kg: kgsvc.KG) -> None:
    answer = indexed_kg.ask("How many films did Satoshi Kon direct?", dataset="sample")
    assert answer.grounded and answer.kind == "count"
    hand = f"SELECT (COUNT(DISTINCT ?f) AS ?n) WHERE {{ ?f <{EX}directedBy> <{EX}person_Satoshi_Kon> }}"
    expected = _values(indexed_kg, hand, "sample", "n")[0]
    assert answer.answers[0].value == expected == "3"
    assert answer.sparql is not None and _values(indexed_kg, answer.sparql, "sample", "count") == [expected]
    assert {ev.answer.value for ev in answer.evidence if ev.answer} == {i.value for i in answer.items}
    assert answer.text.startswith("3 (")


@pytest.mark.parametrize(
    ("question", "truth", "hand"),
    [
        (
            "Did Satoshi Kon direct Paprika?",
            True,
            f"ASK {{ <{EX}film_Paprika> <{EX}directedBy> <{EX}person_Satoshi_Kon> }}",
        ),
        (
            "Did Hayao Miyazaki direct Paprika?",
            False,
            f"ASK {{ <{EX}film_Paprika> <{EX}directedBy> <{EX}person_Hayao_Miyazaki> }}",
        ),
    ],
)
def test_yes_no(indexed_kg: kgsvc.KG, question: str, truth: bool, hand: str) -> None:
    answer = indexed_kg.ask(question, dataset="sample")
    assert answer.grounded and answer.kind == "ask" and answer.truth is truth
    assert _ask(indexed_kg, hand, "sample") is truth
    assert answer.sparql is not None and _ask(indexed_kg, answer.sparql, "sample") is truth
    assert answer.evidence  # the fact itself, or what the graph holds instead
    if truth:
        assert any(t.tail.label == "Satoshi Kon" for t in answer.evidence[0].triples)
    else:
        assert "no such fact in the graph" in answer.text and "not a fact about the world" in answer.text


def test_ordering(indexed_kg: kgsvc.KG) -> None:
    answer = indexed_kg.ask("Which film by Akira Kurosawa was released first?", dataset="sample")
    assert answer.grounded and answer.kind == "ordering"
    hand = (
        f"SELECT ?f WHERE {{ ?f <{EX}directedBy> <{EX}person_Akira_Kurosawa> ; <{EX}releaseYear> ?y }} "
        "ORDER BY ASC(?y) LIMIT 1"
    )
    expected = _values(indexed_kg, hand, "sample", "f")
    assert [a.value for a in answer.answers] == expected == [f"{EX}film_Rashomon"]
    assert answer.sparql is not None and _values(indexed_kg, answer.sparql, "sample", "answer") == expected
    assert answer.answers[0].ranked_by is not None and answer.answers[0].ranked_by.value == "1950"
    years = [int(i.ranked_by.value) for i in answer.items if i.ranked_by is not None]
    assert years == sorted(years) and len(years) == 3
    assert answer.pattern is not None and answer.pattern.order_by == "release year"
    assert answer.pattern.descending is False and answer.pattern.limit == 1


@pytest.mark.parametrize(
    "question",
    [
        "Who was born first, Satoshi Kon or Hayao Miyazaki?",
        "Between Satoshi Kon and Hayao Miyazaki, who was born earlier?",  # 2026-11-27 (Nobel n150)
    ],
)
def test_choice_between_two(indexed_kg: kgsvc.KG, question: str) -> None:
    answer = indexed_kg.ask(question, dataset="sample")
    assert answer.grounded and [a.label for a in answer.answers] == ["Hayao Miyazaki"]
    assert answer.sparql is not None
    assert _values(indexed_kg, answer.sparql, "sample", "answer") == [f"{EX}person_Hayao_Miyazaki"]


@pytest.mark.parametrize(
    ("question", "truth", "hand"),
    [
        (
            "Was Paprika released before Spirited Away?",
            False,
            f"ASK {{ <{EX}film_Paprika> <{EX}releaseYear> ?a . <{EX}film_Spirited_Away> <{EX}releaseYear> ?b "
            "FILTER(?a < ?b) }",
        ),
        (
            "Was Paprika released after 2000?",
            True,
            f"ASK {{ <{EX}film_Paprika> <{EX}releaseYear> ?a FILTER(?a > "
            '"2000"^^<http://www.w3.org/2001/XMLSchema#gYear>) }',
        ),
    ],
)
def test_comparison(indexed_kg: kgsvc.KG, question: str, truth: bool, hand: str) -> None:
    answer = indexed_kg.ask(question, dataset="sample")
    assert answer.grounded and answer.kind == "comparison" and answer.truth is truth
    assert _ask(indexed_kg, hand, "sample") is truth
    assert answer.sparql is not None and _ask(indexed_kg, answer.sparql, "sample") is truth
    assert answer.items and all(i.ranked_by is not None for i in answer.items)


def test_lookup_with_a_filter(indexed_kg: kgsvc.KG) -> None:
    answer = indexed_kg.ask("Which films did Satoshi Kon direct after 2000?", dataset="sample")
    hand = (
        f"SELECT ?f WHERE {{ ?f <{EX}directedBy> <{EX}person_Satoshi_Kon> ; <{EX}releaseYear> ?y "
        'FILTER(?y > "2000"^^<http://www.w3.org/2001/XMLSchema#gYear>) }'
    )
    expected = set(_values(indexed_kg, hand, "sample", "f"))
    assert {a.value for a in answer.answers} == expected == {f"{EX}film_Paprika", f"{EX}film_Tokyo_Godfathers"}
    assert answer.sparql is not None and set(_values(indexed_kg, answer.sparql, "sample", "answer")) == expected


def test_both_x_and_y_is_a_conjunction(indexed_kg: kgsvc.KG) -> None:
    answer = indexed_kg.ask("Which films did both Toshiro Mifune and Akira Kurosawa work on?", dataset="sample")
    assert answer.pattern is not None and len(answer.pattern.triples) == 2
    assert answer.sparql is not None
    assert {a.value for a in answer.answers} == set(_values(indexed_kg, answer.sparql, "sample", "answer"))
    assert {a.label for a in answer.answers} == {"Seven Samurai", "Rashomon", "Yojimbo"}


@pytest.mark.parametrize(
    "question",
    [
        "What is the average release year of films by Satoshi Kon?",
        "Which film by Satoshi Kon is the second oldest?",
        "How many films were released after 2000?",  # no entity to start from, only a number
    ],
)
def test_unsupported_kind_is_refused(indexed_kg: kgsvc.KG, question: str) -> None:
    answer = indexed_kg.ask(question, dataset="sample")
    assert not answer.grounded and answer.answers == [] and answer.truth is None
    assert answer.reason is not None and answer.reason.startswith("this kind of question is not supported")
    assert answer.text.startswith("No grounded answer: this kind of question is not supported")


# -- a graph of typed literals ------------------------------------------------------------------------------------

TYPED = f"""@prefix : <{NS}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:track rdfs:label "track" . :length rdfs:label "length" . :birthDate rdfs:label "birth date" .
:member rdfs:label "member of" .
:Blue_Moon rdfs:label "Blue Moon" .
:Blue_Moon :track :Song_A , :Song_B , :Song_C .
:Song_A rdfs:label "Opening Song" ; :length "9.5"^^xsd:decimal .
:Song_B rdfs:label "Middle Song" ; :length "10.25"^^xsd:decimal .
:Song_C rdfs:label "Closing Song" ; :length "3.0"^^xsd:decimal .
:Ada_Quill rdfs:label "Ada Quill" ; :birthDate "1942-10-21"^^xsd:dateTimes ; :member :Blue_Moon .
:Ben_Marsh rdfs:label "Ben Marsh" ; :birthDate "1939-01-02"^^xsd:dateTimes ; :member :Blue_Moon .
:Cy_Drum rdfs:label "Cy Drum" ; :birthDate "1900-00-00"^^xsd:dateTimes ; :member :Blue_Moon .
:onAlbum rdfs:label "on album" . :released rdfs:label "release date" .
:Red_Sun rdfs:label "Red Sun" ; :released "1965-03-01"^^xsd:date .
:Blue_Moon :released "1970-05-08"^^xsd:date .
:Song_A :onAlbum :Blue_Moon .
:Song_D rdfs:label "Sunset Song" ; :length "4.0"^^xsd:decimal ; :onAlbum :Red_Sun .
"""


@pytest.fixture(scope="module")
def typed_kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("typed"), "typed", TYPED) as kg:
        yield kg


def _agrees(kg: kgsvc.KG, answer: Answer, hand: str) -> list[str]:
    expected = _values(kg, hand, "typed", "x")
    assert answer.sparql is not None and _values(kg, answer.sparql, "typed", "answer") == expected
    assert [a.value for a in answer.answers] == expected
    return expected


def test_numbers_order_by_value_not_text(typed_kg: kgsvc.KG) -> None:
    answer = typed_kg.ask("What is the longest track on Blue Moon?", dataset="typed")
    hand = f"SELECT ?x WHERE {{ <{NS}Blue_Moon> <{NS}track> ?x . ?x <{NS}length> ?l }} ORDER BY DESC(?l) LIMIT 1"
    assert _agrees(typed_kg, answer, hand) == [f"{NS}Song_B"]  # 10.25 > 9.5 (as text "9.5" > "10.25")


def test_odd_date_datatype_compares_as_dates_and_bad_dates_drop_out(typed_kg: kgsvc.KG) -> None:
    answer = typed_kg.ask("Who is the oldest member of Blue Moon?", dataset="typed")
    hand = (
        "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
        f"SELECT ?x WHERE {{ ?x <{NS}member> <{NS}Blue_Moon> ; <{NS}birthDate> ?d "
        "BIND(xsd:date(STR(?d)) AS ?k) FILTER(BOUND(?k)) } ORDER BY ASC(?k) LIMIT 1"
    )
    assert _agrees(typed_kg, answer, hand) == [f"{NS}Ben_Marsh"]
    assert {i.label for i in answer.items} == {"Ada Quill", "Ben Marsh"}  # "1900-00-00" has no date value


def test_count_on_typed_graph(typed_kg: kgsvc.KG) -> None:
    answer = typed_kg.ask("How many members does Blue Moon have?", dataset="typed")
    assert answer.kind == "count" and answer.answers[0].value == "3"
    assert answer.sparql is not None and _values(typed_kg, answer.sparql, "typed", "count") == ["3"]


def test_llm_pattern_declares_the_kind(indexed_kg: kgsvc.KG) -> None:
    """The pattern schema carries the kind; a count declared by the LLM is answered as a count, by value."""
    answerer = answerer_for(indexed_kg, "sample", QAOptions())
    spans = answerer.linker.link("films of Satoshi Kon")
    schema = answerer.pattern_schema(spans)
    assert schema["properties"]["kind"]["enum"] == ["lookup", "count", "ask", "ordering", "comparison"]
    assert "release year" in schema["properties"]["order_by"]["enum"]
    previous = answerer.llm
    answerer.llm = ScriptedLLM(
        ['{"triples": [{"head": "?answer", "relation": "directed by", "tail": "Satoshi Kon"}], "kind": "count"}']
    )
    try:
        answer = answerer.ask("films of Satoshi Kon", strategy="pattern")
    finally:
        answerer.llm = previous
    assert answer.kind == "count" and answer.answers[0].value == "3"
    assert answer.sparql is not None and _values(indexed_kg, answer.sparql, "sample", "count") == ["3"]


def test_a_value_one_step_away(typed_kg: kgsvc.KG) -> None:
    """The songs have no date of their own: their albums' release dates are compared (a two-step attribute)."""
    answer = typed_kg.ask("Which was released first, Opening Song or Sunset Song?", dataset="typed")
    hand = (
        f"SELECT ?x WHERE {{ VALUES ?x {{ <{NS}Song_A> <{NS}Song_D> }} ?x <{NS}onAlbum> ?a . ?a <{NS}released> ?d }} "
        "ORDER BY ASC(?d) LIMIT 1"
    )
    assert _agrees(typed_kg, answer, hand) == [f"{NS}Song_D"]
    assert answer.pattern is not None and answer.pattern.order_by == "on album release date"
    assert all(len(ev.triples) == 2 for ev in answer.evidence)
    answer = typed_kg.ask("Was Opening Song released before Sunset Song?", dataset="typed")
    assert answer.truth is False and answer.sparql is not None
    assert typed_kg.sparql(answer.sparql, dataset="typed").boolean is False
