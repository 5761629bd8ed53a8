"""Issue 16, 2026-11-29 (fourth): readings found on the misses of the Nobel questions (held-out batches 26 and 27
among them), on the graph of ``test_clauses_and_titles`` with three more of the Nobel graph's shapes: a prize reached
from a laureate by two parallel relations (*awarded* beside *laureate award*), two laureates of one prize, and a
web page for every city. The bundled MiniLM, no exemplars, answers checked against hand-written SPARQL. Each fails on
the code before it:

* **"did any laureate die in X"** asks whether anything relates to X as the question says: yes or no by the relation
  the words name, whether X holds it or not; before, a question with one mention was refused ("needs two things");
* **the people who shared X's prize are not X**: a walk that comes back to its entity by a parallel relation is
  walking back (X –*awarded*→ prize ←*laureate award*– X); before, X's own death place was an answer, and the
  SPARQL shown now says so (``FILTER (?x2 != X)``);
* **"the web pages of the cities they died in"**: a class noun a value is asked of is passed, and the node that
  passes it typed; before, the path stopped at the laureates' own pages;
* **"how many" after a verb** ("X's country of birth has produced how many laureates?") is a count; before, a lookup
  that listed them;
* **"who" after a colon** ("The 1911 prize: who got it?") asks for a person, not a given name;
* **a nickname in parentheses** ("Al Gore" for *Albert Arnold (Al) Gore Jr.*);
* **"has X won the Nobel more than once"** compares the number of X's values with a number (yes/no); before,
  refused ("needs two things");
* **"did X die before Y was born"** compares X's death date with Y's birth date, each mention's own words naming
  its date; before, one date for both (their birth dates);
* **"X's death city", "X's city of death"**: a class noun beside a word that names another relation is that
  relation's value of the class, not a step of its own (here *city*, the institutions' relation), and "what is
  X's …" asks for that class;
* **every entity named as written is a condition** ("Who at Leiden University won a Nobel in physics?"): before,
  a path from the university alone (all its laureates) ranked first;
* **"how many laureates besides X …"** counts laureates ("besides" ends the counted noun), and "*his* death city"
  is X's.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from kgsvc.qa.link import person_forms
from tests.qa.conftest import answer_values, hand_answers, indexed_turtle
from tests.qa.test_clauses_and_titles import CITIES, EX, PEOPLE, TURTLE

#: Gore shares Asser's 1911 prize; every laureate also has the prize by *awarded*; places have web pages; below,
#: Asser's second prize and two lives' dates, then fields and prizes credited to institutions.
MORE = "\n".join(
    [
        'ex:awarded rdfs:label "awarded" .',
        *[f"ex:{k} ex:awarded ex:P{k} ." for k in PEOPLE],
        'ex:Gore a ex:Laureate , ex:Person ; ex:givenName "Albert Arnold (Al)" ; ex:familyName "Gore Jr." ; '
        'ex:name "Albert Arnold (Al) Gore Jr." ; '
        "ex:birthPlace ex:Aberdeen ; ex:deathPlace ex:Groningen ; ex:laureateAward ex:PAsser ; ex:awarded ex:PAsser .",
        *[f"ex:{k} ex:page <http://pages.example.org/city/{k}> ." for k in CITIES],
        "ex:Netherlands ex:page <http://pages.example.org/country/Netherlands> .",
        # a second prize of Asser's, and the dates of two lives
        "ex:Asser ex:laureateAward ex:PAsser2 ; ex:awarded ex:PAsser2 . ex:PAsser2 a ex:NobelPrize ; "
        'rdfs:label "Nobel 1920 Asser" ; ex:year "1920" ; ex:award ex:Asser .',
        'ex:birthDate rdfs:label "birth date" . ex:deathDate rdfs:label "death date" .',
        'ex:Lorentz ex:birthDate "1853-07-18"^^xsd:date ; ex:deathDate "1928-02-04"^^xsd:date .',
        'ex:Zernike ex:birthDate "1888-07-16"^^xsd:date ; ex:deathDate "1966-03-10"^^xsd:date .',
        # fields, and prizes credited to institutions (sch:award and sch:awarded of the Nobel graph)
        'ex:category rdfs:label "category" . ex:award rdfs:label "award" .',
        'ex:physics rdfs:label "physics" . ex:peace rdfs:label "peace" . ex:economics rdfs:label "economics" .',
        *[
            f"ex:P{k} ex:category ex:{field} ; ex:award ex:{k} , ex:{PEOPLE[k][4]} . "
            f"ex:{PEOPLE[k][4]} ex:awarded ex:P{k} ."
            for k, field in [
                ("Asser", "peace"),
                ("Lorentz", "physics"),
                ("Onnes", "physics"),
                ("Tinbergen", "economics"),
            ]
        ],
    ]
)
DATASET = "others"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("others"), DATASET, TURTLE + "\n" + MORE) as kg:
        yield kg


def _hand(kg: kgsvc.KG, where: str) -> list[str]:
    return hand_answers(kg, f"SELECT DISTINCT ?x WHERE {{ {where} }}", DATASET)


def _ask(kg: kgsvc.KG, query: str) -> bool:
    return bool(kg.sparql(query, dataset=DATASET).boolean)


@pytest.mark.parametrize(
    ("question", "place", "truth"),
    [
        ("Did any laureate die in Haarlem?", "Haarlem", True),
        ("Did any laureate ever die in Nijkerk?", "Nijkerk", False),  # Nijkerk: a birth place only
        ("Did anyone die in Edzell?", "Edzell", True),
        ("Was any laureate ever born in Haarlem?", "Haarlem", False),  # Haarlem: a death place only
    ],
)
def test_did_any_laureate_die_in_a_place(graph: kgsvc.KG, question: str, place: str, truth: bool) -> None:
    relation = "birthPlace" if "born" in question else "deathPlace"
    assert _ask(graph, f"ASK {{ ?x <{EX}{relation}> <{EX}{place}> }}") is truth
    answer = graph.ask(question, dataset=DATASET)
    assert answer.grounded and answer.kind == "ask", answer.text
    assert [a.label for a in answer.answers] == ["yes" if truth else "no"], answer.text
    assert answer.sparql is not None and _ask(graph, answer.sparql) is truth  # the ASK it shows says the same


def test_the_people_who_shared_a_prize_are_not_its_laureate_again(graph: kgsvc.KG) -> None:
    expected = _hand(
        graph,
        f"<{EX}Asser> <{EX}laureateAward> ?p . ?o <{EX}laureateAward> ?p ; <{EX}deathPlace> ?x "
        f"FILTER(?o != <{EX}Asser>)",
    )
    assert expected == [f"{EX}Groningen"]  # Asser's own death places: The Hague and the Netherlands
    answer = graph.ask("Where did the people who shared Tobias Asser's Nobel Prize die?", dataset=DATASET)
    assert answer_values(answer) == expected
    assert answer.sparql is not None and f"!= <{EX}Asser>" in answer.sparql
    assert hand_answers(graph, answer.sparql.replace("?answer", "?x"), DATASET) == expected


def test_the_pages_of_the_cities_they_died_in(graph: kgsvc.KG) -> None:
    expected = _hand(
        graph, f"?l <{EX}laureateAward> <{EX}PLorentz> ; <{EX}deathPlace> ?c . ?c a <{EX}City> ; <{EX}page> ?x"
    )
    assert expected == ["http://pages.example.org/city/Haarlem"]
    question = "For the laureates of the Nobel 1902 Lorentz, what are the web pages of the cities they died in?"
    answer = graph.ask(question, dataset=DATASET)
    assert answer_values(answer) == expected


def test_how_many_after_a_verb_is_a_count(graph: kgsvc.KG) -> None:
    query = f"SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{ ?x <{EX}deathPlace> <{EX}TheHague> }}"
    expected = graph.sparql(query, dataset=DATASET).rows[0]["n"].value
    assert expected == "2"
    answer = graph.ask("The Hague is the place of death of how many laureates?", dataset=DATASET)
    assert answer.kind == "count" and [a.value for a in answer.answers] == [expected], answer.text


def test_who_after_a_colon_asks_for_a_person(graph: kgsvc.KG) -> None:
    expected = _hand(graph, f"?x <{EX}laureateAward> <{EX}PZernike>")
    assert expected == [f"{EX}Zernike"]
    answer = graph.ask("Nobel 1953 Zernike: who got it?", dataset=DATASET)
    assert answer_values(answer) == expected


def test_a_nickname_in_parentheses(graph: kgsvc.KG) -> None:
    assert person_forms("Albert Arnold (Al) Gore Jr.")[-1] == "Al Gore"
    answer = graph.ask("Where did Al Gore die?", dataset=DATASET)
    assert answer_values(answer) == [f"{EX}Groningen"]
    assert [m.text for m in answer.mentions] == ["Al Gore"]


@pytest.mark.parametrize(
    ("question", "truth"),
    [
        ("Has Tobias Asser won the Nobel more than once?", True),
        ("Did Hendrik Lorentz win more than one Nobel Prize?", False),
        ("Has Tobias Asser won at least two Nobel Prizes?", True),
        ("Is Tobias Asser tied to more than one institution?", False),
    ],
)
def test_more_than_once_counts_the_entity_s_values(graph: kgsvc.KG, question: str, truth: bool) -> None:
    person = "Asser" if "Asser" in question else "Lorentz"
    relation = "memberOf" if "institution" in question else "laureateAward"
    count = f"SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{ <{EX}{person}> <{EX}{relation}> ?x }}"
    query = f"ASK {{ {{ {count} }} FILTER(?n > 1) }}"
    assert _ask(graph, query) is truth
    answer = graph.ask(question, dataset=DATASET)
    assert answer.kind == "comparison" and [a.label for a in answer.answers] == ["yes" if truth else "no"], answer.text
    assert answer.sparql is not None and _ask(graph, answer.sparql) is truth


@pytest.mark.parametrize(
    ("question", "truth"),
    [
        ("Did Hendrik Lorentz die before Frits Zernike was born?", False),  # 1928 / 1888; births 1853 < 1888
        ("Was Frits Zernike born before Hendrik Lorentz died?", True),
        ("Had Hendrik Lorentz already died by the time Frits Zernike was born?", False),
    ],
)
def test_each_mention_s_own_date(graph: kgsvc.KG, question: str, truth: bool) -> None:
    answer = graph.ask(question, dataset=DATASET)
    assert answer.kind == "comparison" and [a.label for a in answer.answers] == ["yes" if truth else "no"], answer.text
    assert answer.sparql is not None and _ask(graph, answer.sparql) is truth


@pytest.mark.parametrize(
    ("question", "person"),
    [("What is Hendrik Lorentz's death city?", "Lorentz"), ("What was Tobias Asser's city of death?", "Asser")],
)
def test_a_class_noun_beside_a_relation_word_is_its_value(graph: kgsvc.KG, question: str, person: str) -> None:
    expected = _hand(graph, f"<{EX}{person}> <{EX}deathPlace> ?x . ?x a <{EX}City>")
    assert len(expected) == 1  # the Netherlands is a death place too, and not a city
    assert answer_values(graph.ask(question, dataset=DATASET)) == expected


@pytest.mark.parametrize(
    "question",
    ["Who at Leiden University won a Nobel in physics?", "Which Leiden University laureates won the physics prize?"],
)
def test_every_entity_named_is_a_condition(graph: kgsvc.KG, question: str) -> None:
    expected = _hand(graph, f"?x <{EX}memberOf> <{EX}Leiden> ; <{EX}laureateAward>/<{EX}category> <{EX}physics>")
    assert expected == [f"{EX}Lorentz", f"{EX}Onnes"]  # Leiden University's laureates: Asser (peace) too
    assert answer_values(graph.ask(question, dataset=DATASET)) == expected


def test_how_many_besides_counts_the_noun(graph: kgsvc.KG) -> None:
    query = (
        f"SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{ <{EX}Asser> <{EX}deathPlace> ?c . ?c a <{EX}City> . "
        f"?x <{EX}deathPlace> ?c ; a <{EX}Laureate> FILTER(?x != <{EX}Asser>) }}"
    )
    expected = graph.sparql(query, dataset=DATASET).rows[0]["n"].value
    assert expected == "1"  # Tinbergen
    answer = graph.ask("How many laureates besides Tobias Asser died in his death city?", dataset=DATASET)
    assert answer.kind == "count" and [a.value for a in answer.answers] == [expected], answer.text
