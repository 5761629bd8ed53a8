"""Issue 16, 2026-11-28, Nobel n252 ("What two-letter country code does the graph give the USSR (now Belarus)?"): a
relation whose label opens with a class's name (*country code*, class *Country*). main read "country" as the class
asked for and answered the countries that share X's code (X → code → ← code), or walked there through
``owl:sameAs`` first. A small graph of our own in Turtle, the bundled MiniLM, no exemplars, answers checked against
hand-written SPARQL. The second phrasing fails on the code before the change; the first one and the share cue
guard what already worked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kgsvc
from tests.qa.conftest import hand_answers, indexed_turtle

TURTLE = """\
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .

ex:Country rdfs:label "Country" .
ex:Person rdfs:label "Person" .
ex:countryCode rdfs:label "country code" .
ex:birthPlace rdfs:label "birth place" .
ex:country rdfs:label "country" .
ex:University rdfs:label "University" .
ex:name rdfs:label "name" .
ex:Ruritania a ex:Country ; rdfs:label "Ruritania (now Vellonia)" ; ex:countryCode "VL" .
ex:Grand a ex:Country ; rdfs:label "Grand Duchy (now Vellonia)" ; ex:countryCode "VL" .
ex:Vellonia a ex:Country ; rdfs:label "Vellonia" ; ex:countryCode "VL" .
ex:Osterlich a ex:Country ; rdfs:label "Osterlich" ; ex:countryCode "OS" .
<http://other.org/Ruritania> owl:sameAs ex:Ruritania .
ex:Ann a ex:Person ; rdfs:label "Ann Brill" ; ex:birthPlace ex:Ruritania .
ex:Bob a ex:Person ; rdfs:label "Bob Crane" ; ex:birthPlace ex:Osterlich .
ex:Uni a ex:University ; rdfs:label "Zenda University" ; ex:country ex:Ruritania .
ex:Tech a ex:University ; rdfs:label "Strel Institute" ; ex:country ex:Osterlich .
ex:Ruritania ex:name "Ruritania (now Vellonia)" .
ex:Grand ex:name "Grand Duchy (now Vellonia)" .
"""
EX = "http://example.org/"


@pytest.fixture(scope="module")
def codes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[kgsvc.KG]:
    with indexed_turtle(tmp_path_factory.mktemp("codes"), "codes", TURTLE) as kg:
        yield kg


@pytest.mark.parametrize(
    "question",
    [
        "What is the country code of Ruritania (now Vellonia)?",
        "What two-letter country code does the graph give Ruritania (now Vellonia)?",
    ],
)
def test_a_class_word_that_opens_a_relation_label(codes: kgsvc.KG, question: str) -> None:
    assert hand_answers(codes, f"SELECT ?x WHERE {{ <{EX}Ruritania> <{EX}countryCode> ?x }}", "codes") == ["VL"]
    answer = codes.ask(question, dataset="codes")
    assert answer.grounded and [a.value for a in answer.answers] == ["VL"], (answer.text, answer.sparql)


def test_sharing_a_code_is_still_read_with_a_share_cue(codes: kgsvc.KG) -> None:
    """With "same", walking to the code and back is what is asked."""
    code = f"<{EX}countryCode>"
    query = f"SELECT ?x WHERE {{ <{EX}Ruritania> {code} ?c . ?x {code} ?c FILTER(?x != <{EX}Ruritania>) }}"
    expected = hand_answers(codes, query, "codes")
    assert expected == [f"{EX}Grand", f"{EX}Vellonia"]
    answer = codes.ask("Which countries have the same country code as Ruritania (now Vellonia)?", dataset="codes")
    assert answer.grounded and sorted(a.value for a in answer.answers) == expected, (answer.text, answer.sparql)
